/**
 * The dashboard: the frame's own routes (its assets, the org switch, the page a form without script reaches) and
 * every page group, with the services they share. `App.ts` mounts `layer` and lists `routes`.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as ApiError from "@signalman/core/ApiError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as ErrorResponse from "../http/ErrorResponse.js"
import type { Route } from "../http/RouteTable.js"
import { safeEqual } from "../infra/Secrets.js"
import { Assets } from "./Assets.js"
import * as IncidentPages from "./incidents/IncidentPages.js"
import * as Layout from "./Layout.js"
import * as LiveEvents from "./live/Events.js"
import * as MaintenancePages from "./maintenance/MaintenancePages.js"
import * as Detail from "./monitors/Detail.js"
import * as Editor from "./monitors/Editor.js"
import * as Overview from "./monitors/Overview.js"
import * as OnCallPages from "./oncall/OnCallPages.js"
import { Pages } from "./Page.js"
import * as RestorePage from "./RestorePage.js"
import * as Settings from "./settings/Settings.js"
import * as StatusPages from "./statuspages/Routes.js"
import { html } from "./Template.js"
import { Viewers } from "./Viewer.js"

const frameRoutes: ReadonlyArray<Route> = [
  { method: "GET", path: "/assets/:file", body: "none" },
  { method: "POST", path: "/dashboard/active-org", body: "json" },
  { method: "POST", path: "/dashboard/js-required", body: "other" }
]

/** Every page group: its routes and its layer. */
const groups = [
  Overview,
  LiveEvents,
  Editor,
  Detail,
  IncidentPages,
  MaintenancePages,
  OnCallPages,
  StatusPages,
  Settings,
  RestorePage
] as const

export const routes: ReadonlyArray<Route> = [...frameRoutes, ...groups.flatMap((group) => group.routes)]

const SwitchBody = Schema.Struct({ slug: Schema.String })

const frame = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const assets = yield* Assets
    const viewers = yield* Viewers

    yield* router.get(
      "/assets/:file",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const pathname = request.url.split("?")[0] ?? ""
        return assets.serve(pathname) ?? HttpServerResponse.text("Not found", { status: 404 })
      })
    )

    // The org the session acts on, switched from the top bar. A write like any other: the session and the CSRF
    // header, or the API's refusals.
    yield* router.post(
      "/dashboard/active-org",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const viewer = yield* viewers.of(request)
        if (viewer === undefined) {
          return yield* ErrorResponse.render(ApiError.make("UNAUTHENTICATED", "Sign in to switch organizations"))
        }
        const csrf = request.headers["x-requested-with"]
        if (csrf === undefined || !safeEqual(csrf, "signalman")) {
          return yield* ErrorResponse.render(
            ApiError.make("CSRF_REQUIRED", "State-changing requests with a session need X-Requested-With: signalman")
          )
        }
        const body = yield* Effect.either(HttpServerRequest.schemaBodyJson(SwitchBody))
        if (body._tag === "Left") {
          return yield* ErrorResponse.render(
            ApiError.make("INVALID_JSON", "The body is { slug }: the organization to switch to", { field: "slug" })
          )
        }
        const switched = yield* viewers.switchOrg(viewer, body.right.slug)
        return switched
          ? HttpServerResponse.empty({ status: 204 })
          : yield* ErrorResponse.render(
              ApiError.make("NOT_FOUND", "You are not a member of that organization", { field: "slug" })
            )
      })
    )

    // A dashboard form posted without its script (script blocked or off): reading works without it, writing does not.
    yield* router.post(
      "/dashboard/js-required",
      Effect.succeed(
        Layout.document(
          assets,
          "JavaScript needed",
          html`<main id="main"><h1>This action needs JavaScript</h1>
<p>Every page of the dashboard reads without JavaScript, but changes are made with it. Turn it on for this site and
try again, or use the <a href="/docs">API</a> or the <code>signalman</code> CLI.</p>
<p><a href="/">Back to monitors</a></p></main>`,
          undefined,
          400
        )
      )
    )
  })
)

export const layer = Layer.mergeAll(frame, ...groups.map((group) => group.layer)).pipe(
  Layer.provide([Pages.Default, Assets.Default, Viewers.Default])
)
