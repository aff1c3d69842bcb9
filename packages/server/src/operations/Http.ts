/**
 * The `operations` group: liveness and readiness, for the API and for the worker role.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { SignalmanApi } from "@signalman/core/api/Api"
import { OperationsApi } from "@signalman/core/api/Operations"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Operations } from "./Operations.js"

/** A worker process serves only the operations group, so orchestrators can probe it like an API process. */
export class WorkerApi extends HttpApi.make("signalman-worker").add(OperationsApi) {}

export const layer = HttpApiBuilder.group(SignalmanApi, "operations", (handlers) =>
  Effect.map(Operations, ({ healthz, readyz }) =>
    handlers.handle("healthz", () => healthz).handle("readyz", () => readyz)
  )
).pipe(Layer.provide(Operations.Default))

export const workerLayer = HttpApiBuilder.group(WorkerApi, "operations", (handlers) =>
  Effect.map(Operations, ({ healthz, readyz }) =>
    handlers.handle("healthz", () => healthz).handle("readyz", () => readyz)
  )
).pipe(Layer.provide(Operations.Default))
