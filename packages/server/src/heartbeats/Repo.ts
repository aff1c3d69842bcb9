/**
 * Heartbeats' SQL as the API and the verdicts need it: a monitor's ping tokens and their rotation, its stored state
 * with the record's extra columns, its recent successes and pings, the stamp a verdict change leaves, and the scheduled
 * evaluation's claim of due monitors and save of their states. Timestamps stay `Date`s (`Schema.DateFromSelf`), as
 * `StateRows` reads them. Ping ingest's SQL is in `PingsRepo`.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Transaction from "../database/Transaction.js"
import * as StateRows from "./StateRows.js"

const date = Schema.DateFromSelf

/** A ping token: the current one has no `expires_at`; the previous one works until it. */
export const TokenRow = Schema.Struct({
  token: Schema.String,
  expires_at: Schema.NullOr(date),
  last_used_at: Schema.NullOr(date)
})

/** A new ping token; `expires_at` null for the current one. */
export const NewToken = Schema.Struct({
  token: Schema.String,
  target_id: Schema.String,
  expires_at: Schema.NullOr(date)
})

/** The stored state with what the record shows beside it. */
export const StateRow = Schema.Struct({
  ...StateRows.StateColumns.fields,
  last_failure_output: Schema.NullOr(Schema.String),
  rotated_at: Schema.NullOr(date)
})

/** A verdict change's stamp. */
export const VerdictStamp = Schema.Struct({
  target_id: Schema.String,
  at: date,
  cause: Schema.Literal("success", "start", "fail", "silence", "runtime_exceeded", "resumed")
})

/** A monitor claimed for evaluation: its state with what the evaluation reads of the monitor. */
export const DueState = Schema.Struct({
  ...StateRows.StateColumns.fields,
  target_id: Schema.String,
  enabled: Schema.Boolean,
  interval_secs: Schema.Number,
  check_spec: Schema.Unknown
})

/**
 * An evaluated monitor's state and next evaluation (ISO 8601) as `jsonb_to_recordset` reads it. A plain type rather
 * than a schema: the batch goes out as JSON text, so no row is encoded one by one.
 */
export type EvaluatedRecord = ReturnType<typeof StateRows.toRecord> & { readonly next_eval_at: string }

/** A ping as kept (14 days): when, which signal, the exit status it carried, the run's length when it paired. */
export const PingRow = Schema.Struct({
  at: date,
  signal: Schema.Literal("success", "start", "fail"),
  exit_code: Schema.NullOr(Schema.Number),
  run_duration_ms: Schema.NullOr(Schema.Number)
})
export type PingRow = typeof PingRow.Type

const Token = Schema.Struct({ token: Schema.String })
const At = Schema.Struct({ at: date })
const Interval = Schema.Struct({ interval_secs: Schema.Number })
const StampedInterval = Schema.Struct({ target_id: Schema.String, interval_secs: Schema.Number })

/** A verdict stamp of a batch, as JSON (`at` ISO 8601): one statement stamps a whole group of first pings. */
export interface VerdictStampRecord {
  readonly target_id: string
  readonly at: string
  readonly cause: (typeof VerdictStamp.Type)["cause"]
}

export class HeartbeatsRepo extends Effect.Service<HeartbeatsRepo>()("Signalman/HeartbeatsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const tokens = SqlSchema.findAll({
      Request: Schema.String,
      Result: TokenRow,
      execute: (targetId) => sql`SELECT token, expires_at, last_used_at FROM ping_tokens WHERE target_id = ${targetId}`
    })

    const insertToken = SqlSchema.void({
      Request: NewToken,
      execute: (t) => sql`
        INSERT INTO ping_tokens (token, target_id, expires_at, last_used_at)
        VALUES (${t.token}, ${t.target_id}, ${t.expires_at}, NULL)
      `
    })

    const deleteTokens = SqlSchema.void({
      Request: Schema.String,
      execute: (targetId) => sql`DELETE FROM ping_tokens WHERE target_id = ${targetId}`
    })

    const endPrevious = SqlSchema.findAll({
      Request: Schema.String,
      Result: Token,
      execute: (targetId) =>
        sql`DELETE FROM ping_tokens WHERE target_id = ${targetId} AND expires_at IS NOT NULL RETURNING token`
    })

    const lockTarget = SqlSchema.void({
      Request: Schema.String,
      execute: (targetId) => sql`SELECT id FROM targets WHERE id = ${targetId} FOR UPDATE`
    })

    const state = SqlSchema.findOne({
      Request: Schema.String,
      Result: StateRow,
      execute: (targetId) => sql`
        SELECT verdict, paused, down_cause, first_ping_at, last_ping_at, last_success_at, last_start_at, last_fail_at,
          last_exit_code, window_from, run_started_at, last_failure_output, rotated_at
        FROM heartbeat_states WHERE target_id = ${targetId}
      `
    })

    // A state row that does not exist yet starts pending (paused with its monitor) and carries the stamp.
    const markRotated = SqlSchema.void({
      Request: Schema.Struct({ target_id: Schema.String, paused: Schema.Boolean, at: date }),
      execute: ({ target_id, paused, at }) => sql`
        INSERT INTO heartbeat_states (target_id, verdict, paused, rotated_at)
        VALUES (${target_id}, 'pending', ${paused}, ${at})
        ON CONFLICT (target_id) DO UPDATE SET rotated_at = EXCLUDED.rotated_at
      `
    })

    const successes = SqlSchema.findAll({
      Request: Schema.Struct({ target_id: Schema.String, since: date, limit: Schema.Number }),
      Result: At,
      execute: ({ target_id, since, limit }) => sql`
        SELECT at FROM heartbeat_pings
        WHERE target_id = ${target_id} AND signal = 'success' AND at >= ${since}
        ORDER BY at DESC LIMIT ${limit}
      `
    })

    const recentPings = SqlSchema.findAll({
      Request: Schema.Struct({ target_id: Schema.String, limit: Schema.Number }),
      Result: PingRow,
      execute: ({ target_id, limit }) => sql`
        SELECT at, signal, exit_code, run_duration_ms FROM heartbeat_pings
        WHERE target_id = ${target_id} ORDER BY at DESC, id DESC LIMIT ${limit}
      `
    })

    const stampVerdict = SqlSchema.findOne({
      Request: VerdictStamp,
      Result: Interval,
      execute: ({ target_id, at, cause }) => sql`
        UPDATE heartbeat_states h SET verdict_changed_at = ${at}, verdict_cause = ${cause}
        FROM targets t WHERE h.target_id = ${target_id} AND t.id = h.target_id
        RETURNING t.interval_secs
      `
    })

    const stampVerdicts = SqlSchema.findAll({
      Request: Schema.String,
      Result: StampedInterval,
      execute: (json) => sql`
        UPDATE heartbeat_states h SET verdict_changed_at = r.at, verdict_cause = r.cause
        FROM jsonb_to_recordset(${json}::jsonb) AS r(target_id uuid, at timestamptz, cause text), targets t
        WHERE h.target_id = r.target_id AND t.id = h.target_id
        RETURNING h.target_id, t.interval_secs
      `
    })

    const intervalOf = SqlSchema.findOne({
      Request: Schema.String,
      Result: Interval,
      execute: (targetId) => sql`SELECT interval_secs FROM targets WHERE id = ${targetId}`
    })

    // Monitors whose paused state lags `enabled`, and running ones due; locked, so workers never share one.
    const claimDue = SqlSchema.findAll({
      Request: Schema.Struct({ now: Schema.DateTimeUtcFromDate, limit: Schema.Number }),
      Result: DueState,
      execute: ({ now, limit }) => sql`
        SELECT h.*, t.enabled, t.interval_secs, t.check_spec
        FROM heartbeat_states h JOIN targets t ON t.id = h.target_id
        WHERE h.paused = t.enabled
           OR (h.next_eval_at <= ${now} AND NOT h.paused AND h.verdict <> 'pending')
        ORDER BY h.next_eval_at LIMIT ${limit}
        FOR UPDATE OF h SKIP LOCKED
      `
    })

    const saveEvaluated = SqlSchema.void({
      Request: Schema.String,
      execute: (records) => sql`
        UPDATE heartbeat_states h SET verdict = r.verdict, paused = r.paused, down_cause = r.down_cause,
          window_from = r.window_from, run_started_at = r.run_started_at, next_eval_at = r.next_eval_at
        FROM jsonb_to_recordset(${records}::jsonb)
          AS r(${sql.literal(StateRows.recordColumns)}, next_eval_at timestamptz)
        WHERE h.target_id = r.target_id
      `
    })

    const seconds = (row: Option.Option<typeof Interval.Type>) => Option.getOrUndefined(row)?.interval_secs

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      /** Runs `self` in a transaction. */
      transaction: Transaction.make(sql),
      /** The monitor's ping tokens, current and previous, expired ones included. */
      tokens: (targetId: string) => Effect.orDie(tokens(targetId)),
      insertToken: (token: typeof NewToken.Type) => Effect.orDie(insertToken(token)),
      deleteTokens: (targetId: string) => Effect.orDie(deleteTokens(targetId)),
      /** Ends the previous token at once; answers the tokens it ended. */
      endPrevious: (targetId: string) =>
        Effect.map(Effect.orDie(endPrevious(targetId)), (rows) => rows.map((r) => r.token)),
      /** Holds the monitor's row to the end of the transaction. */
      lockTarget: (targetId: string) => Effect.orDie(lockTarget(targetId)),
      /** The stored state; undefined when the monitor has none yet. */
      state: (targetId: string) => Effect.map(Effect.orDie(state(targetId)), Option.getOrUndefined),
      /** Stamps `rotated_at`, leaving the machine's state as it is. */
      markRotated: (targetId: string, paused: boolean, at: Date) =>
        Effect.orDie(markRotated({ target_id: targetId, paused, at })),
      /** The instants of the newest successes since `since`, newest first, at most `limit`. */
      successes: (targetId: string, since: Date, limit: number) =>
        Effect.map(Effect.orDie(successes({ target_id: targetId, since, limit })), (rows) => rows.map((r) => r.at)),
      /** The newest pings of every signal, newest first, at most `limit`. */
      recentPings: (targetId: string, limit: number) => Effect.orDie(recentPings({ target_id: targetId, limit })),
      /** Stamps the verdict change on the state; answers the monitor's interval, undefined when either is gone. */
      stampVerdict: (stamp: typeof VerdictStamp.Type) => Effect.map(Effect.orDie(stampVerdict(stamp)), seconds),
      /** `stampVerdict` for many monitors (one stamp each); answers the intervals of those still there. */
      stampVerdicts: (stamps: ReadonlyArray<VerdictStampRecord>) =>
        stamps.length === 0
          ? Effect.succeed(new Map<string, number>())
          : Effect.map(
              Effect.orDie(stampVerdicts(JSON.stringify(stamps))),
              (rows) => new Map(rows.map((row) => [row.target_id, row.interval_secs]))
            ),
      /** The monitor's interval; undefined when it is gone. */
      intervalOf: (targetId: string) => Effect.map(Effect.orDie(intervalOf(targetId)), seconds),
      /** Claims at most `limit` monitors due at `now`, in due order, locked for the surrounding transaction. */
      claimDue: (now: DateTime.Utc, limit: number) => Effect.orDie(claimDue({ now, limit })),
      /** Saves the evaluated states with their next evaluation. */
      saveEvaluated: (records: ReadonlyArray<EvaluatedRecord>) => Effect.orDie(saveEvaluated(JSON.stringify(records)))
    }
  })
}) {}
