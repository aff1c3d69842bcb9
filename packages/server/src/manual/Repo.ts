/**
 * Manual monitors' SQL: the set state in `manual_states` (core's `ManualState`, `set_at` arriving as a `Date`), the
 * claim of the monitors due a restatement and their stamp, and the monitor's open incident its sets annotate.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { UserId } from "@signalman/core/Identity"
import * as ManualState from "@signalman/core/ManualState"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Transaction from "../database/Transaction.js"

const utc = Schema.DateTimeUtcFromDate

/** A stored set. */
export const StateRow = Schema.Struct({ ...ManualState.ManualState.fields, set_at: utc })

/** A monitor due a restatement with its stored set, if it has one. */
export const DueRow = Schema.Struct({
  id: Schema.String,
  created_at: utc,
  status: Schema.NullOr(ManualState.ManualStatus),
  note: Schema.NullOr(Schema.String),
  set_at: Schema.NullOr(utc),
  set_by: Schema.NullOr(UserId)
})
export type DueRow = typeof DueRow.Type

/** A monitor's state as a restatement stamps it (a monitor never set gets its row with its implicit state). */
export const Restated = Schema.Struct({ target_id: Schema.String, ...ManualState.ManualState.fields })

const Id = Schema.Struct({ id: Schema.String })

export class ManualRepo extends Effect.Service<ManualRepo>()("Signalman/ManualRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const state = SqlSchema.findOne({
      Request: Schema.Struct({ target_id: Schema.String, lock: Schema.Boolean }),
      Result: StateRow,
      execute: ({ target_id, lock }) =>
        sql`SELECT status, note, set_at, set_by FROM manual_states WHERE target_id = ${target_id} ${lock ? sql`FOR UPDATE` : sql``}`
    })

    const lockTarget = SqlSchema.void({
      Request: Schema.String,
      execute: (targetId) => sql`SELECT id FROM targets WHERE id = ${targetId} FOR UPDATE`
    })

    const saveState = SqlSchema.void({
      Request: Schema.Struct({ target_id: Schema.String, ...StateRow.fields }),
      execute: (s) => sql`
        INSERT INTO manual_states (target_id, status, note, set_at, set_by)
        VALUES (${s.target_id}, ${s.status}, ${s.note}, ${s.set_at}, ${s.set_by})
        ON CONFLICT (target_id) DO UPDATE SET status = EXCLUDED.status, note = EXCLUDED.note,
          set_at = EXCLUDED.set_at, set_by = EXCLUDED.set_by
      `
    })

    const claimDue = SqlSchema.findAll({
      Request: Schema.Struct({ due: Schema.DateFromSelf, limit: Schema.Number }),
      Result: DueRow,
      execute: ({ due, limit }) => sql`
        SELECT t.id::text AS id, t.created_at, m.status, m.note, m.set_at, m.set_by
        FROM targets t LEFT JOIN manual_states m ON m.target_id = t.id
        WHERE t.kind = 'manual' AND t.enabled AND (m.restated_at IS NULL OR m.restated_at <= ${due})
        ORDER BY m.restated_at NULLS FIRST LIMIT ${limit}
        FOR UPDATE OF t SKIP LOCKED
      `
    })

    // One statement for the whole claim: the rows travel as JSON (timestamps as ISO strings).
    const stampRestated = SqlSchema.void({
      Request: Schema.Struct({ rows: Schema.parseJson(Schema.Array(Restated)), at: utc }),
      execute: ({ rows, at }) => sql`
        INSERT INTO manual_states (target_id, status, note, set_at, set_by, restated_at)
        SELECT r.target_id, r.status, r.note, r.set_at, r.set_by, ${at}
        FROM jsonb_to_recordset(${rows}::jsonb)
          AS r(target_id uuid, status text, note text, set_at timestamptz, set_by uuid)
        ON CONFLICT (target_id) DO UPDATE SET restated_at = EXCLUDED.restated_at
      `
    })

    const openIncident = SqlSchema.findOne({
      Request: Schema.String,
      Result: Id,
      execute: (targetId) => sql`
        SELECT id::text AS id FROM incidents
        WHERE target_id = ${targetId} AND origin = 'monitor' AND ended_at IS NULL
      `
    })

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      /** Runs `self` in a transaction. */
      transaction: Transaction.make(sql),
      /** The stored set, locked for the surrounding transaction when `lock`; undefined when never set. */
      state: (targetId: string, lock: boolean) =>
        Effect.map(Effect.orDie(state({ target_id: targetId, lock })), Option.getOrUndefined),
      /** Holds the monitor's row to the end of the transaction. */
      lockTarget: (targetId: string) => Effect.orDie(lockTarget(targetId)),
      saveState: (targetId: string, manual: ManualState.ManualState) =>
        Effect.orDie(saveState({ target_id: targetId, ...manual })),
      /** Up to `limit` enabled manual monitors last restated at or before `due` (or never), locked, skipping taken ones. */
      claimDue: (due: Date, limit: number) => Effect.orDie(claimDue({ due, limit })),
      /** Stamps the claimed monitors restated `at`. */
      stampRestated: (rows: ReadonlyArray<typeof Restated.Type>, at: typeof utc.Type) =>
        Effect.orDie(stampRestated({ rows, at })),
      /** The id of the monitor's open incident; undefined when none is open. */
      openIncident: (targetId: string) =>
        Effect.map(Effect.orDie(openIncident(targetId)), (row) => Option.getOrUndefined(Option.map(row, (r) => r.id)))
    }
  })
}) {}
