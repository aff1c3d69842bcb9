/**
 * The once-a-minute restatement of manual monitors (service-api.md "Manual monitor"): a manual monitor has no
 * probe, so a worker writes its current status as a result every minute, which keeps uptime and the incident
 * engine fed exactly as a probe would. Paused monitors are not restated. Due monitors are claimed with
 * `FOR UPDATE SKIP LOCKED` and stamped in the same transaction, so several workers never restate one twice.
 */
import * as ManualState from "@signalman/core/ManualState"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { onDatabaseTime } from "../engine/DatabaseTime.js"
import { MonitorResults } from "../engine/MonitorResults.js"
import { MANUAL_INTERVAL_SECS } from "./ManualOutcomes.js"
import { type DueRow, ManualRepo } from "./Repo.js"

const CLAIM = 500

const stateOf = (row: DueRow): ManualState.ManualState =>
  row.status === null || row.set_at === null
    ? ManualState.initial(row.created_at)
    : { status: row.status, note: row.note, set_at: row.set_at, set_by: row.set_by }

export class Restatement extends Effect.Service<Restatement>()("Signalman/ManualRestatement", {
  effect: Effect.gen(function* () {
    const repo = yield* ManualRepo
    const results = yield* MonitorResults

    /** Restates every due manual monitor at `now`; answers how many. */
    const restate = (now: DateTime.Utc) =>
      repo
        .transaction(
          Effect.gen(function* () {
            const due = new Date(DateTime.toEpochMillis(now) - MANUAL_INTERVAL_SECS * 1000)
            const rows = yield* repo.claimDue(due, CLAIM)
            if (rows.length === 0) return 0
            const stamped = rows.map((row) => ({ target_id: row.id, ...stateOf(row) }))
            // A monitor never set gets its row here, as the state it had implicitly (up since its creation).
            yield* repo.stampRestated(stamped, now)
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
  }),
  dependencies: [ManualRepo.Default]
}) {}

/** Restates due manual monitors every few seconds for the life of a worker. */
export const layer = Layer.scopedDiscard(
  Effect.gen(function* () {
    const restatement = yield* Restatement
    yield* Effect.forkScoped(
      onDatabaseTime(Effect.flatMap(DateTime.now, restatement.restate)).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("Manual restatement failed; retrying", cause)),
        Effect.repeat(Schedule.spaced("5 seconds"))
      )
    )
  })
).pipe(Layer.provide(Restatement.Default))
