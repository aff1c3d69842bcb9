/**
 * Incidents' SQL as the API reads and writes them: incidents with their components and timeline, declared incidents,
 * narration, updates, postmortems, response metrics, a monitor's incident spans, the recovered stretches uptime
 * leaves out and the monitors' per-region advisories the writer keeps. Rows are core's models
 * (timestamps arrive as `Date`s, hence the `FromDate` fields); every read is scoped to an org.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Incident, IncidentId, IncidentUpdate, Postmortem } from "@signalman/core/api/Incidents"
import { OrgId } from "@signalman/core/Identity"
import { Impact, RecoveredStretch, Severity } from "@signalman/core/Incident"
import { RegionAdvisory } from "@signalman/core/RegionAdvisory"
import * as Clock from "effect/Clock"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Transaction from "../database/Transaction.js"

const utc = Schema.DateTimeUtcFromDate
const date = Schema.DateFromSelf

/** An incident as listed and detailed. */
export const IncidentRow = Schema.Struct({
  ...Incident.fields,
  started_at: utc,
  ended_at: Schema.NullOr(utc),
  acknowledged_at: Schema.NullOr(utc),
  recovering_since: Schema.NullOr(utc),
  created_at: utc,
  updated_at: utc
})

/** An entry of an incident's timeline. */
export const UpdateRow = Schema.Struct({ ...IncidentUpdate.fields, created_at: utc })

/** An incident's postmortem. */
export const PostmortemRow = Schema.Struct({ ...Postmortem.fields, created_at: utc, updated_at: utc })

/** What narration and the acknowledge and resolve routes need of a stored incident. */
export const StoredRow = Schema.Struct({
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

/** When an incident ran: `[started_at, ended_at)`, open while `ended_at` is null. */
export const SpanRow = Schema.Struct({ id: IncidentId, started_at: utc, ended_at: Schema.NullOr(utc) })

/** The raw response figures; the service rounds them. */
export const MetricsRow = Schema.Struct({
  incidents: Schema.Int,
  acknowledged: Schema.Int,
  closed: Schema.Int,
  // float8 as a number, or as a string should a driver answer it so.
  mtta: Schema.NullOr(Schema.Union(Schema.Number, Schema.NumberFromString)),
  mttr: Schema.NullOr(Schema.Union(Schema.Number, Schema.NumberFromString))
})

/**
 * Which incidents of an org: open or closed, involving a monitor, down in a region (`regions_down` includes it),
 * overlapping `[from, to)`, of a severity.
 */
export const Filter = Schema.Struct({
  org_id: OrgId,
  status: Schema.Literal("open", "closed", "all"),
  target_id: Schema.UndefinedOr(Schema.String),
  region: Schema.UndefinedOr(Schema.String),
  from: Schema.UndefinedOr(date),
  to: Schema.UndefinedOr(date),
  severity: Schema.optional(Severity)
})

/** Incidents that started in `[from, to)`, optionally involving a monitor. */
export const StartedIn = Schema.Struct({
  org_id: OrgId,
  from: date,
  to: date,
  target_id: Schema.UndefinedOr(Schema.String)
})

/** A declared incident's row. */
export const NewDeclared = Schema.Struct({
  id: Schema.String,
  org_id: OrgId,
  title: Schema.String,
  public_title: Schema.NullOr(Schema.String),
  severity: Schema.NullOr(Schema.Literal("critical", "major", "minor")),
  impact: Impact,
  counts_as_downtime: Schema.Boolean,
  started_at: date,
  acknowledged_at: date,
  acknowledged_by: Schema.String,
  created_by: Schema.String,
  now: date
})

/** A timeline entry: a note when `phase` is null, else a person's update. */
export const NewUpdate = Schema.Struct({
  id: Schema.String,
  incident_id: Schema.String,
  phase: Schema.NullOr(Schema.String),
  message: Schema.String,
  created_by: Schema.NullOr(Schema.String),
  created_at: date
})

/** The narrated fields of an incident after a PATCH. */
export const Narration = Schema.Struct({
  id: Schema.String,
  title: Schema.NullOr(Schema.String),
  public_title: Schema.NullOr(Schema.String),
  public_description: Schema.NullOr(Schema.String),
  severity: Schema.NullOr(Schema.Literal("critical", "major", "minor")),
  counts_as_downtime: Schema.Boolean
})

const OfOrg = Schema.Struct({ org_id: OrgId, id: Schema.String })
const Count = Schema.Struct({ n: Schema.Int })
const Id = Schema.Struct({ id: Schema.String })
const IncidentIdRow = Schema.Struct({ incident_id: Schema.String })
const Recovered = Schema.Struct({ recovered: Schema.Array(RecoveredStretch) })
const TargetAdvisories = Schema.Struct({ target_id: Schema.String, advisories: Schema.Array(RegionAdvisory) })

export class IncidentsRepo extends Effect.Service<IncidentsRepo>()("Signalman/IncidentsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const select = sql`
      SELECT i.id, i.origin, CASE WHEN i.ended_at IS NULL THEN 'open' ELSE 'closed' END AS status,
        i.target_id, i.number, COALESCE(i.title, t.name) AS title, i.public_title, i.public_description,
        i.severity, i.impact, i.counts_as_downtime,
        CASE WHEN i.origin = 'monitor' THEN ARRAY[i.target_id::text]
          ELSE ARRAY(SELECT c.target_id::text FROM incident_components c WHERE c.incident_id = i.id ORDER BY c.target_id)
        END AS components,
        i.started_at, i.ended_at, i.acknowledged_at, i.acknowledged_by::text AS acknowledged_by,
        i.resolved_by::text AS resolved_by, i.close_reason, i.recovering_since, i.recovered, i.regions_down,
        i.created_by::text AS created_by, i.created_at, i.updated_at
      FROM incidents i LEFT JOIN targets t ON t.id = i.target_id
    `

    // An incident involves a monitor when it is the monitor's own or a declared one naming it.
    const involves = (targetId: string) =>
      sql`(i.target_id = ${targetId} OR EXISTS (
        SELECT 1 FROM incident_components c WHERE c.incident_id = i.id AND c.target_id = ${targetId}))`

    const one = SqlSchema.findOne({
      Request: OfOrg,
      Result: IncidentRow,
      execute: ({ org_id, id }) => sql`${select} WHERE i.id = ${id} AND i.org_id = ${org_id}`
    })

    const updates = SqlSchema.findAll({
      Request: Schema.String,
      Result: UpdateRow,
      execute: (id) => sql`
        SELECT id, kind, phase, message, created_by::text AS created_by, created_at
        FROM incident_updates WHERE incident_id = ${id} ORDER BY created_at, position
      `
    })

    const where = (f: typeof Filter.Encoded) =>
      sql.and([
        sql`i.org_id = ${f.org_id}`,
        ...(f.status === "open" ? [sql`i.ended_at IS NULL`] : []),
        ...(f.status === "closed" ? [sql`i.ended_at IS NOT NULL`] : []),
        ...(f.target_id === undefined ? [] : [involves(f.target_id)]),
        // Containment, not = ANY: the GIN index on regions_down answers it.
        ...(f.region === undefined ? [] : [sql`i.regions_down @> ARRAY[${f.region}]::text[]`]),
        ...(f.from === undefined ? [] : [sql`(i.ended_at IS NULL OR i.ended_at >= ${f.from})`]),
        ...(f.to === undefined ? [] : [sql`i.started_at < ${f.to}`]),
        ...(f.severity === undefined ? [] : [sql`i.severity = ${f.severity}`])
      ])

    const count = SqlSchema.single({
      Request: Filter,
      Result: Count,
      execute: (f) => sql`SELECT count(*)::int AS n FROM incidents i WHERE ${where(f)}`
    })

    const page = SqlSchema.findAll({
      Request: Schema.Struct({ ...Filter.fields, limit: Schema.Int, offset: Schema.Int }),
      Result: IncidentRow,
      execute: (q) => sql`
        ${select} WHERE ${where(q)} ORDER BY i.started_at DESC, i.id DESC LIMIT ${q.limit} OFFSET ${q.offset}
      `
    })

    const stored = SqlSchema.findOne({
      Request: OfOrg,
      Result: StoredRow,
      execute: ({ org_id, id }) => sql`
        SELECT id, target_id, origin, number, title, public_title, public_description, severity, counts_as_downtime,
          ended_at
        FROM incidents WHERE id = ${id} AND org_id = ${org_id}
        FOR UPDATE
      `
    })

    const insertUpdate = SqlSchema.void({
      Request: NewUpdate,
      execute: (u) => sql`
        INSERT INTO incident_updates (id, incident_id, kind, phase, message, created_by, created_at)
        VALUES (${u.id}, ${u.incident_id}, ${u.phase === null ? "note" : "update"}, ${u.phase}, ${u.message},
          ${u.created_by}, ${u.created_at})
      `
    })

    const knownTargets = SqlSchema.findAll({
      Request: Schema.Struct({ org_id: OrgId, ids: Schema.Array(Schema.String) }),
      Result: Id,
      execute: ({ org_id, ids }) =>
        sql`SELECT id::text AS id FROM targets WHERE org_id = ${org_id} AND id IN ${sql.in(ids)}`
    })

    const hasTarget = SqlSchema.findOne({
      Request: OfOrg,
      Result: Id,
      execute: ({ org_id, id }) => sql`SELECT id::text AS id FROM targets WHERE id = ${id} AND org_id = ${org_id}`
    })

    const insertDeclared = SqlSchema.void({
      Request: NewDeclared,
      execute: (d) => sql`
        INSERT INTO incidents (id, org_id, target_id, origin, number, title, public_title, severity, impact,
          counts_as_downtime, started_at, acknowledged_at, acknowledged_by, created_by, created_at, updated_at)
        VALUES (${d.id}, ${d.org_id}, NULL, 'declared', NULL, ${d.title}, ${d.public_title}, ${d.severity},
          ${d.impact}, ${d.counts_as_downtime}, ${d.started_at}, ${d.acknowledged_at}, ${d.acknowledged_by},
          ${d.created_by}, ${d.now}, ${d.now})
      `
    })

    const insertComponent = SqlSchema.void({
      Request: Schema.Struct({ incident_id: Schema.String, target_id: Schema.String }),
      execute: (c) =>
        sql`INSERT INTO incident_components (incident_id, target_id) VALUES (${c.incident_id}, ${c.target_id})`
    })

    const narrate = SqlSchema.void({
      Request: Narration,
      execute: (n) => sql`
        UPDATE incidents SET title = ${n.title}, public_title = ${n.public_title},
          public_description = ${n.public_description}, severity = ${n.severity},
          counts_as_downtime = ${n.counts_as_downtime}, updated_at = now()
        WHERE id = ${n.id}
      `
    })

    // Inserted only when the incident is the org's.
    const postUpdate = SqlSchema.findAll({
      Request: Schema.Struct({ ...NewUpdate.fields, org_id: OrgId, phase: Schema.String }),
      Result: Id,
      execute: (u) => sql`
        INSERT INTO incident_updates (id, incident_id, kind, phase, message, created_by, created_at)
        SELECT ${u.id}, i.id, 'update', ${u.phase}, ${u.message}, ${u.created_by}, ${u.created_at}
        FROM incidents i WHERE i.id = ${u.incident_id} AND i.org_id = ${u.org_id}
        RETURNING id
      `
    })

    const resolve = SqlSchema.void({
      Request: Schema.Struct({ id: Schema.String, by: Schema.String, now: date }),
      execute: (r) => sql`
        UPDATE incidents SET ended_at = ${r.now}, close_reason = 'resolved', resolved_by = ${r.by},
          updated_at = ${r.now}
        WHERE id = ${r.id} AND ended_at IS NULL
      `
    })

    const postmortem = SqlSchema.findOne({
      Request: OfOrg,
      Result: PostmortemRow,
      execute: ({ org_id, id }) => sql`
        SELECT p.incident_id, p.body, p.created_by::text AS created_by, p.updated_by::text AS updated_by,
          p.created_at, p.updated_at
        FROM incident_postmortems p JOIN incidents i ON i.id = p.incident_id
        WHERE p.incident_id = ${id} AND i.org_id = ${org_id}
      `
    })

    // Written only when the incident is the org's.
    const putPostmortem = SqlSchema.findAll({
      Request: Schema.Struct({ org_id: OrgId, id: Schema.String, by: Schema.String, body: Schema.String }),
      Result: IncidentIdRow,
      execute: (p) => sql`
        INSERT INTO incident_postmortems (incident_id, body, created_by, updated_by)
        SELECT i.id, ${p.body}, ${p.by}, ${p.by} FROM incidents i WHERE i.id = ${p.id} AND i.org_id = ${p.org_id}
        ON CONFLICT (incident_id) DO UPDATE SET body = EXCLUDED.body, updated_by = EXCLUDED.updated_by,
          updated_at = now()
        RETURNING incident_id
      `
    })

    const metrics = SqlSchema.single({
      Request: StartedIn,
      Result: MetricsRow,
      execute: (q) => sql`
        SELECT count(*)::int AS incidents,
          count(*) FILTER (WHERE i.origin = 'monitor' AND i.acknowledged_at IS NOT NULL)::int AS acknowledged,
          count(*) FILTER (WHERE i.ended_at IS NOT NULL)::int AS closed,
          (avg(EXTRACT(EPOCH FROM (i.acknowledged_at - i.started_at)))
            FILTER (WHERE i.origin = 'monitor' AND i.acknowledged_at IS NOT NULL))::float8 AS mtta,
          (avg(EXTRACT(EPOCH FROM (i.ended_at - i.started_at))) FILTER (WHERE i.ended_at IS NOT NULL))::float8 AS mttr
        FROM incidents i
        WHERE ${sql.and([
          sql`i.org_id = ${q.org_id}`,
          sql`i.started_at >= ${q.from}`,
          sql`i.started_at < ${q.to}`,
          ...(q.target_id === undefined ? [] : [involves(q.target_id)])
        ])}
      `
    })

    const spans = SqlSchema.findAll({
      Request: Schema.Struct({
        org_id: OrgId,
        target_id: Schema.String,
        region: Filter.fields.region,
        from: Filter.fields.from,
        to: Filter.fields.to
      }),
      Result: SpanRow,
      execute: (q) => sql`
        SELECT i.id, i.started_at, i.ended_at FROM incidents i
        WHERE ${where({ ...q, status: "all" })}
      `
    })

    const recovered = SqlSchema.findAll({
      Request: Schema.Struct({ target_id: Schema.String, from: date, to: date }),
      Result: Recovered,
      execute: ({ target_id, from, to }) => sql`
        SELECT recovered FROM incidents
        WHERE target_id = ${target_id} AND jsonb_array_length(recovered) > 0
          AND started_at < ${to} AND (ended_at IS NULL OR ended_at > ${from})
      `
    })

    const advisories = SqlSchema.findAll({
      Request: Schema.Array(Schema.String),
      Result: TargetAdvisories,
      execute: (ids) => sql`
        SELECT target_id::text AS target_id, advisories FROM incident_engine
        WHERE target_id IN ${sql.in(ids)} AND advisories <> '[]'::jsonb
      `
    })

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      /** Runs `self` in a transaction. */
      transaction: Transaction.make(sql),
      one: (orgId: OrgId, id: string) => Effect.map(Effect.orDie(one({ org_id: orgId, id })), Option.getOrUndefined),
      /** The incident's timeline, oldest first. */
      updates: (id: string) => Effect.orDie(updates(id)),
      list: (query: Parameters<typeof page>[0]) =>
        Effect.orDie(Effect.all({ total: Effect.map(count(query), (row) => row.n), rows: page(query) })),
      /** The stored row, locked for a change in the surrounding transaction. */
      stored: (orgId: OrgId, id: string) =>
        Effect.map(Effect.orDie(stored({ org_id: orgId, id })), Option.getOrUndefined),
      insertUpdate: (update: typeof NewUpdate.Type) => Effect.orDie(insertUpdate(update)),
      /** Which of these monitor ids (lowercase) are the org's. */
      knownTargets: (orgId: OrgId, ids: ReadonlyArray<string>) =>
        Effect.map(Effect.orDie(knownTargets({ org_id: orgId, ids })), (rows) => new Set(rows.map((r) => r.id))),
      /** Whether the org has the monitor. */
      hasTarget: (orgId: OrgId, id: string) =>
        Effect.map(Effect.orDie(hasTarget({ org_id: orgId, id })), Option.isSome),
      insertDeclared: (row: typeof NewDeclared.Type) => Effect.orDie(insertDeclared(row)),
      insertComponent: (incidentId: string, targetId: string) =>
        Effect.orDie(insertComponent({ incident_id: incidentId, target_id: targetId })),
      narrate: (narration: typeof Narration.Type) => Effect.orDie(narrate(narration)),
      /** False when the org has no such incident. */
      postUpdate: (update: Parameters<typeof postUpdate>[0]) =>
        Effect.map(Effect.orDie(postUpdate(update)), (rows) => rows.length > 0),
      resolve: (id: string, by: string, now: Date) => Effect.orDie(resolve({ id, by, now })),
      postmortem: (orgId: OrgId, id: string) =>
        Effect.map(Effect.orDie(postmortem({ org_id: orgId, id })), Option.getOrUndefined),
      /** False when the org has no such incident. */
      putPostmortem: (request: Parameters<typeof putPostmortem>[0]) =>
        Effect.map(Effect.orDie(putPostmortem(request)), (rows) => rows.length > 0),
      metrics: (query: typeof StartedIn.Type) => Effect.orDie(metrics(query)),
      spans: (query: Parameters<typeof spans>[0]) => Effect.orDie(spans(query)),
      /** The recovered stretches of the monitor's incidents overlapping `[from, to)`, unclipped. */
      recoveredStretches: (targetId: string, from: Date, to: Date) =>
        Effect.map(Effect.orDie(recovered({ target_id: targetId, from, to })), (rows) =>
          rows.flatMap((row) => row.recovered)
        ),
      /**
       * The per-region advisories of these monitors (ids already scoped to an org by the caller), in one read; a
       * monitor with none is absent.
       */
      advisoriesOf: (targetIds: ReadonlyArray<string>) =>
        targetIds.length === 0
          ? Effect.succeed(new Map<string, ReadonlyArray<RegionAdvisory>>())
          : Effect.map(
              Effect.orDie(advisories(targetIds)),
              (rows) => new Map(rows.map((row) => [row.target_id, row.advisories] as const))
            )
    }
  })
}) {
  /**
   * An in-memory repository for unit tests of the incidents' rules: incidents, their components, timelines and
   * postmortems in one store for every org, every read scoped to an org as the SQL's is. `targets` gives each org's
   * monitors with their names (a monitor-opened incident's null title shows its monitor's name), `incidents` the
   * incidents already there (the monitor-opened ones come from the writer, not this repository). A component named
   * twice is a defect, as the primary key makes it. Transactions run one at a time (what the row locks settle to)
   * and a failed one leaves the store as it was. The database's `now()` is the Effect clock.
   */
  static readonly Test = (
    options: {
      readonly targets?: Readonly<Record<string, ReadonlyArray<{ readonly id: string; readonly name: string }>>>
      readonly incidents?: ReadonlyArray<TestIncident>
      /** The advisories the incident writer stored, by monitor id. */
      readonly advisories?: Readonly<Record<string, ReadonlyArray<RegionAdvisory>>>
    } = {}
  ): Layer.Layer<IncidentsRepo> =>
    Layer.effect(
      IncidentsRepo,
      Effect.gen(function* () {
        type Stored = Required<Omit<TestIncident, "components" | "recovered" | "regions_down">> & {
          readonly recovered: ReadonlyArray<RecoveredStretch>
          readonly regions_down: ReadonlyArray<string>
        }
        type Update = typeof UpdateRow.Type & { readonly incident_id: string; readonly position: number }
        type StoredPostmortem = typeof PostmortemRow.Type
        interface Store {
          incidents: ReadonlyMap<string, Stored>
          components: ReadonlyArray<{ readonly incident_id: string; readonly target_id: string }>
          updates: ReadonlyArray<Update>
          postmortems: ReadonlyMap<string, StoredPostmortem>
        }
        const utcOf = (d: Date) => DateTime.unsafeFromDate(d)
        const orNull = (d: Date | null) => (d === null ? null : utcOf(d))
        const seeded = options.incidents ?? []
        // Every write replaces what it changes, so a transaction's snapshot is the store's fields as they were.
        const store: Store = {
          incidents: new Map(
            seeded.map((i): [string, Stored] => [
              i.id,
              {
                id: i.id,
                org_id: i.org_id,
                origin: i.origin ?? "monitor",
                target_id: i.target_id ?? null,
                number: i.number ?? (i.origin === "declared" ? null : 1),
                title: i.title ?? null,
                public_title: i.public_title ?? null,
                public_description: i.public_description ?? null,
                severity: i.severity ?? null,
                impact: i.impact ?? "major_outage",
                counts_as_downtime: i.counts_as_downtime ?? i.origin !== "declared",
                started_at: i.started_at,
                ended_at: i.ended_at ?? null,
                acknowledged_at: i.acknowledged_at ?? null,
                acknowledged_by: i.acknowledged_by ?? null,
                resolved_by: i.resolved_by ?? null,
                close_reason: i.close_reason ?? (i.ended_at ? "recovered" : null),
                recovering_since: i.recovering_since ?? null,
                recovered: i.recovered ?? [],
                regions_down: [...(i.regions_down ?? (i.origin === "declared" ? [] : ["local"]))].sort(),
                created_by: i.created_by ?? null,
                created_at: i.created_at ?? i.started_at,
                updated_at: i.updated_at ?? i.started_at
              }
            ])
          ),
          components: seeded.flatMap((i) => (i.components ?? []).map((t) => ({ incident_id: i.id, target_id: t }))),
          updates: [],
          postmortems: new Map()
        }
        let position = 0
        const serial = yield* Effect.makeSemaphore(1)
        const inTransaction = FiberRef.unsafeMake(false)
        const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

        const targets = Object.entries(options.targets ?? {}).flatMap(([orgId, all]) =>
          all.map((t) => ({ org_id: orgId, id: t.id.toLowerCase(), name: t.name }))
        )
        const ofOrg = (orgId: string, id: string) => {
          const incident = store.incidents.get(id)
          return incident === undefined || incident.org_id !== orgId ? undefined : incident
        }
        const write = (id: string, change: Partial<Stored>) => {
          const incident = store.incidents.get(id)
          if (incident !== undefined) store.incidents = new Map(store.incidents).set(id, { ...incident, ...change })
        }
        const componentsOf = (id: string) =>
          store.components
            .filter((c) => c.incident_id === id)
            .map((c) => c.target_id)
            .sort()
        const involves = (i: Stored, targetId: string) =>
          i.target_id === targetId || componentsOf(i.id).includes(targetId)
        const row = (i: Stored): typeof IncidentRow.Type => ({
          id: IncidentId.make(i.id),
          origin: i.origin,
          status: i.ended_at === null ? "open" : "closed",
          target_id: i.target_id as typeof IncidentRow.Type.target_id,
          number: i.number,
          title: i.title ?? targets.find((t) => t.id === i.target_id)?.name ?? null,
          public_title: i.public_title,
          public_description: i.public_description,
          severity: i.severity,
          impact: i.impact,
          counts_as_downtime: i.counts_as_downtime,
          components: (i.origin === "monitor"
            ? [i.target_id ?? ""]
            : componentsOf(i.id)) as ReadonlyArray<string> as typeof IncidentRow.Type.components,
          started_at: utcOf(i.started_at),
          ended_at: orNull(i.ended_at),
          acknowledged_at: orNull(i.acknowledged_at),
          acknowledged_by: i.acknowledged_by,
          resolved_by: i.resolved_by,
          close_reason: i.close_reason,
          recovering_since: orNull(i.recovering_since),
          recovered: i.recovered,
          regions_down: i.regions_down,
          created_by: i.created_by,
          created_at: utcOf(i.created_at),
          updated_at: utcOf(i.updated_at)
        })
        const matching = (f: typeof Filter.Type) =>
          [...store.incidents.values()].filter(
            (i) =>
              i.org_id === f.org_id &&
              (f.status !== "open" || i.ended_at === null) &&
              (f.status !== "closed" || i.ended_at !== null) &&
              (f.target_id === undefined || involves(i, f.target_id)) &&
              (f.region === undefined || i.regions_down.includes(f.region)) &&
              (f.from === undefined || i.ended_at === null || i.ended_at >= f.from) &&
              (f.to === undefined || i.started_at < f.to) &&
              (f.severity === undefined || i.severity === f.severity)
          )
        const newest = (a: Stored, b: Stored) =>
          b.started_at.getTime() - a.started_at.getTime() || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0)
        const hasTarget = (orgId: string, id: string) =>
          targets.some((t) => t.org_id === orgId && t.id === id.toLowerCase())
        const addUpdate = (u: typeof NewUpdate.Type) => {
          store.updates = [
            ...store.updates,
            {
              id: u.id,
              incident_id: u.incident_id,
              kind: u.phase === null ? "note" : "update",
              phase: u.phase as typeof UpdateRow.Type.phase,
              message: u.message,
              created_by: u.created_by,
              created_at: utcOf(u.created_at),
              position: position++
            }
          ]
        }
        const average = (values: ReadonlyArray<number>) =>
          values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length

        return IncidentsRepo.make({
          transaction: <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
            Effect.flatMap(FiberRef.get(inTransaction), (nested) => {
              const undoable = Effect.suspend(() => {
                const saved = { ...store }
                return Effect.onError(self, () => Effect.sync(() => Object.assign(store, saved)))
              })
              return nested ? undoable : serial.withPermits(1)(Effect.locally(undoable, inTransaction, true))
            }),
          one: (orgId, id) =>
            Effect.sync(() => {
              const incident = ofOrg(orgId, id)
              return incident === undefined ? undefined : row(incident)
            }),
          updates: (id) =>
            Effect.sync(() =>
              store.updates
                .filter((u) => u.incident_id === id)
                .sort((a, b) => DateTime.Order(a.created_at, b.created_at) || a.position - b.position)
                .map(({ incident_id: _, position: __, ...u }) => u)
            ),
          list: (query) =>
            Effect.sync(() => {
              const all = matching(query).sort(newest)
              return { total: all.length, rows: all.slice(query.offset, query.offset + query.limit).map(row) }
            }),
          stored: (orgId, id) =>
            Effect.sync(() => {
              const i = ofOrg(orgId, id)
              return i === undefined
                ? undefined
                : {
                    id: i.id,
                    origin: i.origin,
                    target_id: i.target_id,
                    number: i.number,
                    title: i.title,
                    public_title: i.public_title,
                    public_description: i.public_description,
                    severity: i.severity,
                    counts_as_downtime: i.counts_as_downtime,
                    ended_at: orNull(i.ended_at)
                  }
            }),
          insertUpdate: (update) => Effect.sync(() => addUpdate(update)),
          knownTargets: (orgId, ids) => Effect.sync(() => new Set(ids.filter((id) => hasTarget(orgId, id)))),
          hasTarget: (orgId, id) => Effect.sync(() => hasTarget(orgId, id)),
          insertDeclared: (d) =>
            Effect.suspend(() => {
              if (store.incidents.has(d.id)) return Effect.dieMessage(`incident ${d.id} exists`)
              store.incidents = new Map(store.incidents).set(d.id, {
                id: d.id,
                org_id: d.org_id,
                origin: "declared",
                target_id: null,
                number: null,
                title: d.title,
                public_title: d.public_title,
                public_description: null,
                severity: d.severity,
                impact: d.impact,
                counts_as_downtime: d.counts_as_downtime,
                started_at: d.started_at,
                ended_at: null,
                acknowledged_at: d.acknowledged_at,
                acknowledged_by: d.acknowledged_by,
                resolved_by: null,
                close_reason: null,
                recovering_since: null,
                recovered: [],
                regions_down: [],
                created_by: d.created_by,
                created_at: d.now,
                updated_at: d.now
              })
              return Effect.void
            }),
          insertComponent: (incidentId, targetId) =>
            Effect.suspend(() => {
              if (store.components.some((c) => c.incident_id === incidentId && c.target_id === targetId)) {
                return Effect.dieMessage(`component ${targetId} of ${incidentId} exists`)
              }
              store.components = [...store.components, { incident_id: incidentId, target_id: targetId }]
              return Effect.void
            }),
          narrate: ({ id, ...narration }) => Effect.map(now, (at) => write(id, { ...narration, updated_at: at })),
          postUpdate: (u) =>
            Effect.sync(() => {
              if (ofOrg(u.org_id, u.incident_id) === undefined) return false
              addUpdate(u)
              return true
            }),
          resolve: (id, by, at) =>
            Effect.sync(() => {
              if (store.incidents.get(id)?.ended_at !== null) return
              write(id, { ended_at: at, close_reason: "resolved", resolved_by: by, updated_at: at })
            }),
          postmortem: (orgId, id) =>
            Effect.sync(() => (ofOrg(orgId, id) === undefined ? undefined : store.postmortems.get(id))),
          putPostmortem: (p) =>
            Effect.flatMap(now, (at) =>
              Effect.sync(() => {
                if (ofOrg(p.org_id, p.id) === undefined) return false
                const before = store.postmortems.get(p.id)
                store.postmortems = new Map(store.postmortems).set(p.id, {
                  incident_id: p.id as StoredPostmortem["incident_id"],
                  body: p.body,
                  created_by: before?.created_by ?? p.by,
                  updated_by: p.by,
                  created_at: before?.created_at ?? utcOf(at),
                  updated_at: utcOf(at)
                })
                return true
              })
            ),
          metrics: (q) =>
            Effect.sync(() => {
              const started = [...store.incidents.values()].filter(
                (i) =>
                  i.org_id === q.org_id &&
                  i.started_at >= q.from &&
                  i.started_at < q.to &&
                  (q.target_id === undefined || involves(i, q.target_id))
              )
              const acknowledged = started.flatMap((i) =>
                i.origin === "monitor" && i.acknowledged_at !== null
                  ? [(i.acknowledged_at.getTime() - i.started_at.getTime()) / 1000]
                  : []
              )
              const closed = started.flatMap((i) =>
                i.ended_at === null ? [] : [(i.ended_at.getTime() - i.started_at.getTime()) / 1000]
              )
              return {
                incidents: started.length,
                acknowledged: acknowledged.length,
                closed: closed.length,
                mtta: average(acknowledged),
                mttr: average(closed)
              }
            }),
          spans: (q) =>
            Effect.sync(() =>
              matching({ ...q, status: "all" }).map((i) => ({
                id: IncidentId.make(i.id),
                started_at: utcOf(i.started_at),
                ended_at: orNull(i.ended_at)
              }))
            ),
          recoveredStretches: (targetId, from, to) =>
            Effect.sync(() =>
              [...store.incidents.values()]
                .filter(
                  (i) =>
                    i.target_id === targetId &&
                    i.recovered.length > 0 &&
                    i.started_at < to &&
                    (i.ended_at === null || i.ended_at > from)
                )
                .flatMap((i) => i.recovered)
            ),
          advisoriesOf: (targetIds) =>
            Effect.sync(
              () =>
                new Map(
                  targetIds.flatMap((id) => {
                    const stored = options.advisories?.[id] ?? []
                    return stored.length === 0 ? [] : [[id, stored] as const]
                  })
                )
            )
        })
      })
    )
}

/** An incident already in `IncidentsRepo.Test`'s store; omitted fields take a monitor-opened incident's defaults. */
export interface TestIncident {
  readonly id: string
  readonly org_id: string
  readonly origin?: "monitor" | "declared"
  readonly target_id?: string | null
  readonly number?: number | null
  readonly title?: string | null
  readonly public_title?: string | null
  readonly public_description?: string | null
  readonly severity?: "critical" | "major" | "minor" | null
  readonly impact?: Impact
  readonly counts_as_downtime?: boolean
  /** A declared incident's monitors. */
  readonly components?: ReadonlyArray<string>
  readonly started_at: Date
  readonly ended_at?: Date | null
  readonly acknowledged_at?: Date | null
  readonly acknowledged_by?: string | null
  readonly resolved_by?: string | null
  readonly close_reason?: "recovered" | "resolved" | null
  readonly recovering_since?: Date | null
  readonly recovered?: ReadonlyArray<RecoveredStretch>
  /** Default: `["local"]` on a monitor-opened incident, none on a declared one. */
  readonly regions_down?: ReadonlyArray<string>
  readonly created_by?: string | null
  readonly created_at?: Date
  readonly updated_at?: Date
}
