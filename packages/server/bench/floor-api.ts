/**
 * The framework floor for `bench/run.ts`: the least an `HttpApi` endpoint costs on this machine. One group, one
 * `GET /healthz` endpoint with the contract's own `Health` schema, served by `HttpApiBuilder.serve()` on
 * `@effect/platform-node` with no middleware, no database and no logging; the handler returns a constant.
 *
 * Every `/api/v1/*` route of Signalman runs on this stack, so no such route can answer faster than this server
 * does; the runner reports `/me` against it to show how much of the gap to `/healthz` (answered before the Effect
 * runtime) is the framework's and how much is Signalman's own work.
 *
 * The floor gets the server options Signalman's own server has (`App.ts`): no span per request (no trace exporter
 * is configured) and the same keep-alive timeout, so the ratio compares the work done per request and not a
 * setting one side has and the other lacks.
 *
 * Env: `PORT` (required; the runner picks a free one) and `HOST` (default 127.0.0.1, loopback only).
 */
import { createServer } from "node:http"
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Health } from "@signalman/core/api/Operations"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const port = Number(process.env["PORT"])
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  process.stderr.write(`floor-api: PORT must be a port number, got ${String(process.env["PORT"])}\n`)
  process.exit(1)
}
const host = process.env["HOST"] ?? "127.0.0.1"

const Api = HttpApi.make("floor").add(
  HttpApiGroup.make("floor").add(HttpApiEndpoint.get("healthz", "/healthz").addSuccess(Health))
)
const ok = new Health({ status: "ok" })
const Floor = HttpApiBuilder.group(Api, "floor", (handlers) => handlers.handle("healthz", () => Effect.succeed(ok)))

HttpApiBuilder.serve().pipe(
  Layer.provide(HttpApiBuilder.api(Api).pipe(Layer.provide(Floor))),
  Layer.provide(Layer.locallyScoped(HttpMiddleware.currentTracerDisabledWhen, () => true)),
  Layer.provide(NodeHttpServer.layer(() => createServer({ keepAliveTimeout: 65_000 }), { port, host })),
  Layer.launch,
  // SIGTERM from the runner interrupts the launch and closes the server.
  NodeRuntime.runMain
)
