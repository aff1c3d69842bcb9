/**
 * `GET /metrics`: the Prometheus text of this process (decisions.md, "Discovery, MCP and operations"). Mounted only
 * when `metrics.enabled` (otherwise the path is unknown: 404 like any other); with `metrics.token` set, the request
 * must carry `Authorization: Bearer <token>`, compared in constant time, or it is 401 in the API's envelope.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as ApiError from "@signalman/core/ApiError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppConfig } from "../config/Config.js"
import { safeEqual } from "../infra/Secrets.js"
import * as Exposition from "./Exposition.js"
import { Scrape } from "./Scrape.js"

export const PATH = "/metrics"

/** The route as the server's route table knows it (405 for other methods, the `route` label). */
export const routes = [{ method: "GET", path: PATH, body: "none" }] as const

const BEARER = /^Bearer\s+(\S+)\s*$/i

/** Whether the request carries the bearer secret. */
const authorized = (request: HttpServerRequest.HttpServerRequest, secret: string): boolean => {
  const presented = BEARER.exec(request.headers["authorization"] ?? "")?.[1]
  return presented !== undefined && safeEqual(presented, secret)
}

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const scrape = yield* Scrape
    const secret = config["metrics.token"]
    yield* router.get(
      PATH,
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (secret !== undefined && !authorized(request, secret)) {
          return yield* Effect.fail(ApiError.make("UNAUTHENTICATED", "The metrics token is missing or wrong"))
        }
        const text = yield* scrape.text
        return HttpServerResponse.text(text, {
          contentType: Exposition.CONTENT_TYPE,
          headers: { "cache-control": "no-store" }
        })
      })
    )
  })
).pipe(Layer.provide(Scrape.Default))
