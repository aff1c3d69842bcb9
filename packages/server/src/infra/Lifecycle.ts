/**
 * Where the process stands: serving, or draining after SIGTERM. The request pipeline counts requests in flight
 * so shutdown can wait for them; readiness answers 503 while draining so load balancers stop sending work.
 */
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

export class Lifecycle extends Effect.Service<Lifecycle>()("Signalman/Lifecycle", {
  effect: Effect.sync(() => {
    let draining = false
    let inFlight = 0
    let idle: Deferred.Deferred<void> | undefined
    const settle = () => {
      if (inFlight === 0 && idle !== undefined) Deferred.unsafeDone(idle, Effect.void)
    }
    return {
      isDraining: () => draining,
      inFlight: () => inFlight,
      enter: () => {
        inFlight++
      },
      leave: () => {
        inFlight--
        settle()
      },
      /** Stop counting as ready (readiness answers 503) while requests are still taken. */
      notReady: () => {
        draining = true
      },
      /** Stop counting as ready, then wait (at most `grace`) for in-flight requests; true when all finished. */
      drain: (grace: Duration.DurationInput): Effect.Effect<boolean> =>
        Effect.gen(function* () {
          draining = true
          if (inFlight === 0) return true
          idle = idle ?? (yield* Deferred.make<void>())
          const finished = yield* Deferred.await(idle).pipe(Effect.timeoutOption(grace))
          return finished._tag === "Some"
        })
    }
  })
}) {}
