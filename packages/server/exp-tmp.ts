import * as Http from "node:http"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const res = HttpServerResponse.unsafeJson({ status: "ok" })
const app = HttpRouter.empty.pipe(HttpRouter.get("/healthz", Effect.succeed(res)))
const tracing = process.env.TRACE !== "0"
const L = HttpServer.serve(app).pipe(
  tracing ? (x) => x : HttpServer.withLogAddress,
  Layer.provide(NodeHttpServer.layer(() => Http.createServer(), { port: 18181, host: "127.0.0.1" })),
  tracing ? (x) => x : Layer.provide(Layer.locallyScoped(HttpMiddleware.currentTracerDisabledWhen, () => true))
)
NodeRuntime.runMain(Layer.launch(L))
