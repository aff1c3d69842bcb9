/**
 * What people write on an incident (service-api.md "Incident (narration)" and the maintenance and incidents
 * endpoints): `PATCH /api/v1/incidents/{id}` edits the title, the public title and description and the severity
 * (JSON null clears, an omitted key leaves the field alone) and, on a declared incident only,
 * `counts_as_downtime`; `POST /api/v1/incidents/{id}/updates` adds a phase and a message to the timeline.
 *
 * The body schemas carry the shapes and limits (a decode failure is 400 `VALIDATION_FAILED` naming the field, an
 * unknown key 422 `INVALID_JSON`); {@link checkPatch} carries the rules that depend on the incident.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as ApiError from "./ApiError.js"
import * as DecodeFailure from "./DecodeFailure.js"
import { type Origin, Phase, Severity } from "./Incident.js"
import type * as Plan from "./Plan.js"
import * as PlanLimits from "./PlanLimits.js"
import * as RequestBody from "./RequestBody.js"
import type { Violation } from "./TargetRules.js"
import { atMost } from "./TextLength.js"

/**
 * The most characters an update's message may hold.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_MESSAGE_LENGTH = 2000

/**
 * The most characters a title or public title may hold.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_TITLE_LENGTH = 200

/**
 * The most characters a public description may hold.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_DESCRIPTION_LENGTH = 10000

const title = Schema.Trim.pipe(Schema.minLength(1, { message: () => "must not be empty" }), atMost(MAX_TITLE_LENGTH))
const description = Schema.String.pipe(atMost(MAX_DESCRIPTION_LENGTH))
const optional = <S extends Schema.Schema.Any>(s: S) => Schema.optionalWith(s, { exact: true })

/**
 * `PATCH /api/v1/incidents/{id}`.
 *
 * @since 0.1.0
 * @category requests
 */
export const PatchIncident = RequestBody.Struct({
  title: optional(Schema.NullOr(title)),
  public_title: optional(Schema.NullOr(title)),
  public_description: optional(Schema.NullOr(description)),
  severity: optional(Schema.NullOr(Severity)),
  counts_as_downtime: optional(Schema.Boolean)
}).annotations({ identifier: "PatchIncident" })

/**
 * @since 0.1.0
 * @category requests
 */
export type PatchIncident = typeof PatchIncident.Type

/**
 * `POST /api/v1/incidents/{id}/updates`: a phase and a message of 1 to 2000 characters.
 *
 * @since 0.1.0
 * @category requests
 */
export const PostIncidentUpdate = RequestBody.Struct({
  phase: Phase,
  message: Schema.Trim.pipe(Schema.minLength(1, { message: () => "must not be empty" }), atMost(MAX_MESSAGE_LENGTH))
}).annotations({ identifier: "PostIncidentUpdate" })

/**
 * @since 0.1.0
 * @category requests
 */
export type PostIncidentUpdate = typeof PostIncidentUpdate.Type

/**
 * The narrated fields of an incident as stored. A monitor-opened incident's null title shows its monitor's name.
 *
 * @since 0.1.0
 * @category models
 */
export interface Narration {
  readonly title: string | null
  readonly public_title: string | null
  readonly public_description: string | null
  readonly severity: Severity | null
  readonly counts_as_downtime: boolean
}

/**
 * The rules of a PATCH that depend on who opened the incident, in the body's field order: a declared incident's
 * title cannot be cleared (400 `VALIDATION_FAILED` on `title`), and `counts_as_downtime` belongs to declared
 * incidents (422 `INCIDENT_NOT_DECLARED` on a monitor-opened one, whose downtime the checks measure).
 *
 * @since 0.1.0
 * @category rules
 */
export const checkPatch = (origin: Origin, patch: PatchIncident): Violation | undefined => {
  if (origin === "declared" && patch.title === null) {
    return { code: "VALIDATION_FAILED", field: "title", message: "a declared incident's title cannot be cleared" }
  }
  if (origin === "monitor" && patch.counts_as_downtime !== undefined) {
    return {
      code: "INCIDENT_NOT_DECLARED",
      field: "counts_as_downtime",
      message: "counts_as_downtime applies to declared incidents; a monitor-opened incident's downtime is measured"
    }
  }
  return undefined
}

/**
 * A checked PATCH applied to the stored narration: null clears, an omitted key keeps the stored value.
 *
 * @since 0.1.0
 * @category combinators
 */
export const apply = (stored: Narration, patch: PatchIncident): Narration => ({
  title: patch.title === undefined ? stored.title : patch.title,
  public_title: patch.public_title === undefined ? stored.public_title : patch.public_title,
  public_description: patch.public_description === undefined ? stored.public_description : patch.public_description,
  severity: patch.severity === undefined ? stored.severity : patch.severity,
  counts_as_downtime: patch.counts_as_downtime ?? stored.counts_as_downtime
})

const decodeBody =
  <A, I>(schema: Schema.Schema<A, I>) =>
  (body: unknown): Either.Either<A, ApiError.ApiError> =>
    Either.mapLeft(Schema.decodeUnknownEither(schema, RequestBody.strict.parseOptions)(body), (error) =>
      DecodeFailure.toApiError(ParseResult.ArrayFormatter.formatErrorSync(error))
    )

const decodePatchBody = decodeBody(PatchIncident)

/**
 * A raw PATCH body judged whole, as the endpoint answers it: the decode first, then {@link checkPatch}.
 *
 * @since 0.1.0
 * @category rules
 */
export const decodePatch = (origin: Origin, body: unknown): Either.Either<PatchIncident, ApiError.ApiError> =>
  Either.flatMap(decodePatchBody(body), (patch) => {
    const broken = checkPatch(origin, patch)
    return broken === undefined
      ? Either.right(patch)
      : Either.left(ApiError.make(broken.code, broken.message, { field: broken.field }))
  })

/**
 * A raw update body judged as the endpoint answers it.
 *
 * @since 0.1.0
 * @category rules
 */
export const decodeUpdate: (body: unknown) => Either.Either<PostIncidentUpdate, ApiError.ApiError> =
  decodeBody(PostIncidentUpdate)

/**
 * The plan's gate on public narration: without `incident_narration_enabled`, a write naming a public field (the
 * public title or description, a declaration's first message) is 403 `INCIDENT_NARRATION_DISABLED` on the first
 * such field, and a timeline update (`field` null) is refused whole. Private fields (the title, severity) stay
 * writable.
 *
 * @since 0.1.0
 * @category rules
 */
export const planGate = (
  plan: Plan.Plan,
  write:
    | { readonly _tag: "Fields"; readonly fields: Readonly<Record<string, unknown>> }
    | { readonly _tag: "TimelineUpdate" }
): Option.Option<ApiError.ErrorOf<403>> => {
  if (PlanLimits.includes(plan, "incident_narration")) return Option.none()
  if (write._tag === "TimelineUpdate") return PlanLimits.gate(plan, "incident_narration")
  const field = publicFields.find((name) => write.fields[name] !== undefined)
  return field === undefined ? Option.none() : PlanLimits.gate(plan, "incident_narration", field)
}

const publicFields = ["public_title", "public_description", "message"] as const
