/**
 * The incident writer: folds check results, clock ticks, acknowledgements and resolutions into a monitor's incident
 * engine (`IncidentMachine`, pure) and carries out what it asks, all in one transaction per monitor:
 *
 * 1. make sure the monitor has an engine row and lock it (`FOR UPDATE`), so however many workers fold events for
 *    the same monitor, each transition happens once and in order;
 * 2. read the monitor's alert settings as stored now and step the engine;
 * 3. write the effects: incident rows keyed by (target_id, number), the timeline's system notes, and notices
 *    through `IncidentNotices` (deduplicated by `target/{id}/{effect key}`);
 * 4. save the state and when the clock must tick it next (`wake_at`).
 *
 * A result older than (or as old as) the newest one a region reported changes nothing, so folding a result twice,
 * concurrently or not, opens one incident and sends one notice.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type * as Statement from "@effect/sql/Statement"
import type { CheckStatus } from "@signalman/core/CheckResult"
import { Impact } from "@signalman/core/Incident"
import * as IncidentMachine from "@signalman/core/IncidentMachine"
import { RegionPolicy } from "@signalman/core/Target"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { uuidv7 } from "../infra/Ids.js"
import { AlertSuppression, IncidentNotices } from "./Seams.js"

/** A check result as the scheduler stores it. */
export interface ObservedResult {
  readonly target_id: string
  readonly region: string
  readonly status: CheckStatus
  readonly error: string | null
  readonly checked_at: DateTime.Utc
  /** Confirms at once (`IncidentMachine.Result.at_once`). */
  readonly at_once?: boolean | undefined
}

/**
 * What the writer folds. Whether a maintenance window suppresses alerts is not the caller's to say: the writer asks
 * `AlertSuppression` at the event's time.
 */
export type Observation =
  | {
      readonly _tag: "Result"
      readonly region: string
      readonly status: CheckStatus
      readonly error: string | null
      readonly checked_at: DateTime.Utc
      readonly at_once?: boolean | undefined
    }
  | { readonly _tag: "Tick" }
  | { readonly _tag: "Acknowledge"; readonly incident: number; readonly by: string }
  | { readonly _tag: "Resolve"; readonly incident: number; readonly by: string }

/** `now` overrides the clock (tests and replays). */
export interface Options {
  readonly now?: DateTime.Utc | undefined
}

const EngineRow = Schema.Struct({
  target_id: Schema.String,
  org_id: Schema.String,
  name: Schema.String,
  kind: Schema.String,
  enabled: Schema.Boolean,
  state: IncidentMachine.State,
  alert_confirmations: Schema.Number,
  notify_recovery: Schema.Boolean,
  renotify_interval_secs: Schema.Number,
  recovery_period_secs: Schema.Number,
  region_policy: RegionPolicy,
  regions: Schema.Array(Schema.String)
})
type EngineRow = typeof EngineRow.Type

const decodeRows = Schema.decodeUnknown(Schema.Array(EngineRow))
const decodeIncidentNow = Schema.decodeUnknown(
  Schema.Array(
    Schema.Struct({
      started_at: Schema.DateFromSelf,
      ended_at: Schema.NullOr(Schema.DateFromSelf),
      impact: Impact
    })
  )
)
const encodeState = Schema.encodeSync(IncidentMachine.State)
const Id = Schema.Struct({ id: Schema.String })
const decodeIds = Schema.decodeUnknown(Schema.Array(Id))

const impactWords: Record<Impact, string> = {
  degraded: "degraded performance",
  partial_outage: "partial outage",
  major_outage: "major outage"
}

/** The system note each effect leaves on the timeline. */
const noteOf = (effect: IncidentMachine.SideEffect): string | undefined => {
  switch (effect._tag) {
    case "OpenIncident":
      return `Incident opened: ${impactWords[effect.incident.impact]}`
    case "UpdateIncident":
      switch (effect.change) {
        case "impact":
          return `Impact changed to ${impactWords[effect.incident.impact]}`
        case "acknowledged":
          return "Acknowledged"
        case "recovering":
          return `Recovering since ${DateTime.formatIso(effect.incident.recovering_since ?? DateTime.unsafeMake(0))}`
        case "resumed":
          return "Failure confirmed again: the recovery ended and the incident continues"
      }
      break
    case "CloseIncident":
      return effect.reason === "resolved" ? "Resolved" : "Recovered"
    case "Notify":
      return undefined
  }
}

export class IncidentWriter extends Effect.Service<IncidentWriter>()("Signalman/IncidentWriter", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const notices = yield* IncidentNotices
    const suppression = yield* AlertSuppression

    // The engine row joined with the monitor's alert settings as stored now, locked for this transaction.
    const selectLocked = (where: Statement.Fragment, skipLocked: boolean) =>
      sql`
        SELECT e.target_id, t.org_id, t.name, t.kind, t.enabled, e.state, t.alert_confirmations, t.notify_recovery,
          t.renotify_interval_secs, t.recovery_period_secs, t.region_policy, t.regions
        FROM incident_engine e JOIN targets t ON t.id = e.target_id
        WHERE ${where}
        ORDER BY e.wake_at
        LIMIT 1
        FOR UPDATE OF e ${skipLocked ? sql`SKIP LOCKED` : sql``}
      `.pipe(
        Effect.flatMap(decodeRows),
        Effect.map((rows) => rows[0])
      )

    const toEvent = (row: EngineRow, observation: Observation, now: DateTime.Utc) =>
      Effect.gen(function* () {
        switch (observation._tag) {
          case "Result": {
            const at = DateTime.min(observation.checked_at, now)
            const suppressed = yield* suppression.suppressed(row.target_id, DateTime.toDateUtc(at))
            return { ...observation, suppressed } satisfies IncidentMachine.Event
          }
          case "Tick": {
            const maintenance = yield* suppression.suppressed(row.target_id, DateTime.toDateUtc(now))
            // A paused monitor stays quiet: its reminders are skipped (the cadence carries on, as inside a
            // maintenance window), while a recovery wait already running still ends and is announced.
            const recovering = row.state.incident?.recovering_since != null
            return {
              _tag: "Tick",
              suppressed: maintenance || (!row.enabled && !recovering)
            } satisfies IncidentMachine.Event
          }
          case "Acknowledge":
            return observation satisfies IncidentMachine.Event
          case "Resolve": {
            const suppressed = yield* suppression.suppressed(row.target_id, DateTime.toDateUtc(now))
            return { ...observation, suppressed } satisfies IncidentMachine.Event
          }
        }
      })

    const findIncident = SqlSchema.findOne({
      Request: Schema.Struct({ target_id: Schema.String, number: Schema.Number }),
      Result: Id,
      execute: ({ target_id, number }) => sql`
        SELECT id FROM incidents WHERE target_id = ${target_id} AND number = ${number} AND origin = 'monitor'
      `
    })

    const incidentId = (targetId: string, number: number) =>
      Effect.flatMap(findIncident({ target_id: targetId, number }), (row) =>
        Option.isNone(row)
          ? Effect.dieMessage(`no incident ${number} of target ${targetId}`)
          : Effect.succeed(row.value.id)
      )

    const note = (id: string, message: string, by: string | null, at: DateTime.Utc) =>
      sql`
        INSERT INTO incident_updates (id, incident_id, kind, phase, message, created_by, created_at)
        VALUES (${uuidv7()}, ${id}, 'note', NULL, ${message}, ${by}, ${DateTime.toDateUtc(at)})
      `

    const date = (at: DateTime.Utc | null) => (at === null ? null : DateTime.toDateUtc(at))
    const recoveredJson = (incident: IncidentMachine.Ongoing) =>
      JSON.stringify(
        incident.recovered.map((s) => ({ from: DateTime.formatIso(s.from), until: DateTime.formatIso(s.until) }))
      )

    const apply = (row: EngineRow, effect: IncidentMachine.SideEffect, now: DateTime.Utc, cause: string | null) =>
      Effect.gen(function* () {
        const message = noteOf(effect)
        switch (effect._tag) {
          case "OpenIncident": {
            const i = effect.incident
            const inserted = yield* Effect.flatMap(
              sql`
              INSERT INTO incidents (id, org_id, target_id, origin, number, impact, counts_as_downtime, started_at,
                acknowledged_at, acknowledged_by, recovering_since, recovered, created_at, updated_at)
              VALUES (${uuidv7()}, ${row.org_id}, ${row.target_id}, 'monitor', ${i.number}, ${i.impact}, true,
                ${DateTime.toDateUtc(i.started_at)}, ${date(i.acknowledged_at)}, ${i.acknowledged_by},
                ${date(i.recovering_since)}, ${recoveredJson(i)}::jsonb, ${DateTime.toDateUtc(now)},
                ${DateTime.toDateUtc(now)})
              ON CONFLICT (target_id, number) WHERE origin = 'monitor' DO NOTHING
              RETURNING id
            `,
              decodeIds
            )
            const id = inserted[0]?.id
            if (id !== undefined && message !== undefined) yield* note(id, message, null, i.started_at)
            return
          }
          case "UpdateIncident": {
            const i = effect.incident
            const id = yield* incidentId(row.target_id, i.number)
            yield* sql`
              UPDATE incidents SET impact = ${i.impact}, acknowledged_at = ${date(i.acknowledged_at)},
                acknowledged_by = ${i.acknowledged_by}, recovering_since = ${date(i.recovering_since)},
                recovered = ${recoveredJson(i)}::jsonb, updated_at = ${DateTime.toDateUtc(now)}
              WHERE id = ${id}
            `
            const by = effect.change === "acknowledged" ? i.acknowledged_by : null
            if (message !== undefined) yield* note(id, message, by, now)
            return
          }
          case "CloseIncident": {
            const i = effect.incident
            const id = yield* incidentId(row.target_id, i.number)
            yield* sql`
              UPDATE incidents SET impact = ${i.impact}, ended_at = ${DateTime.toDateUtc(effect.ended_at)},
                close_reason = ${effect.reason}, resolved_by = ${effect.resolved_by}, recovering_since = NULL,
                recovered = ${recoveredJson(i)}::jsonb, updated_at = ${DateTime.toDateUtc(now)}
              WHERE id = ${id}
            `
            if (message !== undefined) yield* note(id, message, effect.resolved_by, now)
            return
          }
          case "Notify": {
            const id = yield* incidentId(row.target_id, effect.incident)
            // The incident as it stands after this step's earlier effects (a close is written before its notice).
            const [stored] = yield* sql`
              SELECT started_at, ended_at, impact FROM incidents WHERE id = ${id}
            `.pipe(Effect.flatMap(decodeIncidentNow))
            if (stored === undefined) return yield* Effect.dieMessage(`incident ${id} vanished`)
            yield* notices.enqueue({
              orgId: row.org_id,
              targetId: row.target_id,
              incidentId: id,
              kind: effect.kind,
              dedupeKey: effect.key,
              payload: {
                target: { id: row.target_id, name: row.name, type: row.kind },
                incident: {
                  id,
                  number: effect.incident,
                  started_at: DateTime.unsafeFromDate(stored.started_at),
                  ended_at: stored.ended_at === null ? null : DateTime.unsafeFromDate(stored.ended_at),
                  impact: stored.impact,
                  cause
                },
                reminder: effect.reminder
              }
            })
            return
          }
        }
      })

    /** Fold events into a locked engine row, write the effects and save the state; answers the effects. */
    const fold = (row: EngineRow, observations: ReadonlyArray<Observation>, now: DateTime.Utc) =>
      Effect.gen(function* () {
        const step = IncidentMachine.step(row)
        let state = row.state
        const effects: Array<IncidentMachine.SideEffect> = []
        // What a notice names as the cause: the error of the newest failing result folded in this call.
        let cause: string | null = null
        for (const observation of observations) {
          if (observation._tag === "Result" && observation.status !== "up") cause = observation.error
          const event = yield* toEvent({ ...row, state }, observation, now)
          const next = step(state, event, now)
          for (const effect of next.effects) yield* apply(row, effect, now, cause)
          effects.push(...next.effects)
          state = next.state
        }
        const wake = IncidentMachine.wakeAt(row, state)
        yield* sql`
          UPDATE incident_engine
          SET state = ${JSON.stringify(encodeState(state))}::jsonb, wake_at = ${wake === undefined ? null : DateTime.toDateUtc(wake)},
            updated_at = now()
          WHERE target_id = ${row.target_id}
        `
        return effects
      })

    const initial = JSON.stringify(encodeState(IncidentMachine.initial))

    /**
     * Fold events for one monitor, in order, in one transaction. Answers the effects, or undefined when the monitor
     * does not exist (deleted meanwhile: nothing to do).
     */
    const observeAll = (targetId: string, observations: ReadonlyArray<Observation>, options: Options = {}) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const now = options.now ?? (yield* DateTime.now)
            yield* sql`
              INSERT INTO incident_engine (target_id, state)
              SELECT id, ${initial}::jsonb FROM targets WHERE id = ${targetId}
              ON CONFLICT (target_id) DO NOTHING
            `
            const row = yield* selectLocked(sql`e.target_id = ${targetId}`, false)
            if (row === undefined) return undefined
            return yield* fold(row, observations, now)
          })
        )
        .pipe(Effect.orDie)

    const observe = (targetId: string, observation: Observation, options?: Options) =>
      observeAll(targetId, [observation], options)

    /** Many results: one transaction per monitor, each monitor's results in the order they were taken. */
    const observeResults = (batch: ReadonlyArray<ObservedResult>, options?: Options) => {
      const byTarget = new Map<string, Array<ObservedResult>>()
      for (const result of batch) {
        const list = byTarget.get(result.target_id) ?? []
        list.push(result)
        byTarget.set(result.target_id, list)
      }
      return Effect.forEach(
        byTarget,
        ([targetId, results]) =>
          observeAll(
            targetId,
            [...results]
              .sort((a, b) => DateTime.Order(a.checked_at, b.checked_at))
              .map((r) => ({
                _tag: "Result" as const,
                region: r.region,
                status: r.status,
                error: r.error,
                checked_at: r.checked_at,
                ...(r.at_once === true ? { at_once: true } : {})
              })),
            options
          ),
        { discard: true }
      )
    }

    /**
     * One pass of the clock: claims the monitors whose `wake_at` has come, one transaction each (`SKIP LOCKED`, so
     * workers share the due rows instead of queueing on them), and folds a Tick. Answers how many it ticked; stops
     * after `limit` so one pass stays bounded.
     */
    const tickDue = (options: Options & { readonly limit?: number } = {}) =>
      Effect.gen(function* () {
        const now = options.now ?? (yield* DateTime.now)
        const limit = options.limit ?? 500
        let ticked = 0
        const seen = new Set<string>()
        while (ticked < limit) {
          const claimed = yield* sql.withTransaction(
            Effect.gen(function* () {
              const due = sql`e.wake_at <= ${DateTime.toDateUtc(now)}`
              const row = yield* selectLocked(
                seen.size === 0 ? due : sql.and([due, sql`e.target_id NOT IN ${sql.in([...seen])}`]),
                true
              )
              if (row === undefined) return undefined
              yield* fold(row, [{ _tag: "Tick" }], now)
              return row.target_id
            })
          )
          if (claimed === undefined) break
          // A monitor is ticked once per pass even if its next wake is already due again.
          seen.add(claimed)
          ticked++
        }
        return ticked
      }).pipe(Effect.orDie)

    return { observe, observeAll, observeResults, tickDue }
  })
}) {}
