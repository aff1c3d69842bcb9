/**
 * Incidents as the API reads and writes them: lists and details with their timeline, declared incidents (opened,
 * acknowledged and resolved here through `DeclaredIncident`), narration, updates, postmortems, response metrics
 * and a monitor's incident periods. Monitor-opened incidents move only through the `IncidentWriter`, so the
 * engine's state and the rows never disagree. Every read and write is scoped to the caller's org: a foreign id
 * reads as missing. A write that shows on status pages drops their snapshots once it commits (`PageChanges`), so the
 * narration is public at once, not after the pages' cache window.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import * as ApiError from "@signalman/core/ApiError"
import {
  type DeclareIncident,
  Incident,
  IncidentDetail,
  IncidentId,
  type IncidentPeriod,
  IncidentUpdate,
  Postmortem
} from "@signalman/core/api/Incidents"
import * as DeclaredIncident from "@signalman/core/DeclaredIncident"
import type { OrgId } from "@signalman/core/Identity"
import * as IncidentNarration from "@signalman/core/IncidentNarration"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { uuidv7 } from "../infra/Ids.js"
import { PageChanges } from "../statuspages/PageChanges.js"
import { PageEvents } from "../subscribers/PageEvents.js"

export const notFound = ApiError.make("NOT_FOUND", "No such incident")

const utc = Schema.DateTimeUtcFromDate
const IncidentRow = Schema.Struct({
  ...Incident.fields,
  started_at: utc,
  ended_at: Schema.NullOr(utc),
  acknowledged_at: Schema.NullOr(utc),
  recovering_since: Schema.NullOr(utc),
  created_at: utc,
  updated_at: utc
})
const decodeIncidents = Schema.decodeUnknown(Schema.Array(IncidentRow))

const UpdateRow = Schema.Struct({ ...IncidentUpdate.fields, created_at: utc })
const decodeUpdates = Schema.decodeUnknown(Schema.Array(UpdateRow))

const PostmortemRow = Schema.Struct({ ...Postmortem.fields, created_at: utc, updated_at: utc })
const decodePostmortems = Schema.decodeUnknown(Schema.Array(PostmortemRow))

/** What narration and the acknowledge and resolve routes need of a stored incident. */
const StoredRow = Schema.Struct({
  id: Schema.String,
  origin: Schema.Literal("monitor", "declared"),
  target_id: Schema.NullOr(Schema.String),
  number: Schema.NullOr(Schema.Number),
  title: Schema.NullOr(Schema.String),
  public_title: Schema.NullOr(Schema.String),
  public_description: Schema.NullOr(Schema.String),
  severity: Schema.NullOr(Schema.Literal("critical", "major", "minor")),
  counts_as_downtime: Schema.Boolean,
  ended_at: Schema.NullOr(utc)
})
export type StoredRow = typeof StoredRow.Type
const decodeStored = Schema.decodeUnknown(Schema.Array(StoredRow))

const SpanRow = Schema.Struct({ id: IncidentId, started_at: utc, ended_at: Schema.NullOr(utc) })
const decodeSpans = Schema.decodeUnknown(Schema.Array(SpanRow))

export interface ListQuery {
  readonly limit: number
  readonly offset: number
  readonly status: "open" | "closed" | "all"
  readonly target_id?: string | undefined
  readonly from?: DateTime.Utc | undefined
  readonly to?: DateTime.Utc | undefined
}

export interface PeriodQuery {
  readonly limit: number
  readonly offset: number
  readonly from?: DateTime.Utc | undefined
  readonly to?: DateTime.Utc | undefined
  readonly ongoing_only: boolean
}

const date = DateTime.toDateUtc

/**
 * Merge incidents' spans into periods: overlapping or touching spans are one period. Spans are `[start, end)`,
 * an open one runs on (end null). Answers the periods newest first.
 */
export const coalesce = (
  spans: ReadonlyArray<{
    readonly id: IncidentId
    readonly started_at: DateTime.Utc
    readonly ended_at: DateTime.Utc | null
  }>
): Array<IncidentPeriod> => {
  const sorted = [...spans].sort((a, b) => DateTime.Order(a.started_at, b.started_at))
  const periods: Array<{ started_at: DateTime.Utc; ended_at: DateTime.Utc | null; incident_ids: Array<IncidentId> }> =
    []
  for (const span of sorted) {
    const last = periods[periods.length - 1]
    if (last !== undefined && (last.ended_at === null || DateTime.lessThanOrEqualTo(span.started_at, last.ended_at))) {
      last.incident_ids.push(span.id)
      if (last.ended_at !== null)
        last.ended_at = span.ended_at === null ? null : DateTime.max(last.ended_at, span.ended_at)
    } else {
      periods.push({ started_at: span.started_at, ended_at: span.ended_at, incident_ids: [span.id] })
    }
  }
  return periods.reverse().map((p) => ({
    started_at: p.started_at,
    ended_at: p.ended_at,
    ongoing: p.ended_at === null,
    incident_ids: p.incident_ids
  }))
}

export class Incidents extends Effect.Service<Incidents>()("Signalman/Incidents", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const pageEvents = yield* PageEvents
    const pageChanges = yield* PageChanges

    const select = sql`
      SELECT i.id, i.origin, CASE WHEN i.ended_at IS NULL THEN 'open' ELSE 'closed' END AS status,
        i.target_id, i.number, COALESCE(i.title, t.name) AS title, i.public_title, i.public_description,
        i.severity, i.impact, i.counts_as_downtime,
        CASE WHEN i.origin = 'monitor' THEN ARRAY[i.target_id::text]
          ELSE ARRAY(SELECT c.target_id::text FROM incident_components c WHERE c.incident_id = i.id ORDER BY c.target_id)
        END AS components,
        i.started_at, i.ended_at, i.acknowledged_at, i.acknowledged_by::text AS acknowledged_by,
        i.resolved_by::text AS resolved_by, i.close_reason, i.recovering_since, i.recovered,
        i.created_by::text AS created_by, i.created_at, i.updated_at
      FROM incidents i LEFT JOIN targets t ON t.id = i.target_id
    `

    const involves = (targetId: string) =>
      sql`(i.target_id = ${targetId} OR EXISTS (
        SELECT 1 FROM incident_components c WHERE c.incident_id = i.id AND c.target_id = ${targetId}))`

    const one = (orgId: OrgId, id: string) =>
      sql`${select} WHERE i.id = ${id} AND i.org_id = ${orgId}`.pipe(
        Effect.flatMap(decodeIncidents),
        Effect.map((rows) => (rows[0] === undefined ? undefined : new Incident(rows[0]))),
        Effect.orDie
      )

    const updates = (id: string) =>
      sql`
        SELECT id, kind, phase, message, created_by::text AS created_by, created_at
        FROM incident_updates WHERE incident_id = ${id} ORDER BY created_at, position
      `.pipe(
        Effect.flatMap(decodeUpdates),
        Effect.map((rows) => rows.map((row) => new IncidentUpdate(row))),
        Effect.orDie
      )

    const detail = (orgId: OrgId, id: string) =>
      Effect.gen(function* () {
        const incident = yield* one(orgId, id)
        if (incident === undefined) return undefined
        return new IncidentDetail({ ...incident, updates: yield* updates(id) })
      })

    const list = (orgId: OrgId, query: ListQuery) =>
      Effect.gen(function* () {
        const filters: Array<Statement.Fragment> = [sql`i.org_id = ${orgId}`]
        if (query.status === "open") filters.push(sql`i.ended_at IS NULL`)
        if (query.status === "closed") filters.push(sql`i.ended_at IS NOT NULL`)
        if (query.target_id !== undefined) filters.push(involves(query.target_id))
        if (query.from !== undefined) filters.push(sql`(i.ended_at IS NULL OR i.ended_at >= ${date(query.from)})`)
        if (query.to !== undefined) filters.push(sql`i.started_at < ${date(query.to)}`)
        const where = sql.and(filters)
        const [count] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM incidents i WHERE ${where}`
        const rows = yield* sql`
          ${select} WHERE ${where} ORDER BY i.started_at DESC, i.id DESC LIMIT ${query.limit} OFFSET ${query.offset}
        `.pipe(Effect.flatMap(decodeIncidents))
        return { rows: rows.map((row) => new Incident(row)), total: count?.n ?? 0 }
      }).pipe(Effect.orDie)

    /** The stored row, locked for a change in the surrounding transaction. */
    const stored = (orgId: OrgId, id: string) =>
      sql`
        SELECT id, target_id, origin, number, title, public_title, public_description, severity, counts_as_downtime,
          ended_at
        FROM incidents WHERE id = ${id} AND org_id = ${orgId}
        FOR UPDATE
      `.pipe(
        Effect.flatMap(decodeStored),
        Effect.map((rows) => rows[0]),
        Effect.orDie
      )

    const update = (id: string, phase: string | null, message: string, by: string | null, now: DateTime.Utc) =>
      sql`
        INSERT INTO incident_updates (id, incident_id, kind, phase, message, created_by, created_at)
        VALUES (${uuidv7()}, ${id}, ${phase === null ? "note" : "update"}, ${phase}, ${message}, ${by}, ${date(now)})
      `.pipe(Effect.orDie)

    /**
     * Declare an incident. Every component must be a monitor of the org (400 `VALIDATION_FAILED` on
     * `components[i]`; unknown and foreign alike).
     */
    const declare = (orgId: OrgId, by: string, body: DeclareIncident) =>
      Effect.gen(function* () {
        const ids = body.components.map((id) => id.toLowerCase())
        const twice = ids.findIndex((id, i) => ids.indexOf(id) !== i)
        if (twice !== -1) {
          return yield* Effect.fail(
            ApiError.make("VALIDATION_FAILED", "This monitor is named twice", { field: `components[${twice}]` })
          )
        }
        if (ids.length > 0) {
          const known = yield* sql<{ id: string }>`
            SELECT id::text AS id FROM targets WHERE org_id = ${orgId} AND id IN ${sql.in(ids)}
          `.pipe(Effect.orDie)
          const found = new Set(known.map((row) => row.id))
          const unknown = ids.findIndex((id) => !found.has(id))
          if (unknown !== -1) {
            return yield* Effect.fail(
              ApiError.make("VALIDATION_FAILED", "No such monitor in this org", { field: `components[${unknown}]` })
            )
          }
        }
        const now = yield* DateTime.now
        const declared = DeclaredIncident.declare(body, by, now)
        const id = uuidv7()
        yield* sql
          .withTransaction(
            Effect.gen(function* () {
              yield* sql`
                INSERT INTO incidents (id, org_id, target_id, origin, number, title, public_title, severity, impact,
                  counts_as_downtime, started_at, acknowledged_at, acknowledged_by, created_by, created_at, updated_at)
                VALUES (${id}, ${orgId}, NULL, 'declared', NULL, ${declared.title}, ${body.public_title ?? null},
                  ${body.severity ?? null}, ${declared.impact}, ${declared.counts_as_downtime},
                  ${date(declared.started_at)}, ${date(declared.acknowledged_at)}, ${declared.acknowledged_by},
                  ${by}, ${date(now)}, ${date(now)})
              `
              for (const target of ids) {
                yield* sql`INSERT INTO incident_components (incident_id, target_id) VALUES (${id}, ${target})`
              }
              yield* update(id, null, "Incident declared", by, now)
              if (body.message !== undefined) yield* update(id, "investigating", body.message, by, now)
              yield* pageEvents.incident(id, "opened")
            })
          )
          .pipe(Effect.orDie)
        yield* pageChanges.incident(id)
        return id
      })

    /** Apply a checked PATCH; undefined when there is no such incident in the org. */
    const narrate = (
      orgId: OrgId,
      id: string,
      check: (row: StoredRow) => Effect.Effect<IncidentNarration.PatchIncident, ApiError.ApiError>
    ) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const row = yield* stored(orgId, id)
            if (row === undefined) return false
            const patch = yield* check(row)
            const next = IncidentNarration.apply(row, patch)
            yield* sql`
            UPDATE incidents SET title = ${next.title}, public_title = ${next.public_title},
              public_description = ${next.public_description}, severity = ${next.severity},
              counts_as_downtime = ${next.counts_as_downtime}, updated_at = now()
            WHERE id = ${id}
          `.pipe(Effect.orDie)
            return true
          })
        )
        .pipe(
          Effect.catchTag("SqlError", Effect.die),
          Effect.tap((changed) => (changed ? pageChanges.incident(id) : Effect.void))
        )

    const postUpdate = (orgId: OrgId, id: string, by: string, body: IncidentNarration.PostIncidentUpdate) =>
      Effect.gen(function* () {
        const now = yield* DateTime.now
        const updateId = uuidv7()
        // The update and its announcement to page subscribers commit together.
        const inserted = yield* sql
          .withTransaction(
            Effect.gen(function* () {
              const rows = yield* sql<{ id: string }>`
                INSERT INTO incident_updates (id, incident_id, kind, phase, message, created_by, created_at)
                SELECT ${updateId}, i.id, 'update', ${body.phase}, ${body.message}, ${by}, ${date(now)}
                FROM incidents i WHERE i.id = ${id} AND i.org_id = ${orgId}
                RETURNING id
              `
              if (rows.length > 0) {
                yield* pageEvents.incident(id, "update", { id: updateId, phase: body.phase, message: body.message })
              }
              return rows
            })
          )
          .pipe(Effect.orDie)
        if (inserted.length === 0) return undefined
        yield* pageChanges.incident(id)
        const all = yield* updates(id)
        return all.find((u) => u.id === updateId)
      })

    /** Resolve a declared incident (a monitor-opened one goes through the writer). */
    const resolveDeclared = (orgId: OrgId, id: string, by: string) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const row = yield* stored(orgId, id)
            if (row === undefined || row.origin !== "declared" || row.ended_at !== null) return false
            const now = yield* DateTime.now
            yield* sql`
              UPDATE incidents SET ended_at = ${date(now)}, close_reason = 'resolved', resolved_by = ${by},
                updated_at = ${date(now)}
              WHERE id = ${id} AND ended_at IS NULL
            `
            yield* update(id, null, "Resolved", by, now)
            yield* pageEvents.incident(id, "resolved")
            return true
          })
        )
        .pipe(
          Effect.orDie,
          Effect.flatMap((resolved) => (resolved ? pageChanges.incident(id) : Effect.void))
        )

    const postmortem = (orgId: OrgId, id: string) =>
      sql`
        SELECT p.incident_id, p.body, p.created_by::text AS created_by, p.updated_by::text AS updated_by,
          p.created_at, p.updated_at
        FROM incident_postmortems p JOIN incidents i ON i.id = p.incident_id
        WHERE p.incident_id = ${id} AND i.org_id = ${orgId}
      `.pipe(
        Effect.flatMap(decodePostmortems),
        Effect.map((rows) => rows[0]),
        Effect.orDie
      )

    const putPostmortem = (orgId: OrgId, id: string, by: string, body: string) =>
      Effect.gen(function* () {
        const written = yield* sql<{ incident_id: string }>`
          INSERT INTO incident_postmortems (incident_id, body, created_by, updated_by)
          SELECT i.id, ${body}, ${by}, ${by} FROM incidents i WHERE i.id = ${id} AND i.org_id = ${orgId}
          ON CONFLICT (incident_id) DO UPDATE SET body = EXCLUDED.body, updated_by = EXCLUDED.updated_by,
            updated_at = now()
          RETURNING incident_id
        `.pipe(Effect.orDie)
        return written.length === 0 ? undefined : yield* postmortem(orgId, id)
      })

    /** Response figures over the incidents that started in `[from, to)` (docs/incidents.md, "Metrics"). */
    const metrics = (orgId: OrgId, from: DateTime.Utc, to: DateTime.Utc, targetId: string | undefined) =>
      Effect.gen(function* () {
        const filters = [sql`i.org_id = ${orgId}`, sql`i.started_at >= ${date(from)}`, sql`i.started_at < ${date(to)}`]
        if (targetId !== undefined) filters.push(involves(targetId))
        const [row] = yield* sql<{
          incidents: number
          acknowledged: number
          closed: number
          mtta: number | null
          mttr: number | null
        }>`
          SELECT count(*)::int AS incidents,
            count(*) FILTER (WHERE i.origin = 'monitor' AND i.acknowledged_at IS NOT NULL)::int AS acknowledged,
            count(*) FILTER (WHERE i.ended_at IS NOT NULL)::int AS closed,
            (avg(EXTRACT(EPOCH FROM (i.acknowledged_at - i.started_at)))
              FILTER (WHERE i.origin = 'monitor' AND i.acknowledged_at IS NOT NULL))::float8 AS mtta,
            (avg(EXTRACT(EPOCH FROM (i.ended_at - i.started_at))) FILTER (WHERE i.ended_at IS NOT NULL))::float8 AS mttr
          FROM incidents i WHERE ${sql.and(filters)}
        `.pipe(Effect.orDie)
        const round = (n: number | null | undefined) =>
          n === null || n === undefined ? null : Math.round(Number(n) * 1000) / 1000
        return {
          from,
          to,
          incidents: row?.incidents ?? 0,
          acknowledged: row?.acknowledged ?? 0,
          closed: row?.closed ?? 0,
          mtta_secs: round(row?.mtta),
          mttr_secs: round(row?.mttr)
        }
      })

    /** A monitor's incident periods: its own incidents and the declared ones naming it, coalesced. */
    const periods = (orgId: OrgId, targetId: string, query: PeriodQuery) =>
      Effect.gen(function* () {
        const filters = [sql`i.org_id = ${orgId}`, involves(targetId)]
        if (query.from !== undefined) filters.push(sql`(i.ended_at IS NULL OR i.ended_at >= ${date(query.from)})`)
        if (query.to !== undefined) filters.push(sql`i.started_at < ${date(query.to)}`)
        const rows = yield* sql`
          SELECT i.id, i.started_at, i.ended_at FROM incidents i WHERE ${sql.and(filters)}
        `.pipe(Effect.flatMap(decodeSpans), Effect.orDie)
        const all = coalesce(rows)
        const kept = query.ongoing_only ? all.filter((p) => p.ongoing) : all
        return { rows: kept.slice(query.offset, query.offset + query.limit), total: kept.length }
      })

    /** After a write of the incident committed elsewhere (the writer's resolve): its pages drop their snapshots. */
    const refreshPages = (id: string) => pageChanges.incident(id)

    return {
      one,
      detail,
      list,
      stored,
      declare,
      narrate,
      postUpdate,
      resolveDeclared,
      refreshPages,
      postmortem,
      putPostmortem,
      metrics,
      periods
    }
  }),
  dependencies: [PageEvents.Default, PageChanges.Default]
}) {}
