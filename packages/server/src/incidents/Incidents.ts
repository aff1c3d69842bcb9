/**
 * Incidents as the API reads and writes them: lists and details with their timeline, declared incidents (opened,
 * acknowledged and resolved here through `DeclaredIncident`), narration, updates, postmortems, response metrics
 * and a monitor's incident periods. Monitor-opened incidents move only through the `IncidentWriter`, so the
 * engine's state and the rows never disagree. Every read and write is scoped to the caller's org: a foreign id
 * reads as missing. A write that shows on status pages drops their snapshots once it commits (`PageChanges`), so the
 * narration is public at once, not after the pages' cache window.
 */
import * as ApiError from "@signalman/core/ApiError"
import {
  type DeclareIncident,
  Incident,
  IncidentDetail,
  type IncidentId,
  type IncidentPeriod,
  IncidentUpdate
} from "@signalman/core/api/Incidents"
import * as DeclaredIncident from "@signalman/core/DeclaredIncident"
import type { OrgId } from "@signalman/core/Identity"
import type { Severity } from "@signalman/core/Incident"
import * as IncidentNarration from "@signalman/core/IncidentNarration"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { uuidv7 } from "../infra/Ids.js"
import { PageChanges } from "../statuspages/PageChanges.js"
import { PageEvents } from "../subscribers/PageEvents.js"
import { IncidentsRepo, type StoredRow } from "./Repo.js"
import { escalationWalks, IncidentEscalations } from "./Seams.js"

export type { StoredRow } from "./Repo.js"

export const notFound = ApiError.make("NOT_FOUND", "No such incident")

export interface ListQuery {
  readonly limit: number
  readonly offset: number
  readonly status: "open" | "closed" | "all"
  readonly target_id?: string | undefined
  readonly region?: string | undefined
  readonly from?: DateTime.Utc | undefined
  readonly to?: DateTime.Utc | undefined
  /** Only incidents of this severity (the dashboard's filter; the API's list does not take it). */
  readonly severity?: Severity | undefined
}

export interface PeriodQuery {
  readonly limit: number
  readonly offset: number
  readonly from?: DateTime.Utc | undefined
  readonly to?: DateTime.Utc | undefined
  readonly ongoing_only: boolean
  readonly region?: string | undefined
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
    const repo = yield* IncidentsRepo
    const pageEvents = yield* PageEvents
    const pageChanges = yield* PageChanges
    const escalations = yield* IncidentEscalations

    const one = (orgId: OrgId, id: string) =>
      Effect.map(repo.one(orgId, id), (row) => (row === undefined ? undefined : new Incident(row)))

    const updates = (id: string) => Effect.map(repo.updates(id), (rows) => rows.map((row) => new IncidentUpdate(row)))

    const detail = (orgId: OrgId, id: string) =>
      Effect.gen(function* () {
        const incident = yield* one(orgId, id)
        if (incident === undefined) return undefined
        return new IncidentDetail({
          ...incident,
          updates: yield* updates(id),
          escalation: yield* escalations.forIncident(id)
        })
      })

    const list = (orgId: OrgId, query: ListQuery) =>
      Effect.map(
        repo.list({
          org_id: orgId,
          status: query.status,
          target_id: query.target_id,
          region: query.region,
          from: query.from === undefined ? undefined : date(query.from),
          to: query.to === undefined ? undefined : date(query.to),
          severity: query.severity,
          limit: query.limit,
          offset: query.offset
        }),
        ({ rows, total }) => ({ rows: rows.map((row) => new Incident(row)), total })
      )

    /** The stored row, locked for a change in the surrounding transaction. */
    const stored = repo.stored

    const update = (id: string, phase: string | null, message: string, by: string | null, now: DateTime.Utc) =>
      repo.insertUpdate({ id: uuidv7(), incident_id: id, phase, message, created_by: by, created_at: date(now) })

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
          const found = yield* repo.knownTargets(orgId, ids)
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
        yield* repo
          .transaction(
            Effect.gen(function* () {
              yield* repo.insertDeclared({
                id,
                org_id: orgId,
                title: declared.title,
                public_title: body.public_title ?? null,
                severity: body.severity ?? null,
                impact: declared.impact,
                counts_as_downtime: declared.counts_as_downtime,
                started_at: date(declared.started_at),
                acknowledged_at: date(declared.acknowledged_at),
                acknowledged_by: declared.acknowledged_by,
                created_by: by,
                now: date(now)
              })
              for (const target of ids) yield* repo.insertComponent(id, target)
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
      repo
        .transaction(
          Effect.gen(function* () {
            const row = yield* stored(orgId, id)
            if (row === undefined) return false
            const patch = yield* check(row)
            const next = IncidentNarration.apply(row, patch)
            yield* repo.narrate({
              id,
              title: next.title,
              public_title: next.public_title,
              public_description: next.public_description,
              severity: next.severity,
              counts_as_downtime: next.counts_as_downtime
            })
            return true
          })
        )
        .pipe(Effect.tap((changed) => (changed ? pageChanges.incident(id) : Effect.void)))

    const postUpdate = (orgId: OrgId, id: string, by: string, body: IncidentNarration.PostIncidentUpdate) =>
      Effect.gen(function* () {
        const now = yield* DateTime.now
        const updateId = uuidv7()
        // The update and its announcement to page subscribers commit together.
        const inserted = yield* repo
          .transaction(
            Effect.gen(function* () {
              const written = yield* repo.postUpdate({
                id: updateId,
                incident_id: id,
                org_id: orgId,
                phase: body.phase,
                message: body.message,
                created_by: by,
                created_at: date(now)
              })
              if (written) {
                yield* pageEvents.incident(id, "update", { id: updateId, phase: body.phase, message: body.message })
              }
              return written
            })
          )
          .pipe(Effect.orDie)
        if (!inserted) return undefined
        yield* pageChanges.incident(id)
        const all = yield* updates(id)
        return all.find((u) => u.id === updateId)
      })

    /** Resolve a declared incident (a monitor-opened one goes through the writer). */
    const resolveDeclared = (orgId: OrgId, id: string, by: string) =>
      repo
        .transaction(
          Effect.gen(function* () {
            const row = yield* stored(orgId, id)
            if (row === undefined || row.origin !== "declared" || row.ended_at !== null) return false
            const now = yield* DateTime.now
            yield* repo.resolve(id, by, date(now))
            yield* update(id, null, "Resolved", by, now)
            yield* pageEvents.incident(id, "resolved")
            return true
          })
        )
        .pipe(
          Effect.orDie,
          Effect.flatMap((resolved) => (resolved ? pageChanges.incident(id) : Effect.void))
        )

    const postmortem = repo.postmortem

    const putPostmortem = (orgId: OrgId, id: string, by: string, body: string) =>
      Effect.gen(function* () {
        const written = yield* repo.putPostmortem({ org_id: orgId, id, by, body })
        return written ? yield* postmortem(orgId, id) : undefined
      })

    /** Response figures over the incidents that started in `[from, to)` (docs/incidents.md, "Metrics"). */
    const metrics = (orgId: OrgId, from: DateTime.Utc, to: DateTime.Utc, targetId: string | undefined) =>
      Effect.gen(function* () {
        const row = yield* repo.metrics({ org_id: orgId, from: date(from), to: date(to), target_id: targetId })
        const round = (n: number | null) => (n === null ? null : Math.round(n * 1000) / 1000)
        return {
          from,
          to,
          incidents: row.incidents,
          acknowledged: row.acknowledged,
          closed: row.closed,
          mtta_secs: round(row.mtta),
          mttr_secs: round(row.mttr)
        }
      })

    /** A monitor's incident periods: its own incidents and the declared ones naming it, coalesced. */
    const periods = (orgId: OrgId, targetId: string, query: PeriodQuery) =>
      Effect.gen(function* () {
        const rows = yield* repo.spans({
          org_id: orgId,
          target_id: targetId,
          region: query.region,
          from: query.from === undefined ? undefined : date(query.from),
          to: query.to === undefined ? undefined : date(query.to)
        })
        const all = coalesce(rows)
        const kept = query.ongoing_only ? all.filter((p) => p.ongoing) : all
        return { rows: kept.slice(query.offset, query.offset + query.limit), total: kept.length }
      })

    /** A monitor's periods as a page, or none when the org has no such monitor (`GET /targets/{id}/incidents`). */
    const periodsOfTarget = (orgId: OrgId, targetId: string, query: PeriodQuery) =>
      Effect.gen(function* () {
        if (!(yield* repo.hasTarget(orgId, targetId))) return Option.none()
        const page = yield* periods(orgId, targetId, query)
        return Option.some({ data: page.rows, total: page.total, limit: query.limit, offset: query.offset })
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
      periods,
      periodsOfTarget
    }
  }),
  dependencies: [IncidentsRepo.Default, PageEvents.Default, PageChanges.Default, escalationWalks]
}) {}
