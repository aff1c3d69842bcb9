import { describe, expect, it } from "@effect/vitest"
import * as LatencyHistogram from "../src/LatencyHistogram.js"

describe("LatencyHistogram", () => {
  it("puts each duration in a bucket whose representative is within 10% of it", () => {
    for (const ms of [1.5, 3, 10, 47, 120, 999, 5_000, 60_000]) {
      const got = LatencyHistogram.representative(LatencyHistogram.bucketOf(ms))
      expect(Math.abs(got - ms) / ms).toBeLessThan(0.1)
    }
    expect(LatencyHistogram.bucketOf(0)).toBe(0)
    expect(LatencyHistogram.bucketOf(10 ** 9)).toBe(LatencyHistogram.BUCKETS - 1)
  })

  it("merges element-wise, so quantiles of the merge equal quantiles of all the durations at once", () => {
    const a = Array.from({ length: 900 }, (_, i) => 10 + (i % 10))
    const b = Array.from({ length: 100 }, (_, i) => 500 + i)
    const merged = LatencyHistogram.merge(LatencyHistogram.of(a), LatencyHistogram.of(b))
    expect(merged).toEqual(LatencyHistogram.of([...a, ...b]))
    expect(merged.reduce((s, n) => s + n, 0)).toBe(1000)
    const p50 = LatencyHistogram.quantile(merged, 0.5) ?? 0
    const p99 = LatencyHistogram.quantile(merged, 0.99) ?? 0
    expect(p50).toBeGreaterThan(10 * 0.9)
    expect(p50).toBeLessThan(19 * 1.1)
    expect(p99).toBeGreaterThan(590 * 0.9)
    expect(p99).toBeLessThan(600 * 1.1)
  })

  it("has no quantile when empty, and treats a shorter array as zeros", () => {
    expect(LatencyHistogram.quantile(LatencyHistogram.empty(), 0.5)).toBeNull()
    expect(LatencyHistogram.merge([1, 2], LatencyHistogram.empty()).slice(0, 3)).toEqual([1, 2, 0])
  })
})
