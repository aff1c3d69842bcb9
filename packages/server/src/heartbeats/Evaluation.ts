/**
 * The scheduled evaluation of heartbeat monitors: silence past period + grace, or a run outliving `max_runtime`,
 * turns an up heartbeat down; every tick of a running, pinged monitor writes its result through
 * `HeartbeatVerdicts`. It also brings paused state in line with `enabled` (a monitor disabled or enabled by PATCH, a
 * bulk action or monitoring as code), so a resume restarts the silence clock within one pass.
 *
 * Due monitors are claimed with `FOR UPDATE SKIP LOCKED`, so any number of worker processes share the work with no
 * double evaluation. The worker role runs a pass every 5 seconds.
 */
import * as HeartbeatMachine from "@signalman/core/heartbeat/HeartbeatMachine"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { onDatabaseTime } from "../engine/DatabaseTime.js"
import { Invalidation } from "../infra/Invalidation.js"
import { decodeWindow } from "./Heartbeats.js"
import { HeartbeatVerdicts } from "./HeartbeatVerdicts.js"
import { Pings } from "./Pings.js"
import { type EvaluatedRecord, HeartbeatsRepo } from "./Repo.js"
import * as StateRows from "./StateRows.js"

/** Monitors claimed per transaction. */
const CLAIM = 500

export class Evaluation extends Effect.Service<Evaluation>()("Signalman/HeartbeatEvaluation", {
  effect: Effect.gen(function* () {
    const repo = yield* HeartbeatsRepo
    const verdicts = yield* HeartbeatVerdicts
    const invalidation = yield* Invalidation
    const pings = yield* Pings

    /** One claim of at most CLAIM monitors; answers how many it took. */
    const claim = (now: DateTime.Utc) =>
      repo.transaction(
        Effect.gen(function* () {
          const rows = yield* repo.claimDue(now, CLAIM)
          const records: Array<EvaluatedRecord> = []
          const touched: Array<string> = []
          const work: Array<Effect.Effect<void>> = []
          for (const row of rows) {
            const reconciled = StateRows.reconcile(StateRows.toState(row), row.enabled, now)
            const window = yield* decodeWindow(row.check_spec)
            const due = !reconciled.state.paused && reconciled.state.verdict !== "pending"
            const evaluated = due
              ? HeartbeatMachine.step(reconciled.state, HeartbeatMachine.HeartbeatEvent.Evaluate({ window }), now)
              : { state: reconciled.state, effects: [] }
            for (const step of [reconciled, evaluated]) {
              const result = step.effects.find((effect) => effect._tag === "WriteResult")
              const changed = step.effects.find((effect) => effect._tag === "VerdictChanged")
              if (changed?._tag === "VerdictChanged") {
                work.push(
                  verdicts.changed({
                    target_id: row.target_id,
                    from: changed.from,
                    to: changed.to,
                    cause: changed.cause,
                    at_once: changed.at_once,
                    at: now,
                    outcome: result?._tag === "WriteResult" ? result.outcome : undefined
                  })
                )
              } else if (result?._tag === "WriteResult") {
                work.push(verdicts.evaluated(row.target_id, result.outcome, result.checked_at))
              }
            }
            if (
              reconciled.state !== evaluated.state ||
              reconciled.effects.length > 0 ||
              row.paused !== reconciled.state.paused
            ) {
              touched.push(row.target_id)
            }
            records.push({
              ...StateRows.toRecord(row.target_id, evaluated.state),
              next_eval_at: DateTime.formatIso(DateTime.add(now, { seconds: row.interval_secs }))
            })
          }
          if (records.length > 0) yield* repo.saveEvaluated(records)
          yield* Effect.all(work, { discard: true })
          return { claimed: rows.length, touched }
        })
      )

    /** Evaluates every due heartbeat at `now`; answers how many were evaluated. */
    const evaluate = (now: DateTime.Utc): Effect.Effect<number> =>
      Effect.gen(function* () {
        // This process's queued pings first: a success acknowledged a moment ago must count against the silence.
        yield* pings.flush
        let total = 0
        for (;;) {
          const { claimed, touched } = yield* claim(now)
          // One statement for the claim's monitors, not one each (a claim is up to 500).
          yield* invalidation.publishMany(touched.map((id) => `heartbeat:${id}`))
          total += claimed
          if (claimed < CLAIM) return total
        }
      }).pipe(Effect.orDie)

    return { evaluate }
  }),
  dependencies: [HeartbeatsRepo.Default, HeartbeatVerdicts.Default, Invalidation.Default, Pings.Default]
}) {}

/**
 * The worker's loop: a pass every 5 seconds, on the database's clock; a failed pass is logged and the next one
 * tries again.
 */
export const layer = Layer.scopedDiscard(
  Effect.gen(function* () {
    const evaluation = yield* Evaluation
    yield* Effect.forkScoped(
      // On the database's time, the time the pings were stamped on (engine/DatabaseTime.ts).
      onDatabaseTime(Effect.flatMap(DateTime.now, evaluation.evaluate)).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("Heartbeat evaluation failed; retrying", cause)),
        Effect.repeat(Schedule.spaced("5 seconds"))
      )
    )
  })
)
