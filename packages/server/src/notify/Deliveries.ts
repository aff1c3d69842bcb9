/**
 * The second stage of the outbox: deliveries, one per (notice, channel). A worker claims due ones with
 * `FOR UPDATE SKIP LOCKED`, in the same statement counting the attempt and pushing `next_attempt_at` out by a lease,
 * so any number of workers share the work without sending one twice; it then sends outside any transaction and
 * records the outcome only if the row is still its claim. A worker that dies mid-send leaves the lease to expire,
 * after which another tries again: delivery is at least once, and webhook receivers get a stable delivery id to
 * drop a repeat.
 *
 * A failed attempt is retried after `DeliveryBackoff.afterFailure`; the attempt that reaches the cap dead-letters
 * it. Deliveries of one incident to one channel go out in order: a later notice (a recovery) waits while an
 * earlier one (the opening) is still pending, so a pager never sees the resolve before the trigger.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Channel from "@signalman/core/Channel"
import * as DeliveryBackoff from "@signalman/core/DeliveryBackoff"
import * as Notification from "@signalman/core/Notification"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { AppConfig } from "../Config.js"
import { SubscriberMail } from "../subscribers/SubscriberMail.js"
import * as Message from "./Message.js"
import { Sender } from "./Sender.js"
import type * as Transport from "./Transport.js"

// A claimed delivery goes to a channel or (a page notice) to a status-page subscriber; the notice is decoded by
// the path that sends it.
const Claimed = Schema.Struct({
  id: Schema.String,
  attempts: Schema.Int,
  notice_id: Schema.String,
  notice_kind: Schema.String,
  payload: Schema.Unknown,
  notice_created_at: Schema.DateTimeUtcFromDate,
  channel_kind: Schema.NullOr(Channel.ChannelKind),
  config: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  secrets: Schema.NullOr(Schema.String),
  enabled: Schema.NullOr(Schema.Boolean),
  subscriber_id: Schema.NullOr(Schema.String),
  subscriber_email: Schema.NullOr(Schema.String),
  unsubscribe_token_sealed: Schema.NullOr(Schema.String),
  subscriber_inactive: Schema.NullOr(Schema.Boolean)
})
type Claimed = typeof Claimed.Type

const ChannelNotice = Schema.Struct({ kind: Notification.NoticeKind, payload: Notification.NoticePayload })
const decodeChannelNotice = Schema.decodeUnknown(ChannelNotice)

const LogRow = Schema.Struct({
  id: Schema.String,
  notice_kind: Notification.NoticeKind,
  reminder: Schema.Int,
  channel_id: Schema.NullOr(Schema.String),
  channel_name: Schema.String,
  channel_kind: Schema.String,
  status: Notification.DeliveryStatus,
  attempts: Schema.Int,
  next_attempt_at: Schema.DateTimeUtcFromDate,
  last_error: Schema.NullOr(Schema.String),
  last_status_code: Schema.NullOr(Schema.Int),
  delivered_at: Schema.NullOr(Schema.DateTimeUtcFromDate),
  created_at: Schema.DateTimeUtcFromDate,
  updated_at: Schema.DateTimeUtcFromDate
})

export class Deliveries extends Effect.Service<Deliveries>()("Signalman/Deliveries", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const sender = yield* Sender
    const subscriberMail = yield* SubscriberMail
    const config = yield* AppConfig
    const policy: DeliveryBackoff.Policy = {
      base_ms: config["notifier.backoff_base_ms"],
      cap_ms: config["notifier.backoff_cap_ms"],
      max_attempts: config["notifier.max_attempts"]
    }
    const concurrency = config["notifier.concurrency"]
    // Long enough for the slowest delivery (an sms channel makes up to 10 requests, each bounded by the timeout).
    const leaseSecs = config["notifier.timeout_secs"] * 11 + 30

    const claim = (limit: number) =>
      Effect.gen(function* () {
        const claimed = yield* sql<{ id: string }>`
          UPDATE deliveries d SET
            attempts = d.attempts + 1,
            next_attempt_at = now() + make_interval(secs => ${leaseSecs}),
            updated_at = now()
          WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND d.id IN (
            SELECT d1.id FROM deliveries d1 JOIN notices n1 ON n1.id = d1.notice_id
            WHERE d1.status = 'pending' AND d1.next_attempt_at <= now()
              AND NOT EXISTS (
                SELECT 1 FROM deliveries d2 JOIN notices n2 ON n2.id = d2.notice_id
                WHERE d2.channel_id = d1.channel_id AND d2.status = 'pending' AND n2.incident_id = n1.incident_id
                  AND (n2.created_at, n2.id) < (n1.created_at, n1.id)
              )
            ORDER BY d1.next_attempt_at, d1.id
            LIMIT ${limit}
            FOR UPDATE OF d1 SKIP LOCKED
          )
          RETURNING d.id::text AS id
        `
        if (claimed.length === 0) return []
        return yield* sql`
          SELECT d.id::text AS id, d.attempts, n.id::text AS notice_id, n.kind AS notice_kind, n.payload,
            n.created_at AS notice_created_at, c.kind AS channel_kind, c.config, c.secrets, c.enabled,
            d.subscriber_id::text AS subscriber_id, s.email AS subscriber_email, s.unsubscribe_token_sealed,
            (s.unsubscribed_at IS NOT NULL OR s.confirmed_at IS NULL) AS subscriber_inactive
          FROM deliveries d JOIN notices n ON n.id = d.notice_id LEFT JOIN channels c ON c.id = d.channel_id
            LEFT JOIN status_page_subscribers s ON s.id = d.subscriber_id
          WHERE d.id IN ${sql.in(claimed.map((row) => row.id))}
        `.pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(Claimed))))
      }).pipe(Effect.orDie)

    /** Writes an attempt's outcome, unless the claim was lost (its lease ran out and another worker took it). */
    const record = (delivery: Claimed, outcome: Transport.Outcome, final = false) =>
      Effect.gen(function* () {
        const guard = sql`id = ${delivery.id} AND attempts = ${delivery.attempts} AND status = 'pending'`
        if (outcome.ok) {
          yield* sql`
            UPDATE deliveries SET status = 'delivered', delivered_at = now(), last_error = NULL,
              last_status_code = ${outcome.status_code}, updated_at = now()
            WHERE ${guard}
          `
          return
        }
        const next = final
          ? { _tag: "DeadLetter" as const }
          : DeliveryBackoff.afterFailure(policy, delivery.attempts, Math.random())
        if (next._tag === "DeadLetter") {
          yield* sql`
            UPDATE deliveries SET status = 'dead', last_error = ${outcome.error}, last_status_code = ${outcome.status_code},
              updated_at = now()
            WHERE ${guard}
          `
          yield* Effect.logWarning("Notification dead-lettered").pipe(
            Effect.annotateLogs({ delivery_id: delivery.id, attempts: delivery.attempts, error: outcome.error })
          )
          return
        }
        yield* sql`
          UPDATE deliveries SET next_attempt_at = now() + make_interval(secs => ${next.delay_ms / 1000}),
            last_error = ${outcome.error}, last_status_code = ${outcome.status_code}, updated_at = now()
          WHERE ${guard}
        `
      }).pipe(Effect.orDie)

    const attempt = (delivery: Claimed) =>
      Effect.gen(function* () {
        if (delivery.subscriber_id !== null) {
          // The subscriber row goes with its delivery (cascade), so a claimed one has its fields.
          const sent = yield* subscriberMail.deliver(
            {
              email: delivery.subscriber_email ?? "",
              unsubscribeSealed: delivery.unsubscribe_token_sealed ?? "",
              inactive: delivery.subscriber_inactive !== false
            },
            delivery.payload
          )
          return yield* record(delivery, sent.outcome, sent.final)
        }
        if (delivery.channel_kind === null || delivery.config === null) {
          return yield* record(delivery, { ok: false, status_code: null, error: "the channel was deleted" }, true)
        }
        if (delivery.enabled !== true) {
          return yield* record(delivery, { ok: false, status_code: null, error: "the channel is disabled" }, true)
        }
        const notice = yield* decodeChannelNotice({ kind: delivery.notice_kind, payload: delivery.payload }).pipe(
          Effect.orDie
        )
        const message = Message.fromNotice({
          id: delivery.notice_id,
          kind: notice.kind,
          created_at: delivery.notice_created_at,
          payload: notice.payload
        })
        const outcome = yield* sender.send(
          { kind: delivery.channel_kind, config: delivery.config, secrets: delivery.secrets },
          message,
          delivery.id
        )
        yield* record(delivery, outcome)
      })

    /** Claims up to `notifier.concurrency` due deliveries and sends them side by side; answers how many. */
    const deliverDue: Effect.Effect<number> = Effect.gen(function* () {
      const due = yield* claim(concurrency)
      yield* Effect.forEach(due, attempt, { concurrency: "unbounded", discard: true })
      return due.length
    })

    /** An incident's delivery log: every notice to every channel, oldest notice first. */
    const forIncident = (incidentId: string): Effect.Effect<ReadonlyArray<Notification.Delivery>> =>
      sql`
        SELECT d.id::text AS id, n.kind AS notice_kind, coalesce((n.payload->>'reminder')::int, 0) AS reminder,
          d.channel_id::text AS channel_id, d.channel_name, d.channel_kind, d.status, d.attempts, d.next_attempt_at,
          d.last_error, d.last_status_code, d.delivered_at, d.created_at, d.updated_at
        FROM deliveries d JOIN notices n ON n.id = d.notice_id
        WHERE n.incident_id = ${incidentId}
        ORDER BY n.created_at, n.id, d.created_at, d.id
      `.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(LogRow))),
        Effect.map((rows) =>
          rows.map(
            (row) =>
              new Notification.Delivery({
                id: row.id,
                notice_kind: row.notice_kind,
                reminder: row.reminder,
                channel: { id: row.channel_id, name: row.channel_name, kind: row.channel_kind },
                status: row.status,
                attempts: row.attempts,
                next_attempt_at: row.status === "pending" ? row.next_attempt_at : null,
                last_error: row.last_error,
                last_status_code: row.last_status_code,
                delivered_at: row.delivered_at,
                created_at: row.created_at,
                updated_at: row.updated_at
              })
          )
        ),
        Effect.orDie
      )

    /** A channel's test send: the real sender with a `test` message; nothing stored. */
    const sendTest = (channel: {
      readonly id: string
      readonly name: string
      readonly kind: Channel.ChannelKind
      readonly config: Readonly<Record<string, unknown>>
      readonly secrets: string | null
    }) =>
      Effect.gen(function* () {
        const sent_at = yield* DateTime.now
        const id = crypto.randomUUID()
        const start = Date.now()
        const outcome = yield* sender.send(channel, Message.test(channel, id, sent_at), id)
        return new Notification.TestDelivery({
          delivered: outcome.ok,
          status_code: outcome.status_code,
          error: outcome.error,
          duration_ms: Date.now() - start,
          sent_at
        })
      })

    return { deliverDue, forIncident, sendTest }
  }),
  dependencies: [Sender.Default, SubscriberMail.Default]
}) {}
