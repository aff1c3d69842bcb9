import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import * as OnCall from "../../src/oncall/OnCall.js"
import { WEEKDAYS } from "../../src/oncall/Schedule.js"

// Schedules around daylight-saving changes in zones that have them one hour forward and back (Berlin, New York,
// Santiago on the southern calendar), half an hour (Lord Howe), and none (UTC, Kolkata). Each base instant is
// within a day of a change in the first four zones, so generated ranges straddle one.
const ZONES = ["Europe/Berlin", "America/New_York", "America/Santiago", "Australia/Lord_Howe", "UTC", "Asia/Kolkata"]
const BASES = [
  "2026-03-29T01:00:00Z",
  "2026-10-25T01:00:00Z",
  "2026-03-08T07:00:00Z",
  "2026-11-01T06:00:00Z",
  "2026-04-04T15:00:00Z",
  "2026-10-03T15:00:00Z",
  "2026-04-05T03:00:00Z",
  "2026-09-06T04:00:00Z"
].map((iso) => new Date(iso).getTime())

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
const USERS = ["u0", "u1", "u2", "u3", "u4"]

const wallClock = FastCheck.tuple(
  FastCheck.integer({ min: 0, max: 23 }),
  FastCheck.constantFrom(0, 1, 15, 30, 45, 59)
).map(([h, m]) => `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`)

const restriction = FastCheck.record({
  days: FastCheck.subarray([...WEEKDAYS], { minLength: 1 }),
  from: wallClock,
  to: wallClock
})

const layer = (base: number) =>
  FastCheck.record({
    starts_at: FastCheck.integer({ min: -10 * 24 * 60, max: 2 * 24 * 60 }).map((m) => new Date(base + m * MINUTE)),
    rotation: FastCheck.record({
      length: FastCheck.record({
        unit: FastCheck.constantFrom("hours" as const, "days" as const, "weeks" as const),
        count: FastCheck.integer({ min: 1, max: 3 })
      }),
      handoff: wallClock
    }),
    participants: FastCheck.array(FastCheck.constantFrom(...USERS), { minLength: 1, maxLength: 4 }),
    restrictions: FastCheck.oneof(FastCheck.constant([]), FastCheck.array(restriction, { maxLength: 3 }))
  })

const override = (base: number) =>
  FastCheck.tuple(
    FastCheck.constantFrom(...USERS, "ov"),
    FastCheck.integer({ min: -4 * 24 * 60, max: 4 * 24 * 60 }),
    FastCheck.integer({ min: 1, max: 3 * 24 * 60 })
  ).map(([user_id, start, minutes]) => ({
    user_id,
    starts_at: new Date(base + start * MINUTE),
    ends_at: new Date(base + (start + minutes) * MINUTE)
  }))

/** A schedule, a range of up to ten days around a change, and instants in it to sample. */
const scenario = FastCheck.constantFrom(...BASES).chain((base) =>
  FastCheck.record({
    schedule: FastCheck.record({
      time_zone: FastCheck.constantFrom(...ZONES),
      layers: FastCheck.array(layer(base), { minLength: 1, maxLength: 3 }),
      overrides: FastCheck.array(override(base), { maxLength: 3 })
    }),
    from: FastCheck.integer({ min: -5 * 24 * 60, max: 24 * 60 }).map((m) => base + m * MINUTE),
    length: FastCheck.integer({ min: 1, max: 10 * 24 * 60 }).map((m) => m * MINUTE),
    samples: FastCheck.array(FastCheck.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), {
      minLength: 10,
      maxLength: 30
    })
  })
)

type Shift = OnCall.ComputedShift<string>

/** Shifts in order, each non-empty, none overlapping, all inside the range, and no two touching with one holder. */
const expectWellFormed = (shifts: ReadonlyArray<Shift>, from: number, to: number) => {
  shifts.forEach((s, i) => {
    expect(s.starts_at.getTime()).toBeLessThan(s.ends_at.getTime())
    expect(s.starts_at.getTime()).toBeGreaterThanOrEqual(from)
    expect(s.ends_at.getTime()).toBeLessThanOrEqual(to)
    const next = shifts[i + 1]
    if (next === undefined) return
    expect(s.ends_at.getTime()).toBeLessThanOrEqual(next.starts_at.getTime())
    if (s.ends_at.getTime() === next.starts_at.getTime()) {
      expect([s.user_id, s.layer]).not.toEqual([next.user_id, next.layer])
    }
  })
}

/** The instants to check (a fraction is taken of the range's length, not of the epoch, so it stays inside): the sampled ones, and each shift's first and last millisecond and the one after it. */
const instants = (shifts: ReadonlyArray<Shift>, from: number, to: number, samples: ReadonlyArray<number>) => [
  ...samples.map((x) => from + Math.floor(x * (to - from))),
  ...shifts.flatMap((s) => [s.starts_at.getTime(), s.ends_at.getTime() - 1, s.ends_at.getTime()]).filter((t) => t < to)
]

const containing = (shifts: ReadonlyArray<Shift>, t: number) =>
  shifts.filter((s) => s.starts_at.getTime() <= t && t < s.ends_at.getTime())

const offsetFormats = new Map<string, Intl.DateTimeFormat>()

/** The zone's UTC offset at `t` in minutes, read from Intl (independently of the module under test). */
const offsetAt = (zone: string, t: number): number => {
  let format = offsetFormats.get(zone)
  if (format === undefined) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric"
    })
    offsetFormats.set(zone, format)
  }
  const part = (type: string) => Number(format.formatToParts(t).find((p) => p.type === type)?.value)
  const local = Date.UTC(part("year"), part("month") - 1, part("day"), part("hour"), part("minute"))
  return Math.round((local - Math.floor(t / MINUTE) * MINUTE) / MINUTE)
}

const localHhMm = (zone: string, t: number): string => {
  const minutes = (((Math.floor(t / MINUTE) + offsetAt(zone, t)) % 1440) + 1440) % 1440
  return `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`
}

describe("OnCall properties", () => {
  it.prop(
    "shifts are ordered, disjoint and merged, and agree with onCallAt at every sampled instant",
    [scenario],
    ([{ schedule, from, length, samples }]) => {
      const to = from + length
      const got = OnCall.shifts(schedule, new Date(from), new Date(to))
      expectWellFormed(got, from, to)
      for (const t of instants(got, from, to, samples)) {
        const here = containing(got, t)
        expect(here.length).toBeLessThanOrEqual(1)
        const answer = OnCall.onCallAt(schedule, new Date(t))
        const shift = here[0]
        expect(answer).toEqual(
          shift === undefined ? { user_id: null, layer: null } : { user_id: shift.user_id, layer: shift.layer }
        )
      }
    },
    { fastCheck: { numRuns: 100 } }
  )

  it.prop(
    "every instant is covered by at most one person per layer, the one layerHolderAt names",
    [scenario],
    ([{ schedule, from, length, samples }]) => {
      const to = from + length
      schedule.layers.forEach((_, index) => {
        const got = OnCall.layerShifts(schedule, index, new Date(from), new Date(to))
        expectWellFormed(got, from, to)
        for (const t of instants(got, from, to, samples)) {
          const here = containing(got, t)
          expect(here.length).toBeLessThanOrEqual(1)
          expect(OnCall.layerHolderAt(schedule, index, new Date(t))).toBe(here[0]?.user_id ?? null)
        }
      })
    },
    { fastCheck: { numRuns: 100 } }
  )

  it.prop(
    "an override always wins: inside one, the answer is the last covering override, through no layer",
    [scenario],
    ([{ schedule, samples }]) => {
      schedule.overrides.forEach((o, i) => {
        for (const x of samples) {
          const t = o.starts_at.getTime() + Math.floor(x * (o.ends_at.getTime() - o.starts_at.getTime()))
          const later = schedule.overrides
            .slice(i + 1)
            .filter((p) => p.starts_at.getTime() <= t && t < p.ends_at.getTime())
          const winner = later[later.length - 1] ?? o
          expect(OnCall.onCallAt(schedule, new Date(t))).toEqual({ user_id: winner.user_id, layer: null })
        }
      })
    },
    { fastCheck: { numRuns: 100 } }
  )

  it.prop(
    "days and weeks rotations hand off at the handoff's local time (later only by a gap); hours ones at fixed steps",
    [scenario],
    ([{ schedule, from, length }]) => {
      // One unrestricted layer of distinct participants, so every handoff shows as a change of holder.
      const base = schedule.layers[0]
      if (base === undefined) return
      const single: OnCall.ScheduleRules<string> = {
        time_zone: schedule.time_zone,
        layers: [{ ...base, participants: ["a", "b", "c"], restrictions: [] }],
        overrides: []
      }
      const zone = schedule.time_zone
      const to = from + length
      const got = OnCall.layerShifts(single, 0, new Date(from), new Date(to))
      const handoffs = got.slice(1).map((s) => s.starts_at.getTime())
      const { unit, count } = base.rotation.length
      for (const t of handoffs) {
        if (unit === "hours") continue
        const onTime = localHhMm(zone, t) === base.rotation.handoff
        // A handoff time the clock skipped that day happens when the clock resumes: just after a change.
        const afterGap = offsetAt(zone, t - HOUR) < offsetAt(zone, t)
        expect(onTime || afterGap).toBe(true)
      }
      handoffs.slice(1).forEach((t, i) => {
        const previous = handoffs[i] ?? t
        if (unit === "hours") {
          expect(t - previous).toBe(count * HOUR)
        } else {
          const nominal = (unit === "days" ? count : 7 * count) * DAY
          expect(Math.abs(t - previous - nominal)).toBeLessThanOrEqual(HOUR)
        }
      })
    },
    { fastCheck: { numRuns: 100 } }
  )

  it.prop(
    "each participant holds the layer in turn: consecutive shifts of an unrestricted layer follow the list",
    [scenario],
    ([{ schedule, from, length }]) => {
      const base = schedule.layers[0]
      if (base === undefined) return
      const participants = ["p0", "p1", "p2", "p3"].slice(0, Math.max(2, base.participants.length))
      const single: OnCall.ScheduleRules<string> = {
        time_zone: schedule.time_zone,
        layers: [{ ...base, participants, restrictions: [] }],
        overrides: []
      }
      const got = OnCall.layerShifts(single, 0, new Date(from), new Date(from + length))
      got.slice(1).forEach((s, i) => {
        const previous = participants.indexOf(got[i]?.user_id ?? "")
        expect(s.user_id).toBe(participants[(previous + 1) % participants.length])
      })
      const first = got[0]
      if (first !== undefined && first.starts_at.getTime() === base.starts_at.getTime()) {
        expect(first.user_id).toBe("p0")
      }
    },
    { fastCheck: { numRuns: 100 } }
  )
})
