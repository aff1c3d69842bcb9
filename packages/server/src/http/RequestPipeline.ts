/**
 * The outermost middleware, around every request: the request id, the response headers every answer carries,
 * the access log and in-flight accounting.
 *
 * Effect sends the response before a serve-level middleware sees it, so headers are added through a
 * pre-response handler, and the answers themselves (errors included) are made inside the router by
 * `Conventions`.
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Lifecycle } from "../Lifecycle.js"
import { chooseRequestId, currentRequestId } from "./RequestContext.js"

const JSON_TYPE = "application/json"
const JSON_UTF8 = "application/json; charset=utf-8"

/** service-api.md, Conventions item 4: the Cache-Control of an `/api/v1/*` response follows its method. */
export const cacheControlFor = (method: string, pathname: string): string | undefined => {
  if (!pathname.startsWith("/api/v1/")) return undefined
  if (method === "GET" || method === "HEAD" || method === "OPTIONS") {
    return pathname === "/api/v1/dashboard/summary" ? "private, max-age=5" : "private, max-age=10"
  }
  return "no-store"
}

const quiet = new Set(["/healthz", "/readyz"])

const decorate = (
  response: HttpServerResponse.HttpServerResponse,
  requestId: string,
  cacheControl: string | undefined
): HttpServerResponse.HttpServerResponse => {
  let out = HttpServerResponse.setHeader(response, "x-request-id", requestId)
  if (cacheControl !== undefined && out.headers["cache-control"] === undefined) {
    out = HttpServerResponse.setHeader(out, "cache-control", cacheControl)
  }
  // Effect labels JSON bodies plain application/json; the spec wants the charset spelled out.
  const body = out.body
  if (body._tag === "Uint8Array" && body.contentType === JSON_TYPE) {
    out = HttpServerResponse.setBody(out, { ...body, contentType: JSON_UTF8 })
  }
  return out
}

export const middleware =
  (lifecycle: Lifecycle, maxBodyBytes: number) =>
  <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R | HttpServerRequest.HttpServerRequest> =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const requestId = chooseRequestId(request.headers["x-request-id"])
      const q = request.url.indexOf("?")
      const pathname = q === -1 ? request.url : request.url.slice(0, q)
      const cacheControl = cacheControlFor(request.method, pathname)
      const started = performance.now()
      lifecycle.enter()
      yield* HttpApp.appendPreResponseHandler((_, response) =>
        Effect.succeed(decorate(response, requestId, cacheControl))
      )
      const response = yield* app.pipe(
        HttpIncomingMessage.withMaxBodySize(Option.some(maxBodyBytes)),
        Effect.locally(currentRequestId, requestId),
        Effect.annotateLogs("request_id", requestId),
        Effect.ensuring(Effect.sync(lifecycle.leave))
      )
      const log = quiet.has(pathname) ? Effect.logDebug : Effect.logInfo
      yield* log("Request").pipe(
        Effect.annotateLogs({
          request_id: requestId,
          method: request.method,
          path: pathname,
          status: response.status,
          duration_ms: Math.round((performance.now() - started) * 10) / 10
        })
      )
      return response
    })
