/**
 * Ping ingest's SQL, on the hot path (thousands of pings a second): tokens with their monitors' states (the cache
 * misses of a group of pings), and the batch write (states created and locked, then the new states, the ping log, the tokens' last use and the
 * pings' outputs). Each batch travels as one JSON parameter, so a batch of any size is one statement each.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as HeartbeatMachine from "@signalman/core/heartbeat/HeartbeatMachine"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Transaction from "../database/Transaction.js"
import * as StateRows from "./StateRows.js"

/** A monitor's row with its state columns, all null when it has no state yet (LEFT JOIN). */
export const HintRow = Schema.Struct({
  ...StateRows.StateColumns.fields,
  enabled: Schema.Boolean,
  verdict: Schema.NullOr(HeartbeatMachine.Verdict),
  paused: Schema.NullOr(Schema.Boolean)
})

/** A live token (`expires_at` null for the current one) with its monitor and the monitor's state, batched. */
export const ResolvedRow = Schema.Struct({
  ...HintRow.fields,
  token: Schema.String,
  target_id: Schema.String,
  expires_at: Schema.NullOr(Schema.DateFromSelf)
})
export type ResolvedRow = typeof ResolvedRow.Type

/** A monitor's stored state, locked, with whether the monitor is enabled. */
export const LockedState = Schema.Struct({
  ...StateRows.StateColumns.fields,
  target_id: Schema.String,
  enabled: Schema.Boolean
})

/*
 * The batch rows below are plain types rather than schemas: each batch goes out as JSON text, so no row is encoded
 * one by one on the hot path.
 */

/** A monitor's new state; `failed` clears its last failure output (a newer fail ping's output is to come). */
export type StateRecord = ReturnType<typeof StateRows.toRecord> & { readonly failed: boolean }

/** A ping as the log keeps it; `at` ISO 8601. */
export interface PingLog {
  readonly id: string
  readonly target_id: string
  readonly at: string
  readonly signal: "success" | "start" | "fail"
  readonly exit_code: number | null
  readonly run_duration_ms: number | null
}

/** A token's latest use in the batch; `at` ISO 8601. */
export interface TokenUse {
  readonly token: string
  readonly at: string
}

/** A ping's body kept as its output. */
export interface PingOutput {
  readonly id: string
  readonly output: string
}

// The monitor ids of a batch, an array parameter as before. Encoding checks each id: about 0.1 ms per thousand
// (measured), beside some 3.5 ms for the thousand state rows the lock decodes.
const Ids = Schema.Array(Schema.String)

export class PingsRepo extends Effect.Service<PingsRepo>()("Signalman/HeartbeatPingsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // The cache misses of a group of pings in one statement: each token's monitor and the monitor's state.
    const resolve = SqlSchema.findAll({
      Request: Schema.Array(Schema.String),
      Result: ResolvedRow,
      execute: (tokens) => sql`
        SELECT p.token, p.target_id, p.expires_at, t.enabled, h.verdict, h.paused, h.down_cause, h.first_ping_at,
          h.last_ping_at, h.last_success_at, h.last_start_at, h.last_fail_at, h.last_exit_code, h.window_from,
          h.run_started_at
        FROM ping_tokens p JOIN targets t ON t.id = p.target_id LEFT JOIN heartbeat_states h ON h.target_id = t.id
        WHERE p.token = ANY(${tokens}::text[]) AND t.kind = 'heartbeat'
          AND (p.expires_at IS NULL OR p.expires_at > now())
      `
    })

    // A heartbeat monitor pinged for the first time starts pending (paused with its monitor). Inserted in id order,
    // the order every writer locks in: two api processes inserting overlapping new rows wait instead of deadlocking.
    const ensureStates = SqlSchema.void({
      Request: Ids,
      execute: (ids) => sql`
        INSERT INTO heartbeat_states (target_id, verdict, paused)
        SELECT id, 'pending', NOT enabled FROM targets WHERE id = ANY(${ids}::uuid[]) AND kind = 'heartbeat'
        ORDER BY id
        ON CONFLICT (target_id) DO NOTHING
      `
    })

    // Locked in id order, one lock order for every writer.
    const lockStates = SqlSchema.findAll({
      Request: Ids,
      Result: LockedState,
      execute: (ids) => sql`
        SELECT h.*, t.enabled FROM heartbeat_states h JOIN targets t ON t.id = h.target_id
        WHERE h.target_id = ANY(${ids}::uuid[]) ORDER BY h.target_id FOR UPDATE OF h
      `
    })

    const saveStates = SqlSchema.void({
      Request: Schema.String,
      execute: (records) => sql`
        UPDATE heartbeat_states h SET verdict = r.verdict, paused = r.paused, down_cause = r.down_cause,
          first_ping_at = r.first_ping_at, last_ping_at = r.last_ping_at, last_success_at = r.last_success_at,
          last_start_at = r.last_start_at, last_fail_at = r.last_fail_at, last_exit_code = r.last_exit_code,
          window_from = r.window_from, run_started_at = r.run_started_at,
          last_failure_output = CASE WHEN r.failed THEN NULL ELSE h.last_failure_output END
        FROM jsonb_to_recordset(${records}::jsonb)
          AS r(${sql.literal(StateRows.recordColumns)}, failed boolean)
        WHERE h.target_id = r.target_id
      `
    })

    const insertPings = SqlSchema.void({
      Request: Schema.String,
      execute: (logs) => sql`
        INSERT INTO heartbeat_pings (id, target_id, at, signal, exit_code, run_duration_ms)
        SELECT id, target_id, at, signal, exit_code, run_duration_ms
        FROM jsonb_to_recordset(${logs}::jsonb)
          AS r(id uuid, target_id uuid, at timestamptz, signal text, exit_code integer, run_duration_ms integer)
      `
    })

    const markTokensUsed = SqlSchema.void({
      Request: Schema.String,
      execute: (uses) => sql`
        UPDATE ping_tokens p SET last_used_at = GREATEST(p.last_used_at, r.at)
        FROM jsonb_to_recordset(${uses}::jsonb)
          AS r(token text, at timestamptz)
        WHERE p.token = r.token
      `
    })

    const saveOutputs = SqlSchema.void({
      Request: Schema.String,
      execute: (json) => sql`
        UPDATE heartbeat_pings p SET output = r.output
        FROM jsonb_to_recordset(${json}::jsonb) AS r(id uuid, output text) WHERE p.id = r.id
      `
    })

    // Only a fail ping's output is the state's last failure output, and only the latest fail's.
    const saveFailureOutputs = SqlSchema.void({
      Request: Schema.String,
      execute: (json) => sql`
        UPDATE heartbeat_states h SET last_failure_output = r.output
        FROM jsonb_to_recordset(${json}::jsonb) AS r(id uuid, output text)
        JOIN heartbeat_pings p ON p.id = r.id
        WHERE h.target_id = p.target_id AND p.signal = 'fail' AND h.last_fail_at = p.at
      `
    })

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      /** Runs `self` in a transaction. */
      transaction: Transaction.make(sql),
      /** Live tokens among these, each with its monitor and the monitor's stored state; unknown ones absent. */
      resolve: (tokens: ReadonlyArray<string>) =>
        Effect.map(Effect.orDie(resolve(tokens)), (rows) => new Map(rows.map((row) => [row.token, row]))),
      /** Creates the missing states of these heartbeat monitors. */
      ensureStates: (ids: ReadonlyArray<string>) => Effect.orDie(ensureStates(ids)),
      /** The states of these monitors, locked to the end of the transaction; a monitor gone is absent. */
      lockStates: (ids: ReadonlyArray<string>) => Effect.orDie(lockStates(ids)),
      saveStates: (records: ReadonlyArray<StateRecord>) => Effect.orDie(saveStates(JSON.stringify(records))),
      insertPings: (logs: ReadonlyArray<PingLog>) => Effect.orDie(insertPings(JSON.stringify(logs))),
      /** Moves each token's `last_used_at` forward to its use, never back. */
      markTokensUsed: (uses: ReadonlyArray<TokenUse>) => Effect.orDie(markTokensUsed(JSON.stringify(uses))),
      /** Keeps the pings' outputs, and a fail ping's as its monitor's last failure output; one JSON text for both. */
      saveOutputs: (outputs: ReadonlyArray<PingOutput>) => {
        const json = JSON.stringify(outputs)
        return Effect.orDie(Effect.zipRight(saveOutputs(json), saveFailureOutputs(json)))
      }
    }
  })
}) {}
