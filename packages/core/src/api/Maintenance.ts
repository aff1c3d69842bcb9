/**
 * Maintenance windows (`/api/v1/maintenance*`): planned work on an org's monitors, shown on status pages and, with
 * `suppress_alerts`, keeping the covered monitors' alerts quiet while it runs. The lifecycle rules are the pure
 * functions of `MaintenanceWindow`; this module is the wire: bodies, the window as answered, and the routes.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import * as ApiError from "../ApiError.js"
import { Instant as InstantSchema } from "../Instant.js"
import * as MaintenanceWindow from "../MaintenanceWindow.js"
import * as ManagedBy from "../ManagedBy.js"
import * as Pagination from "../Pagination.js"
import * as RequestBody from "../RequestBody.js"
import { TargetId, WriteSource } from "../Target.js"
import { atMost } from "../TextLength.js"
import { Authentication } from "./Authentication.js"
import { requires } from "./RequiredScope.js"

/**
 * @since 0.1.0
 * @category ids
 */
export const MaintenanceWindowId = Schema.UUID.pipe(Schema.brand("MaintenanceWindowId"))

/**
 * @since 0.1.0
 * @category ids
 */
export type MaintenanceWindowId = typeof MaintenanceWindowId.Type

/**
 * @since 0.1.0
 * @category ids
 */
export const MaintenanceUpdateId = Schema.UUID.pipe(Schema.brand("MaintenanceUpdateId"))

/**
 * The most characters a title may hold.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_TITLE_LENGTH = 200

/**
 * The most characters a description may hold.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_DESCRIPTION_LENGTH = 10000

/**
 * The most characters an update's message may hold (as an incident update's).
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_MESSAGE_LENGTH = 2000

/**
 * The most monitors one window may cover.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_COMPONENTS = 500

const title = Schema.Trim.pipe(Schema.minLength(1, { message: () => "must not be empty" }), atMost(MAX_TITLE_LENGTH))
const description = Schema.String.pipe(atMost(MAX_DESCRIPTION_LENGTH))

/**
 * An instant in a request body (kept here under its old name; it lives in `Instant`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Instant = InstantSchema

const components = Schema.Array(TargetId).pipe(
  Schema.maxItems(MAX_COMPONENTS, { message: () => `must list at most ${MAX_COMPONENTS} monitors` })
)

const optional = <S extends Schema.Schema.Any>(s: S) => Schema.optionalWith(s, { exact: true })

/**
 * `POST /api/v1/maintenance`. `components` are monitor ids of the org; `suppress_alerts` defaults to true
 * (scheduling maintenance is mostly about not being paged for it).
 *
 * @since 0.1.0
 * @category requests
 */
export const CreateMaintenanceWindow = RequestBody.Struct({
  title,
  description: Schema.optionalWith(description, { default: () => "" }),
  starts_at: Instant,
  ends_at: Instant,
  components: Schema.optionalWith(components, { default: () => [] }),
  suppress_alerts: Schema.optionalWith(Schema.Boolean, { default: () => true })
}).annotations({ identifier: "CreateMaintenanceWindow" })

/**
 * @since 0.1.0
 * @category requests
 */
export type CreateMaintenanceWindow = typeof CreateMaintenanceWindow.Type

/**
 * `PATCH /api/v1/maintenance/{id}`: any of the create fields; `components` replaces the list whole.
 *
 * @since 0.1.0
 * @category requests
 */
export const PatchMaintenanceWindow = RequestBody.Struct({
  title: optional(title),
  description: optional(description),
  starts_at: optional(Instant),
  ends_at: optional(Instant),
  components: optional(components),
  suppress_alerts: optional(Schema.Boolean)
}).annotations({ identifier: "PatchMaintenanceWindow" })

/**
 * @since 0.1.0
 * @category requests
 */
export type PatchMaintenanceWindow = typeof PatchMaintenanceWindow.Type

/**
 * The stage an update reports, as status pages name the stages of planned work.
 *
 * @since 0.1.0
 * @category models
 */
export const UpdateStatus = Schema.Literal("scheduled", "in_progress", "verifying", "completed")

/**
 * @since 0.1.0
 * @category models
 */
export type UpdateStatus = typeof UpdateStatus.Type

/**
 * `POST /api/v1/maintenance/{id}/updates`: a message of 1 to 2000 characters and an optional stage.
 *
 * @since 0.1.0
 * @category requests
 */
export const PostMaintenanceUpdate = RequestBody.Struct({
  message: Schema.Trim.pipe(Schema.minLength(1, { message: () => "must not be empty" }), atMost(MAX_MESSAGE_LENGTH)),
  status: optional(UpdateStatus)
}).annotations({ identifier: "PostMaintenanceUpdate" })

/**
 * @since 0.1.0
 * @category requests
 */
export type PostMaintenanceUpdate = typeof PostMaintenanceUpdate.Type

/**
 * One update of a window, oldest first in `updates`.
 *
 * @since 0.1.0
 * @category models
 */
export class MaintenanceUpdate extends Schema.Class<MaintenanceUpdate>("MaintenanceUpdate")({
  id: MaintenanceUpdateId,
  message: Schema.String,
  status: Schema.NullOr(UpdateStatus),
  created_by: Schema.NullOr(Schema.String),
  created_at: Schema.DateTimeUtc
}) {}

/**
 * Where a window stands, derived from the clock at the time of the answer.
 *
 * @since 0.1.0
 * @category models
 */
export const WindowStatus = Schema.Literal("upcoming", "running", "completed", "cancelled")

/**
 * A window as the service answers it. `status` is derived when answering, never stored; `deleted_at` and
 * `deleted_by` are set on a cancelled window.
 *
 * @since 0.1.0
 * @category models
 */
export class MaintenanceWindowResource extends Schema.Class<MaintenanceWindowResource>("MaintenanceWindow")({
  id: MaintenanceWindowId,
  title: Schema.String,
  description: Schema.String,
  starts_at: Schema.DateTimeUtc,
  ends_at: Schema.DateTimeUtc,
  components: Schema.Array(TargetId),
  suppress_alerts: Schema.Boolean,
  status: WindowStatus,
  deleted_at: Schema.NullOr(Schema.DateTimeUtc),
  deleted_by: Schema.NullOr(Schema.String),
  write_source: WriteSource,
  managed_by: ManagedBy.Field,
  created_by: Schema.NullOr(Schema.String),
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc,
  updates: Schema.Array(MaintenanceUpdate)
}) {}

/**
 * The query of `GET /api/v1/maintenance`: paging, a status filter (default `all`) and an optional config project
 * (`managed_by`).
 *
 * @since 0.1.0
 * @category requests
 */
export const ListMaintenanceWindows = Schema.Struct({
  ...Pagination.query,
  status: Schema.optionalWith(MaintenanceWindow.StatusFilter, { default: () => "all" as const }),
  managed_by: Schema.optionalWith(ManagedBy.Project, { exact: true })
})

/**
 * A page of windows.
 *
 * @since 0.1.0
 * @category models
 */
export const MaintenanceWindowPage = Pagination.page(MaintenanceWindowResource, "MaintenanceWindowPage")

const windowPath = Schema.Struct({ id: MaintenanceWindowId })

/**
 * @since 0.1.0
 * @category groups
 */
export class MaintenanceApi extends HttpApiGroup.make("maintenance")
  .add(
    HttpApiEndpoint.get("list", "/maintenance")
      .annotateContext(requires("maintenance:read"))
      .setUrlParams(ListMaintenanceWindows)
      .addSuccess(MaintenanceWindowPage)
      .annotate(
        OpenApi.Description,
        "The org's windows: status active (running), upcoming (not started; soonest first), past (completed or " +
          "cancelled) or all; every list but upcoming is latest start first. managed_by (a config project) keeps " +
          "that project's. Scope maintenance:read."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/maintenance/:id")
      .annotateContext(requires("maintenance:read"))
      .setPath(windowPath)
      .addSuccess(MaintenanceWindowResource)
      .annotate(OpenApi.Description, "One window with its updates. Scope maintenance:read.")
  )
  .add(
    HttpApiEndpoint.post("create", "/maintenance")
      .annotateContext(requires("maintenance:write"))
      .setPayload(CreateMaintenanceWindow)
      .setHeaders(ManagedBy.Headers)
      .addSuccess(MaintenanceWindowResource, { status: 201 })
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.Conflict)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        "Schedule a window; 201 with a Location header. It must end after it starts and in the future; a start in " +
          "the past runs it at once. Every component must be a monitor of the org (400 on components[i]). Past " +
          "max_maintenance_windows (windows not ended nor cancelled, across the account) is 422 QUOTA_EXCEEDED. " +
          `${ManagedBy.WRITE_NOTE} An ended or cancelled window holds no key. Scope maintenance:write.`
      )
  )
  .add(
    HttpApiEndpoint.patch("update", "/maintenance/:id")
      .annotateContext(requires("maintenance:write"))
      .setPath(windowPath)
      .setPayload(PatchMaintenanceWindow)
      .setHeaders(ManagedBy.Headers)
      .addSuccess(MaintenanceWindowResource)
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.Conflict)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        "Edit an upcoming or running window. A running window's start is fixed; its ends_at at or before now ends " +
          "it now. An ended window is 422 MAINTENANCE_ENDED, a cancelled one 422 MAINTENANCE_CANCELLED. " +
          `${ManagedBy.WRITE_NOTE} Scope maintenance:write.`
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/maintenance/:id")
      .annotateContext(requires("maintenance:delete"))
      .setPath(windowPath)
      .addSuccess(MaintenanceWindowResource)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        "Cancel a window that has not ended; it stays as history with deleted_at and deleted_by and stops " +
          "suppressing alerts at once. Answers the cancelled window. Scope maintenance:delete."
      )
  )
  .add(
    HttpApiEndpoint.post("postUpdate", "/maintenance/:id/updates")
      .annotateContext(requires("maintenance:write"))
      .setPath(windowPath)
      .setPayload(PostMaintenanceUpdate)
      .addSuccess(MaintenanceWindowResource, { status: 201 })
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        "Post an update (message and optional status); answers the window with its updates. A cancelled window " +
          "is 422 MAINTENANCE_CANCELLED; past 50 updates 422 MAINTENANCE_UPDATE_LIMIT. Scope maintenance:write."
      )
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Maintenance windows") {}
