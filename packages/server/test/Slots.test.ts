import { randomUUID } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import * as Slots from "../src/engine/Slots.js"

describe("engine Slots", () => {
  it("spreads a thousand monitors on one interval evenly over it", () => {
    const interval = 30
    const perSecond = new Array<number>(interval).fill(0)
    for (let i = 0; i < 3000; i++) {
      const phase = Slots.phaseMs(randomUUID(), interval)
      expect(phase).toBeGreaterThanOrEqual(0)
      expect(phase).toBeLessThan(interval * 1000)
      perSecond[Math.floor(phase / 1000)]! += 1
    }
    // 100 expected per second; a uniform spread keeps every second well within 50..150.
    expect(Math.min(...perSecond)).toBeGreaterThan(50)
    expect(Math.max(...perSecond)).toBeLessThan(150)
  })

  it("takes the phase from the id, the same in every process (mirrors engine_phase_ms)", () => {
    // 0x2e3f4a5b = 775899739, checked against the SQL function on PGlite.
    expect(Slots.phaseMs("0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", 3600)).toBe(775899739 % 3_600_000)
  })

  it("puts the first run on the target's grid at or after now", () => {
    const id = randomUUID()
    const now = 1_700_000_123_456
    const first = Slots.firstRunMs(id, 60, now)
    expect(first).toBeGreaterThanOrEqual(now)
    expect(first - now).toBeLessThan(60_000)
    expect((first - Slots.phaseMs(id, 60)) % 60_000).toBe(0)
    expect(Slots.firstRunMs(id, 60, first)).toBe(first)
  })

  it("schedules the next run from the due time, not the end of the run, and skips slots already past", () => {
    const due = 1_000_000
    expect(Slots.nextRunMs(due, 30, due + 2_500)).toBe(due + 30_000)
    expect(Slots.nextRunMs(due, 30, due + 30_000)).toBe(due + 60_000)
    expect(Slots.nextRunMs(due, 30, due + 95_000)).toBe(due + 120_000)
  })
})
