/**
 * Status pages (`/api/v1/status-pages*`): an org's pages, their curated monitors, logo, and the private-page
 * records (viewers, their history, the password's use record). Reads take any active member; every change is
 * owner-only (403 OWNER_REQUIRED); a page of another org is the uniform 404.
 *
 * @since 0.2.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Multipart from "@effect/platform/Multipart"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import * as ApiError from "../ApiError.js"
import * as ManagedBy from "../ManagedBy.js"
import * as Pagination from "../Pagination.js"
import {
  AddComponent,
  Component,
  CreateStatusPage,
  PasswordRecord,
  PatchComponent,
  PatchStatusPage,
  ReorderComponents,
  StatusPage,
  StatusPageId,
  Viewer,
  ViewerHistory,
  ViewerId
} from "../StatusPage.js"
import { TargetId } from "../Target.js"
import { Authentication } from "./Authentication.js"
import { requires } from "./RequiredScope.js"

/**
 * A page of status pages.
 *
 * @since 0.2.0
 * @category models
 */
export const StatusPageList = Pagination.page(StatusPage, "StatusPageList")

/**
 * A page's components in their order.
 *
 * @since 0.2.0
 * @category models
 */
export const ComponentList = Schema.Struct({ data: Schema.Array(Component) }).annotations({
  identifier: "StatusPageComponentList"
})

/**
 * A page of viewers.
 *
 * @since 0.2.0
 * @category models
 */
export const ViewerList = Pagination.page(Viewer, "StatusPageViewerList")

/**
 * The logo upload: `multipart/form-data` with one file part named `file` (PNG, JPEG, WebP or SVG).
 *
 * @since 0.2.0
 * @category requests
 */
export const LogoUpload = HttpApiSchema.MultipartStream(Schema.Struct({ file: Multipart.SingleFileSchema }))

/**
 * The query of `GET /api/v1/status-pages`: paging, and an optional config project (`managed_by`).
 *
 * @since 0.2.0
 * @category requests
 */
export const ListStatusPages = Schema.Struct({
  ...Pagination.query,
  managed_by: Schema.optionalWith(ManagedBy.Project, { exact: true })
})

const pagePath = Schema.Struct({ id: StatusPageId })
const componentPath = Schema.Struct({ id: StatusPageId, target_id: TargetId })
const viewerPath = Schema.Struct({ id: StatusPageId, viewer_id: ViewerId })

/**
 * @since 0.2.0
 * @category groups
 */
export class StatusPagesApi extends HttpApiGroup.make("statusPages")
  .add(
    HttpApiEndpoint.get("list", "/status-pages")
      .annotateContext(requires("status_page:read"))
      .setUrlParams(ListStatusPages)
      .addSuccess(StatusPageList)
      .annotate(
        OpenApi.Description,
        "The org's pages, oldest first; managed_by (a config project) keeps that project's. Scope status_page:read."
      )
  )
  .add(
    HttpApiEndpoint.post("create", "/status-pages")
      .annotateContext(requires("status_page:write"))
      .setPayload(CreateStatusPage)
      .setHeaders(ManagedBy.Headers)
      .addSuccess(StatusPage, { status: 201 })
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.Conflict)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        "Create a page; 201 with a Location header. Owner only. The slug is globally unique (409 SLUG_TAKEN), " +
          "as is a custom domain (409 CUSTOM_DOMAIN_TAKEN; 403 CUSTOM_DOMAIN_DISABLED without the plan's flag). " +
          "Capped at max_status_pages across the account (422 QUOTA_EXCEEDED). Takes access, committed with the " +
          `page. ${ManagedBy.WRITE_NOTE} Scope status_page:write.`
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/status-pages/:id")
      .annotateContext(requires("status_page:read"))
      .setPath(pagePath)
      .addSuccess(StatusPage)
      .annotate(OpenApi.Description, "One page with its live URL, logo URL and access. Scope status_page:read.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/status-pages/:id")
      .annotateContext(requires("status_page:write"))
      .setPath(pagePath)
      .setPayload(PatchStatusPage)
      .setHeaders(ManagedBy.Headers)
      .addSuccess(StatusPage)
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.Conflict)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        "Rename, change the slug, publish or unpublish, public_locale, custom_domain, branding (keys given " +
          "replace the stored ones) and access (replaced whole; the stored password stays unless a value is " +
          `sent). Owner only. ${ManagedBy.WRITE_NOTE} Scope status_page:write.`
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/status-pages/:id")
      .annotateContext(requires("status_page:delete"))
      .setPath(pagePath)
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(OpenApi.Description, "Delete a page with its components, logo and viewers. Owner only. 204.")
  )
  .add(
    HttpApiEndpoint.get("listComponents", "/status-pages/:id/components")
      .annotateContext(requires("status_page:read"))
      .setPath(pagePath)
      .addSuccess(ComponentList)
      .annotate(OpenApi.Description, "The monitors curated onto the page, in order. Scope status_page:read.")
  )
  .add(
    HttpApiEndpoint.post("addComponent", "/status-pages/:id/components")
      .annotateContext(requires("status_page:write"))
      .setPath(pagePath)
      .setPayload(AddComponent)
      .addSuccess(Component, { status: 201 })
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.Conflict)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        "Add a monitor of the org (400 VALIDATION_FAILED on target_id otherwise), placed last. Already on the " +
          "page is 409 COMPONENT_ALREADY_ON_PAGE. Distinct monitors published across the account are capped at " +
          "max_public_components (a monitor on several pages counts once; 422 QUOTA_EXCEEDED). Owner only."
      )
  )
  .add(
    HttpApiEndpoint.patch("updateComponent", "/status-pages/:id/components/:target_id")
      .annotateContext(requires("status_page:write"))
      .setPath(componentPath)
      .setPayload(PatchComponent)
      .addSuccess(Component)
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        "public_name, public_description, public_group; JSON null clears, omitting leaves alone. Owner only."
      )
  )
  .add(
    HttpApiEndpoint.del("removeComponent", "/status-pages/:id/components/:target_id")
      .annotateContext(requires("status_page:write"))
      .setPath(componentPath)
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(OpenApi.Description, "Take a monitor off the page. Owner only. 204.")
  )
  .add(
    HttpApiEndpoint.post("reorderComponents", "/status-pages/:id/components/reorder")
      .annotateContext(requires("status_page:write"))
      .setPath(pagePath)
      .setPayload(ReorderComponents)
      .addSuccess(ComponentList)
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        "Set the order: target_ids lists every component of the page exactly once (400 VALIDATION_FAILED on " +
          "target_ids otherwise, details naming missing, unknown and repeated ids). Owner only."
      )
  )
  .add(
    HttpApiEndpoint.post("uploadLogo", "/status-pages/:id/logo")
      .annotateContext(requires("status_page:write"))
      .setPath(pagePath)
      .setPayload(LogoUpload)
      .addSuccess(StatusPage)
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.PayloadTooLarge)
      .addError(ApiError.Wire.UnsupportedMediaType)
      .annotate(
        OpenApi.Description,
        "multipart/form-data with the file in the part named file, at most max_logo_size_bytes (413 " +
          "PAYLOAD_TOO_LARGE). The type is read from the bytes: PNG, JPEG, WebP, or SVG (sanitised: scripts, " +
          "event handlers, foreignObject and external references removed); anything else is 415 " +
          "LOGO_TYPE_UNSUPPORTED. Owner only. Scope status_page:write."
      )
  )
  .add(
    HttpApiEndpoint.del("removeLogo", "/status-pages/:id/logo")
      .annotateContext(requires("status_page:delete"))
      .setPath(pagePath)
      .addSuccess(StatusPage)
      .annotate(OpenApi.Description, "Remove the logo. Owner only. Scope status_page:delete.")
  )
  .add(
    HttpApiEndpoint.get("listViewers", "/status-pages/:id/access/viewers")
      .annotateContext(requires("status_page:read"))
      .setPath(pagePath)
      .setUrlParams(Schema.Struct(Pagination.query))
      .addSuccess(ViewerList)
      .annotate(
        OpenApi.Description,
        "People who signed in to the private page with the email code, latest sign-in first. Scope status_page:read."
      )
  )
  .add(
    HttpApiEndpoint.post("blockViewer", "/status-pages/:id/access/viewers/:viewer_id/block")
      .annotateContext(requires("status_page:write"))
      .setPath(viewerPath)
      .addSuccess(Viewer)
      .annotate(OpenApi.Description, "Sign the viewer out everywhere at once and keep them out. Owner only.")
  )
  .add(
    HttpApiEndpoint.post("unblockViewer", "/status-pages/:id/access/viewers/:viewer_id/unblock")
      .annotateContext(requires("status_page:write"))
      .setPath(viewerPath)
      .addSuccess(Viewer)
      .annotate(OpenApi.Description, "Lift a block: the viewer may sign in again. Owner only.")
  )
  .add(
    HttpApiEndpoint.get("viewerHistory", "/status-pages/:id/access/viewers/:viewer_id/history")
      .annotateContext(requires("status_page:read"))
      .setPath(viewerPath)
      .addSuccess(ViewerHistory)
      .annotate(
        OpenApi.Description,
        "The days the viewer opened the page and their sign-ins over the last year, newest first."
      )
  )
  .add(
    HttpApiEndpoint.get("passwordRecord", "/status-pages/:id/access/password")
      .annotateContext(requires("status_page:read"))
      .setPath(pagePath)
      .addSuccess(PasswordRecord)
      .annotate(
        OpenApi.Description,
        "The page password's use record: enabled, set_at, set_by, sessions (devices signed in with it), " +
          "last_sign_in_at, failed_last_24h, and subscriptions (those a change of password would end)."
      )
  )
  .add(
    HttpApiEndpoint.post("passwordSignOut", "/status-pages/:id/access/password/sign-out")
      .annotateContext(requires("status_page:write"))
      .setPath(pagePath)
      .addSuccess(PasswordRecord)
      .annotate(
        OpenApi.Description,
        "Sign out every device signed in with the password; the password still works. Owner only."
      )
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Status pages") {}
