/**
 * Liveness and readiness. Readiness asks the database each time (bounded by a short timeout) so a load
 * balancer sees an outage as it happens and sees recovery without a restart; it also turns 503 while the
 * process drains on SIGTERM.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as SqlClient from "@effect/sql/SqlClient"
import * as ApiError from "@signalman/core/ApiError"
import { SignalmanApi } from "@signalman/core/api/Api"
import { Health, OperationsApi, Readiness } from "@signalman/core/api/Operations"
import * as Effect from "effect/Effect"
import { Lifecycle } from "../infra/Lifecycle.js"

/** A worker process serves only the operations group, so orchestrators can probe it like an API process. */
export class WorkerApi extends HttpApi.make("signalman-worker").add(OperationsApi) {}

const healthy = new Health({ status: "ok" })
const ready = new Readiness({ status: "ready", checks: { database: "ok" } })

const notReady = (reason: string, database: "ok" | "unreachable") =>
  ApiError.make("NOT_READY", reason, { details: { checks: { database } } })

const probes = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const lifecycle = yield* Lifecycle
  const ping = sql`SELECT 1`.pipe(Effect.timeout("2 seconds"))
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
  return { healthz: Effect.succeed(healthy), readyz }
})

export const layer = HttpApiBuilder.group(SignalmanApi, "operations", (handlers) =>
  Effect.map(probes, ({ healthz, readyz }) => handlers.handle("healthz", () => healthz).handle("readyz", () => readyz))
)

export const workerLayer = HttpApiBuilder.group(WorkerApi, "operations", (handlers) =>
  Effect.map(probes, ({ healthz, readyz }) => handlers.handle("healthz", () => healthz).handle("readyz", () => readyz))
)
