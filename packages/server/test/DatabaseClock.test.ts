/**
 * The offset a worker reads from a claim's clock readings (DatabaseClock): none for clocks in step, otherwise the
 * bound that never starts a check before its due time on the database's clock; and the clock it shifts.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as DatabaseClock from "../src/engine/DatabaseClock.js"

// A claim sent at `sentMs` on the worker's clock and answered a round trip later: the database began it a quarter of
// the way in and made its rows a quarter before the end, on a clock `skew` ahead of the worker's.
const readings = (skew: number, sentMs = 1000, roundTripMs = 40) => ({
  sentMs,
  receivedMs: sentMs + roundTripMs,
  dbStartMs: sentMs + roundTripMs / 4 + skew,
  dbEndMs: sentMs + roundTripMs - roundTripMs / 4 + skew
})

const offset = (skew: number) => DatabaseClock.offsetOf(DatabaseClock.boundsOf(readings(skew)))

describe("DatabaseClock", () => {
  it("clocks in step within the round trip get no correction", () => {
    expect(offset(0)).toBe(0)
    expect(offset(5)).toBe(0)
    expect(offset(-8)).toBe(0)
  })

  it("a worker behind or ahead takes the lower bound: at most the round trip late, never early", () => {
    // The offset lies in [dbEnd - received, dbStart - sent] = [skew - 10, skew + 10].
    expect(offset(30_000)).toBe(29_990)
    expect(offset(-30_000)).toBe(-30_010)
  })

  it("claims narrow the bounds to the quickest round trip; bounds that no longer meet (a stepped clock) start again", () => {
    const slow = DatabaseClock.boundsOf(readings(30_000, 1000, 400))
    expect(DatabaseClock.offsetOf(slow)).toBe(29_900)
    const quick = DatabaseClock.narrow(slow, DatabaseClock.boundsOf(readings(30_000, 5000, 20)))
    expect(quick).toEqual({ low: 29_995, high: 30_005 })
    expect(
      DatabaseClock.offsetOf(DatabaseClock.narrow(quick, DatabaseClock.boundsOf(readings(30_000, 9000, 400))))
    ).toBe(29_995)
    // The machine's clock was set right: the next claim's bounds do not meet the old ones.
    const stepped = DatabaseClock.narrow(quick, DatabaseClock.boundsOf(readings(0, 20_000, 40)))
    expect(stepped).toEqual({ low: -10, high: 10 })
    expect(DatabaseClock.offsetOf(stepped)).toBe(0)
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
