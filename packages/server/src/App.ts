/**
 * The service as one layer, per role: `api` serves the HTTP API, docs and (later) pages; `worker` runs the
 * background work and answers only the operations probes; `all` does both in one process.
 */

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiScalar from "@effect/platform/HttpApiScalar"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import type * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { SignalmanApi } from "@signalman/core/api/Api"
import * as Layer from "effect/Layer"
import * as Config from "./Config.js"
import * as Database from "./database/Database.js"
import * as Liveness from "./http/Liveness.js"
import * as OpenApiRoute from "./http/OpenApiRoute.js"
import * as Serve from "./http/Serve.js"
import * as Shutdown from "./http/Shutdown.js"
import { Lifecycle } from "./Lifecycle.js"
import * as Logging from "./Logging.js"
import * as Operations from "./operations/Http.js"

export const DOCS_PATH = "/docs"

const http = (config: Config.Values) => {
  const server = new Liveness.Server({ keepAliveTimeout: 65_000 })
  const maxBodyBytes = config["server.max_body_bytes"]
  const serve =
    config.role === "worker"
      ? Serve.layer(
          Operations.WorkerApi,
          HttpApiBuilder.api(Operations.WorkerApi).pipe(Layer.provide(Operations.workerLayer)),
          {
            maxBodyBytes
          }
        )
      : Serve.layer(
          SignalmanApi,
          Layer.mergeAll(
            OpenApiRoute.layer(SignalmanApi),
            HttpApiScalar.layer({ path: DOCS_PATH, scalar: { withDefaultFonts: false } })
          ).pipe(Layer.provideMerge(HttpApiBuilder.api(SignalmanApi)), Layer.provide(Operations.layer)),
          {
            maxBodyBytes,
            extraRoutes: [
              { method: "GET", path: DOCS_PATH, body: "none" },
              { method: "GET", path: OpenApiRoute.PATH, body: "none" }
            ]
          }
        )
  return Shutdown.layer(server).pipe(
    Layer.provide(serve),
    // No trace exporter is configured, so a span per request would be work nobody reads.
    Layer.provide(Layer.locallyScoped(HttpMiddleware.currentTracerDisabledWhen, () => true)),
    Layer.provideMerge(NodeHttpServer.layer(() => server, { port: config["server.port"], host: config["server.host"] }))
  )
}

/** Everything a process of the given configuration runs; the output names the bound HTTP address. */
export const layer = (config: Config.Values): Layer.Layer<HttpServer.HttpServer, unknown> =>
  http(config).pipe(
    Layer.provide(Database.layer),
    Layer.provide(Lifecycle.Default),
    Layer.provide(Config.layer(config)),
    Layer.provide(Logging.layer(config))
  )
