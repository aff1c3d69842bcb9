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
import type * as Channel from "@signalman/core/Channel"
import * as DeliveryBackoff from "@signalman/core/DeliveryBackoff"
import * as Notification from "@signalman/core/Notification"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { AppConfig } from "../config/Config.js"
import { Metrics } from "../metrics/Metrics.js"
import * as Spans from "../tracing/Spans.js"
import * as Message from "./Message.js"
import { type Claimed, NotifyRepo } from "./Repo.js"
import { Sender } from "./Sender.js"
import { SubscriberDelivery } from "./SubscriberDelivery.js"
import type * as Transport from "./Transport.js"

const ChannelNotice = Schema.Struct({ kind: Notification.NoticeKind, payload: Notification.NoticePayload })
const decodeChannelNotice = Schema.decodeUnknown(ChannelNotice)

/** The channel kind a delivery is counted under: a page subscriber's mail, or a channel's kind (gone: `deleted`). */
const channelKindOf = (delivery: Claimed): string =>
  delivery.subscriber_id !== null ? "subscriber_email" : (delivery.channel_kind ?? "deleted")

export class Deliveries extends Effect.Service<Deliveries>()("Signalman/Deliveries", {
  effect: Effect.gen(function* () {
    const repo = yield* NotifyRepo
    const sender = yield* Sender
    const subscriberMail = yield* SubscriberDelivery
    const config = yield* AppConfig
    const metrics = yield* Metrics
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
        const claimed = yield* repo.claim(limit, leaseSecs)
        if (claimed.length === 0) return []
        return yield* repo.claimed(claimed)
      })

    /** Writes an attempt's outcome, unless the claim was lost (its lease ran out and another worker took it). */
    const record = (delivery: Claimed, outcome: Transport.Outcome, final = false) =>
      Effect.gen(function* () {
        const attempt = { id: delivery.id, attempts: delivery.attempts }
        const kind = channelKindOf(delivery)
        // The delivery's span says how it ended (a no-op when tracing is off).
        const annotate = (ended: "delivered" | "retry" | "dead_letter") =>
          Effect.annotateCurrentSpan({
            [Spans.DELIVERY_OUTCOME]: ended,
            ...(outcome.status_code === null ? {} : { [Spans.DELIVERY_STATUS_CODE]: outcome.status_code })
          })
        if (outcome.ok) {
          yield* annotate("delivered")
          yield* metrics.delivery(kind, "delivered")
          return yield* repo.delivered(attempt, outcome.status_code)
        }
        const next = final
          ? { _tag: "DeadLetter" as const }
          : DeliveryBackoff.afterFailure(policy, delivery.attempts, Math.random())
        yield* annotate(next._tag === "DeadLetter" ? "dead_letter" : "retry")
        const failure = { ...attempt, error: outcome.error, status_code: outcome.status_code }
        if (next._tag === "DeadLetter") {
          yield* metrics.delivery(kind, "dead")
          yield* repo.dead(failure)
          yield* Effect.logWarning("Notification dead-lettered").pipe(
            Effect.annotateLogs({ delivery_id: delivery.id, attempts: delivery.attempts, error: outcome.error })
          )
          return
        }
        yield* metrics.delivery(kind, "retried")
        yield* repo.retry(failure, next.delay_ms / 1000)
      })

    const messageOf = (delivery: Claimed) =>
      Effect.map(
        decodeChannelNotice({ kind: delivery.notice_kind, payload: delivery.payload }).pipe(Effect.orDie),
        (notice) =>
          Message.fromNotice({
            id: delivery.notice_id,
            kind: notice.kind,
            created_at: delivery.notice_created_at,
            payload: notice.payload
          })
      )

    // A person paged by an escalation: mailed the way an email channel mails, at the address they have now.
    const toUser = (delivery: Claimed) =>
      Effect.gen(function* () {
        if (delivery.user_email === null) {
          return yield* record(delivery, { ok: false, status_code: null, error: "the user was deleted" }, true)
        }
        const message = yield* messageOf(delivery)
        const outcome = yield* sender.send(
          { kind: "email", config: { addresses: [delivery.user_email] }, secrets: null },
          message,
          delivery.id
        )
        yield* record(delivery, outcome)
      })

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
        if (delivery.recipient_kind === "user_email") return yield* toUser(delivery)
        if (delivery.channel_kind === null || delivery.config === null) {
          return yield* record(delivery, { ok: false, status_code: null, error: "the channel was deleted" }, true)
        }
        if (delivery.enabled !== true) {
          return yield* record(delivery, { ok: false, status_code: null, error: "the channel is disabled" }, true)
        }
        const message = yield* messageOf(delivery)
        const outcome = yield* sender.send(
          { kind: delivery.channel_kind, config: delivery.config, secrets: delivery.secrets },
          message,
          delivery.id
        )
        yield* record(delivery, outcome)
      }).pipe(
        // Each attempt is a trace of its own, its outcome's writes inside it.
        Spans.withBackgroundSpan(Spans.DELIVERY, {
          [Spans.DELIVERY_CHANNEL_KIND]: channelKindOf(delivery),
          [Spans.DELIVERY_ATTEMPT]: delivery.attempts,
          [Spans.DELIVERY_ID]: delivery.id
        })
      )

    /** Claims up to `notifier.concurrency` due deliveries and sends them side by side; answers how many. */
    const deliverDue: Effect.Effect<number> = Effect.gen(function* () {
      const due = yield* claim(concurrency)
      yield* Effect.forEach(due, attempt, { concurrency: "unbounded", discard: true })
      return due.length
    })

    /** An incident's delivery log: every notice to every channel, oldest notice first. */
    const forIncident = (incidentId: string): Effect.Effect<ReadonlyArray<Notification.Delivery>> =>
      Effect.map(repo.forIncident(incidentId), (rows) =>
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
  // Subscriber mail is bound where the process is composed (see SubscriberDelivery).
  dependencies: [NotifyRepo.Default, Sender.Default]
}) {}
