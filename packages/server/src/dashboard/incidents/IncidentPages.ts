/**
 * The incident pages (`GET /incidents`, `GET /incidents/<id>`), read through the services the `incidents` API group
 * calls, with the same shaping: `Incidents.list` and `Incidents.detail` scoped to the viewer's org (another org's
 * incident is the same 404 as none), the notifier's delivery log, the postmortem, and the plan's narration flag as
 * `IncidentNarration.planGate` reads it; an incident's escalation names its targets by the org's members, schedules
 * and channels.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { IncidentId } from "@signalman/core/api/Incidents"
import * as PlanLimits from "@signalman/core/PlanLimits"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { Channels } from "../../channels/Channels.js"
import type { Route } from "../../http/RouteTable.js"
import { Incidents, notFound } from "../../incidents/Incidents.js"
import { DeliveryLog, notifierDeliveryLog } from "../../incidents/Seams.js"
import { Plans } from "../../limits/Plans.js"
import { Deliveries } from "../../notify/Deliveries.js"
import { Schedules } from "../../oncall/Schedules.js"
import { Orgs } from "../../orgs/Orgs.js"
import { Targets } from "../../targets/Targets.js"
import * as MonitorNames from "../MonitorNames.js"
import * as People from "../oncall/People.js"
import { Pages, type PageViewer } from "../Page.js"
import * as Detail from "./Detail.js"
import * as Filter from "./Filter.js"
import * as List from "./List.js"

export const routes: ReadonlyArray<Route> = [
  { method: "GET", path: "/incidents", body: "none" },
  { method: "GET", path: "/incidents/:id", body: "none" }
]

const isIncidentId = Schema.is(IncidentId)

// Every schedule and channel of an org fits one read: the plans' quotas keep them far below this.
const EVERYTHING = 500

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const incidents = yield* Incidents
    const targets = yield* Targets
    const plans = yield* Plans
    const deliveryLog = yield* DeliveryLog
    const orgs = yield* Orgs
    const schedules = yield* Schedules
    const channels = yield* Channels
    const { page } = yield* Pages

    // The escalation's targets by name: the org's members, schedules and channels, as the on-call pages read them.
    const namesOf = (viewer: PageViewer) =>
      Effect.all({
        people: Effect.map(orgs.members(viewer.user.id, viewer.org.id), People.make),
        schedules: Effect.map(schedules.list(viewer.active, EVERYTHING, 0), (listed) => listed.data),
        channels: Effect.map(channels.list(viewer.active, { limit: EVERYTHING, offset: 0 }), (listed) => listed.data)
      })

    const narrationOf = (accountId: Parameters<typeof plans.forAccount>[0]) =>
      Effect.map(plans.forAccount(accountId), (plan) => PlanLimits.includes(plan, "incident_narration"))

    yield* router.get(
      "/incidents",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const filter = Filter.parse(new URL(request.url, "http://dashboard").searchParams)
        return yield* page("incidents", (viewer) =>
          Effect.gen(function* () {
            const { rows, total } = yield* incidents.list(viewer.active.id, {
              limit: Filter.PAGE_SIZE,
              offset: (filter.page - 1) * Filter.PAGE_SIZE,
              status: filter.status,
              target_id: filter.target_id,
              severity: filter.severity
            })
            return List.render({
              orgName: viewer.org.name,
              filter,
              rows,
              total,
              monitors: yield* MonitorNames.of(targets, viewer.active),
              narration: yield* narrationOf(viewer.active.accountId),
              now: yield* DateTime.now
            })
          })
        )
      })
    )

    yield* router.get(
      "/incidents/:id",
      Effect.gen(function* () {
        const { id } = yield* HttpRouter.params
        return yield* page("incidents", (viewer) =>
          Effect.gen(function* () {
            // An id that is no UUID names no incident: the same 404, without asking the database.
            const incident = isIncidentId(id) ? yield* incidents.detail(viewer.active.id, id) : undefined
            if (incident === undefined) return yield* Effect.fail(notFound)
            return Detail.render({
              incident,
              deliveries: yield* deliveryLog.forIncident(incident.id),
              postmortem: yield* incidents.postmortem(viewer.active.id, incident.id),
              monitors: yield* MonitorNames.of(targets, viewer.active),
              narration: yield* narrationOf(viewer.active.accountId),
              names: yield* namesOf(viewer),
              viewerId: viewer.user.id,
              now: yield* DateTime.now
            })
          })
        )
      })
    )
  })
).pipe(
  Layer.provide([
    Incidents.Default,
    Targets.Default,
    Plans.Default,
    Orgs.Default,
    Schedules.Default,
    Channels.Default,
    notifierDeliveryLog.pipe(Layer.provide(Deliveries.Default))
  ])
)
