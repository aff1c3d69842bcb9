/**
 * The status pages' screens: the list (`/status-pages`), a page's editor (`/status-pages/<id>`) and its subscribers
 * (`/status-pages/<id>/subscribers`). Each reads through the services the API's handlers use, as they use them
 * (`requireOrg`, then `StatusPages`, `PageComponents`, `ViewerRecords`, the plan from `Plans`), and the org's
 * monitors through `Targets`; the subscribers through `Subscribers`. A page id that is not one, or a page of
 * another org, is the API's 404.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import * as StatusPage from "@signalman/core/StatusPage"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { requireOrg } from "../../auth/Policy.js"
import { HoldsRepo } from "../../holds/Repo.js"
import type { Route } from "../../http/RouteTable.js"
import { Plans } from "../../limits/Plans.js"
import { PageComponents } from "../../statuspages/Components.js"
import { notFound, StatusPages } from "../../statuspages/StatusPages.js"
import { ViewerRecords } from "../../statuspages/ViewerRecords.js"
import * as SubscriptionEndsLayer from "../../subscribers/Ends.js"
import { Subscribers } from "../../subscribers/Subscribers.js"
import { Targets } from "../../targets/Targets.js"
import * as ViewerRecordsLayer from "../../viewers/Records.js"
import { Pages } from "../Page.js"
import { componentViews, monitorsToAdd } from "./Describe.js"
import * as Editor from "./Editor.js"
import * as List from "./List.js"
import * as SubscribersPage from "./SubscribersPage.js"

export const routes: ReadonlyArray<Route> = [
  { method: "GET", path: "/status-pages", body: "none" },
  { method: "GET", path: "/status-pages/:id", body: "none" },
  { method: "GET", path: "/status-pages/:id/subscribers", body: "none" }
]

/** The most one request lists, as the API allows (a plan caps status pages and monitors lower). */
const LIMIT = 500
const SUBSCRIBERS_PER_SCREEN = 100
const VIEWERS_SHOWN = 100

/** The route's page id, or the same 404 as a page of another org. */
const pageId = Effect.flatMap(HttpRouter.params, (params) => {
  const id = Schema.decodeUnknownEither(StatusPage.StatusPageId)(params["id"])
  return Either.isRight(id) ? Effect.succeed(id.right) : Effect.fail(notFound)
})

/** `?offset=` of a list screen: a whole number, else the first screen. */
const offsetOf = Effect.map(HttpServerRequest.ParsedSearchParams, (search) => {
  const raw = search["offset"]
  return typeof raw === "string" && /^\d{1,9}$/.test(raw) ? Number(raw) : 0
})

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const pages = yield* StatusPages
    const components = yield* PageComponents
    const viewerRecords = yield* ViewerRecords
    const subscribers = yield* Subscribers
    const targets = yield* Targets
    const plans = yield* Plans
    const holdsRepo = yield* HoldsRepo
    const { page } = yield* Pages

    /** The org's monitors, by id and name (the picker and the components' own names). */
    const monitorsOf = (org: ActiveOrg) =>
      Effect.map(
        targets.list(org, {
          limit: LIMIT,
          offset: 0,
          tag: undefined,
          enabled: undefined,
          q: undefined,
          managed_by: undefined
        }),
        ({ rows }) => rows.map((row) => ({ id: row.id, name: row.name }))
      )

    yield* router.get(
      "/status-pages",
      page("status-pages", (viewer) =>
        Effect.gen(function* () {
          const org = yield* requireOrg
          const list = yield* pages.list(org, { limit: LIMIT, offset: 0 })
          const plan = yield* plans.forAccount(org.accountId)
          return List.render({
            orgName: viewer.org.name,
            pages: list.data,
            held: yield* holdsRepo.heldPages(org.id),
            owner: org.role === "owner",
            maxPages: plan.quotas.max_status_pages
          })
        })
      )
    )

    yield* router.get(
      "/status-pages/:id",
      page("status-pages", (viewer) =>
        Effect.gen(function* () {
          const org = yield* requireOrg
          const id = yield* pageId
          const statusPage = yield* pages.one(org, id)
          const { data } = yield* components.list(org, id)
          const monitors = yield* monitorsOf(org)
          const plan = yield* plans.forAccount(org.accountId)
          const password = yield* viewerRecords.passwordRecord(org, id)
          const viewers = yield* viewerRecords.list(org, id, { limit: VIEWERS_SHOWN, offset: 0 })
          return Editor.render({
            page: statusPage,
            components: componentViews(data, monitors),
            addable: monitorsToAdd(monitors, data),
            anyMonitor: monitors.length > 0,
            password,
            viewers,
            owner: org.role === "owner",
            orgName: viewer.org.name,
            plan: {
              customDomain: plan.flags.custom_domain_enabled,
              whiteLabel: plan.flags.white_label_enabled,
              privatePages: plan.flags.private_pages_enabled,
              maxLogoBytes: plan.quotas.max_logo_size_bytes
            }
          })
        })
      )
    )

    yield* router.get(
      "/status-pages/:id/subscribers",
      page("status-pages", () =>
        Effect.gen(function* () {
          const org = yield* requireOrg
          const id = yield* pageId
          const statusPage = yield* pages.one(org, id)
          const offset = yield* offsetOf
          const list = yield* subscribers.ofPage(org, id, { limit: SUBSCRIBERS_PER_SCREEN, offset })
          return SubscribersPage.render({ page: statusPage, subscribers: list })
        })
      )
    )
  })
).pipe(
  Layer.provide([
    PageComponents.Default,
    ViewerRecordsLayer.layer,
    Subscribers.Default,
    Targets.Default,
    Plans.Default,
    HoldsRepo.Default
  ]),
  // The private viewers' records end subscriptions through the subscribers' side of this port.
  Layer.provide(SubscriptionEndsLayer.layer)
)
