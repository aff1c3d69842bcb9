import { describe, expect, it } from "@effect/vitest"
import * as DateTime from "effect/DateTime"
import * as FastCheck from "effect/FastCheck"
import * as PingRateLimit from "../../src/heartbeat/PingRateLimit.js"

const t0 = 1_795_000_000_000
const at = (ms: number): DateTime.Utc => DateTime.unsafeMake(t0 + ms)

// Feeds pings at the given offsets (milliseconds, any order is taken as given) to one bucket.
const replay = (offsets: ReadonlyArray<number>, limit: PingRateLimit.Limit = PingRateLimit.PING_LIMIT) => {
  let bucket: PingRateLimit.Bucket | undefined
  return offsets.map((offset) => {
    const taken = PingRateLimit.take(bucket, at(offset), limit)
    bucket = taken.bucket
    return taken.decision
  })
}

const allowed = (decisions: ReadonlyArray<PingRateLimit.Decision>): number =>
  decisions.filter((decision) => decision._tag === "Allowed").length

describe("PingRateLimit", () => {
  it("a fresh token takes a burst of 10 at once; the 11th is refused with Retry-After 1", () => {
    const decisions = replay(Array.from({ length: 11 }, () => 0))
    expect(allowed(decisions)).toBe(10)
    expect(decisions[0]).toEqual(PingRateLimit.Decision.Allowed({ remaining: 9 }))
    expect(decisions[9]).toEqual(PingRateLimit.Decision.Allowed({ remaining: 0 }))
    expect(decisions[10]).toEqual(PingRateLimit.Decision.Limited({ retry_after_secs: 1 }))
  })

  it("refills at 1 per second: after the burst, one more ping a second", () => {
    const burst = Array.from({ length: 10 }, () => 0)
    expect(replay([...burst, 999]).at(-1)?._tag).toBe("Limited")
    expect(replay([...burst, 1000]).at(-1)?._tag).toBe("Allowed")
    expect(allowed(replay([...burst, 1000, 1000, 2000, 2500, 3000]))).toBe(13)
  })

  it("a refused ping spends nothing, and an idle bucket refills to the burst, no further", () => {
    expect(allowed(replay([...Array.from({ length: 20 }, () => 0), 1000]))).toBe(11)
    expect(allowed(replay([0, ...Array.from({ length: 12 }, () => 3_600_000)]))).toBe(11)
    const { bucket } = PingRateLimit.take(undefined, at(0))
    expect(PingRateLimit.isFull(bucket, at(999))).toBe(false)
    expect(PingRateLimit.isFull(bucket, at(1000))).toBe(true)
  })

  it("a clock stepping back adds nothing", () => {
    const burst = Array.from({ length: 10 }, () => 5000)
    expect(
      replay([...burst, 0, 5999])
        .slice(-2)
        .map((d) => d._tag)
    ).toEqual(["Limited", "Limited"])
  })

  // Ping times built from gaps: bursts at the same instant, quick trickles, and idle spells that refill the bucket.
  const gap = FastCheck.oneof(
    FastCheck.constant(0),
    FastCheck.integer({ min: 0, max: 1500 }),
    FastCheck.integer({ min: 0, max: 60_000 })
  )
  const times = FastCheck.array(gap, { maxLength: 300 }).map((gaps) => {
    let now = 0
    return gaps.map((g) => (now += g))
  })

  it.prop(
    "never more than burst + elapsed seconds allowed, over any stretch of pings",
    [times, FastCheck.integer({ min: 1, max: 20 }), FastCheck.integer({ min: 1, max: 5 })],
    ([offsets, burst, perSecond]) => {
      const limit = { burst, per_second: perSecond }
      const decisions = replay(offsets, limit)
      // Every window [i, j]: the bucket may have been full at i, then refilled for the time between.
      for (let i = 0; i < offsets.length; i++) {
        let count = 0
        for (let j = i; j < offsets.length; j++) {
          if (decisions[j]?._tag === "Allowed") count++
          const elapsed = ((offsets[j] ?? 0) - (offsets[i] ?? 0)) / 1000
          expect(count).toBeLessThanOrEqual(burst + elapsed * perSecond)
        }
      }
    }
  )

  it.prop(
    "waiting the Retry-After it was given is always enough",
    [times, FastCheck.integer({ min: 1, max: 20 }), FastCheck.integer({ min: 1, max: 5 })],
    ([offsets, burst, perSecond]) => {
      const limit = { burst, per_second: perSecond }
      let bucket: PingRateLimit.Bucket | undefined
      for (const offset of offsets) {
        const taken = PingRateLimit.take(bucket, at(offset), limit)
        bucket = taken.bucket
        if (taken.decision._tag === "Limited") {
          expect(taken.decision.retry_after_secs).toBeGreaterThanOrEqual(1)
          const retried = PingRateLimit.take(bucket, at(offset + taken.decision.retry_after_secs * 1000), limit)
          expect(retried.decision._tag).toBe("Allowed")
        }
      }
    }
  )
})
