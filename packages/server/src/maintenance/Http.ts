/**
 * The `maintenance` group: an org's maintenance windows (list by status, read, schedule, edit, cancel, post
 * updates). Every route acts on the caller's org; a window of another org answers the same 404 as one that does
 * not exist.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { SignalmanApi } from "@signalman/core/api/Api"
import { Caller } from "@signalman/core/api/Authentication"
import * as ManagedBy from "@signalman/core/ManagedBy"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Authentication from "../auth/Authentication.js"
import { requireOrg } from "../auth/Policy.js"
import { writeSource } from "../http/WriteSource.js"
import { Plans } from "../limits/Plans.js"
import { Maintenance } from "./Maintenance.js"

export const layer = HttpApiBuilder.group(SignalmanApi, "maintenance", (handlers) =>
  Effect.gen(function* () {
    const maintenance = yield* Maintenance
    const plans = yield* Plans

    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.gen(function* () {
          const org = yield* requireOrg
          const page = yield* maintenance.list(org, urlParams)
          return { data: page.data, total: page.total, limit: urlParams.limit, offset: urlParams.offset }
        })
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          return yield* maintenance.one(yield* requireOrg, path.id)
        })
      )
      .handle("create", ({ payload, headers }) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          const org = yield* requireOrg
          const plan = yield* plans.forAccount(org.accountId)
          const managedBy = yield* ManagedBy.fromHeaders(headers)
          const created = yield* maintenance.create(org, caller.user.id, plan, payload, yield* writeSource, managedBy)
          yield* HttpApp.appendPreResponseHandler((_, response) =>
            Effect.succeed(HttpServerResponse.setHeader(response, "location", `/api/v1/maintenance/${created.id}`))
          )
          return created
        })
      )
      .handle("update", ({ path, payload, headers }) =>
        Effect.gen(function* () {
          const managedBy = yield* ManagedBy.fromHeaders(headers)
          return yield* maintenance.update(yield* requireOrg, path.id, payload, yield* writeSource, managedBy)
        })
      )
      .handle("delete", ({ path }) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          return yield* maintenance.cancel(yield* requireOrg, path.id, caller.user.id, yield* writeSource)
        })
      )
      .handle("postUpdate", ({ path, payload }) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          return yield* maintenance.postUpdate(yield* requireOrg, path.id, caller.user.id, payload)
        })
      )
  })
).pipe(Layer.provide([Maintenance.Default, Plans.Default, Authentication.layer]))
