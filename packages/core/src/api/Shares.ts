/**
 * Share links of a monitor (`/api/v1/targets/{id}/shares*`): create, list the live ones, revoke. The page a link
 * opens (`/m/{token}`) is HTML and sits outside the contract.
 *
 * @since 0.2.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import * as ApiError from "../ApiError.js"
import { CreateMonitorShare, MonitorShare, MonitorShareId } from "../MonitorShare.js"
import { TargetId } from "../Target.js"
import { Authentication } from "./Authentication.js"
import { requires } from "./RequiredScope.js"

/**
 * The answer of the list: every live link of the monitor, oldest first (a monitor holds at most a handful).
 *
 * @since 0.2.0
 * @category models
 */
export const MonitorShareList = Schema.Struct({ data: Schema.Array(MonitorShare) }).annotations({
  identifier: "MonitorShareList"
})

const targetPath = Schema.Struct({ id: TargetId })
const sharePath = Schema.Struct({ id: TargetId, share_id: MonitorShareId })

/**
 * @since 0.2.0
 * @category groups
 */
export class SharesApi extends HttpApiGroup.make("shares")
  .add(
    HttpApiEndpoint.post("create", "/targets/:id/shares")
      .annotateContext(requires("targets:write"))
      .setPath(targetPath)
      .setPayload(CreateMonitorShare)
      .addSuccess(MonitorShare, { status: 201 })
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        "Make a read-only link to the monitor's page (/m/{token}); the answer carries the token. A label over 80 " +
          "characters is 400 SHARE_LABEL_INVALID, an expires_at not in the future 400 INVALID_EXPIRY. Past " +
          "max_share_links_per_monitor (live links on this monitor) or max_shared_monitors (monitors of the account " +
          "with a live link) is 422 QUOTA_EXCEEDED naming the quota. Scope targets:write."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/targets/:id/shares")
      .annotateContext(requires("targets:write"))
      .setPath(targetPath)
      .addSuccess(MonitorShareList)
      .annotate(
        OpenApi.Description,
        "The monitor's live links with their tokens, oldest first; revoked and expired links are not listed. Scope " +
          "targets:write (the tokens are capabilities)."
      )
  )
  .add(
    HttpApiEndpoint.del("revoke", "/targets/:id/shares/:share_id")
      .annotateContext(requires("targets:write"))
      .setPath(sharePath)
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(
        OpenApi.Description,
        "Revoke a link: its page answers 404 from the next request on. A link already revoked or expired is 404. " +
          "Scope targets:write."
      )
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Share links") {}
