/**
 * The operator surface's guard: the static `operator.admin_token` bearer secret, compared in constant time. While
 * the setting is unset every route answers 404, so an instance without an operator shows no sign of the surface.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as ApiError from "@signalman/core/ApiError"
import { OperatorAuthentication } from "@signalman/core/api/Operator"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppConfig } from "../config/Config.js"
import { safeEqual } from "../infra/Secrets.js"

export const layer = Layer.effect(
  OperatorAuthentication,
  Effect.map(AppConfig, (config) => {
    const secret = config["operator.admin_token"]
    return Effect.gen(function* () {
      if (secret === undefined) return yield* Effect.fail(ApiError.make("NOT_FOUND", "Not found"))
      const request = yield* HttpServerRequest.HttpServerRequest
      const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers["authorization"] ?? "")
      if (match?.[1] === undefined || !safeEqual(match[1], secret)) {
        return yield* Effect.fail(ApiError.make("UNAUTHENTICATED", "The operator token is missing or wrong"))
      }
    })
  })
)
