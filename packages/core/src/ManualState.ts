/**
 * The manual monitor (service-api.md "Manual state" and "States and transitions", "Manual monitor"): an operator
 * sets its status with `PUT /targets/{id}/state`; nothing is probed. A pure function of `(state, event, now)` to the
 * next state and the effects the caller carries out, plus the validation of the request body.
 *
 * - A set that changes the status or the note writes its result at once and is audited (`target.state_set`); the
 *   incident writer then opens (on degraded or down) or closes (on up) the incident on its next pass.
 * - Degraded to down while an incident is open raises that incident instead of opening another, with a system
 *   note of when; every degraded or down set replaces the open incident's cause with its note.
 * - A set identical to the current status and note changes nothing: no result, no audit entry.
 * - The scheduler restates the state once a minute (one result each time) while the monitor runs. A paused
 *   monitor, or one its plan no longer covers, keeps what is set (audited as ever) and writes nothing; its first
 *   restatement when it runs again reports it.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as DateTime from "effect/DateTime"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as ApiError from "./ApiError.js"
import type { ProbeOutcome } from "./CheckResult.js"
import type { CheckKind } from "./CheckSpec.js"
import { UserId } from "./Identity.js"
import * as RequestBody from "./RequestBody.js"
import type { Violation } from "./TargetRules.js"

/**
 * The statuses an operator can set.
 *
 * @since 0.1.0
 * @category models
 */
export const ManualStatus = Schema.Literal("up", "degraded", "down")

/**
 * @since 0.1.0
 * @category models
 */
export type ManualStatus = typeof ManualStatus.Type

/**
 * The manual state as the API answers it and the service keeps it.
 *
 * @since 0.1.0
 * @category models
 */
export const ManualState = Schema.Struct({
  status: ManualStatus,
  note: Schema.NullOr(Schema.String),
  /** The creation time until the first set. */
  set_at: Schema.DateTimeUtc,
  /** Null until the first set, and again once the setter's deleted account is purged. */
  set_by: Schema.NullOr(UserId)
}).annotations({ identifier: "ManualState" })

/**
 * @since 0.1.0
 * @category models
 */
export type ManualState = typeof ManualState.Type

/**
 * The state of a new manual monitor: up, no note, dated to its creation.
 *
 * @since 0.1.0
 * @category constructors
 */
export const initial = (createdAt: DateTime.Utc): ManualState => ({
  status: "up",
  note: null,
  set_at: createdAt,
  set_by: null
})

/**
 * The longest note, in characters (Unicode code points, so an emoji counts once).
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_NOTE_CHARACTERS = 200

// Typed loosely on purpose: a bad status or note is 400 INVALID_MANUAL_STATE (the spec's code), which the generic
// decode would answer as VALIDATION_FAILED. The JSON Schema annotations keep the OpenAPI document exact.
const statusField = Schema.Unknown.annotations({
  jsonSchema: { type: "string", enum: ["up", "degraded", "down"] },
  description: "up, degraded or down"
})
const noteField = Schema.Unknown.annotations({
  jsonSchema: { type: ["string", "null"], maxLength: MAX_NOTE_CHARACTERS },
  description: "one line, at most 200 characters; replaces the previous note (null or omitted clears it)"
})

/**
 * The body of `PUT /targets/{id}/state`. Unknown keys are 422 `INVALID_JSON`; the values are judged by
 * {@link validate}.
 *
 * @since 0.1.0
 * @category requests
 */
export const SetStateRequest = RequestBody.Struct({
  status: Schema.optionalWith(statusField, { exact: true }),
  note: Schema.optionalWith(noteField, { exact: true })
}).annotations({ identifier: "SetStateRequest" })

/**
 * @since 0.1.0
 * @category requests
 */
export type SetStateRequest = typeof SetStateRequest.Type

/**
 * A valid set: the status and the note to store (trimmed; null when absent or blank).
 *
 * @since 0.1.0
 * @category models
 */
export interface ManualSet {
  readonly status: ManualStatus
  readonly note: string | null
}

const invalid = (field: string, message: string, details?: Record<string, unknown>): Violation =>
  details === undefined
    ? { code: "INVALID_MANUAL_STATE", field, message }
    : { code: "INVALID_MANUAL_STATE", field, message, details }

const isStatus = Schema.is(ManualStatus)

// Line breaks (including U+2028 and U+2029) and other control characters would break the one-line renderings of a
// note: notification subjects, the status page, chat messages.
const notOneLine = /[\p{Cc}\u2028\u2029]/u

/**
 * The body's status and note, or the first one that is invalid (400 `INVALID_MANUAL_STATE` naming `status` or
 * `note`). A note is trimmed first, so a trailing newline from a shell is no error; a blank note clears it.
 *
 * @since 0.1.0
 * @category validation
 */
export const validate = (body: SetStateRequest): Either.Either<ManualSet, Violation> => {
  const allowed = ManualStatus.literals
  if (body.status === undefined) {
    return Either.left(invalid("status", "status is required: up, degraded or down", { allowed }))
  }
  if (!isStatus(body.status)) {
    return Either.left(invalid("status", "status must be up, degraded or down", { allowed }))
  }
  if (body.note === undefined || body.note === null) return Either.right({ status: body.status, note: null })
  if (typeof body.note !== "string") return Either.left(invalid("note", "note must be a string or null"))
  const note = body.note.trim()
  if (notOneLine.test(note)) {
    return Either.left(invalid("note", "note must be one line, without line breaks or control characters"))
  }
  const characters = [...note].length
  if (characters > MAX_NOTE_CHARACTERS) {
    return Either.left(
      invalid("note", `note is at most ${MAX_NOTE_CHARACTERS} characters`, {
        max: MAX_NOTE_CHARACTERS,
        length: characters
      })
    )
  }
  return Either.right({ status: body.status, note: note === "" ? null : note })
}

/**
 * Either state route on a monitor of another kind is 404 `MANUAL_NOT_CONFIGURED`.
 *
 * @since 0.1.0
 * @category validation
 */
export const requireManual = (kind: CheckKind): Either.Either<void, ApiError.NotFound> =>
  kind === "manual"
    ? Either.void
    : Either.left(
        ApiError.make("MANUAL_NOT_CONFIGURED", `this monitor is a ${kind} monitor; only manual monitors have a state`, {
          details: { type: kind }
        })
      )

/**
 * An operator's set, with what the step needs to know about the monitor: whether it runs (neither paused nor beyond
 * its plan) and whether its incident is open. The scheduler's once-a-minute restatement.
 *
 * @since 0.1.0
 * @category models
 */
export type ManualEvent = Data.TaggedEnum<{
  Set: {
    readonly set: ManualSet
    readonly actor: UserId
    readonly running: boolean
    readonly incident_open: boolean
  }
  Restate: { readonly running: boolean }
}>

/**
 * Constructors for {@link ManualEvent}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const ManualEvent = Data.taggedEnum<ManualEvent>()

/**
 * What the caller does after a step.
 *
 * - `WriteResult`: a check result to store now.
 * - `StatusChanged`: the status moved (the incident writer opens on degraded or down, closes on up).
 * - `RaiseIncident`: degraded became down while the incident is open: raise it and add `system_note`.
 * - `ReplaceIncidentCause`: the open incident's cause becomes this note.
 * - `Audit`: record `target.state_set` with the acting user, before and after.
 *
 * @since 0.1.0
 * @category models
 */
export type ManualEffect = Data.TaggedEnum<{
  WriteResult: { readonly outcome: ProbeOutcome; readonly checked_at: DateTime.Utc }
  StatusChanged: { readonly from: ManualStatus; readonly to: ManualStatus }
  RaiseIncident: { readonly to: "down"; readonly system_note: string; readonly at: DateTime.Utc }
  ReplaceIncidentCause: { readonly note: string | null }
  Audit: {
    readonly action: "target.state_set"
    readonly actor: UserId
    readonly before: ManualSet
    readonly after: ManualSet
  }
}>

/**
 * Constructors for {@link ManualEffect}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const ManualEffect = Data.taggedEnum<ManualEffect>()

/**
 * The next state and what to do about it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Step {
  readonly state: ManualState
  readonly effects: ReadonlyArray<ManualEffect>
}

// The note is the result's error text when the monitor is not up, so the incident opened from the result carries
// it as its cause.
const outcome = (state: ManualState): ProbeOutcome => ({
  status: state.status,
  duration_ms: 0,
  error: state.status === "up" ? null : (state.note ?? `set ${state.status} by an operator`),
  details: {
    source: "manual",
    note: state.note,
    set_at: DateTime.formatIso(state.set_at),
    set_by: state.set_by
  },
  phases: null
})

const set = (state: ManualState, event: Extract<ManualEvent, { readonly _tag: "Set" }>, now: DateTime.Utc): Step => {
  const { set: wanted } = event
  if (wanted.status === state.status && wanted.note === state.note) return { state, effects: [] }
  const next: ManualState = { status: wanted.status, note: wanted.note, set_at: now, set_by: event.actor }
  const audit = ManualEffect.Audit({
    action: "target.state_set",
    actor: event.actor,
    before: { status: state.status, note: state.note },
    after: wanted
  })
  if (!event.running) return { state: next, effects: [audit] }
  const effects: Array<ManualEffect> = [ManualEffect.WriteResult({ outcome: outcome(next), checked_at: now })]
  if (wanted.status !== state.status)
    effects.push(ManualEffect.StatusChanged({ from: state.status, to: wanted.status }))
  if (event.incident_open && wanted.status !== "up") {
    if (state.status === "degraded" && wanted.status === "down") {
      effects.push(
        ManualEffect.RaiseIncident({
          to: "down",
          system_note: `Raised from degraded to down at ${DateTime.formatIso(now)}`,
          at: now
        })
      )
    }
    effects.push(ManualEffect.ReplaceIncidentCause({ note: wanted.note }))
  }
  effects.push(audit)
  return { state: next, effects }
}

/**
 * One transition of the manual machine.
 *
 * @since 0.1.0
 * @category transitions
 */
export const step = (state: ManualState, event: ManualEvent, now: DateTime.Utc): Step => {
  switch (event._tag) {
    case "Set":
      return set(state, event, now)
    case "Restate":
      return event.running
        ? { state, effects: [ManualEffect.WriteResult({ outcome: outcome(state), checked_at: now })] }
        : { state, effects: [] }
  }
}

/**
 * The state once a purged account's user id must go: `set_by` becomes null when it named that user.
 *
 * @since 0.1.0
 * @category transitions
 */
export const forgetSetter = (state: ManualState, user: UserId): ManualState =>
  state.set_by === user ? { ...state, set_by: null } : state
