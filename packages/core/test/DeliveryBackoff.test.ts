import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import * as DeliveryBackoff from "../src/DeliveryBackoff.js"

const policy = DeliveryBackoff.defaultPolicy

const delay = (attempt: number, jitter: number, p = policy): number => {
  const next = DeliveryBackoff.afterFailure(p, attempt, jitter)
  return next._tag === "Retry" ? next.delay_ms : Number.NaN
}

describe("DeliveryBackoff", () => {
  it("ceilings double from 30 s to an hour", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 11].map((a) => DeliveryBackoff.ceiling(policy, a))).toEqual([
      30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_600_000, 3_600_000, 3_600_000
    ])
  })

  it("the delay is half the ceiling plus the jitter's share of the other half", () => {
    expect(delay(1, 0)).toBe(15_000)
    expect(delay(1, 1)).toBe(30_000)
    expect(delay(3, 0.5)).toBe(90_000)
    expect(delay(11, 1)).toBe(3_600_000)
    // Jitter outside [0, 1] is held to it.
    expect(delay(1, -3)).toBe(15_000)
    expect(delay(1, 7)).toBe(30_000)
    expect(delay(1, Number.NaN)).toBe(15_000)
  })

  it("the 12th failed attempt dead-letters; the 11th still retries", () => {
    expect(DeliveryBackoff.afterFailure(policy, 11, 0.3)._tag).toBe("Retry")
    expect(DeliveryBackoff.afterFailure(policy, 12, 0.3)).toEqual({ _tag: "DeadLetter" })
    expect(DeliveryBackoff.afterFailure(policy, 40, 0.3)).toEqual({ _tag: "DeadLetter" })
  })

  const policyArb = FastCheck.record({
    base_ms: FastCheck.integer({ min: 1, max: 60_000 }),
    cap_ms: FastCheck.integer({ min: 60_000, max: 86_400_000 }),
    max_attempts: FastCheck.integer({ min: 1, max: 40 })
  })

  it.prop(
    "for one jitter the delay never shrinks from one attempt to the next and never passes the cap",
    {
      p: policyArb,
      attempt: FastCheck.integer({ min: 1, max: 60 }),
      jitter: FastCheck.double({ min: 0, max: 1, noNaN: true })
    },
    ({ p, attempt, jitter }) => {
      const now = DeliveryBackoff.afterFailure(p, attempt, jitter)
      const later = DeliveryBackoff.afterFailure(p, attempt + 1, jitter)
      if (attempt >= p.max_attempts) {
        expect(now._tag).toBe("DeadLetter")
        expect(later._tag).toBe("DeadLetter")
        return
      }
      expect(now._tag).toBe("Retry")
      const ms = delay(attempt, jitter, p)
      expect(ms).toBeLessThanOrEqual(p.cap_ms)
      expect(ms).toBeGreaterThanOrEqual(Math.floor(DeliveryBackoff.ceiling(p, attempt) / 2))
      if (later._tag === "Retry") expect(later.delay_ms).toBeGreaterThanOrEqual(ms)
      else expect(attempt + 1).toBe(p.max_attempts)
    }
  )
})
