/**
 * The outermost middleware, around every request: the request id, the response headers every answer carries,
 * the access log and in-flight accounting.
 *
 * Effect sends the response before a serve-level middleware sees it, so headers are added through a
 * pre-response handler, and the answers themselves (errors included) are made inside the router by
 * `Conventions`.
 *
 * This runs for every request, so it does per request only what depends on the request: one fiber-local value
 * (the request id, which the error envelope, the audit log and every log line read), one exit hook (the in-flight
 * count and the access log). What is the same for every request is installed once for the server by `layer`: the
 * pre-response handler that decorates the answer and the body-size ceiling. Log lines get the request id from the
 * logger (`Logging.ts`), not from an annotation made per request.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import { identity } from "effect/Function"
import * as Layer from "effect/Layer"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import type { Lifecycle } from "../Lifecycle.js"
import type * as ClientAddress from "./ClientAddress.js"
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

const pathnameOf = (url: string): string => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

/** The answer with the request id, the method's default Cache-Control and the JSON charset, built in one step. */
export const decorate = (
  response: HttpServerResponse.HttpServerResponse,
  requestId: string,
  cacheControl: string | undefined
): HttpServerResponse.HttpServerResponse => {
  const headers: Record<string, string> = { ...response.headers, "x-request-id": requestId }
  if (cacheControl !== undefined && headers["cache-control"] === undefined) headers["cache-control"] = cacheControl
  const body = response.body
  // Effect labels JSON bodies plain application/json; the spec wants the charset spelled out.
  if (body._tag === "Uint8Array" && body.contentType === JSON_TYPE) {
    return HttpServerResponse.uint8Array(body.body, {
      status: response.status,
      ...(response.statusText === undefined ? {} : { statusText: response.statusText }),
      headers,
      cookies: response.cookies,
      contentType: JSON_UTF8
    })
  }
  return HttpServerResponse.setHeaders(response, headers)
}

const decorateHandler = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse
): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
  Effect.map(FiberRef.get(currentRequestId), (requestId) =>
    decorate(
      response,
      requestId ?? chooseRequestId(request.headers["x-request-id"]),
      cacheControlFor(request.method, pathnameOf(request.url))
    )
  )

/**
 * What every request of the server shares, installed once: the decorating pre-response handler and the body-size
 * ceiling (`server.max_body_bytes`). Provide it to the layer that serves the app.
 */
export const layer = (maxBodyBytes: number): Layer.Layer<HttpIncomingMessage.MaxBodySize> =>
  Layer.merge(
    Layer.locallyScoped(HttpApp.currentPreResponseHandlers, Option.some(decorateHandler)),
    Layer.succeed(HttpIncomingMessage.MaxBodySize, Option.some(FileSystem.Size(maxBodyBytes)))
  )

/**
 * `clientAddress` is given when `server.trusted_proxies` lists any: a request that came through one of them is
 * handled with the client's address (from `X-Forwarded-For`) as its `remoteAddress`, so everything keyed on the
 * address sees the client rather than the proxy.
 */
// A modified request, provided in place of the received one, as the platform's own `xForwardedHeaders` middleware
// does (which believes the header from anyone, hence not used). The platform's outer handler then offers the
// response to the node response a second time; it finds it ended and does nothing.
const throughProxies = (
  request: HttpServerRequest.HttpServerRequest,
  clientAddress: ClientAddress.Resolve
): HttpServerRequest.HttpServerRequest => {
  const peer = Option.getOrUndefined(request.remoteAddress)
  const client = clientAddress(peer, request.headers["x-forwarded-for"])
  return client === undefined || client === peer ? request : request.modify({ remoteAddress: client })
}

export const middleware =
  (lifecycle: Lifecycle, clientAddress?: ClientAddress.Resolve) =>
  <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R | HttpServerRequest.HttpServerRequest> =>
    Effect.withFiberRuntime((fiber) => {
      const received = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
      const request = clientAddress === undefined ? received : throughProxies(received, clientAddress)
      const requestId = chooseRequestId(request.headers["x-request-id"])
      const pathname = pathnameOf(request.url)
      const level = quiet.has(pathname) ? LogLevel.Debug : LogLevel.Info
      // Decided before the request runs, so a filtered-out access log costs nothing at all.
      const logged = LogLevel.lessThanEqual(fiber.getFiberRef(FiberRef.currentMinimumLogLevel), level)
      const started = performance.now()
      lifecycle.enter()
      return app.pipe(
        request === received ? identity : Effect.provideService(HttpServerRequest.HttpServerRequest, request),
        Effect.onExit((exit) => {
          lifecycle.leave()
          if (!logged || exit._tag === "Failure") return Effect.void
          return Effect.logWithLevel(level, "Request").pipe(
            Effect.annotateLogs({
              method: request.method,
              path: pathname,
              status: exit.value.status,
              duration_ms: Math.round((performance.now() - started) * 10) / 10
            })
          )
        }),
        Effect.locally(currentRequestId, requestId)
      )
    })
