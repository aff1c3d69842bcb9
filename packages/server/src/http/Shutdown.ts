/**
 * Graceful shutdown of the HTTP side, run first when the process is told to stop: readiness turns 503, the
 * listener stops taking connections, in-flight requests get `server.shutdown_grace_secs` to finish, and only then
 * are the remaining connections cut and the layers below (the database) released.
 *
 * With `server.drain_delay_secs`, readiness turns 503 that long before the listener closes, and requests are served
 * meanwhile. Closing the listener also closes the connections that carry no request yet, and a load balancer that
 * opened one a moment before has its request reset, which it may not retry (a POST): given the time its health
 * checks need to see the 503, it stops sending first, and nothing is reset.
 */

import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppConfig } from "../config/Config.js"
import { Lifecycle } from "../infra/Lifecycle.js"
import type * as Liveness from "./Liveness.js"

export const layer = (server: Liveness.Server): Layer.Layer<never, never, AppConfig | Lifecycle> =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const lifecycle = yield* Lifecycle
      const config = yield* AppConfig
      server.track(lifecycle)
      yield* Effect.addFinalizer(() =>
        Effect.gen(function* () {
          const delay = config["server.drain_delay_secs"]
          if (delay > 0) {
            lifecycle.notReady()
            yield* Effect.logInfo("Shutting down: not ready, still serving until load balancers stop sending").pipe(
              Effect.annotateLogs("drain_delay_secs", delay)
            )
            yield* Effect.sleep(Duration.seconds(delay))
          }
          yield* Effect.logInfo("Shutting down: draining requests").pipe(
            Effect.annotateLogs("in_flight", lifecycle.inFlight())
          )
          server.close()
          const finished = yield* lifecycle.drain(Duration.seconds(config["server.shutdown_grace_secs"]))
          if (!finished) {
            yield* Effect.logWarning("Shutdown grace elapsed; closing the remaining connections").pipe(
              Effect.annotateLogs("in_flight", lifecycle.inFlight())
            )
          }
          server.closeAllConnections()
        })
      )
    })
  )
