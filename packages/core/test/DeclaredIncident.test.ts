import { describe, expect, it } from "@effect/vitest"
import * as DateTime from "effect/DateTime"
import * as Schema from "effect/Schema"
import * as DeclaredIncident from "../src/DeclaredIncident.js"

const t0 = DateTime.unsafeMake("2026-11-22T10:00:00.000Z")
const at = (secs: number): DateTime.Utc => DateTime.add(t0, { seconds: secs })

describe("DeclaredIncident", () => {
  it("declaring opens it now, acknowledged by its declarer, not counting as downtime unless asked", () => {
    const incident = DeclaredIncident.declare({ title: "Payments slow", impact: "degraded" }, "user-1", at(0))
    expect(incident).toEqual({
      title: "Payments slow",
      impact: "degraded",
      counts_as_downtime: false,
      started_at: at(0),
      declared_by: "user-1",
      acknowledged_at: at(0),
      acknowledged_by: "user-1",
      ended_at: null,
      resolved_by: null
    })
    expect(DeclaredIncident.isOpen(incident)).toBe(true)
    expect(DeclaredIncident.acknowledge(incident)).toBe(incident)
    expect(DeclaredIncident.downtimeMs(incident, at(600))).toBe(0)
  })

  it("resolving ends it now; resolving again keeps the first end", () => {
    const incident = DeclaredIncident.declare(
      { title: "Outage", impact: "major_outage", counts_as_downtime: true },
      "user-1",
      at(0)
    )
    expect(DeclaredIncident.downtimeMs(incident, at(300))).toBe(300_000)
    const resolved = DeclaredIncident.resolve(incident, "user-2", at(600))
    expect([resolved.ended_at, resolved.resolved_by]).toEqual([at(600), "user-2"])
    expect(DeclaredIncident.isOpen(resolved)).toBe(false)
    expect(DeclaredIncident.resolve(resolved, "user-3", at(900))).toBe(resolved)
    expect(DeclaredIncident.downtimeMs(resolved, at(5000))).toBe(600_000)
  })

  it("the record survives its JSON form", () => {
    const incident = DeclaredIncident.declare({ title: "x", impact: "partial_outage" }, "u", at(0))
    const json = JSON.parse(JSON.stringify(Schema.encodeSync(DeclaredIncident.Declared)(incident)))
    expect(Schema.decodeUnknownSync(DeclaredIncident.Declared)(json)).toEqual(incident)
  })
})
