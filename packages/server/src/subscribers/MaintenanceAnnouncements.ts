/**
 * The worker loop that tells page subscribers when a maintenance window starts and completes. A window's state
 * follows from the clock, so nothing else notices the moment: every `notifier.maintenance_sweep_secs` the windows
 * that started or ended in the last hour are announced, each event once (the outbox key). Any number of workers may run it.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppConfig } from "../config/Config.js"
import { PageEvents } from "./PageEvents.js"

export const layer = Layer.scopedDiscard(
  Effect.gen(function* () {
    const events = yield* PageEvents
    const every = Duration.seconds((yield* AppConfig)["notifier.maintenance_sweep_secs"])
    yield* Effect.forkScoped(
      Effect.forever(
        events.sweepWindows.pipe(
          Effect.catchAllCause((cause) => Effect.logWarning("Maintenance announcement sweep failed", cause)),
          Effect.zipRight(Effect.sleep(every))
        )
      )
    )
  })
).pipe(Layer.provide(PageEvents.Default))
