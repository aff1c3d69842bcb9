/**
 * The runner's permits (src/internal/permits.ts): the bound holds, waiters are served first come first served, a
 * release wakes exactly one waiter however many wait, and an interrupted wait takes nothing (and passes on a permit
 * it was handed in the same instant).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Permits from "../src/internal/permits.js"

// Lets every fiber that can run do so: a woken waiter runs on the next scheduler turn.
const settle = Effect.repeatN(Effect.yieldNow(), 20)

describe("Permits", () => {
  it.effect("hands out at most count permits; each release lets exactly one waiter in, in arrival order", () =>
    Effect.gen(function* () {
      const permits = Permits.make(2)
      const order: Array<number> = []
      yield* permits.take
      yield* permits.take
      const waiters = yield* Effect.forEach(
        Array.from({ length: 5000 }, (_, i) => i),
        (i) =>
          Effect.fork(
            Effect.zipRight(
              permits.take,
              Effect.sync(() => order.push(i))
            )
          ),
        { concurrency: 1 }
      )
      yield* settle
      assert.deepStrictEqual(order, [])
      permits.release()
      yield* settle
      assert.deepStrictEqual(order, [0])
      permits.release()
      permits.release()
      yield* settle
      assert.deepStrictEqual(order, [0, 1, 2])
      for (let i = 3; i < 5000; i++) permits.release()
      yield* Effect.forEach(waiters, Fiber.join, { discard: true })
      assert.strictEqual(order.length, 5000)
      assert.deepStrictEqual(
        order.slice(0, 10),
        Array.from({ length: 10 }, (_, i) => i)
      )
    })
  )

  it.effect("an interrupted waiter takes no permit: the next one in line gets it", () =>
    Effect.gen(function* () {
      const permits = Permits.make(1)
      yield* permits.take
      const first = yield* Effect.fork(permits.take)
      const got = yield* Deferred.make<void>()
      const second = yield* Effect.fork(Effect.zipRight(permits.take, Deferred.succeed(got, undefined)))
      yield* settle
      yield* Fiber.interrupt(first)
      permits.release()
      yield* Deferred.await(got)
      yield* Fiber.join(second)
      // The one permit is held by the second waiter: a third take must wait, and gets it on the next release.
      const third = yield* Effect.fork(permits.take)
      yield* settle
      assert.isTrue((yield* Fiber.poll(third))._tag === "None")
      permits.release()
      yield* Fiber.join(third)
    })
  )

  it.effect("a permit handed to a waiter as it is interrupted is passed on, not lost", () =>
    Effect.gen(function* () {
      const permits = Permits.make(1)
      yield* permits.take
      const first = yield* Effect.fork(permits.take)
      const second = yield* Effect.fork(permits.take)
      yield* settle
      // The release grants the first waiter and its interruption follows at once: either it was cut off in line
      // (the permit goes on to the second) or it took the permit first (then it holds one, given back here).
      permits.release()
      const exit = yield* Fiber.interrupt(first)
      if (exit._tag === "Success") permits.release()
      yield* Fiber.join(second)
      permits.release()
      // Exactly one permit exists: once given back it can be taken at once, and a second take waits.
      yield* permits.take
      const extra = yield* Effect.fork(permits.take)
      yield* settle
      assert.isTrue((yield* Fiber.poll(extra))._tag === "None")
      yield* Fiber.interrupt(extra)
    })
  )
})
