/**
 * The outermost middleware, around every request: the client's address behind trusted proxies and the access log.
 *
 * The request id, the headers every answer carries and the in-flight accounting are the listener's
 * (`ResponseHeaders`, `Liveness.Server`), so a request whose access line is filtered out (any level above `info`)
 * passes through here untouched: whether it is logged is decided before it runs, and costs nothing when it is not.
 * Log lines get the request id from the logger (`Logging.ts`), not from an annotation made per request.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import type * as ClientAddress from "./ClientAddress.js"

const quiet = new Set(["/healthz", "/readyz"])

const pathnameOf = (url: string): string => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

/** The body-size ceiling (`server.max_body_bytes`), installed once for the server. */
export const layer = (maxBodyBytes: number): Layer.Layer<HttpIncomingMessage.MaxBodySize> =>
  Layer.succeed(HttpIncomingMessage.MaxBodySize, Option.some(FileSystem.Size(maxBodyBytes)))

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
  (clientAddress?: ClientAddress.Resolve) =>
  <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R | HttpServerRequest.HttpServerRequest> =>
    Effect.withFiberRuntime((fiber) => {
      const received = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
      const request = clientAddress === undefined ? received : throughProxies(received, clientAddress)
      const handled =
        request === received ? app : Effect.provideService(app, HttpServerRequest.HttpServerRequest, request)
      const pathname = pathnameOf(request.url)
      const level = quiet.has(pathname) ? LogLevel.Debug : LogLevel.Info
      if (!LogLevel.lessThanEqual(fiber.getFiberRef(FiberRef.currentMinimumLogLevel), level)) return handled
      const started = performance.now()
      return Effect.onExit(handled, (exit) =>
        exit._tag === "Failure"
          ? Effect.void
          : Effect.logWithLevel(level, "Request").pipe(
              Effect.annotateLogs({
                method: request.method,
                path: pathname,
                status: exit.value.status,
                duration_ms: Math.round((performance.now() - started) * 10) / 10
              })
            )
      )
    })
