/**
 * The offset a worker reads from a claim's clock readings (DatabaseClock): none for clocks in step, otherwise the
 * bound that never starts a check before its due time on the database's clock; and the clock it shifts.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as DatabaseClock from "../src/engine/DatabaseClock.js"

// A claim sent at 1000 on the worker's clock, answered at 1040: the database began it 10 ms in and made its rows
// 20 ms later, on a clock `skew` ahead of the worker's.
const readings = (skew: number) => ({
  sentMs: 1000,
  receivedMs: 1040,
  dbStartMs: 1010 + skew,
  dbEndMs: 1030 + skew
})

describe("DatabaseClock", () => {
  it("clocks in step within the round trip get no correction", () => {
    expect(DatabaseClock.offsetOf(readings(0))).toBe(0)
    expect(DatabaseClock.offsetOf(readings(5))).toBe(0)
    expect(DatabaseClock.offsetOf(readings(-8))).toBe(0)
  })

  it("a worker behind or ahead takes the lower bound: at most the round trip late, never early", () => {
    // The offset lies in [dbEnd - received, dbStart - sent] = [skew - 10, skew + 10].
    expect(DatabaseClock.offsetOf(readings(30_000))).toBe(29_990)
    expect(DatabaseClock.offsetOf(readings(-30_000))).toBe(-30_010)
  })

  it.effect("the shifted clock reads the database's time; a zero offset is the process's own clock", () =>
    Effect.gen(function* () {
      const before = Date.now()
      const ahead = yield* Effect.withClock(Clock.currentTimeMillis, DatabaseClock.shifted(30_000))
      const nanos = yield* Effect.withClock(Clock.currentTimeNanos, DatabaseClock.shifted(30_000))
      const after = Date.now()
      expect(ahead).toBeGreaterThanOrEqual(before + 30_000)
      expect(ahead).toBeLessThanOrEqual(after + 30_000)
      expect(Number(nanos / 1_000_000n)).toBeGreaterThanOrEqual(before + 30_000 - 1)
      expect(Number(nanos / 1_000_000n)).toBeLessThanOrEqual(after + 30_000 + 1)
      const own = yield* Effect.withClock(Clock.currentTimeMillis, DatabaseClock.shifted(0))
      expect(own).toBeGreaterThanOrEqual(before)
    })
  )
})
