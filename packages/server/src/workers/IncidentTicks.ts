/**
 * The incident engine's clock: every few seconds, fold a Tick into each monitor whose `wake_at` has come (a due
 * reminder, the end of a recovery wait). Workers claim due monitors with `SKIP LOCKED`, so any number of worker
 * processes share them and each tick happens once; a failed pass is logged and the next one picks the rows up.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { AppConfig } from "../config/Config.js"
import { onDatabaseTime } from "../engine/DatabaseTime.js"
import { IncidentWriter } from "../incidents/IncidentWriter.js"

// On the database's time, the clock `wake_at` was set on (engine/DatabaseTime.ts).
export const pass = onDatabaseTime(Effect.flatMap(IncidentWriter, (writer) => writer.tickDue())).pipe(
  Effect.tap((ticked) =>
    ticked > 0 ? Effect.logDebug("Incident engine ticked").pipe(Effect.annotateLogs({ ticked })) : Effect.void
  ),
  Effect.catchAllCause((cause) => Effect.logWarning("Incident tick pass failed; retrying on the next one", cause))
)

/**
 * Runs the tick loop in the background for the life of the process, every `incidents.tick_interval_secs` (5 by
 * default: reminders are at least a minute apart, so a few seconds late is on time); 0 runs none.
 */
export const layer = Layer.scopedDiscard(
  Effect.gen(function* () {
    const every = (yield* AppConfig)["incidents.tick_interval_secs"]
    if (every > 0) yield* Effect.forkScoped(pass.pipe(Effect.repeat(Schedule.spaced(`${every} seconds`))))
  })
)
