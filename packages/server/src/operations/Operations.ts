/**
 * Liveness and readiness. Readiness asks the database each time (bounded by a short timeout) so a load
 * balancer sees an outage as it happens and sees recovery without a restart; it also turns 503 while the
 * process drains on SIGTERM.
 */
import * as ApiError from "@signalman/core/ApiError"
import { Health, Readiness } from "@signalman/core/api/Operations"
import * as Effect from "effect/Effect"
import { Lifecycle } from "../infra/Lifecycle.js"
import { OperationsRepo } from "./Repo.js"

const healthy = new Health({ status: "ok" })
const ready = new Readiness({ status: "ready", checks: { database: "ok" } })

const notReady = (reason: string, database: "ok" | "unreachable") =>
  ApiError.make("NOT_READY", reason, { details: { checks: { database } } })

export class Operations extends Effect.Service<Operations>()("Signalman/Operations", {
  effect: Effect.gen(function* () {
    const repo = yield* OperationsRepo
    const lifecycle = yield* Lifecycle
    const ping = repo.ping.pipe(Effect.timeout("2 seconds"))
    const readyz = Effect.suspend(() => {
      if (lifecycle.isDraining()) return Effect.fail(notReady("The process is shutting down", "ok"))
      return ping.pipe(
        Effect.as(ready),
        Effect.catchAll((cause) =>
          Effect.logWarning("Readiness: database unreachable", cause).pipe(
            Effect.zipRight(Effect.fail(notReady("The database is unreachable", "unreachable")))
          )
        )
      )
    })
    return {
      /** The process is up; answered without any I/O. */
      healthz: Effect.succeed(healthy),
      /** The process takes traffic: not draining, and the database answers. */
      readyz
    }
  }),
  // The lifecycle is the process's own, provided where the process is composed.
  dependencies: [OperationsRepo.Default]
}) {}
