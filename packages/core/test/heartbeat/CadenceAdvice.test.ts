import { describe, expect, it } from "@effect/vitest"
import * as DateTime from "effect/DateTime"
import * as FastCheck from "effect/FastCheck"
import * as CadenceAdvice from "../../src/heartbeat/CadenceAdvice.js"

const now = DateTime.unsafeMake("2026-11-22T10:00:00.000Z")
const ago = (seconds: number): DateTime.Utc => DateTime.unsafeMake(DateTime.toEpochMillis(now) - seconds * 1000)

// `count` successes every `gap` seconds, the last one now.
const every = (gap: number, count: number): ReadonlyArray<DateTime.Utc> =>
  Array.from({ length: count }, (_, i) => ago(gap * (count - 1 - i)))

describe("CadenceAdvice: the median", () => {
  it("is the middle value, or the mean of the middle two", () => {
    expect(CadenceAdvice.median([])).toBeUndefined()
    expect(CadenceAdvice.median([7])).toBe(7)
    expect(CadenceAdvice.median([3, 1, 2])).toBe(2)
    expect(CadenceAdvice.median([4, 1, 3, 2])).toBe(2.5)
    expect(CadenceAdvice.median([10, 10, 1000])).toBe(10)
  })

  const values = FastCheck.array(FastCheck.integer({ min: -1_000_000, max: 1_000_000 }), {
    minLength: 1,
    maxLength: 200
  })

  it.prop("at least half the values lie on each side of it", [values], ([xs]) => {
    const m = CadenceAdvice.median(xs) ?? Number.NaN
    expect(xs.filter((x) => x <= m).length * 2).toBeGreaterThanOrEqual(xs.length)
    expect(xs.filter((x) => x >= m).length * 2).toBeGreaterThanOrEqual(xs.length)
  })

  it.prop(
    "lies between the smallest and largest value and ignores order",
    [values, FastCheck.integer()],
    ([xs, seed]) => {
      const m = CadenceAdvice.median(xs) ?? Number.NaN
      expect(m).toBeGreaterThanOrEqual(Math.min(...xs))
      expect(m).toBeLessThanOrEqual(Math.max(...xs))
      const shuffled = [...xs].sort((a, b) => ((a * 31 + seed) % 7) - ((b * 31 + seed) % 7))
      expect(CadenceAdvice.median(shuffled)).toBe(m)
    }
  )

  it.prop("moves with a shift of every value", [values, FastCheck.integer({ min: -1000, max: 1000 })], ([xs, k]) => {
    expect(CadenceAdvice.median(xs.map((x) => x + k))).toBe((CadenceAdvice.median(xs) ?? 0) + k)
  })
})

describe("CadenceAdvice: the observed period", () => {
  it("is null until a second success, then the median gap in seconds", () => {
    expect(CadenceAdvice.observedPeriod([], now)).toBeNull()
    expect(CadenceAdvice.observedPeriod([ago(10)], now)).toBeNull()
    expect(CadenceAdvice.observedPeriod([ago(3600), now], now)).toBe(3600)
    // One late run does not move the median.
    expect(CadenceAdvice.observedPeriod([ago(10_800 + 5000), ago(7200), ago(3600), now], now)).toBe(3600)
  })

  it("counts only the last 14 days, whatever order the successes come in", () => {
    const old = ago(15 * 86_400)
    expect(CadenceAdvice.observedPeriod([now, old, ago(60)], now)).toBe(60)
    expect(CadenceAdvice.observedPeriod([old, now], now)).toBeNull()
  })
})

describe("CadenceAdvice: the advice", () => {
  it("is absent below five successes", () => {
    expect(CadenceAdvice.advise({ period: 60, grace: 0 }, every(7200, 4), now)).toBeUndefined()
    expect(CadenceAdvice.advise({ period: 60, grace: 0 }, every(7200, 5), now)).toBeDefined()
  })

  it("too_tight when the real cadence is slower than period + grace", () => {
    expect(CadenceAdvice.advise({ period: 3600, grace: 60 }, every(3700, 6), now)).toEqual({
      kind: "too_tight",
      suggested_period_secs: 3720
    })
    // On the edge: a cadence of exactly period + grace fits.
    expect(CadenceAdvice.advise({ period: 3600, grace: 100 }, every(3700, 6), now)).toBeUndefined()
  })

  it("too_loose when period + grace is at least 4 times the real cadence", () => {
    expect(CadenceAdvice.advise({ period: 86_400, grace: 0 }, every(3600, 6), now)).toEqual({
      kind: "too_loose",
      suggested_period_secs: 3600
    })
    expect(CadenceAdvice.advise({ period: 3600, grace: 0 }, every(900, 6), now)).toEqual({
      kind: "too_loose",
      suggested_period_secs: 900
    })
    expect(CadenceAdvice.advise({ period: 3500, grace: 0 }, every(900, 6), now)).toBeUndefined()
  })

  it("no advice when the suggestion is the declared period (a job faster than the 60 s floor)", () => {
    expect(CadenceAdvice.advise({ period: 60, grace: 0 }, every(10, 20), now)).toBeUndefined()
    expect(CadenceAdvice.advise({ period: 300, grace: 0 }, every(10, 20), now)).toEqual({
      kind: "too_loose",
      suggested_period_secs: 60
    })
  })
})
