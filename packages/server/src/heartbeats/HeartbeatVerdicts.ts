/**
 * Where a heartbeat's verdict goes beyond its own row: its results, and through them the incident writer. Every
 * call runs inside the transaction that stores the new heartbeat state, so a verdict change and its result commit
 * together, or not at all.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { ProbeOutcome } from "@signalman/core/CheckResult"
import type { ChangeCause } from "@signalman/core/heartbeat/HeartbeatMachine"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import { MonitorResults } from "../engine/MonitorResults.js"

/** A verdict change with the result the machine asks to write for it. */
export interface Change {
  readonly target_id: string
  readonly from: "pending" | "up" | "down"
  readonly to: "up" | "down"
  readonly cause: ChangeCause
  /** The job itself reported it (a ping, a run outliving max_runtime): act without waiting for confirmations. */
  readonly at_once: boolean
  readonly at: DateTime.Utc
  /** The result to store now; absent for a resume, whose result the next evaluation tick writes. */
  readonly outcome: ProbeOutcome | undefined
}

export class HeartbeatVerdicts extends Effect.Service<HeartbeatVerdicts>()("Signalman/HeartbeatVerdicts", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const results = yield* MonitorResults
    return {
      /**
       * The verdict moved; runs in the state's transaction. A change the job reported (a ping) falls between
       * evaluations and stands for no time; one an evaluation found (silence) stands for its cadence.
       */
      changed: (change: Change): Effect.Effect<void> =>
        Effect.gen(function* () {
          const [target] = yield* sql<{ interval_secs: number }>`
            UPDATE heartbeat_states h SET verdict_changed_at = ${DateTime.toDateUtc(change.at)}, verdict_cause = ${change.cause}
            FROM targets t WHERE h.target_id = ${change.target_id} AND t.id = h.target_id
            RETURNING t.interval_secs
          `.pipe(Effect.orDie)
          if (change.outcome === undefined || target === undefined) return
          yield* results.write([
            {
              targetId: change.target_id,
              outcome: change.outcome,
              at: change.at,
              weightSecs: change.at_once ? 0 : target.interval_secs,
              atOnce: change.at_once
            }
          ])
        }),
      /** A scheduled evaluation's result (one per tick while the monitor is up or down): it stands for its cadence. */
      evaluated: (targetId: string, outcome: ProbeOutcome, at: DateTime.Utc): Effect.Effect<void> =>
        Effect.gen(function* () {
          const [target] = yield* sql<{ interval_secs: number }>`
            SELECT interval_secs FROM targets WHERE id = ${targetId}
          `.pipe(Effect.orDie)
          if (target === undefined) return
          yield* results.write([{ targetId, outcome, at, weightSecs: target.interval_secs, atOnce: false }])
        })
    }
  })
}) {}
