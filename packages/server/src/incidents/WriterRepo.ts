/**
 * The incident writer's SQL: a monitor's engine row (created on first use, locked per transaction, saved with its
 * next wake and its per-region advisories) and the monitor's own incident rows keyed by (target_id, number).
 * Timestamps are `DateTime.Utc`s on both sides (`Schema.DateTimeUtcFromDate`), the machine's own type.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type * as Statement from "@effect/sql/Statement"
import { Impact, RecoveredStretch } from "@signalman/core/Incident"
import * as IncidentMachine from "@signalman/core/IncidentMachine"
import { RegionAdvisory } from "@signalman/core/RegionAdvisory"
import { RegionPolicy } from "@signalman/core/Target"
import type * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Transaction from "../database/Transaction.js"

const utc = Schema.DateTimeUtcFromDate

/** The advisories as stored: what the writer compares a step's against, to write only a change. */
export const Advisories = Schema.Array(RegionAdvisory)

/** A monitor's engine row joined with its alert settings as stored now. */
export const EngineRow = Schema.Struct({
  target_id: Schema.String,
  org_id: Schema.String,
  name: Schema.String,
  kind: Schema.String,
  enabled: Schema.Boolean,
  state: IncidentMachine.State,
  advisories: Advisories,
  alert_confirmations: Schema.Number,
  interval: Schema.Number,
  notify_recovery: Schema.Boolean,
  renotify_interval_secs: Schema.Number,
  recovery_period_secs: Schema.Number,
  region_policy: RegionPolicy,
  regions: Schema.Array(Schema.String)
})
export type EngineRow = typeof EngineRow.Type

// jsonb columns are written as JSON text.
const StateJson = Schema.parseJson(IncidentMachine.State)
const RecoveredJson = Schema.parseJson(Schema.Array(RecoveredStretch))
const AdvisoriesJson = Schema.parseJson(Advisories)

/** Engine rows saved together: the batch travels as one JSON parameter (null advisories: left as stored). */
const SavedStates = Schema.parseJson(
  Schema.Array(
    Schema.Struct({
      target_id: Schema.String,
      state: IncidentMachine.State,
      wake_at: Schema.NullOr(Schema.DateTimeUtc),
      advisories: Schema.NullOr(Advisories)
    })
  )
)

/** A state to save: see `saveState`. */
export interface SavedState {
  readonly targetId: string
  readonly state: IncidentMachine.State
  readonly wakeAt: DateTime.Utc | undefined
  readonly advisories: ReadonlyArray<RegionAdvisory> | undefined
}

/** A monitor's incident as the machine opened it. */
export const NewIncident = Schema.Struct({
  id: Schema.String,
  org_id: Schema.String,
  target_id: Schema.String,
  number: Schema.Number,
  impact: Impact,
  started_at: utc,
  acknowledged_at: Schema.NullOr(utc),
  acknowledged_by: Schema.NullOr(Schema.String),
  recovering_since: Schema.NullOr(utc),
  recovered: RecoveredJson,
  regions_down: Schema.Array(Schema.String),
  now: utc
})

/** What an update of an ongoing incident rewrites. */
export const IncidentChange = Schema.Struct({
  id: Schema.String,
  impact: Impact,
  acknowledged_at: Schema.NullOr(utc),
  acknowledged_by: Schema.NullOr(Schema.String),
  recovering_since: Schema.NullOr(utc),
  recovered: RecoveredJson,
  regions_down: Schema.Array(Schema.String),
  now: utc
})

/** What a close writes. */
export const IncidentClose = Schema.Struct({
  id: Schema.String,
  impact: Impact,
  ended_at: utc,
  close_reason: Schema.Literal("recovered", "resolved"),
  resolved_by: Schema.NullOr(Schema.String),
  recovered: RecoveredJson,
  regions_down: Schema.Array(Schema.String),
  now: utc
})

/** An incident as a notice describes it. */
export const IncidentNow = Schema.Struct({ started_at: utc, ended_at: Schema.NullOr(utc), impact: Impact })

const Id = Schema.Struct({ id: Schema.String })

export class IncidentWriterRepo extends Effect.Service<IncidentWriterRepo>()("Signalman/IncidentWriterRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // The engine row joined with the monitor's alert settings, locked for the surrounding transaction.
    const selectLocked = (where: Statement.Fragment, skipLocked: boolean) => sql`
      SELECT e.target_id, t.org_id, t.name, t.kind, t.enabled, e.state, e.advisories, t.alert_confirmations,
        t.interval_secs AS interval, t.notify_recovery, t.renotify_interval_secs, t.recovery_period_secs,
        t.region_policy, t.regions
      FROM incident_engine e JOIN targets t ON t.id = e.target_id
      WHERE ${where}
      ORDER BY e.wake_at
      LIMIT 1
      FOR UPDATE OF e ${skipLocked ? sql`SKIP LOCKED` : sql``}
    `

    // Many monitors' rows, locked in id order: two transactions locking overlapping sets take them in the same
    // order, so they queue instead of deadlocking.
    const lockMany = SqlSchema.findAll({
      Request: Schema.Array(Schema.String),
      Result: EngineRow,
      execute: (ids) => sql`
        SELECT e.target_id, t.org_id, t.name, t.kind, t.enabled, e.state, e.advisories, t.alert_confirmations,
          t.interval_secs AS interval, t.notify_recovery, t.renotify_interval_secs, t.recovery_period_secs,
          t.region_policy, t.regions
        FROM incident_engine e JOIN targets t ON t.id = e.target_id
        WHERE e.target_id = ANY(${ids}::uuid[])
        ORDER BY e.target_id
        FOR UPDATE OF e
      `
    })

    // Inserted in id order too, for the same reason (a concurrent insert of the same row waits on it).
    const ensureEngines = SqlSchema.void({
      Request: Schema.Struct({ ids: Schema.Array(Schema.String), state: StateJson }),
      execute: ({ ids, state }) => sql`
        INSERT INTO incident_engine (target_id, state)
        SELECT id, ${state}::jsonb FROM targets WHERE id = ANY(${ids}::uuid[]) ORDER BY id
        ON CONFLICT (target_id) DO NOTHING
      `
    })

    const saveStates = SqlSchema.void({
      Request: SavedStates,
      execute: (rows) => sql`
        UPDATE incident_engine e SET state = r.state, wake_at = r.wake_at,
          advisories = COALESCE(r.advisories, e.advisories), updated_at = now()
        FROM jsonb_to_recordset(${rows}::jsonb) AS r(target_id uuid, state jsonb, wake_at timestamptz, advisories jsonb)
        WHERE e.target_id = r.target_id
      `
    })

    const ensureEngine = SqlSchema.void({
      Request: Schema.Struct({ target_id: Schema.String, state: StateJson }),
      execute: ({ target_id, state }) => sql`
        INSERT INTO incident_engine (target_id, state)
        SELECT id, ${state}::jsonb FROM targets WHERE id = ${target_id}
        ON CONFLICT (target_id) DO NOTHING
      `
    })

    const lockOne = SqlSchema.findOne({
      Request: Schema.String,
      Result: EngineRow,
      execute: (targetId) => selectLocked(sql`e.target_id = ${targetId}`, false)
    })

    const lockDue = SqlSchema.findOne({
      Request: Schema.Struct({ now: utc, seen: Schema.Array(Schema.String) }),
      Result: EngineRow,
      execute: ({ now, seen }) => {
        const due = sql`e.wake_at <= ${now}`
        // `IN ()` is not SQL: with nothing seen yet the due clause stands alone.
        return selectLocked(seen.length === 0 ? due : sql.and([due, sql`e.target_id NOT IN ${sql.in(seen)}`]), true)
      }
    })

    const saveState = SqlSchema.void({
      Request: Schema.Struct({
        target_id: Schema.String,
        state: StateJson,
        wake_at: Schema.NullOr(utc),
        advisories: Schema.UndefinedOr(AdvisoriesJson)
      }),
      execute: ({ target_id, state, wake_at, advisories }) => sql`
        UPDATE incident_engine SET state = ${state}::jsonb, wake_at = ${wake_at},
          ${advisories === undefined ? sql`` : sql`advisories = ${advisories}::jsonb,`} updated_at = now()
        WHERE target_id = ${target_id}
      `
    })

    const incidentId = SqlSchema.findOne({
      Request: Schema.Struct({ target_id: Schema.String, number: Schema.Number }),
      Result: Id,
      execute: ({ target_id, number }) => sql`
        SELECT id FROM incidents WHERE target_id = ${target_id} AND number = ${number} AND origin = 'monitor'
      `
    })

    const open = SqlSchema.findOne({
      Request: NewIncident,
      Result: Id,
      execute: (i) => sql`
        INSERT INTO incidents (id, org_id, target_id, origin, number, impact, counts_as_downtime, started_at,
          acknowledged_at, acknowledged_by, recovering_since, recovered, regions_down, created_at, updated_at)
        VALUES (${i.id}, ${i.org_id}, ${i.target_id}, 'monitor', ${i.number}, ${i.impact}, true, ${i.started_at},
          ${i.acknowledged_at}, ${i.acknowledged_by}, ${i.recovering_since}, ${i.recovered}::jsonb,
          ${i.regions_down}::text[], ${i.now}, ${i.now})
        ON CONFLICT (target_id, number) WHERE origin = 'monitor' DO NOTHING
        RETURNING id
      `
    })

    // regions_down only grows: the engine's list is merged into the stored one (which holds `local` for incidents
    // opened before regions were recorded), sorted.
    const regionsDown = (more: ReadonlyArray<string>) =>
      sql`ARRAY(SELECT DISTINCT r FROM unnest(regions_down || ${more}::text[]) AS r ORDER BY r)`

    const update = SqlSchema.void({
      Request: IncidentChange,
      execute: (i) => sql`
        UPDATE incidents SET impact = ${i.impact}, acknowledged_at = ${i.acknowledged_at},
          acknowledged_by = ${i.acknowledged_by}, recovering_since = ${i.recovering_since},
          recovered = ${i.recovered}::jsonb, regions_down = ${regionsDown(i.regions_down)}, updated_at = ${i.now}
        WHERE id = ${i.id}
      `
    })

    const close = SqlSchema.void({
      Request: IncidentClose,
      execute: (i) => sql`
        UPDATE incidents SET impact = ${i.impact}, ended_at = ${i.ended_at}, close_reason = ${i.close_reason},
          resolved_by = ${i.resolved_by}, recovering_since = NULL, recovered = ${i.recovered}::jsonb,
          regions_down = ${regionsDown(i.regions_down)}, updated_at = ${i.now}
        WHERE id = ${i.id}
      `
    })

    const incidentNow = SqlSchema.findOne({
      Request: Schema.String,
      Result: IncidentNow,
      execute: (id) => sql`SELECT started_at, ended_at, impact FROM incidents WHERE id = ${id}`
    })

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      /** Runs `self` in a transaction. */
      transaction: Transaction.make(sql),
      /** Gives the monitor an engine row in `state` unless it has one; a monitor that does not exist gets none. */
      ensureEngine: (targetId: string, state: IncidentMachine.State) =>
        Effect.orDie(ensureEngine({ target_id: targetId, state })),
      /** Gives each of these monitors an engine row in `state` unless it has one (`ensureEngine`, for many). */
      ensureEngines: (targetIds: ReadonlyArray<string>, state: IncidentMachine.State) =>
        targetIds.length === 0 ? Effect.void : Effect.orDie(ensureEngines({ ids: targetIds, state })),
      /** These monitors' engine rows, locked, in id order; a monitor that does not exist has none. */
      lockMany: (targetIds: ReadonlyArray<string>) =>
        targetIds.length === 0 ? Effect.succeed<ReadonlyArray<EngineRow>>([]) : Effect.orDie(lockMany(targetIds)),
      /** `saveState` for many rows, in one statement. */
      saveStates: (saved: ReadonlyArray<SavedState>) =>
        saved.length === 0
          ? Effect.void
          : Effect.orDie(
              saveStates(
                saved.map((s) => ({
                  target_id: s.targetId,
                  state: s.state,
                  wake_at: s.wakeAt ?? null,
                  advisories: s.advisories ?? null
                }))
              )
            ),
      /** The monitor's engine row, locked; undefined when the monitor does not exist. */
      lockOne: (targetId: string) => Effect.map(Effect.orDie(lockOne(targetId)), Option.getOrUndefined),
      /**
       * The engine row due soonest at `now` that no other transaction holds (`SKIP LOCKED`), leaving out `seen`;
       * undefined when none is.
       */
      lockDue: (now: typeof utc.Type, seen: ReadonlyArray<string>) =>
        Effect.map(Effect.orDie(lockDue({ now, seen })), Option.getOrUndefined),
      /**
       * Saves the state and when the clock must tick it next (never, when undefined), and the advisories when they
       * changed (left as stored when undefined).
       */
      saveState: (
        targetId: string,
        state: IncidentMachine.State,
        wakeAt: typeof utc.Type | undefined,
        advisories: ReadonlyArray<RegionAdvisory> | undefined
      ) => Effect.orDie(saveState({ target_id: targetId, state, wake_at: wakeAt ?? null, advisories })),
      /** The id of the monitor's incident numbered `number`; undefined when there is none. */
      incidentId: (targetId: string, number: number) =>
        Effect.map(Effect.orDie(incidentId({ target_id: targetId, number })), (row) =>
          Option.getOrUndefined(Option.map(row, (r) => r.id))
        ),
      /** Inserts the incident; undefined when the monitor already has one of that number (a fold repeated). */
      open: (incident: typeof NewIncident.Type) =>
        Effect.map(Effect.orDie(open(incident)), (row) => Option.getOrUndefined(Option.map(row, (r) => r.id))),
      update: (change: typeof IncidentChange.Type) => Effect.orDie(update(change)),
      close: (change: typeof IncidentClose.Type) => Effect.orDie(close(change)),
      /** The incident as it stands now; undefined when it is gone. */
      incidentNow: (id: string) => Effect.map(Effect.orDie(incidentNow(id)), Option.getOrUndefined)
    }
  })
}) {}
