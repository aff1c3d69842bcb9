/**
 * Serves an `HttpApi` with the request pipeline and the conventions around it. The service's API and a worker's
 * probes-only API are both served through here, so every route gets the same envelope, headers and refusals.
 */
import type * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { AddressRange } from "../config/AddressRange.js"
import * as HttpMetrics from "../metrics/HttpMetrics.js"
import { Metrics } from "../metrics/Metrics.js"
import * as RouteTemplates from "../metrics/RouteTemplates.js"
import * as ClientAddress from "./ClientAddress.js"
import * as Conventions from "./Conventions.js"
import * as RequestPipeline from "./RequestPipeline.js"
import * as RequestSpan from "./RequestSpan.js"
import * as RouteTable from "./RouteTable.js"

export interface Options {
  readonly maxBodyBytes: number
  /** `server.trusted_proxies`: when any, the client's address is read from `X-Forwarded-For` behind them. */
  readonly trustedProxies?: ReadonlyArray<AddressRange>
  /** Routes mounted beside the contract (the docs, the OpenAPI document), known for 405 answers. */
  readonly extraRoutes?: ReadonlyArray<RouteTable.Route>
}

/**
 * `implementation` provides `HttpApi.Api` (from `HttpApiBuilder.api` with the groups) and any extra routes.
 */
export const layer = <E, R>(
  api: HttpApi.HttpApi.Any,
  implementation: Layer.Layer<HttpApi.Api, E, R>,
  options: Options
) => {
  const all = [...RouteTable.fromApi(api), ...(options.extraRoutes ?? [])]
  const routes = RouteTable.make(all)
  const pipeline = RequestPipeline.middleware(
    options.trustedProxies === undefined || options.trustedProxies.length === 0
      ? undefined
      : ClientAddress.resolver(options.trustedProxies)
  )
  // The span inside the pipeline: it sees the client's address the pipeline settled, and the access log line
  // written after it ends is the request's, not the span's.
  const traced = RequestSpan.middleware(routes)
  // Requests are measured around the pipeline when metrics are enabled (decided once, here).
  const serve = Effect.map(Metrics, (recorder) =>
    HttpApiBuilder.serve(HttpMetrics.middleware(recorder, RouteTemplates.make(all), (app) => pipeline(traced(app))))
  )
  return Layer.unwrapEffect(serve).pipe(
    Layer.provide(implementation),
    Layer.provide(Conventions.layer(routes, options.maxBodyBytes)),
    Layer.provide(RequestPipeline.layer(options.maxBodyBytes))
  )
}
