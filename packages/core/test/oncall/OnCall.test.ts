import { describe, expect, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import type { UserId } from "../../src/Identity.js"
import * as OnCall from "../../src/oncall/OnCall.js"
import * as Schedule from "../../src/oncall/Schedule.js"

const d = (iso: string) => new Date(iso)

type Layer = OnCall.LayerRules<string>

const layer = (over: Partial<Layer> & Pick<Layer, "starts_at">): Layer => ({
  rotation: { length: { unit: "weeks", count: 1 }, handoff: "09:00" },
  participants: ["alice", "bob"],
  restrictions: [],
  ...over
})

const rules = (
  time_zone: string,
  layers: ReadonlyArray<Layer>,
  overrides: ReadonlyArray<OnCall.OverrideRules<string>> = []
): OnCall.ScheduleRules<string> => ({ time_zone, layers, overrides })

const shiftsOf = (schedule: OnCall.ScheduleRules<string>, from: string, to: string) =>
  OnCall.shifts(schedule, d(from), d(to)).map((s) => ({
    user_id: s.user_id,
    starts_at: s.starts_at.toISOString(),
    ends_at: s.ends_at.toISOString(),
    layer: s.layer
  }))

const hoursOf = (s: { starts_at: Date; ends_at: Date }) => (s.ends_at.getTime() - s.starts_at.getTime()) / 3_600_000

describe("OnCall rotations", () => {
  // Berlin moves to summer time on Sunday 2026-03-29: Monday 09:00 is 08:00Z before it and 07:00Z after.
  const weekly = rules("Europe/Berlin", [layer({ starts_at: d("2026-03-23T08:00:00Z") })])

  it("a weekly layer hands off at 09:00 Berlin time, so the week across the change is 167 hours", () => {
    expect(shiftsOf(weekly, "2026-03-23T08:00:00Z", "2026-04-06T07:00:00Z")).toEqual([
      { user_id: "alice", starts_at: "2026-03-23T08:00:00.000Z", ends_at: "2026-03-30T07:00:00.000Z", layer: 0 },
      { user_id: "bob", starts_at: "2026-03-30T07:00:00.000Z", ends_at: "2026-04-06T07:00:00.000Z", layer: 0 }
    ])
    expect(OnCall.onCallAt(weekly, d("2026-03-30T06:59:59.999Z"))).toEqual({ user_id: "alice", layer: 0 })
    expect(OnCall.onCallAt(weekly, d("2026-03-30T07:00:00Z"))).toEqual({ user_id: "bob", layer: 0 })
    expect(OnCall.onCallAt(weekly, d("2026-04-06T07:00:00Z"))).toEqual({ user_id: "alice", layer: 0 })
  })

  it("nobody is on call before a layer starts, nor in a schedule without layers", () => {
    expect(OnCall.onCallAt(weekly, d("2026-03-23T07:59:59.999Z"))).toEqual({ user_id: null, layer: null })
    expect(OnCall.onCallAt(rules("UTC", []), d("2026-03-23T10:00:00Z"))).toEqual({ user_id: null, layer: null })
    expect(shiftsOf(weekly, "2026-03-01T00:00:00Z", "2026-03-23T08:00:00Z")).toEqual([])
  })

  it("a daily layer in New York lasts 25 hours across the fall-back night and 23 across the spring-forward one", () => {
    // Clocks go back on Sunday 2026-11-01 and forward on Sunday 2026-03-08.
    const fall = rules("America/New_York", [
      layer({
        starts_at: d("2026-10-31T12:00:00Z"),
        rotation: { length: { unit: "days", count: 1 }, handoff: "08:00" },
        participants: ["a", "b", "c"]
      })
    ])
    const [first, second] = OnCall.shifts(fall, d("2026-10-31T12:00:00Z"), d("2026-11-02T13:00:00Z"))
    expect(first?.user_id).toBe("a")
    expect(first?.ends_at.toISOString()).toBe("2026-11-01T13:00:00.000Z")
    expect(first && hoursOf(first)).toBe(25)
    expect(second?.user_id).toBe("b")
    expect(second && hoursOf(second)).toBe(24)

    const spring = rules("America/New_York", [
      layer({
        starts_at: d("2026-03-07T13:00:00Z"),
        rotation: { length: { unit: "days", count: 1 }, handoff: "08:00" },
        participants: ["a", "b"]
      })
    ])
    const [short] = OnCall.shifts(spring, d("2026-03-07T13:00:00Z"), d("2026-03-09T00:00:00Z"))
    expect(short?.ends_at.toISOString()).toBe("2026-03-08T12:00:00.000Z")
    expect(short && hoursOf(short)).toBe(23)
  })

  it("an hours layer keeps fixed durations, so its wall-clock handoffs move across a change", () => {
    const twelve = rules("Europe/Berlin", [
      layer({
        starts_at: d("2026-03-28T07:00:00Z"),
        rotation: { length: { unit: "hours", count: 12 }, handoff: "08:00" }
      })
    ])
    const got = shiftsOf(twelve, "2026-03-28T07:00:00Z", "2026-03-29T19:00:00Z")
    expect(got.map((s) => s.starts_at)).toEqual([
      "2026-03-28T07:00:00.000Z",
      "2026-03-28T19:00:00.000Z",
      "2026-03-29T07:00:00.000Z"
    ])
    expect(got.map((s) => s.user_id)).toEqual(["alice", "bob", "alice"])
  })

  it("a handoff in the skipped hour happens when the clock resumes, one in the repeated hour at its first pass", () => {
    const gap = rules("Europe/Berlin", [
      layer({
        starts_at: d("2026-03-27T01:30:00Z"),
        rotation: { length: { unit: "days", count: 1 }, handoff: "02:30" }
      })
    ])
    // 02:30 does not exist on 2026-03-29: the handoff is at 03:30 CEST, 01:30Z; the next day's 02:30 CEST is 00:30Z.
    expect(shiftsOf(gap, "2026-03-28T00:00:00Z", "2026-03-30T12:00:00Z").map((s) => s.starts_at)).toEqual([
      "2026-03-28T00:00:00.000Z",
      "2026-03-28T01:30:00.000Z",
      "2026-03-29T01:30:00.000Z",
      "2026-03-30T00:30:00.000Z"
    ])
    const overlap = rules("Europe/Berlin", [
      layer({
        starts_at: d("2026-10-23T00:30:00Z"),
        rotation: { length: { unit: "days", count: 1 }, handoff: "02:30" }
      })
    ])
    // 02:30 happens twice on 2026-10-25, at 00:30Z (CEST) and 01:30Z (CET): the first counts.
    expect(shiftsOf(overlap, "2026-10-24T12:00:00Z", "2026-10-26T12:00:00Z").map((s) => s.starts_at)).toEqual([
      "2026-10-24T12:00:00.000Z",
      "2026-10-25T00:30:00.000Z",
      "2026-10-26T01:30:00.000Z"
    ])
  })

  it("a start off the handoff time gives the first participant a short first shift on the start's weekday grid", () => {
    // Monday 2026-03-02 12:00 Berlin (11:00Z); handoffs on Mondays at 09:00 (08:00Z).
    const late = rules("Europe/Berlin", [layer({ starts_at: d("2026-03-02T11:00:00Z") })])
    expect(shiftsOf(late, "2026-03-02T00:00:00Z", "2026-03-16T08:00:00Z")).toEqual([
      { user_id: "alice", starts_at: "2026-03-02T11:00:00.000Z", ends_at: "2026-03-09T08:00:00.000Z", layer: 0 },
      { user_id: "bob", starts_at: "2026-03-09T08:00:00.000Z", ends_at: "2026-03-16T08:00:00.000Z", layer: 0 }
    ])
    // Monday 08:00 Berlin, an hour before the handoff: alice holds that hour, then bob the week from Monday 09:00.
    const early = rules("Europe/Berlin", [layer({ starts_at: d("2026-03-02T07:00:00Z") })])
    expect(shiftsOf(early, "2026-03-02T00:00:00Z", "2026-03-09T09:00:00Z")).toEqual([
      { user_id: "alice", starts_at: "2026-03-02T07:00:00.000Z", ends_at: "2026-03-02T08:00:00.000Z", layer: 0 },
      { user_id: "bob", starts_at: "2026-03-02T08:00:00.000Z", ends_at: "2026-03-09T08:00:00.000Z", layer: 0 },
      { user_id: "alice", starts_at: "2026-03-09T08:00:00.000Z", ends_at: "2026-03-09T09:00:00.000Z", layer: 0 }
    ])
  })

  it("a rotation of two weeks keeps each participant for fourteen days", () => {
    const fortnight = rules("UTC", [
      layer({
        starts_at: d("2026-01-05T09:00:00Z"),
        rotation: { length: { unit: "weeks", count: 2 }, handoff: "09:00" },
        participants: ["a", "b", "c"]
      })
    ])
    expect(OnCall.onCallAt(fortnight, d("2026-01-18T23:00:00Z")).user_id).toBe("a")
    expect(OnCall.onCallAt(fortnight, d("2026-01-19T09:00:00Z")).user_id).toBe("b")
    expect(OnCall.onCallAt(fortnight, d("2026-02-02T09:00:00Z")).user_id).toBe("c")
    expect(OnCall.onCallAt(fortnight, d("2026-02-16T09:00:00Z")).user_id).toBe("a")
  })
})

describe("OnCall restrictions and precedence", () => {
  // Layer 0 covers all week (alice, bob weekly); layer 1 covers office hours with carol only.
  const office = rules("Europe/Berlin", [
    layer({ starts_at: d("2026-03-02T08:00:00Z") }),
    layer({
      starts_at: d("2026-03-02T08:00:00Z"),
      participants: ["carol"],
      restrictions: [{ days: ["mon", "tue", "wed", "thu", "fri"], from: "09:00", to: "17:00" }]
    })
  ])

  it("the last layer covering an instant wins; outside its restrictions the layer below answers", () => {
    expect(OnCall.onCallAt(office, d("2026-03-04T09:00:00Z"))).toEqual({ user_id: "carol", layer: 1 })
    expect(OnCall.onCallAt(office, d("2026-03-04T16:00:00Z"))).toEqual({ user_id: "alice", layer: 0 })
    expect(OnCall.onCallAt(office, d("2026-03-07T10:00:00Z"))).toEqual({ user_id: "alice", layer: 0 })
    expect(shiftsOf(office, "2026-03-04T00:00:00Z", "2026-03-05T00:00:00Z")).toEqual([
      { user_id: "alice", starts_at: "2026-03-04T00:00:00.000Z", ends_at: "2026-03-04T08:00:00.000Z", layer: 0 },
      { user_id: "carol", starts_at: "2026-03-04T08:00:00.000Z", ends_at: "2026-03-04T16:00:00.000Z", layer: 1 },
      { user_id: "alice", starts_at: "2026-03-04T16:00:00.000Z", ends_at: "2026-03-05T00:00:00.000Z", layer: 0 }
    ])
  })

  it("a restriction past midnight covers from its day's evening into the next morning", () => {
    const nights = rules("Europe/Berlin", [
      layer({
        starts_at: d("2026-03-02T08:00:00Z"),
        participants: ["dave"],
        restrictions: [{ days: ["fri"], from: "22:00", to: "06:00" }]
      })
    ])
    // Friday 2026-03-06 22:00 CET is 21:00Z; Saturday 06:00 is 05:00Z.
    expect(OnCall.onCallAt(nights, d("2026-03-06T20:59:59.999Z")).user_id).toBe(null)
    expect(OnCall.onCallAt(nights, d("2026-03-06T21:00:00Z")).user_id).toBe("dave")
    expect(OnCall.onCallAt(nights, d("2026-03-07T04:59:59.999Z")).user_id).toBe("dave")
    expect(OnCall.onCallAt(nights, d("2026-03-07T05:00:00Z")).user_id).toBe(null)
    expect(OnCall.onCallAt(nights, d("2026-03-07T21:30:00Z")).user_id).toBe(null)
    expect(shiftsOf(nights, "2026-03-02T00:00:00Z", "2026-03-09T00:00:00Z")).toEqual([
      { user_id: "dave", starts_at: "2026-03-06T21:00:00.000Z", ends_at: "2026-03-07T05:00:00.000Z", layer: 0 }
    ])
  })

  it("office hours across the change keep their local times", () => {
    // Monday 2026-03-30 09:00 to 17:00 CEST is 07:00Z to 15:00Z; the Friday before, 08:00Z to 16:00Z.
    expect(shiftsOf(office, "2026-03-27T00:00:00Z", "2026-03-31T00:00:00Z").filter((s) => s.layer === 1)).toEqual([
      { user_id: "carol", starts_at: "2026-03-27T08:00:00.000Z", ends_at: "2026-03-27T16:00:00.000Z", layer: 1 },
      { user_id: "carol", starts_at: "2026-03-30T07:00:00.000Z", ends_at: "2026-03-30T15:00:00.000Z", layer: 1 }
    ])
  })

  it("an override beats every layer, and of two overlapping overrides the later in the list wins", () => {
    const covered = rules("Europe/Berlin", office.layers, [
      { user_id: "erin", starts_at: d("2026-03-04T10:00:00Z"), ends_at: d("2026-03-04T20:00:00Z") },
      { user_id: "frank", starts_at: d("2026-03-04T12:00:00Z"), ends_at: d("2026-03-04T13:00:00Z") }
    ])
    expect(OnCall.onCallAt(covered, d("2026-03-04T10:00:00Z"))).toEqual({ user_id: "erin", layer: null })
    expect(OnCall.onCallAt(covered, d("2026-03-04T12:30:00Z"))).toEqual({ user_id: "frank", layer: null })
    expect(OnCall.onCallAt(covered, d("2026-03-04T20:00:00Z"))).toEqual({ user_id: "alice", layer: 0 })
    expect(shiftsOf(covered, "2026-03-04T08:00:00Z", "2026-03-04T21:00:00Z")).toEqual([
      { user_id: "carol", starts_at: "2026-03-04T08:00:00.000Z", ends_at: "2026-03-04T10:00:00.000Z", layer: 1 },
      { user_id: "erin", starts_at: "2026-03-04T10:00:00.000Z", ends_at: "2026-03-04T12:00:00.000Z", layer: null },
      { user_id: "frank", starts_at: "2026-03-04T12:00:00.000Z", ends_at: "2026-03-04T13:00:00.000Z", layer: null },
      { user_id: "erin", starts_at: "2026-03-04T13:00:00.000Z", ends_at: "2026-03-04T20:00:00.000Z", layer: null },
      { user_id: "alice", starts_at: "2026-03-04T20:00:00.000Z", ends_at: "2026-03-04T21:00:00.000Z", layer: 0 }
    ])
  })

  it("an override covers time no layer covers", () => {
    const empty = rules(
      "UTC",
      [],
      [{ user_id: "gina", starts_at: d("2026-01-01T00:00:00Z"), ends_at: d("2026-01-02T00:00:00Z") }]
    )
    expect(OnCall.onCallAt(empty, d("2026-01-01T12:00:00Z"))).toEqual({ user_id: "gina", layer: null })
    expect(shiftsOf(empty, "2025-12-31T00:00:00Z", "2026-01-03T00:00:00Z")).toEqual([
      { user_id: "gina", starts_at: "2026-01-01T00:00:00.000Z", ends_at: "2026-01-02T00:00:00.000Z", layer: null }
    ])
  })

  it("one layer's shifts ignore overrides and the other layers", () => {
    const covered = rules("Europe/Berlin", office.layers, [
      { user_id: "erin", starts_at: d("2026-03-04T10:00:00Z"), ends_at: d("2026-03-04T20:00:00Z") }
    ])
    expect(
      OnCall.layerShifts(covered, 1, d("2026-03-04T00:00:00Z"), d("2026-03-05T00:00:00Z")).map((s) => s.user_id)
    ).toEqual(["carol"])
    expect(OnCall.layerHolderAt(covered, 0, d("2026-03-04T12:00:00Z"))).toBe("alice")
    expect(OnCall.layerHolderAt(covered, 2, d("2026-03-04T12:00:00Z"))).toBe(null)
    expect(OnCall.layerShifts(covered, 2, d("2026-03-04T00:00:00Z"), d("2026-03-05T00:00:00Z"))).toEqual([])
  })

  it("an empty or reversed range has no shifts", () => {
    expect(OnCall.shifts(office, d("2026-03-04T10:00:00Z"), d("2026-03-04T10:00:00Z"))).toEqual([])
    expect(OnCall.shifts(office, d("2026-03-05T10:00:00Z"), d("2026-03-04T10:00:00Z"))).toEqual([])
  })
})

describe("OnCall.fromSchedule", () => {
  it("reads a decoded schedule's rules, keeping user ids branded", () => {
    const alice = "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"
    const body = Schema.decodeUnknownSync(Schedule.ScheduleCreate)({
      name: "Primary",
      time_zone: "Europe/Berlin",
      layers: [
        {
          name: "Weekly",
          starts_at: "2026-03-23T09:00:00+01:00",
          rotation: { length: { unit: "weeks", count: 1 }, handoff: "09:00" },
          participants: [alice]
        }
      ],
      overrides: [{ user_id: alice, starts_at: "2026-04-01T00:00:00Z", ends_at: "2026-04-02T00:00:00Z" }]
    })
    const schedule = OnCall.fromSchedule(body)
    expect(schedule.layers[0]?.starts_at.toISOString()).toBe("2026-03-23T08:00:00.000Z")
    expect(schedule.layers[0]?.restrictions).toEqual([])
    expect(schedule.overrides[0]?.ends_at.toISOString()).toBe("2026-04-02T00:00:00.000Z")
    const answer: OnCall.OnCall<UserId> = OnCall.onCallAt(schedule, d("2026-03-24T00:00:00Z"))
    expect(answer).toEqual({ user_id: alice, layer: 0 })
  })
})

describe("the example of docs/on-call.md", () => {
  const id = (c: string) => `00000000-0000-4000-8000-00000000000${c}`
  const [alice, bob, carol, dave, erin] = [id("a"), id("b"), id("c"), id("d"), id("e")]

  it("lists the shifts the page shows, across the night the clocks go forward", () => {
    const body = Schema.decodeUnknownSync(Schedule.ScheduleCreate)({
      name: "Platform",
      time_zone: "Europe/Berlin",
      layers: [
        {
          name: "Round the clock",
          starts_at: "2026-03-23T09:00:00+01:00",
          rotation: { length: { unit: "weeks", count: 1 }, handoff: "09:00" },
          participants: [alice, bob]
        },
        {
          name: "Office hours",
          starts_at: "2026-03-23T09:00:00+01:00",
          rotation: { length: { unit: "days", count: 1 }, handoff: "09:00" },
          participants: [carol, dave],
          restrictions: [{ days: ["mon", "tue", "wed", "thu", "fri"], from: "09:00", to: "17:00" }]
        }
      ],
      overrides: [{ user_id: erin, starts_at: "2026-03-30T12:00:00+02:00", ends_at: "2026-03-30T14:00:00+02:00" }]
    })
    // Friday 27 March 00:00 CET to Tuesday 31 March 00:00 CEST.
    expect(shiftsOf(OnCall.fromSchedule(body), "2026-03-26T23:00:00Z", "2026-03-30T22:00:00Z")).toEqual([
      { user_id: alice, starts_at: "2026-03-26T23:00:00.000Z", ends_at: "2026-03-27T08:00:00.000Z", layer: 0 },
      { user_id: carol, starts_at: "2026-03-27T08:00:00.000Z", ends_at: "2026-03-27T16:00:00.000Z", layer: 1 },
      { user_id: alice, starts_at: "2026-03-27T16:00:00.000Z", ends_at: "2026-03-30T07:00:00.000Z", layer: 0 },
      { user_id: dave, starts_at: "2026-03-30T07:00:00.000Z", ends_at: "2026-03-30T10:00:00.000Z", layer: 1 },
      { user_id: erin, starts_at: "2026-03-30T10:00:00.000Z", ends_at: "2026-03-30T12:00:00.000Z", layer: null },
      { user_id: dave, starts_at: "2026-03-30T12:00:00.000Z", ends_at: "2026-03-30T15:00:00.000Z", layer: 1 },
      { user_id: bob, starts_at: "2026-03-30T15:00:00.000Z", ends_at: "2026-03-30T22:00:00.000Z", layer: 0 }
    ])
  })
})
