/**
 * The public status endpoints (`/api/public/v1/*`): no account. Every route names the page by `?page=<slug>`, or is
 * served on the page's custom domain without it. A page that does not exist, is not published, or a monitor or
 * incident that is not on it, answers the uniform 404; a private page answers 401 `PAGE_SIGN_IN_REQUIRED` to anyone
 * but a signed-in viewer. The feed (`incidents.rss`) and the badge (`badge.svg`) are not JSON and sit beside this
 * group.
 *
 * @since 0.2.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import * as Pagination from "../Pagination.js"
import * as PublicStatus from "../PublicStatus.js"

/**
 * The page being asked for: its slug, unless the request comes to the page's custom domain.
 *
 * @since 0.2.0
 * @category schemas
 */
export const PageQuery = { page: Schema.optional(Schema.String) }

/**
 * @since 0.2.0
 * @category schemas
 */
export const HistoryQuery = Schema.Struct({
  ...PageQuery,
  days: Schema.optionalWith(
    Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, PublicStatus.MAX_HISTORY_DAYS)),
    { default: () => PublicStatus.DEFAULT_HISTORY_DAYS }
  )
})

/**
 * @since 0.2.0
 * @category schemas
 */
export const ListQuery = Schema.Struct({ ...PageQuery, ...Pagination.query })

const idPath = Schema.Struct({ id: Schema.String })

const CACHE =
  " Cache-Control: public, max-age=10, stale-while-revalidate=30 (private, no-store for a signed-in viewer of a " +
  "private page)."

/**
 * @since 0.2.0
 * @category groups
 */
export class PublicApi extends HttpApiGroup.make("public")
  .add(
    HttpApiEndpoint.get("status", "/status")
      .setUrlParams(Schema.Struct(PageQuery))
      .addSuccess(PublicStatus.PublicStatus)
      .annotate(
        OpenApi.Description,
        "The page: overall status, components with status and 90-day uptime (time based, null until probed), open " +
          "and recent incidents with impact and severity, active, upcoming and recent maintenance." +
          CACHE
      )
  )
  .add(
    HttpApiEndpoint.get("history", "/components/:id/history")
      .setPath(idPath)
      .setUrlParams(HistoryQuery)
      .addSuccess(PublicStatus.ComponentHistory)
      .annotate(
        OpenApi.Description,
        `One component's day bars (days 1 to 365, default 90), oldest first. A monitor not on the page is 404.${CACHE}`
      )
  )
  .add(
    HttpApiEndpoint.get("incidents", "/incidents")
      .setUrlParams(ListQuery)
      .addSuccess(PublicStatus.PublicIncidentPage)
      .annotate(OpenApi.Description, `Incidents touching the page's components, newest first, paginated.${CACHE}`)
  )
  .add(
    HttpApiEndpoint.get("incident", "/incidents/:id")
      .setPath(idPath)
      .setUrlParams(Schema.Struct(PageQuery))
      .addSuccess(PublicStatus.PublicIncidentDetail)
      .annotate(
        OpenApi.Description,
        `One incident with its public timeline. An incident not touching the page is 404.${CACHE}`
      )
  )
  .add(
    HttpApiEndpoint.get("maintenance", "/maintenance")
      .setUrlParams(Schema.Struct(PageQuery))
      .addSuccess(PublicStatus.PublicMaintenanceList)
      .annotate(
        OpenApi.Description,
        `Running windows and those starting in the next 30 days, each with its updates.${CACHE}`
      )
  )
  .add(
    HttpApiEndpoint.get("pastMaintenance", "/maintenance/past")
      .setUrlParams(ListQuery)
      .addSuccess(PublicStatus.PublicMaintenancePage)
      .annotate(
        OpenApi.Description,
        `Windows that ended in the last 90 days, newest first, paginated like the incident list.${CACHE}`
      )
  )
  .prefix("/api/public/v1")
  .annotate(OpenApi.Title, "Public status") {}
