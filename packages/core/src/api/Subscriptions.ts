/**
 * Subscribing to a status page by email (`/api/public/v1/subscriptions`), no account needed. Confirming and
 * unsubscribing are the links in the mails (HTML pages outside the contract).
 *
 * @since 0.2.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import * as ApiError from "../ApiError.js"
import { Subscribe, SubscriptionAccepted } from "../PageSubscription.js"

/**
 * The page subscribed to, by slug.
 *
 * @since 0.2.0
 * @category requests
 */
export const SubscribeQuery = Schema.Struct({ page: Schema.String })

/**
 * @since 0.2.0
 * @category groups
 */
export class SubscriptionsApi extends HttpApiGroup.make("subscriptions")
  .add(
    HttpApiEndpoint.post("subscribe", "/subscriptions")
      .setUrlParams(SubscribeQuery)
      .setPayload(Subscribe)
      .addSuccess(SubscriptionAccepted, { status: 202 })
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.Unauthorized)
      .addError(ApiError.Wire.NotFound)
      .annotate(
        OpenApi.Description,
        "Subscribe an address to a published page's incident and maintenance updates. Answers 202 the same for " +
          "every address; a confirmation link is mailed at most once per address and page in 10 minutes, and " +
          "nothing is sent until it is followed. A private page takes subscriptions only from a signed-in viewer " +
          "(401 PAGE_SIGN_IN_REQUIRED); an unknown or unpublished page is 404."
      )
  )
  .prefix("/api/public/v1")
  .annotate(OpenApi.Title, "Status page subscriptions") {}
