/**
 * Notification channels (`/api/v1/channels*`): where an org's alerts go, and a test send through one.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import * as ApiError from "../ApiError.js"
import { Channel, ChannelId, ChannelKind, CreateChannel, CreatedChannel, PatchChannel } from "../Channel.js"
import * as ManagedBy from "../ManagedBy.js"
import { TestDelivery } from "../Notification.js"
import * as Pagination from "../Pagination.js"
import { Authentication } from "./Authentication.js"
import { requires } from "./RequiredScope.js"

/**
 * The query of `GET /api/v1/channels`: paging, an optional kind, and an optional config project (`managed_by`).
 *
 * @since 0.1.0
 * @category requests
 */
export const ListChannels = Schema.Struct({
  ...Pagination.query,
  kind: Schema.optionalWith(ChannelKind, { exact: true }),
  managed_by: Schema.optionalWith(ManagedBy.Project, { exact: true })
})

/**
 * A page of channels.
 *
 * @since 0.1.0
 * @category models
 */
export const ChannelPage = Pagination.page(Channel, "ChannelPage")

const channelPath = Schema.Struct({ id: ChannelId })

/**
 * @since 0.1.0
 * @category groups
 */
export class ChannelsApi extends HttpApiGroup.make("channels")
  .add(
    HttpApiEndpoint.get("list", "/channels")
      .annotateContext(requires("channels:read"))
      .setUrlParams(ListChannels)
      .addSuccess(ChannelPage)
      .annotate(
        OpenApi.Description,
        "The org's notification channels by name; secrets read ***. Filter by kind or managed_by (a config " +
          "project). Scope channels:read."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/channels/:id")
      .annotateContext(requires("channels:read"))
      .setPath(channelPath)
      .addSuccess(Channel)
      .annotate(OpenApi.Description, "One channel; secrets read ***. Scope channels:read.")
  )
  .add(
    HttpApiEndpoint.post("create", "/channels")
      .annotateContext(requires("channels:write"))
      .setPayload(CreateChannel)
      .setHeaders(ManagedBy.Headers)
      .addSuccess(CreatedChannel, { status: 201 })
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.Forbidden)
      .addError(ApiError.Wire.Conflict)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        "Create a channel; 201 with a Location header. A webhook created without a secret gets one, shown once as " +
          "signing_secret. Past max_notification_channels is 422 QUOTA_EXCEEDED; sms without the plan's " +
          `sms_alerts_enabled is 403 SMS_ALERTS_DISABLED. ${ManagedBy.WRITE_NOTE} Scope channels:write.`
      )
  )
  .add(
    HttpApiEndpoint.patch("update", "/channels/:id")
      .annotateContext(requires("channels:write"))
      .setPath(channelPath)
      .setPayload(PatchChannel)
      .setHeaders(ManagedBy.Headers)
      .addSuccess(Channel)
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.Forbidden)
      .addError(ApiError.Wire.Conflict)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        "Change name, enabled or config. A config replaces the stored one whole; a secret sent as *** keeps the " +
          `stored value. The kind is fixed. ${ManagedBy.WRITE_NOTE} Scope channels:write.`
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/channels/:id")
      .annotateContext(requires("channels:delete"))
      .setPath(channelPath)
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(
        OpenApi.Description,
        "Delete a channel and, in the same transaction, every monitor's binding to it. Scope channels:delete."
      )
  )
  .add(
    HttpApiEndpoint.post("test", "/channels/:id/test")
      .annotateContext(requires("channels:execute"))
      .setPath(channelPath)
      .addSuccess(TestDelivery)
      .addError(ApiError.Wire.Forbidden)
      .annotate(
        OpenApi.Description,
        "Send a test notification through the channel now, the way an alert goes, and answer the outcome: 200 " +
          "with delivered true, or false with the error and the status code the service answered. Nothing is " +
          "stored or retried. No body. Disabled channels can be tested. An sms channel without the plan's " +
          "sms_alerts_enabled is 403 SMS_ALERTS_DISABLED. Scope channels:execute, rate budget test_now."
      )
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Notification channels") {}
