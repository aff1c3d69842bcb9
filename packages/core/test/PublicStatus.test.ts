import { describe, expect, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"
import * as PublicStatus from "../src/PublicStatus.js"

const DAY = 86_400_000
const NOW = Date.parse("2026-03-10T15:30:00.000Z")

/** Every property name a schema can put on the wire, nested ones included. */
const propertyNames = (ast: SchemaAST.AST, into: Set<string> = new Set(), seen: Set<SchemaAST.AST> = new Set()) => {
  if (seen.has(ast)) return into
  seen.add(ast)
  switch (ast._tag) {
    case "TypeLiteral":
      for (const p of ast.propertySignatures) {
        into.add(String(p.name))
        propertyNames(p.type, into, seen)
      }
      for (const i of ast.indexSignatures) propertyNames(i.type, into, seen)
      break
    case "Union":
      for (const t of ast.types) propertyNames(t, into, seen)
      break
    case "TupleType":
      for (const e of ast.elements) propertyNames(e.type, into, seen)
      for (const r of ast.rest) propertyNames(r.type, into, seen)
      break
    case "Refinement":
      propertyNames(ast.from, into, seen)
      break
    case "Transformation":
      propertyNames(ast.from, into, seen)
      propertyNames(ast.to, into, seen)
      break
    case "Suspend":
      propertyNames(ast.f(), into, seen)
      break
    case "Declaration":
      for (const t of ast.typeParameters) propertyNames(t, into, seen)
      break
  }
  return into
}

describe("PublicStatus wire types", () => {
  it("never carry url, headers, basic_auth, bearer_token or any check configuration", () => {
    const schemas: ReadonlyArray<Schema.Schema.Any> = [
      PublicStatus.PublicStatus,
      PublicStatus.ComponentHistory,
      PublicStatus.PublicIncidentPage,
      PublicStatus.PublicIncidentDetail,
      PublicStatus.PublicMaintenanceList,
      PublicStatus.PublicMaintenancePage
    ]
    for (const schema of schemas) {
      const names = propertyNames(Schema.encodedSchema(schema).ast)
      expect(names.size).toBeGreaterThan(3)
      for (const forbidden of ["url", "headers", "basic_auth", "bearer_token", "check", "credentials", "body"]) {
        expect(names.has(forbidden), forbidden).toBe(false)
      }
    }
  })
})

describe("componentStatus", () => {
  it("an open incident shows its worst impact, over maintenance and the latest check", () => {
    expect(
      PublicStatus.componentStatus({ openImpacts: ["degraded", "major_outage"], inMaintenance: true, latest: "up" })
    ).toBe("major_outage")
  })
  it("maintenance without an incident shows maintenance", () => {
    expect(PublicStatus.componentStatus({ openImpacts: [], inMaintenance: true, latest: "down" })).toBe("maintenance")
  })
  it("no check yet is unknown; degraded shows; an unconfirmed failure does not flap the page", () => {
    expect(PublicStatus.componentStatus({ openImpacts: [], inMaintenance: false, latest: null })).toBe("unknown")
    expect(PublicStatus.componentStatus({ openImpacts: [], inMaintenance: false, latest: "degraded" })).toBe("degraded")
    expect(PublicStatus.componentStatus({ openImpacts: [], inMaintenance: false, latest: "down" })).toBe("operational")
    expect(PublicStatus.componentStatus({ openImpacts: [], inMaintenance: false, latest: "error" })).toBe("operational")
  })
})

describe("overallStatus", () => {
  it("is the worst component's; unknown ones and an empty page are operational", () => {
    expect(PublicStatus.overallStatus([])).toBe("operational")
    expect(PublicStatus.overallStatus(["unknown", "operational"])).toBe("operational")
    expect(PublicStatus.overallStatus(["maintenance", "operational"])).toBe("maintenance")
    expect(PublicStatus.overallStatus(["maintenance", "degraded"])).toBe("degraded")
    expect(PublicStatus.overallStatus(["partial_outage", "major_outage", "degraded"])).toBe("major_outage")
  })
})

describe("dayBars", () => {
  const base = { now: NOW, rollups: new Map(), incidents: [], maintenance: [] }
  it("answers `days` bars, oldest first, the last being today (UTC)", () => {
    const bars = PublicStatus.dayBars({ ...base, days: 90 })
    expect(bars).toHaveLength(90)
    expect(bars[89]?.date).toBe("2026-03-10")
    expect(bars[0]?.date).toBe("2025-12-11")
    expect(bars.every((b) => b.status === "no_data" && b.uptime_pct === null)).toBe(true)
  })
  it("uptime from the day's rollup; incidents colour the day by the worst impact; maintenance marks it", () => {
    const bars = PublicStatus.dayBars({
      days: 3,
      now: NOW,
      rollups: new Map([
        ["2026-03-08", { up_secs: 3600, down_secs: 0 }],
        ["2026-03-09", { up_secs: 2700, down_secs: 900 }],
        ["2026-03-10", { up_secs: 0, down_secs: 0 }]
      ]),
      incidents: [
        { from: Date.parse("2026-03-09T23:00:00Z"), until: Date.parse("2026-03-10T01:00:00Z"), impact: "degraded" },
        { from: Date.parse("2026-03-09T10:00:00Z"), until: Date.parse("2026-03-09T11:00:00Z"), impact: "major_outage" }
      ],
      maintenance: [{ from: Date.parse("2026-03-08T02:00:00Z"), until: Date.parse("2026-03-08T03:00:00Z") }]
    })
    expect(bars).toEqual([
      { date: "2026-03-08", status: "maintenance", uptime_pct: 100, incidents: 0, maintenance: true },
      { date: "2026-03-09", status: "major_outage", uptime_pct: 75, incidents: 2, maintenance: false },
      { date: "2026-03-10", status: "degraded", uptime_pct: null, incidents: 1, maintenance: false }
    ])
  })
  it("an open incident runs on to today; spans are half-open", () => {
    const bars = PublicStatus.dayBars({
      ...base,
      days: 3,
      incidents: [{ from: NOW - 2 * DAY, until: null, impact: "partial_outage" }],
      maintenance: [{ from: Date.parse("2026-03-09T00:00:00Z") - 3_600_000, until: Date.parse("2026-03-09T00:00:00Z") }]
    })
    expect(bars.map((b) => b.status)).toEqual(["partial_outage", "partial_outage", "partial_outage"])
    expect(bars.map((b) => b.maintenance)).toEqual([true, false, false])
  })
})

describe("branding colours", () => {
  it("only #rgb and #rrggbb values pass; anything else is the default", () => {
    expect(PublicStatus.safeColor("#ABCDEF")).toBe("#abcdef")
    expect(PublicStatus.safeColor("#abc")).toBe("#aabbcc")
    expect(PublicStatus.safeColor("red;}</style>")).toBe("#2563eb")
    expect(PublicStatus.safeColor(undefined)).toBe("#2563eb")
    expect(PublicStatus.safeColor("url(x)")).toBe("#2563eb")
  })
  it("text on a brand colour is whichever of black and white contrasts more", () => {
    expect(PublicStatus.textOn("#ffff00")).toBe("#000000")
    expect(PublicStatus.textOn("#1e3a8a")).toBe("#ffffff")
    expect(PublicStatus.contrastRatio("#000000", "#ffffff")).toBeCloseTo(21, 5)
    for (const color of ["#2563eb", "#fbbf24", "#10b981", "#7c3aed", "#777777"]) {
      expect(PublicStatus.contrastRatio(color, PublicStatus.textOn(color))).toBeGreaterThanOrEqual(4.5)
    }
  })
})
