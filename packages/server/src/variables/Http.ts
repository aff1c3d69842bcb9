/**
 * The `variables` group: an org's variables (list, read, create, rotate, delete). Every route acts on the
 * caller's org; a variable of another org answers the same 404 as one that does not exist.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { SignalmanApi } from "@signalman/core/api/Api"
import * as ManagedBy from "@signalman/core/ManagedBy"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Authentication from "../auth/Authentication.js"
import { requireOrg } from "../auth/Policy.js"
import { Variables } from "./Variables.js"

export const layer = HttpApiBuilder.group(SignalmanApi, "variables", (handlers) =>
  Effect.map(Variables, (variables) =>
    handlers
      .handle("list", ({ urlParams }) =>
        Effect.gen(function* () {
          const page = yield* variables.list((yield* requireOrg).id, urlParams)
          return { ...page, limit: urlParams.limit, offset: urlParams.offset }
        })
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          return yield* variables.get((yield* requireOrg).id, path.id)
        })
      )
      .handle("create", ({ payload, headers }) =>
        Effect.gen(function* () {
          const managedBy = yield* ManagedBy.fromHeaders(headers)
          return yield* variables.create((yield* requireOrg).id, payload, managedBy)
        })
      )
      .handle("rotate", ({ path, payload, headers }) =>
        Effect.gen(function* () {
          const managedBy = yield* ManagedBy.fromHeaders(headers)
          return yield* variables.rotate((yield* requireOrg).id, path.id, payload.value, managedBy)
        })
      )
      .handle("delete", ({ path }) =>
        Effect.gen(function* () {
          yield* variables.remove((yield* requireOrg).id, path.id)
        })
      )
  )
).pipe(Layer.provide([Variables.Default, Authentication.layer]))
