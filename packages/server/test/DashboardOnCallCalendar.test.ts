/**
 * The on-call pages' pure pieces: a schedule's calendar laid out in its local days from core's computed shifts
 * (a daily rotation across Berlin's spring and autumn changes: a 23- and a 25-hour day, handoffs still at 09:00
 * local, every day covered end to end, "now" in exactly one piece), local dates read and moved, people kept in one
 * colour, and the forms' bodies shaped for the API (client/oncallBody.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import * as OnCall from "@signalman/core/oncall/OnCall"
import { shapePolicy, shapeSchedule, targetOf } from "../src/dashboard/client/oncallBody.js"
import * as Calendar from "../src/dashboard/oncall/Calendar.js"

const BERLIN = "Europe/Berlin"

/** Alice and Bob, a day each, handing over at 09:00 Berlin time, from Monday 23 March 2026 09:00 (08:00 UTC). */
const daily = (overrides: OnCall.ScheduleRules["overrides"] = []): OnCall.ScheduleRules => ({
  time_zone: BERLIN,
  layers: [
    {
      starts_at: new Date("2026-03-23T08:00:00Z"),
      rotation: { length: { unit: "days", count: 1 }, handoff: "09:00" },
      participants: ["alice", "bob"],
      restrictions: []
    }
  ],
  overrides
})

const laidOut = (rules: OnCall.ScheduleRules, first: Calendar.LocalDate, days: number, now: Date) => {
  const { from, to } = Calendar.span(BERLIN, first, days)
  return Calendar.layout({ time_zone: BERLIN, first, days, shifts: OnCall.shifts(rules, from, to), now })
}

const words = (day: Calendar.Day | undefined) => day?.segments.map((s) => `${s.from}-${s.to} ${s.user_id ?? "nobody"}`)

describe("a schedule's calendar", () => {
  it("a daily rotation across the spring change: a 23-hour Sunday, handoffs at 09:00 local on both sides", () => {
    const calendar = laidOut(daily(), { year: 2026, month: 3, day: 28 }, 3, new Date("2026-03-29T10:30:00Z"))
    expect(calendar.days.map((d) => [d.date, d.hours])).toEqual([
      ["2026-03-28", 24],
      ["2026-03-29", 23],
      ["2026-03-30", 24]
    ])
    expect(calendar.from.toISOString()).toBe("2026-03-27T23:00:00.000Z")
    expect(calendar.to.toISOString()).toBe("2026-03-30T22:00:00.000Z")
    // 23rd Alice, 24th Bob, ... 28th Bob (from 09:00), 29th Alice, 30th Bob.
    expect(calendar.days.map(words)).toEqual([
      ["00:00-09:00 alice", "09:00-24:00 bob"],
      ["00:00-09:00 bob", "09:00-24:00 alice"],
      ["00:00-09:00 alice", "09:00-24:00 bob"]
    ])
    // Bob's shift over the change lasts 23 hours, and the Sunday's pieces fill it exactly.
    const sunday = calendar.days[1]
    expect(sunday?.segments[0]?.ends_at.toISOString()).toBe("2026-03-29T07:00:00.000Z")
    expect(sunday?.segments.reduce((sum, s) => sum + s.share, 0)).toBeCloseTo(1, 9)
    expect(sunday?.segments[1]?.offset).toBeCloseTo(8 / 23, 9)
    expect(sunday?.label).toBe("Sun 29 Mar")
    // "Now" (12:30 Berlin on the Sunday) is in Alice's piece, and only there; the Sunday is today.
    expect(calendar.days.flatMap((d) => d.segments.filter((s) => s.now).map((s) => [d.date, s.user_id]))).toEqual([
      ["2026-03-29", "alice"]
    ])
    expect(calendar.days.map((d) => d.today)).toEqual([false, true, false])
  })

  it("the autumn change: a 25-hour Sunday", () => {
    const calendar = laidOut(daily(), { year: 2026, month: 10, day: 25 }, 1, new Date("2026-01-01T00:00:00Z"))
    expect(calendar.days[0]?.hours).toBe(25)
    expect(words(calendar.days[0])).toEqual(["00:00-09:00 bob", "09:00-24:00 alice"])
    expect(calendar.days[0]?.segments.some((s) => s.now)).toBe(false)
  })

  it("gaps are pieces with nobody, overrides are marked by their null layer, and the day is covered end to end", () => {
    const rules = daily([
      { user_id: "carol", starts_at: new Date("2026-03-24T11:00:00Z"), ends_at: new Date("2026-03-24T13:00:00Z") }
    ])
    const before = laidOut(rules, { year: 2026, month: 3, day: 22 }, 1, new Date(0))
    // The rotation starts on the 23rd: the 22nd has nobody at all.
    expect(words(before.days[0])).toEqual(["00:00-24:00 nobody"])
    const tuesday = laidOut(rules, { year: 2026, month: 3, day: 24 }, 1, new Date(0)).days[0]
    expect(words(tuesday)).toEqual(["00:00-09:00 alice", "09:00-12:00 bob", "12:00-14:00 carol", "14:00-24:00 bob"])
    expect(tuesday?.segments.map((s) => s.layer)).toEqual([0, 0, null, 0])
  })

  it("local dates: read only when real, moved across months and years, and a zone's today", () => {
    expect(Calendar.parseDate("2026-02-28")).toEqual({ year: 2026, month: 2, day: 28 })
    expect(Calendar.parseDate("2026-02-30")).toBeUndefined()
    expect(Calendar.parseDate("2026-2-3")).toBeUndefined()
    expect(Calendar.parseDate(undefined)).toBeUndefined()
    expect(Calendar.addDays({ year: 2026, month: 12, day: 29 }, 7)).toEqual({ year: 2027, month: 1, day: 5 })
    expect(Calendar.addDays({ year: 2026, month: 3, day: 2 }, -7)).toEqual({ year: 2026, month: 2, day: 23 })
    // 23:30 UTC on the 28th is already the 29th in Berlin.
    expect(Calendar.localDate(new Date("2026-03-28T23:30:00Z"), BERLIN)).toEqual({ year: 2026, month: 3, day: 29 })
  })

  it("people keep one colour: their place among the layers' participants, then the overrides' users", () => {
    const order = Calendar.people({
      layers: [{ participants: ["A", "b"] }, { participants: ["b", "c"] }],
      overrides: [{ user_id: "d" }, { user_id: "a" }]
    })
    expect(order).toEqual(["a", "b", "c", "d"])
    expect(["a", "B", "c", "d", "stranger"].map((id) => Calendar.colourOf(order, id))).toEqual([0, 1, 2, 3, 4])
    const many = Array.from({ length: 10 }, (_, i) => `p${i}`)
    expect(Calendar.colourOf(many, "p9")).toBe(9 % Calendar.COLOURS)
  })
})

describe("the on-call forms' bodies", () => {
  it("a schedule: empty participant slots and day-less restrictions go; a spare layer without people and a removed one go", () => {
    const participants: Array<string | undefined> = ["a", undefined, "b"]
    const body = {
      name: "Primary",
      layers: [
        { name: "Day", participants, restrictions: [{ days: ["mon"], from: "09:00", to: "17:00" }, { days: [] }] },
        { name: "Gone", participants: ["c"], restrictions: [{ days: [] }] },
        { name: "Spare", restrictions: [{ days: [] }] },
        { name: "Added", participants: [undefined, "d"], restrictions: [{ days: [] }] }
      ]
    }
    expect(shapeSchedule(body, { spare: new Set([2, 3]), removed: new Set([1]) })).toEqual({
      name: "Primary",
      layers: [
        { name: "Day", participants: ["a", "b"], restrictions: [{ days: ["mon"], from: "09:00", to: "17:00" }] },
        { name: "Added", participants: ["d"], restrictions: [] }
      ]
    })
    // A body without layers (an override's form) is left as it is.
    expect(shapeSchedule({ overrides: [] }, { spare: new Set(), removed: new Set() })).toEqual({ overrides: [] })
  })

  it("a policy: targets become { type, id }; a spare step with nothing ticked and a removed one go; an emptied step stays for the API to refuse", () => {
    const body = {
      name: "Primary",
      repeat: 1,
      steps: [
        { delay_minutes: 0, targets: ["user:u1", "schedule:s1"] },
        { delay_minutes: 5, targets: [] },
        { delay_minutes: 10, targets: ["channel:c1"] },
        { delay_minutes: 10, targets: [] }
      ]
    }
    expect(shapePolicy(body, { spare: new Set([3]), removed: new Set([2]) })).toEqual({
      name: "Primary",
      repeat: 1,
      steps: [
        {
          delay_minutes: 0,
          targets: [
            { type: "user", id: "u1" },
            { type: "schedule", id: "s1" }
          ]
        },
        { delay_minutes: 5, targets: [] }
      ]
    })
    expect(targetOf("no-colon")).toBe("no-colon")
  })
})
