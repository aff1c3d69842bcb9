/**
 * Notifications (service-api.md "Events" 1; decisions.md "Notification channels"): what the incident writer hands
 * the notifier for each announcement, the event a webhook channel receives, and the answer of a channel's test
 * send. The wire shapes are documented in docs/notifications.md.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Impact } from "./Incident.js"

/**
 * What a notice announces: an incident opened, a reminder while it stays open and unacknowledged, its recovery,
 * or its resolution by a person (the `Notify` effects of `IncidentMachine`), or a page of its monitor's escalation
 * policy (docs/on-call.md, "Escalation").
 *
 * @since 0.1.0
 * @category models
 */
export const NoticeKind = Schema.Literal("opened", "reminder", "recovered", "resolved", "escalation")

/**
 * @since 0.1.0
 * @category models
 */
export type NoticeKind = typeof NoticeKind.Type

/**
 * The monitor a notice is about, as it was named when the notice was written.
 *
 * @since 0.1.0
 * @category models
 */
export const NoticeTarget = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  type: Schema.String
}).annotations({ identifier: "NotificationTarget" })

/**
 * The incident as it stood when the notice was written. `cause` is the error of the check that confirmed the
 * outage; `ended_at` is set on recovered and resolved notices.
 *
 * @since 0.1.0
 * @category models
 */
export const NoticeIncident = Schema.Struct({
  id: Schema.String,
  number: Schema.Int,
  started_at: Schema.DateTimeUtc,
  ended_at: Schema.NullOr(Schema.DateTimeUtc),
  impact: Impact,
  cause: Schema.NullOr(Schema.String)
}).annotations({ identifier: "NotificationIncident" })

/**
 * Which page of an escalation walk a notice is: `page` counts the walk's pages from 1, `round` the passes through
 * the policy's steps from 1 (a policy with `repeat` walks them again), `step` the step within the round from 1.
 *
 * @since 0.1.0
 * @category models
 */
export const NoticeEscalation = Schema.Struct({
  page: Schema.Int,
  round: Schema.Int,
  step: Schema.Int
}).annotations({ identifier: "NotificationEscalation" })

/**
 * The stored content of a notice: everything a sender needs, so a delivery never reads the incident again and
 * says what was true when it was announced. `reminder` is the reminder's ordinal, 0 for the other kinds;
 * `escalation` is present on an escalation page only.
 *
 * @since 0.1.0
 * @category models
 */
export const NoticePayload = Schema.Struct({
  target: NoticeTarget,
  incident: NoticeIncident,
  reminder: Schema.Int,
  escalation: Schema.optionalWith(NoticeEscalation, { exact: true })
}).annotations({ identifier: "NoticePayload" })

/**
 * @since 0.1.0
 * @category models
 */
export type NoticePayload = typeof NoticePayload.Type

/**
 * The `type` of a webhook event: `incident.<notice kind>`, or `test` for a channel's test send.
 *
 * @since 0.1.0
 * @category models
 */
export const EventType = Schema.Literal(
  "incident.opened",
  "incident.reminder",
  "incident.recovered",
  "incident.resolved",
  "incident.escalation",
  "test"
)

/**
 * @since 0.1.0
 * @category models
 */
export type EventType = typeof EventType.Type

/**
 * The JSON body a webhook channel receives. `id` names the event (the same on every retry and on every channel it
 * goes to); `target` and `incident` are null on a test event; `escalation` is present on `incident.escalation`
 * only.
 *
 * @since 0.1.0
 * @category models
 */
export const WebhookEvent = Schema.Struct({
  id: Schema.String,
  type: EventType,
  created_at: Schema.DateTimeUtc,
  target: Schema.NullOr(NoticeTarget),
  incident: Schema.NullOr(NoticeIncident),
  reminder: Schema.NullOr(Schema.Int),
  escalation: Schema.optionalWith(NoticeEscalation, { exact: true })
}).annotations({ identifier: "WebhookEvent" })

/**
 * @since 0.1.0
 * @category models
 */
export type WebhookEvent = typeof WebhookEvent.Type

/**
 * The answer of `POST /api/v1/channels/{id}/test`: one real send through the channel, nothing stored. `delivered`
 * is true when the service accepted it; otherwise `error` says why (`HTTP 404: no such webhook`, a connection or
 * timeout error). `status_code` is the last HTTP status seen (null for email and for a send that got no answer).
 *
 * @since 0.1.0
 * @category models
 */
export class TestDelivery extends Schema.Class<TestDelivery>("TestDelivery")({
  delivered: Schema.Boolean,
  status_code: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String),
  duration_ms: Schema.Int,
  sent_at: Schema.DateTimeUtc
}) {}

/**
 * Where a delivery stands: `pending` (waiting for its first or next attempt), `delivered`, or `dead` (the attempt
 * cap was reached, or the channel was deleted or disabled before it could be sent).
 *
 * @since 0.1.0
 * @category models
 */
export const DeliveryStatus = Schema.Literal("pending", "delivered", "dead")

/**
 * One entry of an incident's delivery log: one notice to one channel.
 *
 * @since 0.1.0
 * @category models
 */
export class Delivery extends Schema.Class<Delivery>("Delivery")({
  id: Schema.String,
  notice_kind: NoticeKind,
  reminder: Schema.Int,
  channel: Schema.Struct({
    id: Schema.NullOr(Schema.String),
    name: Schema.String,
    kind: Schema.String
  }),
  status: DeliveryStatus,
  attempts: Schema.Int,
  next_attempt_at: Schema.NullOr(Schema.DateTimeUtc),
  last_error: Schema.NullOr(Schema.String),
  last_status_code: Schema.NullOr(Schema.Int),
  delivered_at: Schema.NullOr(Schema.DateTimeUtc),
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
}) {}
