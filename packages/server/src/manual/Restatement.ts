/**
 * The once-a-minute restatement of manual monitors (service-api.md "Manual monitor"): a manual monitor has no
 * probe, so a worker writes its current status as a result every minute, which keeps uptime and the incident
 * engine fed exactly as a probe would. Paused monitors are not restated. Due monitors are claimed with
 * `FOR UPDATE SKIP LOCKED` and stamped in the same transaction, so several workers never restate one twice.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { UserId } from "@signalman/core/Identity"
import * as ManualState from "@signalman/core/ManualState"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { MonitorResults } from "../engine/MonitorResults.js"
import { MANUAL_INTERVAL_SECS } from "./ManualOutcomes.js"

const CLAIM = 500

const DueRow = Schema.Struct({
  id: Schema.String,
  created_at: Schema.DateFromSelf,
  status: Schema.NullOr(ManualState.ManualStatus),
  note: Schema.NullOr(Schema.String),
  set_at: Schema.NullOr(Schema.DateFromSelf),
  set_by: Schema.NullOr(UserId)
})
const decodeDue = Schema.decodeUnknown(Schema.Array(DueRow))

const stateOf = (row: typeof DueRow.Type): ManualState.ManualState =>
  row.status === null || row.set_at === null
    ? ManualState.initial(DateTime.unsafeFromDate(row.created_at))
    : { status: row.status, note: row.note, set_at: DateTime.unsafeFromDate(row.set_at), set_by: row.set_by }

export class Restatement extends Effect.Service<Restatement>()("Signalman/ManualRestatement", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const results = yield* MonitorResults

    /** Restates every due manual monitor at `now`; answers how many. */
    const restate = (now: DateTime.Utc) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const due = new Date(DateTime.toEpochMillis(now) - MANUAL_INTERVAL_SECS * 1000)
            const rows = yield* sql`
              SELECT t.id::text AS id, t.created_at, m.status, m.note, m.set_at, m.set_by
              FROM targets t LEFT JOIN manual_states m ON m.target_id = t.id
              WHERE t.kind = 'manual' AND t.enabled AND (m.restated_at IS NULL OR m.restated_at <= ${due})
              ORDER BY m.restated_at NULLS FIRST LIMIT ${CLAIM}
              FOR UPDATE OF t SKIP LOCKED
            `.pipe(Effect.flatMap(decodeDue))
            if (rows.length === 0) return 0
            const stamped = rows.map((row) => {
              const state = stateOf(row)
              return {
                target_id: row.id,
                status: state.status,
                note: state.note,
                set_at: DateTime.formatIso(state.set_at),
                set_by: state.set_by
              }
            })
            // A monitor never set gets its row here, as the state it had implicitly (up since its creation).
            yield* sql`
              INSERT INTO manual_states (target_id, status, note, set_at, set_by, restated_at)
              SELECT r.target_id, r.status, r.note, r.set_at, r.set_by, ${DateTime.toDateUtc(now)}
              FROM jsonb_to_recordset(${JSON.stringify(stamped)}::jsonb)
                AS r(target_id uuid, status text, note text, set_at timestamptz, set_by uuid)
              ON CONFLICT (target_id) DO UPDATE SET restated_at = EXCLUDED.restated_at
            `
            yield* results.write(
              rows.flatMap((row) =>
                ManualState.step(stateOf(row), ManualState.ManualEvent.Restate({ running: true }), now).effects.flatMap(
                  (effect) =>
                    effect._tag === "WriteResult"
                      ? [
                          {
                            targetId: row.id,
                            outcome: effect.outcome,
                            at: effect.checked_at,
                            weightSecs: MANUAL_INTERVAL_SECS,
                            atOnce: false
                          }
                        ]
                      : []
                )
              )
            )
            return rows.length
          })
        )
        .pipe(Effect.orDie)

    return { restate }
  })
}) {}

/** Restates due manual monitors every few seconds for the life of a worker. */
export const layer = Layer.scopedDiscard(
  Effect.gen(function* () {
    const restatement = yield* Restatement
    yield* Effect.forkScoped(
      Effect.suspend(() => restatement.restate(DateTime.unsafeMake(Date.now()))).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("Manual restatement failed; retrying", cause)),
        Effect.repeat(Schedule.spaced("5 seconds"))
      )
    )
  })
).pipe(Layer.provide(Restatement.Default))
