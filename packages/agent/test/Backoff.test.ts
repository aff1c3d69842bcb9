import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import * as Backoff from "../src/Backoff.js"

const policy: Backoff.Policy = { minMs: 500, maxMs: 30_000 }

describe("Backoff", () => {
  it("the ceiling doubles from minMs with each failure and stops at maxMs", () => {
    assert.deepStrictEqual(
      [0, 1, 2, 3, 4, 5, 6, 7, 100, 10_000].map((attempt) => Backoff.ceiling(policy, attempt)),
      [500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000, 30_000]
    )
  })

  it("full jitter: the delay is the draw's share of the ceiling, from 0 up to the ceiling", () => {
    assert.strictEqual(Backoff.delay(policy, 0, 0), 0)
    assert.strictEqual(Backoff.delay(policy, 0, 0.5), 250)
    assert.strictEqual(Backoff.delay(policy, 3, 0.999_999), 3999)
    assert.strictEqual(Backoff.delay(policy, 50, 0.5), 15_000)
    // Out-of-range draws are held to the bounds.
    assert.strictEqual(Backoff.delay(policy, 2, -1), 0)
    assert.strictEqual(Backoff.delay(policy, 2, 7), 2000)
  })

  it.effect("drawn delays stay within [0, ceiling] and spread over it", () =>
    Effect.gen(function* () {
      for (const attempt of [0, 1, 4, 6, 12]) {
        const top = Backoff.ceiling(policy, attempt)
        const delays: Array<number> = []
        for (let i = 0; i < 400; i++) delays.push(yield* Backoff.next(policy, attempt))
        assert.isTrue(delays.every((delay) => Number.isInteger(delay) && delay >= 0 && delay <= top))
        // Jittered, not fixed: both halves of the window are used.
        assert.isTrue(delays.some((delay) => delay < top / 2) && delays.some((delay) => delay >= top / 2))
      }
    }).pipe(Effect.withRandom(Random.make("backoff")))
  )
})
