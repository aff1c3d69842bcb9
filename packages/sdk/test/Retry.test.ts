import { assert, describe, it } from "@effect/vitest"
import * as Retry from "../src/internal/retry.js"

const now = Date.parse("2026-11-22T10:00:00.000Z")
const settings: Retry.RetrySettings = { retries: 2, baseDelayMs: 500, maxDelayMs: 60_000 }
const response = (status: number, retryAfter: string | null = null): Retry.Outcome => ({
  _tag: "Response",
  status,
  retryAfter
})

describe("Retry", () => {
  it("parseRetryAfter reads delta-seconds and HTTP dates, and nothing else", () => {
    assert.strictEqual(Retry.parseRetryAfter("120", now), 120_000)
    assert.strictEqual(Retry.parseRetryAfter(" 3 ", now), 3_000)
    assert.strictEqual(Retry.parseRetryAfter("0", now), 0)
    assert.strictEqual(Retry.parseRetryAfter("Sun, 22 Nov 2026 10:00:30 GMT", now), 30_000)
    // A date already past means now, not a negative wait.
    assert.strictEqual(Retry.parseRetryAfter("Sun, 22 Nov 2026 09:59:00 GMT", now), 0)
    for (const unreadable of ["soon", "1.5", "-1", "", "2026-11-22", "Sun, 22 Nov 2026 10:00:30"]) {
      assert.isUndefined(Retry.parseRetryAfter(unreadable, now), unreadable)
    }
    assert.isUndefined(Retry.parseRetryAfter(null, now))
    assert.isUndefined(Retry.parseRetryAfter(undefined, now))
  })

  it("without an idempotency key only 429 and 503 are retried; with one, every 5xx, lost connection and timeout", () => {
    const cases: ReadonlyArray<readonly [Retry.Outcome, boolean, boolean]> = [
      [response(429), true, true],
      [response(503), true, true],
      [response(500), false, true],
      [response(502), false, true],
      [response(504), false, true],
      [response(400), false, false],
      [response(404), false, false],
      [response(409), false, false],
      [response(422), false, false],
      [response(200), false, false],
      [{ _tag: "NetworkError" }, false, true],
      [{ _tag: "Timeout" }, false, true]
    ]
    for (const [outcome, plain, keyed] of cases) {
      const label = outcome._tag === "Response" ? String(outcome.status) : outcome._tag
      assert.strictEqual(Retry.isRetryable(outcome, false), plain, `${label} without a key`)
      assert.strictEqual(Retry.isRetryable(outcome, true), keyed, `${label} with a key`)
    }
  })

  it("backoff doubles from the base with equal jitter and stops growing at the maximum", () => {
    assert.strictEqual(Retry.backoff(1, settings, 0), 250)
    assert.strictEqual(Retry.backoff(1, settings, 1), 500)
    assert.strictEqual(Retry.backoff(2, settings, 0), 500)
    assert.strictEqual(Retry.backoff(2, settings, 1), 1000)
    assert.strictEqual(Retry.backoff(3, settings, 0.5), 1500)
    assert.strictEqual(Retry.backoff(30, settings, 1), 60_000)
    assert.strictEqual(Retry.backoff(30, settings, 0), 30_000)
  })

  it("decide: Retry-After is waited exactly, backoff without it, nothing past the retries or the longest wait", () => {
    const base = { idempotent: false, settings, now, random: 1 }
    assert.deepStrictEqual(Retry.decide({ ...base, tries: 1, outcome: response(429, "2") }), {
      retry: true,
      delayMs: 2000
    })
    assert.deepStrictEqual(Retry.decide({ ...base, tries: 2, outcome: response(503) }), { retry: true, delayMs: 1000 })
    assert.deepStrictEqual(Retry.decide({ ...base, tries: 3, outcome: response(503) }), { retry: false })
    assert.deepStrictEqual(Retry.decide({ ...base, tries: 1, outcome: response(429, "61") }), { retry: false })
    assert.deepStrictEqual(Retry.decide({ ...base, tries: 1, outcome: response(500) }), { retry: false })
    assert.deepStrictEqual(Retry.decide({ ...base, idempotent: true, tries: 1, outcome: response(500, "1") }), {
      retry: true,
      delayMs: 1000
    })
    assert.deepStrictEqual(
      Retry.decide({ ...base, settings: { ...settings, retries: 0 }, tries: 1, outcome: response(429, "1") }),
      { retry: false }
    )
  })
})
