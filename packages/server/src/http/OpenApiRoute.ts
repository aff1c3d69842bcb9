/**
 * `GET /api/openapi.json`: the OpenAPI 3.1 document generated from the contract, serialised once at boot.
 */
import type * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"

export const PATH = "/api/openapi.json"

export const layer = (api: HttpApi.HttpApi.Any): Layer.Layer<never> => {
  const body = JSON.stringify(OpenApi.fromApi(api as HttpApi.HttpApi.AnyWithProps))
  return HttpApiBuilder.Router.use((router) =>
    router.get(
      PATH,
      Effect.succeed(
        HttpServerResponse.text(body, {
          contentType: "application/json; charset=utf-8",
          headers: { "cache-control": "public, max-age=300" }
        })
      )
    )
  )
}
