/**
 * The escalation walker's clock: on the incident engine's cadence (`incidents.tick_interval_secs`, 5 s by default;
 * 0 runs none), send every due page of the incidents' escalation walks. Workers claim due walks with `SKIP LOCKED`,
 * so any number of worker processes share them and each page goes out once; a failed pass is logged and the next
 * one picks the walks up. Delays are whole minutes, so a page a few seconds late is on time.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { AppConfig } from "../config/Config.js"
import { onDatabaseTime } from "../engine/DatabaseTime.js"
import { EscalationWalker } from "../escalations/Walker.js"

// On the database's time, the clock a walk's pages were scheduled on (engine/DatabaseTime.ts).
export const pass = onDatabaseTime(Effect.flatMap(EscalationWalker, (walker) => walker.walkDue())).pipe(
  Effect.tap((walked) =>
    walked > 0 ? Effect.logDebug("Escalation pages sent").pipe(Effect.annotateLogs({ walked })) : Effect.void
  ),
  Effect.catchAllCause((cause) => Effect.logWarning("Escalation pass failed; retrying on the next one", cause))
)

/** Runs the walker in the background for the life of the process. */
export const layer = Layer.scopedDiscard(
  Effect.gen(function* () {
    const every = (yield* AppConfig)["incidents.tick_interval_secs"]
    if (every > 0) yield* Effect.forkScoped(pass.pipe(Effect.repeat(Schedule.spaced(`${every} seconds`))))
  })
).pipe(Layer.provide(EscalationWalker.Default))
