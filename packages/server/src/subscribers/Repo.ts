/**
 * Status-page subscribers' SQL: subscriptions (the double opt-in's one upsert, confirm, unsubscribe, the ends
 * private access causes) and the page events written into the notifier's outbox, with what they read of incidents,
 * maintenance windows and the published pages showing their monitors. Tokens arrive hashed.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Impact } from "@signalman/core/Incident"
import * as PageSubscription from "@signalman/core/PageSubscription"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Transaction from "../database/Transaction.js"

/** A status page as a subscription sees it (by slug, of an org not deleted). */
export const PageRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  published: Schema.Boolean,
  protected: Schema.Boolean
})

/** A subscription asked for: a new row, or a refreshed confirmation token on the address's row. */
export const Subscription = Schema.Struct({
  id: Schema.String,
  page_id: Schema.String,
  email: Schema.String,
  confirm_token_hash: Schema.Uint8ArrayFromSelf,
  unsubscribe_token_hash: Schema.Uint8ArrayFromSelf,
  unsubscribe_token_sealed: Schema.String,
  admitted_by: Schema.Literal("public", "password", "viewer"),
  viewer_id: Schema.NullOr(Schema.String)
})

/** A published page showing some of an event's monitors, with its names for the ones it shows. */
export const ShowingPage = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  slug: Schema.String,
  custom_domain: Schema.NullOr(Schema.String),
  components: Schema.Array(Schema.String)
})

/** What a page event says of an incident: its public words and the monitors it touches. */
export const IncidentRow = Schema.Struct({
  org_id: Schema.String,
  public_title: Schema.NullOr(Schema.String),
  public_description: Schema.NullOr(Schema.String),
  impact: Impact,
  targets: Schema.Array(Schema.String)
})

/** What a page event says of a maintenance window, and the monitors it touches. */
export const WindowRow = Schema.Struct({
  org_id: Schema.String,
  title: Schema.String,
  description: Schema.String,
  starts_at: Schema.DateFromSelf,
  ends_at: Schema.DateFromSelf,
  targets: Schema.Array(Schema.String)
})

/** A window's moment for the sweep to announce. */
export const DueWindow = Schema.Struct({ id: Schema.String, kind: Schema.Literal("started", "completed") })

/** A page notice for the outbox; its key is unique per page. */
export const PageNoticeRow = Schema.Struct({
  id: Schema.String,
  org_id: Schema.String,
  page_id: Schema.String,
  payload: Schema.parseJson(PageSubscription.PageNotice),
  dedupe_key: Schema.String
})

/** A subscription as the page's owner reads it: the address, how it got in, and where it stands. */
export const SubscriberRow = Schema.Struct({
  id: Schema.String,
  email: Schema.String,
  admitted_by: Schema.Literal("public", "password", "viewer"),
  created_at: Schema.DateFromSelf,
  confirmed_at: Schema.NullOr(Schema.DateFromSelf),
  unsubscribed_at: Schema.NullOr(Schema.DateFromSelf)
})

/** How many of a page's subscriptions stand where. */
export const SubscriberCounts = Schema.Struct({
  confirmed: Schema.Int,
  pending: Schema.Int,
  unsubscribed: Schema.Int
})

const OfPage = Schema.Struct({
  org_id: Schema.String,
  page_id: Schema.String,
  limit: Schema.Int,
  offset: Schema.Int
})

const Id = Schema.Struct({ id: Schema.String })
const Name = Schema.Struct({ name: Schema.String })
const Count = Schema.Struct({ n: Schema.Int })

export class SubscribersRepo extends Effect.Service<SubscribersRepo>()("Signalman/SubscribersRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const pageBySlug = SqlSchema.findOne({
      Request: Schema.String,
      Result: PageRow,
      execute: (slug) => sql`
        SELECT p.id::text AS id, p.name, p.published AND NOT p.held AS published,
          COALESCE((p.access->>'protected')::boolean, false) AS protected
        FROM status_pages p JOIN orgs o ON o.id = p.org_id AND o.deleted_at IS NULL
        WHERE lower(p.slug) = lower(${slug})
      `
    })

    // One statement: a new address gets a row and a mail; a known one a fresh confirmation token and a mail only
    // when it is not an active subscriber and its last mail is older than the interval. Concurrent requests for
    // one address serialise on the row, so at most one of them mails.
    const upsert = SqlSchema.findAll({
      Request: Subscription,
      Result: Id,
      execute: (s) => sql`
        INSERT INTO status_page_subscribers (id, page_id, email, confirm_token_hash, confirm_sent_at,
          unsubscribe_token_hash, unsubscribe_token_sealed, admitted_by, viewer_id)
        VALUES (${s.id}, ${s.page_id}, ${s.email}, ${s.confirm_token_hash}, now(), ${s.unsubscribe_token_hash},
          ${s.unsubscribe_token_sealed}, ${s.admitted_by}, ${s.viewer_id})
        ON CONFLICT (page_id, email) DO UPDATE SET
          confirm_token_hash = EXCLUDED.confirm_token_hash, confirm_sent_at = EXCLUDED.confirm_sent_at,
          admitted_by = EXCLUDED.admitted_by, viewer_id = EXCLUDED.viewer_id
        WHERE (status_page_subscribers.confirmed_at IS NULL OR status_page_subscribers.unsubscribed_at IS NOT NULL)
          AND status_page_subscribers.confirm_sent_at
            <= now() - make_interval(secs => ${PageSubscription.CONFIRMATION_INTERVAL_SECS})
        RETURNING id
      `
    })

    const confirm = SqlSchema.findOne({
      Request: Schema.Uint8ArrayFromSelf,
      Result: Name,
      execute: (hash) => sql`
        UPDATE status_page_subscribers s SET confirmed_at = now(), unsubscribed_at = NULL, confirm_token_hash = NULL
        FROM status_pages p
        WHERE s.confirm_token_hash = ${hash} AND p.id = s.page_id
          AND s.confirm_sent_at > now() - make_interval(secs => ${PageSubscription.CONFIRMATION_TTL_SECS})
        RETURNING p.name
      `
    })

    const unsubscribePage = SqlSchema.findOne({
      Request: Schema.Uint8ArrayFromSelf,
      Result: Name,
      execute: (hash) => sql`
        SELECT p.name FROM status_page_subscribers s JOIN status_pages p ON p.id = s.page_id
        WHERE s.unsubscribe_token_hash = ${hash}
      `
    })

    const unsubscribe = SqlSchema.findOne({
      Request: Schema.Uint8ArrayFromSelf,
      Result: Name,
      execute: (hash) => sql`
        UPDATE status_page_subscribers s SET unsubscribed_at = COALESCE(s.unsubscribed_at, now())
        FROM status_pages p
        WHERE s.unsubscribe_token_hash = ${hash} AND p.id = s.page_id
        RETURNING p.name
      `
    })

    // A page of another org lists nothing: the page's org is part of the join, not only of the caller's check.
    const ofPage = SqlSchema.findAll({
      Request: OfPage,
      Result: SubscriberRow,
      execute: (q) => sql`
        SELECT s.id::text AS id, s.email, s.admitted_by, s.created_at, s.confirmed_at, s.unsubscribed_at
        FROM status_page_subscribers s JOIN status_pages p ON p.id = s.page_id AND p.org_id = ${q.org_id}
        WHERE s.page_id = ${q.page_id}
        ORDER BY s.created_at DESC, s.id DESC
        LIMIT ${q.limit} OFFSET ${q.offset}
      `
    })

    const countsOfPage = SqlSchema.single({
      Request: OfPage.pipe(Schema.pick("org_id", "page_id")),
      Result: SubscriberCounts,
      execute: (q) => sql`
        SELECT
          count(*) FILTER (WHERE s.unsubscribed_at IS NULL AND s.confirmed_at IS NOT NULL)::int AS confirmed,
          count(*) FILTER (WHERE s.unsubscribed_at IS NULL AND s.confirmed_at IS NULL)::int AS pending,
          count(*) FILTER (WHERE s.unsubscribed_at IS NOT NULL)::int AS unsubscribed
        FROM status_page_subscribers s JOIN status_pages p ON p.id = s.page_id AND p.org_id = ${q.org_id}
        WHERE s.page_id = ${q.page_id}
      `
    })

    const passwordCount = SqlSchema.single({
      Request: Schema.String,
      Result: Count,
      execute: (pageId) => sql`
        SELECT count(*)::int AS n FROM status_page_subscribers
        WHERE page_id = ${pageId} AND admitted_by = 'password'
          AND confirmed_at IS NOT NULL AND unsubscribed_at IS NULL
      `
    })

    const endPassword = SqlSchema.void({
      Request: Schema.String,
      execute: (pageId) => sql`
        UPDATE status_page_subscribers SET unsubscribed_at = now()
        WHERE page_id = ${pageId} AND admitted_by = 'password' AND unsubscribed_at IS NULL
      `
    })

    const endViewer = SqlSchema.void({
      Request: Schema.Struct({ page_id: Schema.String, viewer_id: Schema.String, email: Schema.String }),
      execute: ({ page_id, viewer_id, email }) => sql`
        UPDATE status_page_subscribers SET unsubscribed_at = now()
        WHERE page_id = ${page_id} AND unsubscribed_at IS NULL
          AND (viewer_id = ${viewer_id} OR email = ${email})
      `
    })

    const pagesShowing = SqlSchema.findAll({
      Request: Schema.Struct({ org_id: Schema.String, target_ids: Schema.Array(Schema.String) }),
      Result: ShowingPage,
      execute: ({ org_id, target_ids }) => sql`
        SELECT p.id::text AS id, p.name, p.slug, p.custom_domain,
          array_agg(COALESCE(c.public_name, t.name) ORDER BY c.sort_order, t.name) AS components
        FROM status_pages p
        JOIN status_page_components c ON c.page_id = p.id
        JOIN targets t ON t.id = c.target_id
        WHERE p.org_id = ${org_id} AND p.published AND NOT p.held AND c.target_id = ANY(${target_ids}::uuid[])
        GROUP BY p.id
      `
    })

    const insertNotice = SqlSchema.void({
      Request: PageNoticeRow,
      execute: (notice) => sql`
        INSERT INTO notices (id, org_id, page_id, kind, payload, dedupe_key)
        VALUES (${notice.id}, ${notice.org_id}, ${notice.page_id}, 'page_event', ${notice.payload}::jsonb,
          ${notice.dedupe_key})
        ON CONFLICT (page_id, dedupe_key) WHERE page_id IS NOT NULL DO NOTHING
      `
    })

    const incident = SqlSchema.findOne({
      Request: Schema.String,
      Result: IncidentRow,
      execute: (incidentId) => sql`
        SELECT i.org_id::text AS org_id, i.public_title, i.public_description, i.impact,
          array(
            SELECT i.target_id::text WHERE i.target_id IS NOT NULL
            UNION SELECT c.target_id::text FROM incident_components c WHERE c.incident_id = i.id
          ) AS targets
        FROM incidents i WHERE i.id = ${incidentId}
      `
    })

    const window = SqlSchema.findOne({
      Request: Schema.String,
      Result: WindowRow,
      execute: (windowId) => sql`
        SELECT w.org_id::text AS org_id, w.title, w.description, w.starts_at, w.ends_at,
          array(SELECT c.target_id::text FROM maintenance_components c WHERE c.window_id = w.id) AS targets
        FROM maintenance_windows w WHERE w.id = ${windowId}
      `
    })

    const dueWindows = SqlSchema.findAll({
      Request: Schema.Void,
      Result: DueWindow,
      execute: () => sql`
        SELECT w.id::text AS id, 'started' AS kind FROM maintenance_windows w
        WHERE w.deleted_at IS NULL AND w.starts_at <= now() AND w.starts_at > now() - interval '1 hour'
          AND w.ends_at > now()
        UNION ALL
        SELECT w.id::text AS id, 'completed' AS kind FROM maintenance_windows w
        WHERE w.deleted_at IS NULL AND w.ends_at <= now() AND w.ends_at > now() - interval '1 hour'
      `
    })

    const name = (row: Option.Option<typeof Name.Type>) => Option.getOrUndefined(Option.map(row, (r) => r.name))

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      transaction: Transaction.make(sql),
      pageBySlug: (slug: string) => Effect.map(Effect.orDie(pageBySlug(slug)), Option.getOrUndefined),
      /** True when a confirmation mail is due (the row is new, or was refreshed). */
      upsert: (subscription: typeof Subscription.Type) =>
        Effect.map(Effect.orDie(upsert(subscription)), (rows) => rows.length > 0),
      /** Confirms the subscription a live confirmation token names: its page's name. */
      confirm: (hash: Uint8Array) => Effect.map(Effect.orDie(confirm(hash)), name),
      /** The name of the page an unsubscribe token belongs to. */
      unsubscribePage: (hash: Uint8Array) => Effect.map(Effect.orDie(unsubscribePage(hash)), name),
      /** Unsubscribes (idempotent): the page's name. */
      unsubscribe: (hash: Uint8Array) => Effect.map(Effect.orDie(unsubscribe(hash)), name),
      /** A page's subscriptions, newest first (none for a page of another org). */
      ofPage: (query: typeof OfPage.Type) => Effect.orDie(ofPage(query)),
      /** How many of a page's subscriptions are confirmed, awaiting confirmation, and ended. */
      countsOfPage: (orgId: string, pageId: string) => Effect.orDie(countsOfPage({ org_id: orgId, page_id: pageId })),
      passwordCount: (pageId: string) => Effect.map(Effect.orDie(passwordCount(pageId)), (row) => row.n),
      endPassword: (pageId: string) => Effect.orDie(endPassword(pageId)),
      endViewer: (pageId: string, viewerId: string, email: string) =>
        Effect.orDie(endViewer({ page_id: pageId, viewer_id: viewerId, email })),
      /** Published pages of the org showing any of `targetIds`. */
      pagesShowing: (orgId: string, targetIds: ReadonlyArray<string>) =>
        Effect.orDie(pagesShowing({ org_id: orgId, target_ids: targetIds })),
      /** Writes a page notice once per page and key; joins the caller's transaction. */
      insertNotice: (notice: typeof PageNoticeRow.Type) => Effect.orDie(insertNotice(notice)),
      incident: (incidentId: string) => Effect.map(Effect.orDie(incident(incidentId)), Option.getOrUndefined),
      window: (windowId: string) => Effect.map(Effect.orDie(window(windowId)), Option.getOrUndefined),
      /** Windows not cancelled that started or ended in the last hour: their `started` and `completed` events. */
      dueWindows: Effect.orDie(dueWindows())
    }
  })
}) {}
