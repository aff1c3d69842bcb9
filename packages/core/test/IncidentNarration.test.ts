import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import type * as ApiError from "../src/ApiError.js"
import * as IncidentNarration from "../src/IncidentNarration.js"

const refusal = <A>(either: Either.Either<A, ApiError.ApiError>) =>
  Either.match(either, {
    onLeft: (e) => ({ status: e.status, code: e.code, field: e.field }),
    onRight: () => "accepted"
  })

const stored: IncidentNarration.Narration = {
  title: "API down",
  public_title: "Degraded API",
  public_description: "We are looking into it",
  severity: "major",
  counts_as_downtime: false
}

describe("IncidentNarration: PATCH", () => {
  it("JSON null clears, an omitted key leaves the field alone", () => {
    const patch = Either.getOrThrow(
      IncidentNarration.decodePatch("declared", { public_title: null, severity: null, public_description: "Fixed" })
    )
    expect(IncidentNarration.apply(stored, patch)).toEqual({
      title: "API down",
      public_title: null,
      public_description: "Fixed",
      severity: null,
      counts_as_downtime: false
    })
    expect(IncidentNarration.apply(stored, Either.getOrThrow(IncidentNarration.decodePatch("monitor", {})))).toEqual(
      stored
    )
  })

  it("a monitor-opened incident's title may be cleared; a declared incident's may not", () => {
    const cleared = Either.getOrThrow(IncidentNarration.decodePatch("monitor", { title: null }))
    expect(IncidentNarration.apply(stored, cleared).title).toBeNull()
    expect(refusal(IncidentNarration.decodePatch("declared", { title: null }))).toEqual({
      status: 400,
      code: "VALIDATION_FAILED",
      field: "title"
    })
  })

  it("counts_as_downtime is for declared incidents; on a monitor-opened one it is 422 INCIDENT_NOT_DECLARED", () => {
    const patch = Either.getOrThrow(IncidentNarration.decodePatch("declared", { counts_as_downtime: true }))
    expect(IncidentNarration.apply(stored, patch).counts_as_downtime).toBe(true)
    for (const value of [true, false]) {
      expect(refusal(IncidentNarration.decodePatch("monitor", { counts_as_downtime: value }))).toEqual({
        status: 422,
        code: "INCIDENT_NOT_DECLARED",
        field: "counts_as_downtime"
      })
    }
  })

  it("titles are trimmed, not empty, at most 200 characters; descriptions at most 10000", () => {
    const trimmed = Either.getOrThrow(IncidentNarration.decodePatch("declared", { title: "  Outage  " }))
    expect(trimmed.title).toBe("Outage")
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ title: "   " }, "title"],
      [{ title: "x".repeat(201) }, "title"],
      [{ public_title: "" }, "public_title"],
      [{ public_description: "x".repeat(10_001) }, "public_description"],
      [{ severity: "sev1" }, "severity"],
      [{ title: 5 }, "title"],
      [{ counts_as_downtime: null }, "counts_as_downtime"]
    ]
    for (const [body, field] of bad) {
      expect(refusal(IncidentNarration.decodePatch("declared", body)), JSON.stringify(body)).toEqual({
        status: 400,
        code: "VALIDATION_FAILED",
        field
      })
    }
    expect(refusal(IncidentNarration.decodePatch("declared", { title: "é".repeat(200) }))).toBe("accepted")
  })

  it("an unknown or read-only key is 422 INVALID_JSON naming it", () => {
    expect(refusal(IncidentNarration.decodePatch("declared", { titel: "x" }))).toEqual({
      status: 422,
      code: "INVALID_JSON",
      field: "titel"
    })
    expect(refusal(IncidentNarration.decodePatch("monitor", { recovering_since: null }))).toEqual({
      status: 422,
      code: "INVALID_JSON",
      field: "recovering_since"
    })
  })

  it("the rules follow the body's field order", () => {
    expect(IncidentNarration.checkPatch("declared", { title: null, counts_as_downtime: true })?.code).toBe(
      "VALIDATION_FAILED"
    )
    expect(IncidentNarration.checkPatch("monitor", { title: null, counts_as_downtime: true })?.code).toBe(
      "INCIDENT_NOT_DECLARED"
    )
    expect(IncidentNarration.checkPatch("monitor", { title: null })).toBeUndefined()
  })
})

describe("IncidentNarration: updates", () => {
  it("every phase is accepted with a message", () => {
    for (const phase of ["investigating", "identified", "monitoring", "resolved", "postmortem"]) {
      expect(Either.getOrThrow(IncidentNarration.decodeUpdate({ phase, message: " Looking " }))).toEqual({
        phase,
        message: "Looking"
      })
    }
  })

  it("a message is 1 to 2000 characters, counted as characters, not UTF-16 units", () => {
    expect(refusal(IncidentNarration.decodeUpdate({ phase: "identified", message: "x".repeat(2000) }))).toBe("accepted")
    expect(refusal(IncidentNarration.decodeUpdate({ phase: "identified", message: "🔥".repeat(2000) }))).toBe(
      "accepted"
    )
    for (const message of ["x".repeat(2001), "🔥".repeat(2001), "", "  "]) {
      expect(refusal(IncidentNarration.decodeUpdate({ phase: "identified", message }))).toEqual({
        status: 400,
        code: "VALIDATION_FAILED",
        field: "message"
      })
    }
  })

  it("a missing or unknown phase is 400 on phase; an unknown key is 422", () => {
    expect(refusal(IncidentNarration.decodeUpdate({ message: "x" }))).toEqual({
      status: 400,
      code: "VALIDATION_FAILED",
      field: "phase"
    })
    expect(refusal(IncidentNarration.decodeUpdate({ phase: "fixed", message: "x" }))).toEqual({
      status: 400,
      code: "VALIDATION_FAILED",
      field: "phase"
    })
    expect(refusal(IncidentNarration.decodeUpdate({ phase: "resolved", message: "x", status: "ok" }))).toEqual({
      status: 422,
      code: "INVALID_JSON",
      field: "status"
    })
  })
})
