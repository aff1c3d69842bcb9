import { describe, expect, it } from "@effect/vitest"
import * as DateTime from "effect/DateTime"
import * as FastCheck from "effect/FastCheck"
import * as ReminderSchedule from "../src/ReminderSchedule.js"

describe("ReminderSchedule", () => {
  it("gaps double from the interval and stop at a day", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 50, 5000].map((n) => ReminderSchedule.gap(3600, n))).toEqual([
      3600, 7200, 14400, 28800, 57600, 86400, 86400, 86400, 86400
    ])
    expect([0, 1, 2].map((n) => ReminderSchedule.gap(60, n))).toEqual([60, 120, 240])
    expect(ReminderSchedule.gap(86400, 3)).toBe(86400)
    expect(ReminderSchedule.gap(50000, 1)).toBe(86400)
  })

  it("an interval over a day keeps its cadence; 0 sends none", () => {
    expect([0, 1, 9].map((n) => ReminderSchedule.gap(90000, n))).toEqual([90000, 90000, 90000])
    expect(ReminderSchedule.gap(0, 0)).toBeUndefined()
    expect(ReminderSchedule.nextAt(DateTime.unsafeMake(0), 0, 0)).toBeUndefined()
    const next = ReminderSchedule.nextAt(DateTime.unsafeMake("2026-11-22T10:00:00.000Z"), 600, 2)
    expect(next && DateTime.formatIso(next)).toBe("2026-11-22T10:40:00.000Z")
  })

  it.prop(
    "each gap doubles the previous one until the cap; an interval over a day never changes",
    { interval: FastCheck.integer({ min: 60, max: 1_000_000 }), n: FastCheck.integer({ min: 0, max: 200 }) },
    ({ interval, n }) => {
      const gap = ReminderSchedule.gap(interval, n) ?? -1
      const next = ReminderSchedule.gap(interval, n + 1) ?? -1
      if (interval > ReminderSchedule.GAP_CAP_SECS) {
        expect([gap, next]).toEqual([interval, interval])
      } else {
        expect(next).toBe(Math.min(2 * gap, ReminderSchedule.GAP_CAP_SECS))
        expect(gap).toBeLessThanOrEqual(ReminderSchedule.GAP_CAP_SECS)
        expect(gap).toBe(Math.min(interval * 2 ** n, ReminderSchedule.GAP_CAP_SECS))
      }
    }
  )
})
