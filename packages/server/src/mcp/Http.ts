/**
 * The MCP server's routes, beside the contract: `POST /mcp` (the Streamable HTTP transport; GET and DELETE are 405
 * through the route table, as the transport allows when the server offers no stream) and the server card. Mounted
 * only when `mcp.enabled`, so otherwise both are the ordinary 404.
 *
 * `POST /mcp` checks, in order: the `Origin` (`Origins`), then the caller exactly as `/api/v1` does (the
 * `Authenticator`: the token, its org binding, revocation, the `api_reads` budget), then hands the request to the
 * SDK with the caller's tools. Refusals before the SDK are the API's envelopes.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as ApiError from "@signalman/core/ApiError"
import { Caller } from "@signalman/core/api/Authentication"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import { Abuse } from "../abuse/Abuse.js"
import { Authenticator } from "../auth/Authentication.js"
import { AppConfig, publicBaseUrl } from "../config/Config.js"
import { CallerMonitors } from "../engine/CallerMonitors.js"
import * as ErrorResponse from "../http/ErrorResponse.js"
import type { Route } from "../http/RouteTable.js"
import { CallerIncidents } from "../incidents/CallerIncidents.js"
import { Incidents } from "../incidents/Incidents.js"
import * as Writing from "../incidents/Writing.js"
import { Plans } from "../limits/Plans.js"
import { Changes } from "../targets/Changes.js"
import { Targets } from "../targets/Targets.js"
import { Variables } from "../variables/Variables.js"
import * as Origins from "./Origins.js"
import * as Protocol from "./Protocol.js"
import * as ServerCard from "./ServerCard.js"
import * as Tools from "./Tools.js"

export const routes: ReadonlyArray<Route> = [
  // The SDK reads the body and answers a wrong content type or a bad message as the protocol says.
  { method: "POST", path: ServerCard.ENDPOINT, body: "other" },
  { method: "GET", path: ServerCard.PATH, body: "none" }
]

const unreadable = ApiError.make("VALIDATION_FAILED", "The request could not be read", { field: "body" })

const routesLayer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const authenticator = yield* Authenticator
    const base = yield* publicBaseUrl
    const tools = Tools.catalogue()
    // The services the tools call, built once with the routes; the request and the caller are added per request.
    const services = yield* Effect.context<Exclude<Tools.Services, Caller | HttpServerRequest.HttpServerRequest>>()
    const mcpOrigin = config["mcp.origin"]
    const allowed = Origins.own([base, config["auth.public_base_url"], mcpOrigin])
    const card = JSON.stringify(ServerCard.card(base, tools))

    yield* router.post(
      ServerCard.ENDPOINT,
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const refused = Origins.refusal(request.headers["origin"], allowed)
        if (refused !== undefined) return yield* Effect.fail(refused)
        const caller = yield* authenticator.authenticate(request)
        const web = yield* Effect.mapError(HttpServerRequest.toWeb(request), () => unreadable)
        // The tools run in this request's context, with the caller in it as the API's handlers have it.
        const runtime = yield* Effect.runtime<Tools.Services>().pipe(
          Effect.provideService(Caller, caller),
          Effect.provide(services)
        )
        const response = yield* Effect.promise(() =>
          Protocol.answer(web, {
            tools,
            caller,
            run: Runtime.runPromise(runtime),
            maxBodyBytes: config["server.max_body_bytes"]
          })
        )
        return HttpServerResponse.fromWeb(response)
      }).pipe(Effect.catchAll(ErrorResponse.render))
    )

    yield* router.get(
      ServerCard.PATH,
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const elsewhere = ServerCard.redirectFor(request.headers["host"], mcpOrigin)
        if (elsewhere !== undefined) {
          return HttpServerResponse.empty({ status: 308, headers: { location: elsewhere } })
        }
        return HttpServerResponse.text(card, {
          contentType: "application/json; charset=utf-8",
          // Read by clients and crawlers from anywhere, before any sign-in.
          headers: { "cache-control": "public, max-age=300", "access-control-allow-origin": "*" }
        })
      })
    )
  })
)

/** The routes with the services the tools call, the same values the API's groups provide. */
export const layer = routesLayer.pipe(
  Layer.provide([
    Authenticator.Default,
    CallerMonitors.Default,
    CallerIncidents.Default,
    Changes.Default,
    Targets.Default
  ]),
  Layer.provide([Incidents.Default, Writing.layer, Plans.Default, Variables.Default]),
  Layer.provide(Abuse.Default)
)
