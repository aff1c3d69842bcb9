/**
 * The worker loop that tells page subscribers when a maintenance window starts and completes. A window's state
 * follows from the clock, so nothing else notices the moment: every `SWEEP_EVERY` the windows that started or ended
 * in the last hour are announced, each event once (the outbox key). Any number of workers may run it.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { PageEvents } from "./PageEvents.js"

const SWEEP_EVERY = Duration.seconds(15)

export const layer = Layer.scopedDiscard(
  Effect.gen(function* () {
    const events = yield* PageEvents
    yield* Effect.forkScoped(
      Effect.forever(
        events.sweepWindows.pipe(
          Effect.catchAllCause((cause) => Effect.logWarning("Maintenance announcement sweep failed", cause)),
          Effect.zipRight(Effect.sleep(SWEEP_EVERY))
        )
      )
    )
  })
).pipe(Layer.provide(PageEvents.Default))
