/**
 * Where a heartbeat's verdict goes beyond its own row: its results, and through them the incident writer. Every
 * call runs inside the transaction that stores the new heartbeat state, so a verdict change and its result commit
 * together, or not at all.
 */
import type { ProbeOutcome } from "@signalman/core/CheckResult"
import type { ChangeCause } from "@signalman/core/heartbeat/HeartbeatMachine"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import { type MonitorResult, MonitorResults } from "../engine/MonitorResults.js"
import { HeartbeatsRepo } from "./Repo.js"

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
    const repo = yield* HeartbeatsRepo
    const results = yield* MonitorResults
    return {
      /**
       * The verdict moved; runs in the state's transaction. A change the job reported (a ping) falls between
       * evaluations and stands for no time; one an evaluation found (silence) stands for its cadence.
       */
      changed: (change: Change): Effect.Effect<void> =>
        Effect.gen(function* () {
          const interval = yield* repo.stampVerdict({
            target_id: change.target_id,
            at: DateTime.toDateUtc(change.at),
            cause: change.cause
          })
          if (change.outcome === undefined || interval === undefined) return
          yield* results.write([
            {
              targetId: change.target_id,
              outcome: change.outcome,
              at: change.at,
              weightSecs: change.at_once ? 0 : interval,
              atOnce: change.at_once
            }
          ])
        }),
      /**
       * `changed` for a group of changes (a group commit of pings), in three statements whatever its size: the
       * stamps (each monitor's last change in the group), then every change's result in the order given, so the
       * incident writer folds a monitor's changes in the order they happened.
       */
      changedMany: (changes: ReadonlyArray<Change>): Effect.Effect<void> =>
        Effect.gen(function* () {
          if (changes.length === 0) return
          const last = new Map<string, Change>()
          for (const change of changes) last.set(change.target_id, change)
          const intervals = yield* repo.stampVerdicts(
            [...last.values()].map((change) => ({
              target_id: change.target_id,
              at: DateTime.formatIso(change.at),
              cause: change.cause
            }))
          )
          const written: Array<MonitorResult> = []
          for (const change of changes) {
            const interval = intervals.get(change.target_id)
            if (change.outcome === undefined || interval === undefined) continue
            written.push({
              targetId: change.target_id,
              outcome: change.outcome,
              at: change.at,
              weightSecs: change.at_once ? 0 : interval,
              atOnce: change.at_once
            })
          }
          yield* results.write(written)
        }),
      /** A scheduled evaluation's result (one per tick while the monitor is up or down): it stands for its cadence. */
      evaluated: (targetId: string, outcome: ProbeOutcome, at: DateTime.Utc): Effect.Effect<void> =>
        Effect.gen(function* () {
          const interval = yield* repo.intervalOf(targetId)
          if (interval === undefined) return
          yield* results.write([{ targetId, outcome, at, weightSecs: interval, atOnce: false }])
        })
    }
  }),
  dependencies: [HeartbeatsRepo.Default]
}) {}
