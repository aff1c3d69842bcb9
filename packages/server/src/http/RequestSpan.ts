/**
 * A server span per request handed to the Effect runtime, when tracing is on (`tracing/Tracing.ts`): named
 * `METHOD /route/:template`, with `http.request.method`, `http.route` (the template, never the path: paths hold ids,
 * slugs and share tokens), `http.response.status_code` and `signalman.request_id`, continuing the caller's trace
 * when the request carries a W3C `traceparent` (or B3) header. Everything the handler does (its database queries,
 * a check-now) is a child of it.
 *
 * The platform's own request span stays off (`App.ts`): it records the full URL, its query and every request
 * header but the few it redacts, which here would include share and unsubscribe tokens.
 *
 * The sampler's decision is taken here, before the span is made (`tracing/RootSampling.ts`): a request it does not
 * record runs with Effect's tracer off, so neither its span nor its queries' spans exist, and its error envelope's
 * `trace_id` is the request id. With tracing off, the whole cost is one fiber-ref read per request. Requests the
 * node listener answers itself (`/healthz`, ping URLs, cache hits of public pages: `Liveness.ts`) never reach the
 * runtime and have no span.
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Propagation from "../tracing/Propagation.js"
import * as RootSampling from "../tracing/RootSampling.js"
import type { RouteTable } from "./RouteTable.js"

/** The span attribute that carries the request id (`X-Request-Id`), so a trace can be found from a log line. */
export const REQUEST_ID_ATTRIBUTE = "signalman.request_id"

const pathnameOf = (url: string): string => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

/** The route template a request matches (`HEAD` is served by the `GET` route), if any. */
export const routeOf = (routes: RouteTable, method: string, url: string): string | undefined => {
  const pathname = pathnameOf(url)
  return (routes.find(method, pathname) ?? (method === "HEAD" ? routes.find("GET", pathname) : undefined))?.path
}

export const middleware =
  (routes: RouteTable) =>
  <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R | HttpServerRequest.HttpServerRequest> =>
    Effect.withFiberRuntime((fiber) => {
      if (!fiber.getFiberRef(FiberRef.currentTracerEnabled)) return app
      const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
      const route = routeOf(routes, request.method, request.url)
      const attributes: Record<string, string> = { "http.request.method": request.method }
      if (route !== undefined) attributes["http.route"] = route
      const requestId = request.headers["x-request-id"]
      if (requestId !== undefined) attributes[REQUEST_ID_ATTRIBUTE] = requestId
      // The semantic conventions' name: the method and the route, or the method alone when no route matched.
      const name = route === undefined ? request.method : `${request.method} ${route}`
      const parent = Propagation.parentOf(request.headers)
      const decided = RootSampling.decide(fiber, name, "server", parent)
      // Not to be recorded: the handler runs with the tracer off, so neither this span nor a child of it is made.
      if (decided === undefined) return Effect.withTracerEnabled(app, false)
      return Effect.useSpan(
        name,
        { parent, kind: "server", attributes, captureStackTrace: false, context: decided },
        (span) =>
          Effect.tap(Effect.withParentSpan(app, span), (response) => {
            span.attribute("http.response.status_code", response.status)
            // Server errors mark the span as failed (semantic conventions: error.type); 4xx are the caller's.
            if (response.status >= 500) span.attribute("error.type", String(response.status))
          })
      )
    })
