/**
 * What the plan holds (`/api/v1/account/holds`, session only): the account's monitors and status pages, each with
 * whether the plan is holding it, and the owner's pick of what to keep (decisions.md "Billing"; docs/billing.md
 * "Holds and account deletion").
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import * as ApiError from "../ApiError.js"
import { StatusPageId } from "../StatusPage.js"
import { TargetId } from "../Target.js"
import { Authentication } from "./Authentication.js"
import { sessionOnly } from "./RequiredScope.js"

/**
 * A monitor or status page of the account and whether the plan holds it (a held monitor does not run, a held page
 * is not published; neither is deleted).
 *
 * @since 0.1.0
 * @category models
 */
export class HeldResource extends Schema.Class<HeldResource>("HeldResource")({
  id: Schema.String,
  name: Schema.String,
  held: Schema.Boolean
}) {}

/**
 * The account's monitors and status pages (oldest first) and the plan's limits on them.
 *
 * @since 0.1.0
 * @category models
 */
export class Holds extends Schema.Class<Holds>("Holds")({
  monitors: Schema.Array(HeldResource),
  status_pages: Schema.Array(HeldResource),
  limits: Schema.Struct({ max_targets: Schema.Int, max_status_pages: Schema.Int })
}) {}

// Far above any plan's limits: a longer list can only be refused, so it is refused before it is read.
const MAX_PICK = 10_000

/**
 * The owner's pick: the monitors and status pages to keep while the plan does not cover them all. The whole pick
 * replaces the previous one.
 *
 * @since 0.1.0
 * @category models
 */
export class PickHolds extends Schema.Class<PickHolds>("PickHolds")({
  keep_monitors: Schema.Array(TargetId).pipe(Schema.maxItems(MAX_PICK)),
  keep_status_pages: Schema.Array(StatusPageId).pipe(Schema.maxItems(MAX_PICK))
}) {}

/**
 * @since 0.1.0
 * @category groups
 */
export class HoldsApi extends HttpApiGroup.make("holds")
  .add(
    HttpApiEndpoint.get("get", "/account/holds")
      .annotateContext(sessionOnly)
      .addSuccess(Holds)
      .annotate(
        OpenApi.Description,
        "The account's monitors and status pages, each with whether the plan holds it, and the plan's limits. " +
          "Session only; the caller must own the org and be the account's payer (403 ACCOUNT_OWNER_REQUIRED); 404 " +
          "BILLING_UNAVAILABLE when no payment provider is configured."
      )
  )
  .add(
    HttpApiEndpoint.put("pick", "/account/holds")
      .annotateContext(sessionOnly)
      .setPayload(PickHolds)
      .addSuccess(Holds)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        "Pick what to keep: the kept rank first when the plan holds the excess (the free places go to the oldest " +
          "others). More than the plan allows is 422 QUOTA_EXCEEDED; an id not of the account is 404 NOT_FOUND " +
          "naming it (keep_monitors[2]). All or nothing. Same gates as GET."
      )
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Holds") {}
