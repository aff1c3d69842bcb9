/**
 * Page events into the notifier's outbox: when an incident or a maintenance window moves, one notice per published
 * status page showing any monitor it touches. The insert joins the caller's transaction, so the notice exists exactly
 * when the change does, and its key (`incident/<id>/update/<update id>`, `maintenance/<id>/started`, ...) is unique
 * per page, so an event written twice is announced once. The notifier fans each notice out to the page's confirmed
 * subscribers at that moment.
 *
 * Only public words go in: an incident's public title and description (else its impact), a window's title,
 * description and times, and the page's names for its components. Never a monitor's check.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as PageSubscription from "@signalman/core/PageSubscription"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { uuidv7 } from "../Ids.js"

const PageRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  slug: Schema.String,
  custom_domain: Schema.NullOr(Schema.String),
  components: Schema.Array(Schema.String)
})
const decodePages = Schema.decodeUnknown(Schema.Array(PageRow))

const IncidentRow = Schema.Struct({
  org_id: Schema.String,
  public_title: Schema.NullOr(Schema.String),
  public_description: Schema.NullOr(Schema.String),
  impact: Schema.Literal("degraded", "partial_outage", "major_outage"),
  targets: Schema.Array(Schema.String)
})
const decodeIncidents = Schema.decodeUnknown(Schema.Array(IncidentRow))

const WindowRow = Schema.Struct({
  org_id: Schema.String,
  title: Schema.String,
  description: Schema.String,
  starts_at: Schema.DateFromSelf,
  ends_at: Schema.DateFromSelf,
  targets: Schema.Array(Schema.String)
})
const decodeWindows = Schema.decodeUnknown(Schema.Array(WindowRow))

const encodeNotice = Schema.encodeSync(PageSubscription.PageNotice)

const minute = (date: Date) => date.toISOString().slice(0, 16).replace("T", " ")

export class PageEvents extends Effect.Service<PageEvents>()("Signalman/PageEvents", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Published pages of the org showing any of `targetIds`, each with its names for the ones it shows. */
    const pagesShowing = (orgId: string, targetIds: ReadonlyArray<string>) =>
      targetIds.length === 0
        ? Effect.succeed([])
        : sql`
            SELECT p.id::text AS id, p.name, p.slug, p.custom_domain,
              array_agg(COALESCE(c.public_name, t.name) ORDER BY c.sort_order, t.name) AS components
            FROM status_pages p
            JOIN status_page_components c ON c.page_id = p.id
            JOIN targets t ON t.id = c.target_id
            WHERE p.org_id = ${orgId} AND p.published AND c.target_id = ANY(${targetIds}::uuid[])
            GROUP BY p.id
          `.pipe(Effect.flatMap(decodePages))

    const enqueue = (
      orgId: string,
      targetIds: ReadonlyArray<string>,
      key: string,
      event: PageSubscription.Event
    ): Effect.Effect<void> =>
      Effect.gen(function* () {
        const pages = yield* pagesShowing(orgId, targetIds)
        for (const page of pages) {
          const payload = encodeNotice({
            event,
            page: { name: page.name, slug: page.slug, custom_domain: page.custom_domain },
            components: page.components
          })
          yield* sql`
            INSERT INTO notices (id, org_id, page_id, kind, payload, dedupe_key)
            VALUES (${uuidv7()}, ${orgId}, ${page.id}, 'page_event', ${JSON.stringify(payload)}::jsonb, ${key})
            ON CONFLICT (page_id, dedupe_key) WHERE page_id IS NOT NULL DO NOTHING
          `
        }
      }).pipe(Effect.orDie)

    /**
     * An incident opened, got an update (`update` names it) or resolved. Its monitor (a monitor-opened incident) or
     * its components (a declared one) decide the pages.
     */
    const incident = (
      incidentId: string,
      kind: "opened" | "update" | "resolved",
      update?: { readonly id: string; readonly phase: string; readonly message: string }
    ): Effect.Effect<void> =>
      Effect.gen(function* () {
        const [row] = yield* sql`
          SELECT i.org_id::text AS org_id, i.public_title, i.public_description, i.impact,
            array(
              SELECT i.target_id::text WHERE i.target_id IS NOT NULL
              UNION SELECT c.target_id::text FROM incident_components c WHERE c.incident_id = i.id
            ) AS targets
          FROM incidents i WHERE i.id = ${incidentId}
        `.pipe(Effect.flatMap(decodeIncidents))
        if (row === undefined) return
        const key =
          update === undefined ? `incident/${incidentId}/${kind}` : `incident/${incidentId}/update/${update.id}`
        yield* enqueue(row.org_id, row.targets, key, {
          _tag: "Incident",
          kind,
          publicTitle: row.public_title,
          publicDescription: row.public_description,
          impact: row.impact,
          ...(update === undefined ? {} : { phase: update.phase, message: update.message })
        })
      }).pipe(Effect.orDie)

    /** A maintenance window was scheduled, started, got an update (`update` names it) or completed. */
    const maintenance = (
      windowId: string,
      kind: "scheduled" | "started" | "update" | "completed",
      update?: { readonly id: string; readonly message: string }
    ): Effect.Effect<void> =>
      Effect.gen(function* () {
        const [row] = yield* sql`
          SELECT w.org_id::text AS org_id, w.title, w.description, w.starts_at, w.ends_at,
            array(SELECT c.target_id::text FROM maintenance_components c WHERE c.window_id = w.id) AS targets
          FROM maintenance_windows w WHERE w.id = ${windowId}
        `.pipe(Effect.flatMap(decodeWindows))
        if (row === undefined) return
        const key =
          update === undefined ? `maintenance/${windowId}/${kind}` : `maintenance/${windowId}/update/${update.id}`
        yield* enqueue(row.org_id, row.targets, key, {
          _tag: "Maintenance",
          kind,
          title: row.title,
          description: row.description,
          startsAt: minute(row.starts_at),
          endsAt: minute(row.ends_at),
          ...(update === undefined ? {} : { message: update.message })
        })
      }).pipe(Effect.orDie)

    /**
     * Windows that started or ended in the last hour and are not cancelled: their `started` and `completed` events
     * (a window's state follows from the clock, so a sweep notices the moment). The keys make a repeat a no-op.
     */
    const sweepWindows = Effect.gen(function* () {
      const due = yield* sql<{ id: string; kind: "started" | "completed" }>`
        SELECT w.id::text AS id, 'started' AS kind FROM maintenance_windows w
        WHERE w.deleted_at IS NULL AND w.starts_at <= now() AND w.starts_at > now() - interval '1 hour'
          AND w.ends_at > now()
        UNION ALL
        SELECT w.id::text AS id, 'completed' AS kind FROM maintenance_windows w
        WHERE w.deleted_at IS NULL AND w.ends_at <= now() AND w.ends_at > now() - interval '1 hour'
      `
      for (const window of due) yield* sql.withTransaction(maintenance(window.id, window.kind))
      return due.length
    }).pipe(Effect.orDie)

    return { incident, maintenance, sweepWindows }
  })
}) {}
