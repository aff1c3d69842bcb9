import { describe, expect, it } from "@effect/vitest"
import * as DateTime from "effect/DateTime"
import * as Schema from "effect/Schema"
import * as Schedule from "../../src/oncall/Schedule.js"
import { invalid, refusal } from "./refusal.js"

const alice = "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"

const layer = (over: Record<string, unknown> = {}) => ({
  name: "Primary",
  starts_at: "2026-03-23T09:00:00+01:00",
  rotation: { length: { unit: "weeks", count: 1 }, handoff: "09:00" },
  participants: [alice],
  ...over
})

const body = (over: Record<string, unknown> = {}) => ({ name: "Platform", time_zone: "Europe/Berlin", ...over })

/** The error the API answers for a body, or null when it decodes. */

describe("Schedule shapes", () => {
  it("a schedule needs only a name and a zone; layers and overrides default to none, restrictions to none", () => {
    expect(Schema.decodeUnknownSync(Schedule.ScheduleCreate)(body())).toEqual({
      name: "Platform",
      time_zone: "Europe/Berlin",
      layers: [],
      overrides: []
    })
    const decoded = Schema.decodeUnknownSync(Schedule.ScheduleCreate)(body({ layers: [layer()] }))
    expect(decoded.layers[0]?.restrictions).toEqual([])
    expect(decoded.layers[0] && DateTime.formatIso(decoded.layers[0].starts_at)).toBe("2026-03-23T08:00:00.000Z")
  })

  it("the zone must be an IANA name this runtime knows; an offset is not a zone", () => {
    expect(refusal(Schedule.ScheduleCreate, body({ time_zone: "America/New_York" }))).toBe(null)
    expect(refusal(Schedule.ScheduleCreate, body({ time_zone: "UTC" }))).toBe(null)
    expect(refusal(Schedule.ScheduleCreate, body({ time_zone: "Mars/Olympus_Mons" }))).toEqual(invalid("time_zone"))
    expect(refusal(Schedule.ScheduleCreate, body({ time_zone: "+01:00" }))).toEqual(invalid("time_zone"))
    expect(refusal(Schedule.ScheduleCreate, body({ time_zone: "" }))).toEqual(invalid("time_zone"))
  })

  it("names are 1 to 100 characters after trimming", () => {
    expect(refusal(Schedule.ScheduleCreate, body({ name: "   " }))).toEqual(invalid("name"))
    expect(refusal(Schedule.ScheduleCreate, body({ name: "x".repeat(101) }))).toEqual(invalid("name"))
    expect(refusal(Schedule.ScheduleCreate, body({ name: "é".repeat(100) }))).toBe(null)
    expect(refusal(Schedule.ScheduleCreate, body({ layers: [layer({ name: "" })] }))).toEqual(invalid("layers[0].name"))
  })

  it("handoffs and restriction times are HH:MM from 00:00 to 23:59", () => {
    const handoff = (h: string) => layer({ rotation: { length: { unit: "days", count: 1 }, handoff: h } })
    expect(refusal(Schedule.ScheduleCreate, body({ layers: [handoff("23:59")] }))).toBe(null)
    for (const bad of ["9:00", "24:00", "12:60", "12:00:00", "noon"]) {
      expect(refusal(Schedule.ScheduleCreate, body({ layers: [handoff(bad)] }))).toEqual(
        invalid("layers[0].rotation.handoff")
      )
    }
    const restricted = (r: unknown) => body({ layers: [layer({ restrictions: [r] })] })
    expect(refusal(Schedule.ScheduleCreate, restricted({ days: ["mon"], from: "22:00", to: "06:00" }))).toBe(null)
    expect(refusal(Schedule.ScheduleCreate, restricted({ days: ["mon"], from: "22:00", to: "6:00" }))).toEqual(
      invalid("layers[0].restrictions[0].to")
    )
  })

  it("a restriction names one day or more, each once, of mon to sun", () => {
    const restricted = (days: unknown) =>
      body({ layers: [layer({ restrictions: [{ days, from: "09:00", to: "17:00" }] })] })
    expect(refusal(Schedule.ScheduleCreate, restricted([]))).toEqual(invalid("layers[0].restrictions[0].days"))
    expect(refusal(Schedule.ScheduleCreate, restricted(["mon", "mon"]))).toEqual(
      invalid("layers[0].restrictions[0].days")
    )
    expect(refusal(Schedule.ScheduleCreate, restricted(["monday"]))).toEqual(
      invalid("layers[0].restrictions[0].days[0]")
    )
  })

  it("a rotation counts 1 to 365 hours, days or weeks", () => {
    const length = (l: unknown) => body({ layers: [layer({ rotation: { length: l, handoff: "09:00" } })] })
    expect(refusal(Schedule.ScheduleCreate, length({ unit: "hours", count: 365 }))).toBe(null)
    expect(refusal(Schedule.ScheduleCreate, length({ unit: "hours", count: 0 }))).toEqual(
      invalid("layers[0].rotation.length.count")
    )
    expect(refusal(Schedule.ScheduleCreate, length({ unit: "days", count: 1.5 }))).toEqual(
      invalid("layers[0].rotation.length.count")
    )
    expect(refusal(Schedule.ScheduleCreate, length({ unit: "months", count: 1 }))).toEqual(
      invalid("layers[0].rotation.length.unit")
    )
  })

  it("the lists are bounded: 10 layers, 1 to 50 participants, 7 restrictions, 200 overrides", () => {
    expect(refusal(Schedule.ScheduleCreate, body({ layers: Array.from({ length: 10 }, () => layer()) }))).toBe(null)
    expect(refusal(Schedule.ScheduleCreate, body({ layers: Array.from({ length: 11 }, () => layer()) }))).toEqual(
      invalid("layers")
    )
    expect(refusal(Schedule.ScheduleCreate, body({ layers: [layer({ participants: [] })] }))).toEqual(
      invalid("layers[0].participants")
    )
    expect(
      refusal(
        Schedule.ScheduleCreate,
        body({ layers: [layer({ participants: Array.from({ length: 51 }, () => alice) })] })
      )
    ).toEqual(invalid("layers[0].participants"))
    expect(refusal(Schedule.ScheduleCreate, body({ layers: [layer({ participants: ["alice"] })] }))).toEqual(
      invalid("layers[0].participants[0]")
    )
    const r = { days: ["mon"], from: "09:00", to: "17:00" }
    expect(
      refusal(Schedule.ScheduleCreate, body({ layers: [layer({ restrictions: Array.from({ length: 8 }, () => r) })] }))
    ).toEqual(invalid("layers[0].restrictions"))
    const o = { user_id: alice, starts_at: "2026-04-01T00:00:00Z", ends_at: "2026-04-02T00:00:00Z" }
    expect(refusal(Schedule.ScheduleCreate, body({ overrides: Array.from({ length: 200 }, () => o) }))).toBe(null)
    expect(refusal(Schedule.ScheduleCreate, body({ overrides: Array.from({ length: 201 }, () => o) }))).toEqual(
      invalid("overrides")
    )
  })

  it("an override ends after it starts, with instants that carry a zone", () => {
    const o = (starts_at: string, ends_at: string) => body({ overrides: [{ user_id: alice, starts_at, ends_at }] })
    expect(refusal(Schedule.ScheduleCreate, o("2026-04-01T00:00:00Z", "2026-04-01T00:00:00Z"))).toEqual(
      invalid("overrides[0].ends_at")
    )
    expect(refusal(Schedule.ScheduleCreate, o("2026-04-02T00:00:00Z", "2026-04-01T00:00:00Z"))).toEqual(
      invalid("overrides[0].ends_at")
    )
    expect(refusal(Schedule.ScheduleCreate, o("2026-04-01T00:00:00", "2026-04-02T00:00:00Z"))).toEqual(
      invalid("overrides[0].starts_at")
    )
  })

  it("an unknown key anywhere is 422 INVALID_JSON naming its path", () => {
    expect(refusal(Schedule.ScheduleCreate, body({ layers: [layer({ colour: "red" })] }))).toEqual({
      code: "INVALID_JSON",
      field: "layers[0].colour"
    })
    expect(
      refusal(
        Schedule.ScheduleCreate,
        body({
          overrides: [{ user_id: alice, starts_at: "2026-04-01T00:00:00Z", ends_at: "2026-04-02T00:00:00Z", why: "x" }]
        })
      )
    ).toEqual({ code: "INVALID_JSON", field: "overrides[0].why" })
    expect(refusal(Schedule.SchedulePatch, { id: alice })).toEqual({ code: "INVALID_JSON", field: "id" })
  })

  it("a patch takes any field alone, and nothing at all", () => {
    expect(Schema.decodeUnknownSync(Schedule.SchedulePatch)({})).toEqual({})
    expect(Schema.decodeUnknownSync(Schedule.SchedulePatch)({ time_zone: "Asia/Kolkata" })).toEqual({
      time_zone: "Asia/Kolkata"
    })
    expect(refusal(Schedule.SchedulePatch, { time_zone: "Nowhere" })).toEqual(invalid("time_zone"))
    expect(refusal(Schedule.SchedulePatch, { layers: [layer({ participants: [] })] })).toEqual(
      invalid("layers[0].participants")
    )
  })

  it("a schedule as read encodes to the wire form and back", () => {
    const created = Schema.decodeUnknownSync(Schedule.ScheduleCreate)(body({ layers: [layer()] }))
    const at = DateTime.unsafeMake("2026-03-01T00:00:00Z")
    const read = Schedule.Schedule.make({
      id: Schedule.ScheduleId.make("0b7f8c4e-2d1a-4e3b-9f5c-6a7d8e9f0a1b"),
      ...created,
      created_at: at,
      updated_at: at
    })
    const wire = Schema.encodeSync(Schedule.Schedule)(read)
    expect(wire.layers[0]?.starts_at).toBe("2026-03-23T08:00:00.000Z")
    expect(Schema.decodeUnknownSync(Schedule.Schedule)(wire)).toEqual(read)
  })
})
