/**
 * The first stage of the outbox: notices, one per incident event to announce. The incident writer enqueues them
 * inside its own transaction (the insert joins whatever transaction the caller runs), so a notice exists exactly
 * when its transition does; the engine's key makes a second fold of the same event insert nothing. A worker then
 * fans each notice out into one delivery per channel bound to the monitor and enabled at that moment.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Notification from "@signalman/core/Notification"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { uuidv7 } from "../Ids.js"

/** What the incident writer hands over for one `Notify` effect. */
export interface NewNotice {
  readonly org_id: string
  readonly target_id: string
  readonly incident_id: string
  readonly kind: Notification.NoticeKind
  readonly payload: Notification.NoticePayload
  /** The effect's key (`incident/{n}/notify/{kind}`); unique per monitor. */
  readonly dedupe_key: string
}

const encodePayload = Schema.encodeSync(Notification.NoticePayload)

const Pending = Schema.Struct({
  id: Schema.String,
  target_id: Schema.NullOr(Schema.String),
  page_id: Schema.NullOr(Schema.String)
})
const Bound = Schema.Struct({ id: Schema.String, name: Schema.String, kind: Schema.String })

export class Notices extends Effect.Service<Notices>()("Signalman/Notices", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Records a notice once; true when this call inserted it, false when its key was there already. */
    const enqueue = (notice: NewNotice): Effect.Effect<boolean> =>
      sql<{ id: string }>`
        INSERT INTO notices (id, org_id, target_id, incident_id, kind, payload, dedupe_key)
        VALUES (${uuidv7()}, ${notice.org_id}, ${notice.target_id}, ${notice.incident_id}, ${notice.kind},
          ${JSON.stringify(encodePayload(notice.payload))}::jsonb, ${notice.dedupe_key})
        ON CONFLICT (target_id, dedupe_key) DO NOTHING
        RETURNING id::text AS id
      `.pipe(
        Effect.map((rows) => rows.length === 1),
        Effect.orDie
      )

    /**
     * A page notice (docs/status-pages.md, "Subscribers"): one delivery per subscriber of the page confirmed and
     * still subscribed at this moment.
     */
    const toSubscribers = (noticeId: string, pageId: string) =>
      Effect.gen(function* () {
        const subscribers = yield* sql<{ id: string }>`
          SELECT id::text AS id FROM status_page_subscribers
          WHERE page_id = ${pageId} AND confirmed_at IS NOT NULL AND unsubscribed_at IS NULL
        `
        if (subscribers.length === 0) return
        yield* sql`
          INSERT INTO deliveries (id, notice_id, channel_id, channel_name, channel_kind, status, next_attempt_at,
            subscriber_id)
          SELECT x.id, ${noticeId}, NULL, 'subscriber', 'subscriber_email', 'pending', now(), x.subscriber_id
          FROM unnest(${subscribers.map(() => uuidv7())}::uuid[], ${subscribers.map((s) => s.id)}::uuid[])
            AS x(id, subscriber_id)
          ON CONFLICT (notice_id, subscriber_id) WHERE subscriber_id IS NOT NULL DO NOTHING
        `
      })

    /**
     * Turns up to `limit` new notices into deliveries, in one transaction; notices another worker holds are skipped.
     * Channels are read now, not when the incident opened: a channel deleted or disabled in between gets nothing,
     * and a binding left pointing at a deleted channel matches no row. The channel's name and kind are copied so
     * the delivery log keeps them. Answers how many notices were fanned out.
     */
    const fanOut = (limit: number): Effect.Effect<number> =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const pending = yield* sql`
              SELECT id::text AS id, target_id::text AS target_id, page_id::text AS page_id FROM notices
              WHERE fanned_out_at IS NULL ORDER BY created_at, id LIMIT ${limit}
              FOR UPDATE SKIP LOCKED
            `.pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(Pending))))
            for (const notice of pending) {
              if (notice.page_id !== null) {
                yield* toSubscribers(notice.id, notice.page_id)
                continue
              }
              const channels = yield* sql`
                SELECT c.id::text AS id, c.name, c.kind
                FROM targets t
                CROSS JOIN LATERAL jsonb_array_elements(t.alerts) WITH ORDINALITY AS b(binding, n)
                JOIN channels c ON c.id::text = lower(b.binding->>'channel_id') AND c.org_id = t.org_id
                WHERE t.id = ${notice.target_id} AND c.enabled
                ORDER BY b.n
              `.pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(Bound))))
              for (const channel of channels) {
                yield* sql`
                  INSERT INTO deliveries (id, notice_id, channel_id, channel_name, channel_kind, status, next_attempt_at)
                  VALUES (${uuidv7()}, ${notice.id}, ${channel.id}, ${channel.name}, ${channel.kind}, 'pending', now())
                  ON CONFLICT (notice_id, channel_id) DO NOTHING
                `
              }
            }
            if (pending.length > 0) {
              yield* sql`UPDATE notices SET fanned_out_at = now() WHERE id IN ${sql.in(pending.map((n) => n.id))}`
            }
            return pending.length
          })
        )
        .pipe(Effect.orDie)

    return { enqueue, fanOut }
  })
}) {}
