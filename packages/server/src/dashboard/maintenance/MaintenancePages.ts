/**
 * The maintenance pages (`GET /maintenance`, `/maintenance/new`, `/maintenance/<id>`), read through the
 * `Maintenance` service as the `maintenance` API group reads it: lists by status, one window with its updates, scoped
 * to the viewer's org (another org's window is the same 404 as none).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { MaintenanceWindowId } from "@signalman/core/api/Maintenance"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { Route } from "../../http/RouteTable.js"
import { Maintenance, notFound } from "../../maintenance/Maintenance.js"
import { Targets } from "../../targets/Targets.js"
import * as MonitorNames from "../MonitorNames.js"
import { Pages } from "../Page.js"
import { html } from "../Template.js"
import * as Detail from "./Detail.js"
import * as Form from "./Form.js"
import * as List from "./List.js"

export const routes: ReadonlyArray<Route> = [
  { method: "GET", path: "/maintenance", body: "none" },
  { method: "GET", path: "/maintenance/new", body: "none" },
  { method: "GET", path: "/maintenance/:id", body: "none" }
]

const isWindowId = Schema.is(MaintenanceWindowId)

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const maintenance = yield* Maintenance
    const targets = yield* Targets
    const { page } = yield* Pages

    yield* router.get(
      "/maintenance",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const pageNumber = List.pageOf(new URL(request.url, "http://dashboard").searchParams)
        return yield* page("maintenance", (viewer) =>
          Effect.gen(function* () {
            const live = { limit: List.LIVE_LIMIT, offset: 0 }
            const [active, upcoming, past] = yield* Effect.all([
              maintenance.list(viewer.active, { ...live, status: "active" }),
              maintenance.list(viewer.active, { ...live, status: "upcoming" }),
              maintenance.list(viewer.active, {
                limit: List.PAGE_SIZE,
                offset: (pageNumber - 1) * List.PAGE_SIZE,
                status: "past"
              })
            ])
            return List.render({
              orgName: viewer.org.name,
              active: { rows: active.data, total: active.total },
              upcoming: { rows: upcoming.data, total: upcoming.total },
              past: { rows: past.data, total: past.total },
              page: pageNumber,
              monitors: yield* MonitorNames.of(targets, viewer.active)
            })
          })
        )
      })
    )

    yield* router.get(
      "/maintenance/new",
      page("maintenance", (viewer) =>
        Effect.gen(function* () {
          const monitors = yield* MonitorNames.of(targets, viewer.active)
          const now = yield* DateTime.now
          return {
            title: "Schedule maintenance",
            body: html`<p class="breadcrumb"><a href="/maintenance">Maintenance</a></p>
<h1>Schedule maintenance</h1>
<p class="no-js-only note">Scheduling needs JavaScript; turn it on for this site to send the form.</p>
${Form.form({ window: undefined, monitors, now })}`
          }
        })
      )
    )

    yield* router.get(
      "/maintenance/:id",
      Effect.gen(function* () {
        const { id } = yield* HttpRouter.params
        return yield* page("maintenance", (viewer) =>
          Effect.gen(function* () {
            // An id that is no UUID names no window: the same 404, without asking the database.
            if (!isWindowId(id)) return yield* Effect.fail(notFound)
            return Detail.render({
              window: yield* maintenance.one(viewer.active, id),
              monitors: yield* MonitorNames.of(targets, viewer.active),
              viewerId: viewer.user.id,
              now: yield* DateTime.now
            })
          })
        )
      })
    )
  })
).pipe(Layer.provide([Maintenance.Default, Targets.Default]))
