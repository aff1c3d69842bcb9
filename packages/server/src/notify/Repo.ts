/**
 * The outbox's SQL: notices (one per incident event or page event), their fan-out into deliveries (one per bound
 * channel, or per confirmed subscriber of a page), the claim of due deliveries under `FOR UPDATE SKIP LOCKED`
 * leases, an attempt's outcome written only while the claim holds, and an incident's delivery log (core's
 * `Delivery`; timestamps arrive as `Date`s, hence the `FromDate` fields).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Channel from "@signalman/core/Channel"
import * as Notification from "@signalman/core/Notification"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Struct from "effect/Struct"
import * as Transaction from "../database/Transaction.js"

/**
 * A claimed delivery, to a channel or (a page notice) to a status-page subscriber; the notice is decoded by the
 * path that sends it.
 */
export const Claimed = Schema.Struct({
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
  subscriber_inactive: Schema.NullOr(Schema.Boolean),
  /** What the delivery was addressed to when written: a channel's kind, `subscriber_email` or `user_email`. */
  recipient_kind: Schema.String,
  user_email: Schema.NullOr(Schema.String)
})
export type Claimed = typeof Claimed.Type

/** One entry of an incident's delivery log, the channel's columns flat. */
export const LogRow = Schema.Struct({
  ...Struct.omit(Notification.Delivery.fields, "channel"),
  channel_id: Schema.NullOr(Schema.String),
  channel_name: Schema.String,
  channel_kind: Schema.String,
  next_attempt_at: Schema.DateTimeUtcFromDate,
  delivered_at: Schema.NullOr(Schema.DateTimeUtcFromDate),
  created_at: Schema.DateTimeUtcFromDate,
  updated_at: Schema.DateTimeUtcFromDate
})

/** A notice of an incident event for the outbox; its key is unique per monitor. */
export const NewNotice = Schema.Struct({
  id: Schema.String,
  org_id: Schema.String,
  target_id: Schema.String,
  incident_id: Schema.String,
  kind: Notification.NoticeKind,
  payload: Schema.parseJson(Notification.NoticePayload),
  dedupe_key: Schema.String
})

/** A notice not fanned out yet: a monitor's, or (`page_id`) a status page's. */
export const Pending = Schema.Struct({
  id: Schema.String,
  target_id: Schema.NullOr(Schema.String),
  page_id: Schema.NullOr(Schema.String)
})

/** A channel bound to a monitor and enabled, in the order of its bindings. */
export const Bound = Schema.Struct({ id: Schema.String, name: Schema.String, kind: Schema.String })

/** A person paged by mail (an escalation page); the address is copied for the log and read again at send time. */
export const PagedUser = Schema.Struct({ id: Schema.String, email: Schema.String })

/** Which claim an outcome is for: written only while the delivery is still pending at that attempt. */
export const Attempt = Schema.Struct({ id: Schema.String, attempts: Schema.Int })

const Id = Schema.Struct({ id: Schema.String })

export class NotifyRepo extends Effect.Service<NotifyRepo>()("Signalman/NotifyRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const enqueue = SqlSchema.findAll({
      Request: NewNotice,
      Result: Id,
      execute: (notice) => sql`
        INSERT INTO notices (id, org_id, target_id, incident_id, kind, payload, dedupe_key)
        VALUES (${notice.id}, ${notice.org_id}, ${notice.target_id}, ${notice.incident_id}, ${notice.kind},
          ${notice.payload}::jsonb, ${notice.dedupe_key})
        ON CONFLICT (target_id, dedupe_key) DO NOTHING
        RETURNING id::text AS id
      `
    })

    // An escalation page names its recipients itself: the notice is written fanned out, with its deliveries.
    const enqueuePage = SqlSchema.findAll({
      Request: NewNotice,
      Result: Id,
      execute: (notice) => sql`
        INSERT INTO notices (id, org_id, target_id, incident_id, kind, payload, dedupe_key, fanned_out_at)
        VALUES (${notice.id}, ${notice.org_id}, ${notice.target_id}, ${notice.incident_id}, ${notice.kind},
          ${notice.payload}::jsonb, ${notice.dedupe_key}, now())
        ON CONFLICT (target_id, dedupe_key) DO NOTHING
        RETURNING id::text AS id
      `
    })

    const toUser = SqlSchema.void({
      Request: Schema.Struct({ id: Schema.String, notice_id: Schema.String, user: PagedUser }),
      execute: ({ id, notice_id, user }) => sql`
        INSERT INTO deliveries (id, notice_id, channel_id, channel_name, channel_kind, status, next_attempt_at,
          user_id)
        VALUES (${id}, ${notice_id}, NULL, ${user.email}, 'user_email', 'pending', now(), ${user.id})
        ON CONFLICT (notice_id, user_id) WHERE user_id IS NOT NULL DO NOTHING
      `
    })

    const pending = SqlSchema.findAll({
      Request: Schema.Int,
      Result: Pending,
      execute: (limit) => sql`
        SELECT id::text AS id, target_id::text AS target_id, page_id::text AS page_id FROM notices
        WHERE fanned_out_at IS NULL ORDER BY created_at, id LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      `
    })

    const confirmedSubscribers = SqlSchema.findAll({
      Request: Schema.String,
      Result: Id,
      execute: (pageId) => sql`
        SELECT id::text AS id FROM status_page_subscribers
        WHERE page_id = ${pageId} AND confirmed_at IS NOT NULL AND unsubscribed_at IS NULL
      `
    })

    const toSubscribers = SqlSchema.void({
      Request: Schema.Struct({
        notice_id: Schema.String,
        ids: Schema.Array(Schema.String),
        subscriber_ids: Schema.Array(Schema.String)
      }),
      execute: ({ notice_id, ids, subscriber_ids }) => sql`
        INSERT INTO deliveries (id, notice_id, channel_id, channel_name, channel_kind, status, next_attempt_at,
          subscriber_id)
        SELECT x.id, ${notice_id}, NULL, 'subscriber', 'subscriber_email', 'pending', now(), x.subscriber_id
        FROM unnest(${ids}::uuid[], ${subscriber_ids}::uuid[])
          AS x(id, subscriber_id)
        ON CONFLICT (notice_id, subscriber_id) WHERE subscriber_id IS NOT NULL DO NOTHING
      `
    })

    const boundChannels = SqlSchema.findAll({
      Request: Schema.NullOr(Schema.String),
      Result: Bound,
      execute: (targetId) => sql`
        SELECT c.id::text AS id, c.name, c.kind
        FROM targets t
        CROSS JOIN LATERAL jsonb_array_elements(t.alerts) WITH ORDINALITY AS b(binding, n)
        JOIN channels c ON c.id::text = lower(b.binding->>'channel_id') AND c.org_id = t.org_id
        WHERE t.id = ${targetId} AND c.enabled
        ORDER BY b.n
      `
    })

    const toChannel = SqlSchema.void({
      Request: Schema.Struct({ id: Schema.String, notice_id: Schema.String, channel: Bound }),
      execute: ({ id, notice_id, channel }) => sql`
        INSERT INTO deliveries (id, notice_id, channel_id, channel_name, channel_kind, status, next_attempt_at)
        VALUES (${id}, ${notice_id}, ${channel.id}, ${channel.name}, ${channel.kind}, 'pending', now())
        ON CONFLICT (notice_id, channel_id) DO NOTHING
      `
    })

    const fannedOut = SqlSchema.void({
      Request: Schema.Array(Schema.String),
      execute: (ids) => sql`UPDATE notices SET fanned_out_at = now() WHERE id IN ${sql.in(ids)}`
    })

    const claim = SqlSchema.findAll({
      Request: Schema.Struct({ limit: Schema.Int, lease_secs: Schema.Number }),
      Result: Id,
      execute: ({ limit, lease_secs }) => sql`
        UPDATE deliveries d SET
          attempts = d.attempts + 1,
          next_attempt_at = now() + make_interval(secs => ${lease_secs}),
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
    })

    const claimed = SqlSchema.findAll({
      Request: Schema.Array(Schema.String),
      Result: Claimed,
      execute: (ids) => sql`
        SELECT d.id::text AS id, d.attempts, n.id::text AS notice_id, n.kind AS notice_kind, n.payload,
          n.created_at AS notice_created_at, c.kind AS channel_kind, c.config, c.secrets, c.enabled,
          d.subscriber_id::text AS subscriber_id, s.email AS subscriber_email, s.unsubscribe_token_sealed,
          (s.unsubscribed_at IS NOT NULL OR s.confirmed_at IS NULL) AS subscriber_inactive,
          d.channel_kind AS recipient_kind, u.email AS user_email
        FROM deliveries d JOIN notices n ON n.id = d.notice_id LEFT JOIN channels c ON c.id = d.channel_id
          LEFT JOIN status_page_subscribers s ON s.id = d.subscriber_id LEFT JOIN users u ON u.id = d.user_id
        WHERE d.id IN ${sql.in(ids)}
      `
    })

    const guard = (attempt: typeof Attempt.Encoded) =>
      sql`id = ${attempt.id} AND attempts = ${attempt.attempts} AND status = 'pending'`

    const delivered = SqlSchema.void({
      Request: Schema.Struct({ ...Attempt.fields, status_code: Schema.NullOr(Schema.Int) }),
      execute: (outcome) => sql`
        UPDATE deliveries SET status = 'delivered', delivered_at = now(), last_error = NULL,
          last_status_code = ${outcome.status_code}, updated_at = now()
        WHERE ${guard(outcome)}
      `
    })

    const dead = SqlSchema.void({
      Request: Schema.Struct({
        ...Attempt.fields,
        error: Schema.NullOr(Schema.String),
        status_code: Schema.NullOr(Schema.Int)
      }),
      execute: (outcome) => sql`
        UPDATE deliveries SET status = 'dead', last_error = ${outcome.error}, last_status_code = ${outcome.status_code},
          updated_at = now()
        WHERE ${guard(outcome)}
      `
    })

    const retry = SqlSchema.void({
      Request: Schema.Struct({
        ...Attempt.fields,
        delay_secs: Schema.Number,
        error: Schema.NullOr(Schema.String),
        status_code: Schema.NullOr(Schema.Int)
      }),
      execute: (outcome) => sql`
        UPDATE deliveries SET next_attempt_at = now() + make_interval(secs => ${outcome.delay_secs}),
          last_error = ${outcome.error}, last_status_code = ${outcome.status_code}, updated_at = now()
        WHERE ${guard(outcome)}
      `
    })

    const forIncident = SqlSchema.findAll({
      Request: Schema.String,
      Result: LogRow,
      execute: (incidentId) => sql`
        SELECT d.id::text AS id, n.kind AS notice_kind, coalesce((n.payload->>'reminder')::int, 0) AS reminder,
          d.channel_id::text AS channel_id, d.channel_name, d.channel_kind, d.status, d.attempts, d.next_attempt_at,
          d.last_error, d.last_status_code, d.delivered_at, d.created_at, d.updated_at
        FROM deliveries d JOIN notices n ON n.id = d.notice_id
        WHERE n.incident_id = ${incidentId}
        ORDER BY n.created_at, n.id, d.created_at, d.id
      `
    })

    type Outcome = typeof Attempt.Type & { readonly error: string | null; readonly status_code: number | null }

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      transaction: Transaction.make(sql),
      /** Records a notice once; true when this call inserted it, false when its key was there already. */
      enqueue: (notice: typeof NewNotice.Type) =>
        Effect.map(Effect.orDie(enqueue(notice)), (rows) => rows.length === 1),
      /**
       * Records an escalation page's notice once, already fanned out (its deliveries are written by the caller with
       * `toChannel` and `toUser`); the notice's id when this call inserted it, undefined when its key was there.
       */
      enqueuePage: (notice: typeof NewNotice.Type) =>
        Effect.map(Effect.orDie(enqueuePage(notice)), (rows) => rows[0]?.id),
      /** A delivery of the notice to a person by mail. */
      toUser: (id: string, noticeId: string, user: typeof PagedUser.Type) =>
        Effect.orDie(toUser({ id, notice_id: noticeId, user })),
      /** Up to `limit` notices not fanned out, locked; those another worker holds are skipped. */
      pending: (limit: number) => Effect.orDie(pending(limit)),
      /** The page's subscribers confirmed and still subscribed at this moment. */
      confirmedSubscribers: (pageId: string) =>
        Effect.map(Effect.orDie(confirmedSubscribers(pageId)), (rows) => rows.map((row) => row.id)),
      /** One delivery per subscriber (`ids` are the deliveries' own, pairwise). */
      toSubscribers: (noticeId: string, ids: ReadonlyArray<string>, subscriberIds: ReadonlyArray<string>) =>
        Effect.orDie(toSubscribers({ notice_id: noticeId, ids, subscriber_ids: subscriberIds })),
      boundChannels: (targetId: string | null) => Effect.orDie(boundChannels(targetId)),
      /** A delivery of the notice to the channel, its name and kind copied for the log. */
      toChannel: (id: string, noticeId: string, channel: typeof Bound.Type) =>
        Effect.orDie(toChannel({ id, notice_id: noticeId, channel })),
      fannedOut: (ids: ReadonlyArray<string>) => Effect.orDie(fannedOut(ids)),
      /**
       * Claims up to `limit` due deliveries, counting the attempt and pushing `next_attempt_at` out by the lease;
       * a delivery waits while an earlier notice of its incident to its channel is pending.
       */
      claim: (limit: number, leaseSecs: number) =>
        Effect.map(Effect.orDie(claim({ limit, lease_secs: leaseSecs })), (rows) => rows.map((row) => row.id)),
      claimed: (ids: ReadonlyArray<string>) => Effect.orDie(claimed(ids)),
      delivered: (attempt: typeof Attempt.Type, statusCode: number | null) =>
        Effect.orDie(delivered({ ...attempt, status_code: statusCode })),
      dead: (outcome: Outcome) => Effect.orDie(dead(outcome)),
      /** Another attempt after `delaySecs`. */
      retry: (outcome: Outcome, delaySecs: number) => Effect.orDie(retry({ ...outcome, delay_secs: delaySecs })),
      forIncident: (incidentId: string) => Effect.orDie(forIncident(incidentId))
    }
  })
}) {}
