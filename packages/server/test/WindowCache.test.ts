import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as WindowCache from "../src/publicpages/WindowCache.js"

/** A build that counts its runs and finishes only when the test says so. */
const gatedBuild = Effect.gen(function* () {
  const gate = yield* Deferred.make<void>()
  let runs = 0
  const build = Effect.gen(function* () {
    runs++
    yield* Deferred.await(gate)
    return `value ${runs}`
  })
  return { gate, build, runs: () => runs }
})

describe("WindowCache", () => {
  it.live("an asker that goes away does not take the build with it: the others and later askers get the value", () =>
    Effect.gen(function* () {
      const cache = yield* WindowCache.make<string>(60_000)
      const { gate, build, runs } = yield* gatedBuild
      const first = yield* Effect.fork(cache.get("page", build))
      const second = yield* Effect.fork(cache.get("page", build))
      yield* Effect.yieldNow()
      // The first request's client closes its connection: its fiber is interrupted while the build runs.
      yield* Fiber.interrupt(first)
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(second)).toBe("value 1")
      expect(yield* cache.get("page", build)).toBe("value 1")
      expect(runs()).toBe(1)
    })
  )

  it.live("one build per window however many ask; peek sees only a settled value", () =>
    Effect.gen(function* () {
      const cache = yield* WindowCache.make<string>(60_000)
      const { gate, build, runs } = yield* gatedBuild
      const askers = yield* Effect.forEach(Array.from({ length: 20 }), () => Effect.fork(cache.get("page", build)))
      yield* Effect.yieldNow()
      expect(cache.peek("page", Date.now())).toBeUndefined()
      yield* Deferred.succeed(gate, undefined)
      const values = yield* Effect.forEach(askers, Fiber.join)
      expect(new Set(values)).toEqual(new Set(["value 1"]))
      expect(runs()).toBe(1)
      expect(cache.peek("page", Date.now())).toEqual({ value: "value 1" })
      expect(cache.peek("other", Date.now())).toBeUndefined()
    })
  )

  it.live("a failed build is forgotten: the next asker builds again", () =>
    Effect.gen(function* () {
      const cache = yield* WindowCache.make<string>(60_000)
      let runs = 0
      const flaky = Effect.suspend(() => (++runs === 1 ? Effect.dieMessage("database away") : Effect.succeed("back")))
      const failed = yield* Effect.exit(cache.get("page", flaky))
      expect(Exit.isFailure(failed)).toBe(true)
      expect(cache.peek("page", Date.now())).toBeUndefined()
      expect(yield* cache.get("page", flaky)).toBe("back")
      expect(runs).toBe(2)
    })
  )

  it.live("a value lives its window, then the next asker builds a new one", () =>
    Effect.gen(function* () {
      const cache = yield* WindowCache.make<number>(100)
      let runs = 0
      const build = Effect.sync(() => ++runs)
      expect(yield* cache.get("page", build)).toBe(1)
      expect(yield* cache.get("page", build)).toBe(1)
      const builtAt = Date.now()
      expect(cache.peek("page", builtAt + 1_000)).toBeUndefined()
      yield* Effect.sleep("150 millis")
      expect(yield* cache.get("page", build)).toBe(2)
    })
  )
})
