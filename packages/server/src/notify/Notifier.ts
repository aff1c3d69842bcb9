/**
 * The notifier's loops, run by the worker role (and the all-in-one process): one fans new notices out into
 * deliveries, the other sends due deliveries. Both poll every `notifier.poll_interval_ms` and go again at once
 * while they find work, so a burst drains without waiting a tick per batch. Any number of workers may run them:
 * they share the work through row locks. A failed round is logged and the loop carries on.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppConfig } from "../config/Config.js"
import { Deliveries } from "./Deliveries.js"
import { Notices } from "./Notices.js"

const FAN_OUT_BATCH = 100

const poll = (name: string, round: Effect.Effect<number>, every: Duration.Duration) =>
  Effect.gen(function* () {
    for (;;) {
      const done = yield* round.pipe(
        Effect.catchAllCause((cause) =>
          Effect.as(
            Effect.logWarning("Notifier round failed; trying again", cause).pipe(Effect.annotateLogs("loop", name)),
            0
          )
        )
      )
      if (done === 0) yield* Effect.sleep(every)
    }
  })

export const layer = Layer.scopedDiscard(
  Effect.gen(function* () {
    const config = yield* AppConfig
    const notices = yield* Notices
    const deliveries = yield* Deliveries
    const every = Duration.millis(config["notifier.poll_interval_ms"])
    yield* Effect.forkScoped(poll("fan_out", notices.fanOut(FAN_OUT_BATCH), every))
    yield* Effect.forkScoped(poll("deliver", deliveries.deliverDue, every))
  })
).pipe(Layer.provide([Notices.Default, Deliveries.Default]))
