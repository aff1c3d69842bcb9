/**
 * The `variables` group: an org's variables (list, read, create, rotate, delete). Every route acts on the
 * caller's org; a variable of another org answers the same 404 as one that does not exist.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as ApiError from "@signalman/core/ApiError"
import { SignalmanApi } from "@signalman/core/api/Api"
import * as VariableRefs from "@signalman/core/Variables"
import * as Effect from "effect/Effect"
import { requireOrg, requireScope } from "../auth/Policy.js"
import { Variables } from "./Variables.js"

const notFound = ApiError.make("NOT_FOUND", "No such variable")

export const layer = HttpApiBuilder.group(SignalmanApi, "variables", (handlers) =>
  Effect.gen(function* () {
    const variables = yield* Variables

    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.gen(function* () {
          yield* requireScope("variables:read")
          const org = yield* requireOrg
          const page = yield* variables.list(org.id, urlParams)
          return {
            data: yield* Effect.forEach(page.rows, variables.show),
            total: page.total,
            limit: urlParams.limit,
            offset: urlParams.offset
          }
        })
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          yield* requireScope("variables:read")
          const org = yield* requireOrg
          const row = yield* variables.one(org.id, path.id)
          return row === undefined ? yield* Effect.fail(notFound) : yield* variables.show(row)
        })
      )
      .handle("create", ({ payload }) =>
        Effect.gen(function* () {
          yield* requireScope("variables:write")
          const org = yield* requireOrg
          if (!VariableRefs.KEY_PATTERN.test(payload.key)) {
            return yield* Effect.fail(
              ApiError.make(
                "INVALID_VARIABLE_KEY",
                "A key starts with a lowercase letter followed by up to 62 lowercase letters, digits or underscores",
                { field: "key", details: { pattern: VariableRefs.KEY_PATTERN.source } }
              )
            )
          }
          const outcome = yield* variables.create(org.id, payload)
          if (outcome._tag === "Exists") {
            return yield* Effect.fail(
              ApiError.make("VARIABLE_KEY_EXISTS", `This org already has a variable ${payload.key}`, { field: "key" })
            )
          }
          return yield* variables.show(outcome.row)
        })
      )
      .handle("rotate", ({ path, payload }) =>
        Effect.gen(function* () {
          yield* requireScope("variables:write")
          const org = yield* requireOrg
          const row = yield* variables.rotate(org.id, path.id, payload.value)
          return row === undefined ? yield* Effect.fail(notFound) : yield* variables.show(row)
        })
      )
      .handle("delete", ({ path }) =>
        Effect.gen(function* () {
          yield* requireScope("variables:delete")
          const org = yield* requireOrg
          const outcome = yield* variables.remove(org.id, path.id)
          switch (outcome._tag) {
            case "Deleted":
              return
            case "NotFound":
              return yield* Effect.fail(notFound)
            case "InUse":
              return yield* Effect.fail(
                ApiError.make(
                  "VARIABLE_IN_USE",
                  `${outcome.row.used_by} monitor(s) reference {{${outcome.row.key}}}: change them first`,
                  { details: { used_by: outcome.row.used_by } }
                )
              )
          }
        })
      )
  })
)
