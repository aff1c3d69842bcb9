import { describe, expect, it } from "@effect/vitest"
import * as DateTime from "effect/DateTime"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { UserId } from "../src/Identity.js"
import * as ManualState from "../src/ManualState.js"
import type { Violation } from "../src/TargetRules.js"
import * as TargetRules from "../src/TargetRules.js"

const { ManualEffect, ManualEvent } = ManualState

const created = DateTime.unsafeMake("2026-11-22T10:00:00.000Z")
const at = (seconds: number): DateTime.Utc => DateTime.unsafeMake(DateTime.toEpochMillis(created) + seconds * 1000)

const alice = UserId.make("0193a000-0000-7000-8000-000000000001")
const bob = UserId.make("0193a000-0000-7000-8000-000000000002")

const fresh = ManualState.initial(created)

const setTo = (
  status: ManualState.ManualStatus,
  note: string | null = null,
  context: { readonly running?: boolean; readonly incident_open?: boolean; readonly actor?: UserId } = {}
) =>
  ManualEvent.Set({
    set: { status, note },
    actor: context.actor ?? alice,
    running: context.running ?? true,
    incident_open: context.incident_open ?? false
  })

const tags = (step: ManualState.Step) => step.effects.map((effect) => effect._tag)
const results = (step: ManualState.Step) =>
  step.effects.flatMap((effect) => (effect._tag === "WriteResult" ? [effect] : []))

const body = (value: unknown) => Schema.decodeUnknownSync(ManualState.SetStateRequest)(value)
const refusal = (value: unknown): Violation =>
  Either.getOrThrowWith(Either.flip(ManualState.validate(body(value))), () => new Error("expected a refusal"))

describe("ManualState: the spec's state table", () => {
  it("up (initial) | PUT state | status degraded or down | degraded or down; result written at once; incident opens on the incident writer's next pass", () => {
    expect(fresh).toEqual({ status: "up", note: null, set_at: created, set_by: null })
    for (const status of ["degraded", "down"] as const) {
      const next = ManualState.step(fresh, setTo(status, "db failover"), at(30))
      expect(next.state).toEqual({ status, note: "db failover", set_at: at(30), set_by: alice })
      expect(tags(next)).toEqual(["WriteResult", "StatusChanged", "Audit"])
      const [result] = results(next)
      expect(result?.checked_at).toEqual(at(30))
      expect(result?.outcome).toMatchObject({ status, error: "db failover" })
      expect(next.effects).toContainEqual(ManualEffect.StatusChanged({ from: "up", to: status }))
    }
    // Without a note the result still says why it is failing.
    expect(results(ManualState.step(fresh, setTo("down"), at(30)))[0]?.outcome.error).toBe("set down by an operator")
  })

  it("degraded or down | PUT state | status up | up; result written at once; incident closes", () => {
    for (const status of ["degraded", "down"] as const) {
      const failing = ManualState.step(fresh, setTo(status, "broken"), at(30)).state
      const next = ManualState.step(failing, setTo("up", null, { incident_open: true, actor: bob }), at(90))
      expect(next.state).toEqual({ status: "up", note: null, set_at: at(90), set_by: bob })
      expect(results(next).map((r) => [r.outcome.status, r.outcome.error])).toEqual([["up", null]])
      expect(next.effects).toContainEqual(ManualEffect.StatusChanged({ from: status, to: "up" }))
      // Closing is the incident writer's, on the up result: no raise, no cause.
      expect(tags(next)).toEqual(["WriteResult", "StatusChanged", "Audit"])
    }
  })

  it("degraded | PUT state | status down while incident open | down; the open incident is raised instead of opening another; a system note records when; each down or degraded set replaces the incident's cause with its note", () => {
    const degraded = ManualState.step(fresh, setTo("degraded", "slow checkout"), at(30)).state
    const raised = ManualState.step(degraded, setTo("down", "checkout down", { incident_open: true }), at(300))
    expect(raised.state.status).toBe("down")
    expect(tags(raised)).toEqual(["WriteResult", "StatusChanged", "RaiseIncident", "ReplaceIncidentCause", "Audit"])
    expect(raised.effects).toContainEqual(
      ManualEffect.RaiseIncident({
        to: "down",
        system_note: "Raised from degraded to down at 2026-11-22T10:05:00.000Z",
        at: at(300)
      })
    )
    expect(raised.effects).toContainEqual(ManualEffect.ReplaceIncidentCause({ note: "checkout down" }))

    // Each later down or degraded set replaces the cause again; only degraded to down raises.
    const renoted = ManualState.step(
      raised.state,
      setTo("down", "restoring from backup", { incident_open: true }),
      at(400)
    )
    expect(tags(renoted)).toEqual(["WriteResult", "ReplaceIncidentCause", "Audit"])
    expect(renoted.effects).toContainEqual(ManualEffect.ReplaceIncidentCause({ note: "restoring from backup" }))
    const lowered = ManualState.step(renoted.state, setTo("degraded", null, { incident_open: true }), at(500))
    expect(tags(lowered)).toEqual(["WriteResult", "StatusChanged", "ReplaceIncidentCause", "Audit"])
    expect(lowered.effects).toContainEqual(ManualEffect.ReplaceIncidentCause({ note: null }))

    // With no incident open yet (the writer has not passed), nothing is raised: the writer opens one, down.
    const early = ManualState.step(degraded, setTo("down", "checkout down", { incident_open: false }), at(40))
    expect(tags(early)).toEqual(["WriteResult", "StatusChanged", "Audit"])
  })

  it("any | PUT state | same status and note as current | unchanged; no result, no audit entry", () => {
    expect(ManualState.step(fresh, setTo("up", null, { actor: bob }), at(30))).toEqual({ state: fresh, effects: [] })
    const down = ManualState.step(fresh, setTo("down", "maintenance overran"), at(30)).state
    expect(ManualState.step(down, setTo("down", "maintenance overran", { incident_open: true }), at(60))).toEqual({
      state: down,
      effects: []
    })
    // The same status with another note is a change.
    const renoted = ManualState.step(down, setTo("down", "back in 10 minutes"), at(60))
    expect(tags(renoted)).toEqual(["WriteResult", "Audit"])
    expect(renoted.state.set_at).toEqual(at(60))
  })
})

describe("ManualState: audit, restatement, paused and held", () => {
  it("every change is audited as target.state_set with the acting user, before and after", () => {
    const next = ManualState.step(fresh, setTo("degraded", "slow", { actor: bob }), at(30))
    expect(next.effects).toContainEqual(
      ManualEffect.Audit({
        action: "target.state_set",
        actor: bob,
        before: { status: "up", note: null },
        after: { status: "degraded", note: "slow" }
      })
    )
  })

  it("the scheduler restates the state once a minute: one result per restatement, nothing else", () => {
    const down = ManualState.step(fresh, setTo("down", "outage"), at(30)).state
    const restated = ManualState.step(down, ManualEvent.Restate({ running: true }), at(60))
    expect(restated.state).toEqual(down)
    expect(tags(restated)).toEqual(["WriteResult"])
    expect(results(restated)[0]).toMatchObject({ checked_at: at(60), outcome: { status: "down", error: "outage" } })
    expect(results(ManualState.step(fresh, ManualEvent.Restate({ running: true }), at(60)))[0]?.outcome.status).toBe(
      "up"
    )
  })

  it("a paused or held monitor keeps the set state, audited, writes nothing, and reports it when it runs again", () => {
    const set = ManualState.step(fresh, setTo("down", "unplugged", { running: false, incident_open: true }), at(30))
    expect(set.state).toMatchObject({ status: "down", note: "unplugged", set_by: alice })
    expect(tags(set)).toEqual(["Audit"])
    expect(ManualState.step(set.state, ManualEvent.Restate({ running: false }), at(60))).toEqual({
      state: set.state,
      effects: []
    })
    const resumed = ManualState.step(set.state, ManualEvent.Restate({ running: true }), at(3600))
    expect(results(resumed).map((r) => r.outcome.status)).toEqual(["down"])
  })

  it("set_by becomes null once the setter's deleted account is purged", () => {
    const set = ManualState.step(fresh, setTo("down", null, { actor: bob }), at(30)).state
    expect(ManualState.forgetSetter(set, bob).set_by).toBeNull()
    expect(ManualState.forgetSetter(set, alice)).toEqual(set)
  })
})

describe("ManualState: the PUT body", () => {
  it("takes a status and an optional note; a blank or null note clears it, and the note is trimmed", () => {
    expect(ManualState.validate(body({ status: "down" }))).toEqual(Either.right({ status: "down", note: null }))
    expect(ManualState.validate(body({ status: "up", note: null }))).toEqual(Either.right({ status: "up", note: null }))
    expect(ManualState.validate(body({ status: "degraded", note: "  slow  \n" }))).toEqual(
      Either.right({ status: "degraded", note: "slow" })
    )
    expect(ManualState.validate(body({ status: "degraded", note: "   " }))).toEqual(
      Either.right({ status: "degraded", note: null })
    )
  })

  it("a missing or unknown status is 400 INVALID_MANUAL_STATE on status", () => {
    for (const value of [{}, { status: "error" }, { status: "DOWN" }, { status: 1 }, { status: null }]) {
      expect(refusal(value)).toMatchObject({ code: "INVALID_MANUAL_STATE", field: "status" })
    }
    const error = TargetRules.toApiError(refusal({ status: "maintenance" }))
    expect([error.status, error.code, error.field]).toEqual([400, "INVALID_MANUAL_STATE", "status"])
    expect(error.details).toEqual({ allowed: ["up", "degraded", "down"] })
  })

  it("a note that is not one line of at most 200 characters is 400 INVALID_MANUAL_STATE on note", () => {
    for (const note of ["line one\nline two", "a\rb", "tab\there", "para\u2028graph", "bell\u0007", 42, ["x"]]) {
      expect(refusal({ status: "down", note }), JSON.stringify(note)).toMatchObject({
        code: "INVALID_MANUAL_STATE",
        field: "note"
      })
    }
    expect(refusal({ status: "down", note: "x".repeat(201) })).toMatchObject({
      field: "note",
      details: { max: 200, length: 201 }
    })
    expect(ManualState.validate(body({ status: "down", note: "x".repeat(200) }))).toEqual(
      Either.right({ status: "down", note: "x".repeat(200) })
    )
    // Characters, not UTF-16 units: 200 emoji fit.
    expect(Either.isRight(ManualState.validate(body({ status: "down", note: "🔥".repeat(200) })))).toBe(true)
  })

  it("an unknown key is refused by the body itself (422 INVALID_JSON upstream)", () => {
    expect(Either.isLeft(Schema.decodeUnknownEither(ManualState.SetStateRequest)({ status: "up", notes: "x" }))).toBe(
      true
    )
  })

  it("either state route on another kind is 404 MANUAL_NOT_CONFIGURED", () => {
    expect(Either.isRight(ManualState.requireManual("manual"))).toBe(true)
    for (const kind of ["http", "heartbeat", "tcp"] as const) {
      const error = Either.getOrThrowWith(Either.flip(ManualState.requireManual(kind)), () => new Error(kind))
      expect([error.status, error.code, error.field]).toEqual([404, "MANUAL_NOT_CONFIGURED", null])
    }
  })
})
