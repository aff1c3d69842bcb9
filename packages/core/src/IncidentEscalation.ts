/**
 * An incident's escalation walk as the API shows it (docs/on-call.md, "Escalation"): the policy it walks (as it
 * stood when the incident opened), whether the walk goes on or why it stopped, the page sent last and the next one
 * due, and per page who was paged. Read on `GET /api/v1/incidents/{id}` as `escalation` (null when the incident's
 * monitor had no policy when it opened, and on a declared incident).
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import { TargetType } from "./oncall/EscalationPolicy.js"

/**
 * Where a walk stands: `active` while pages are still to come; `acknowledged`, `resolved` or `recovered` when the
 * incident stopped it; `exhausted` when every page (every round) was sent.
 *
 * @since 0.2.0
 * @category models
 */
export const EscalationStatus = Schema.Literal("active", "acknowledged", "resolved", "recovered", "exhausted")

/**
 * @since 0.2.0
 * @category models
 */
export type EscalationStatus = typeof EscalationStatus.Type

/**
 * What paging one target of a step did: `paged` (a person by mail, or a channel), `nobody_on_call` (a schedule
 * with no one on call at that moment), `not_found` (the user left the org, or the schedule or channel was
 * deleted), `disabled` (the channel is disabled).
 *
 * @since 0.2.0
 * @category models
 */
export const PageOutcome = Schema.Literal("paged", "nobody_on_call", "not_found", "disabled")

/**
 * @since 0.2.0
 * @category models
 */
export type PageOutcome = typeof PageOutcome.Type

/**
 * One target of a page: the step's target, what came of it, and who or what was paged (`user_id` for a user
 * target or a schedule's on-call person, `channel_id` for a channel).
 *
 * @since 0.2.0
 * @category models
 */
export const PageRecipient = Schema.Struct({
  target: Schema.Struct({ type: TargetType, id: Schema.String }),
  outcome: PageOutcome,
  user_id: Schema.NullOr(Schema.String),
  channel_id: Schema.NullOr(Schema.String)
}).annotations({ identifier: "EscalationPageRecipient" })

/**
 * @since 0.2.0
 * @category models
 */
export type PageRecipient = typeof PageRecipient.Type

/**
 * Which page of a walk: `page` counts from 1 over the whole walk, `round` the passes through the steps from 1,
 * `step` the step within the round from 1.
 *
 * @since 0.2.0
 * @category models
 */
export const PagePosition = Schema.Struct({
  page: Schema.Int,
  round: Schema.Int,
  step: Schema.Int
})

/**
 * A page sent: its position, when it was due and when it went out, and its recipients.
 *
 * @since 0.2.0
 * @category models
 */
export const EscalationPage = Schema.Struct({
  ...PagePosition.fields,
  due_at: Schema.DateTimeUtc,
  paged_at: Schema.DateTimeUtc,
  recipients: Schema.Array(PageRecipient)
}).annotations({ identifier: "EscalationPage" })

/**
 * @since 0.2.0
 * @category models
 */
export type EscalationPage = typeof EscalationPage.Type

/**
 * The walk. `current` is the last page sent (null before the first), `next` the page due next (null once the walk
 * stopped or ran out), `pages` every page sent, oldest first. `policy_id` is null once the policy was deleted.
 *
 * @since 0.2.0
 * @category models
 */
export class IncidentEscalation extends Schema.Class<IncidentEscalation>("IncidentEscalation")({
  policy_id: Schema.NullOr(Schema.String),
  policy_name: Schema.String,
  status: EscalationStatus,
  stopped_at: Schema.NullOr(Schema.DateTimeUtc),
  current: Schema.NullOr(PagePosition),
  next: Schema.NullOr(Schema.Struct({ ...PagePosition.fields, due_at: Schema.DateTimeUtc })),
  pages: Schema.Array(EscalationPage)
}) {}
