/**
 * The account's billing (`/api/v1/account/billing*`, session only; service-api.md "Billing"): the subscription,
 * the plans on sale, checkout, the provider's portal, plan changes and cancels. The caller must own the org they act
 * in and be its account's payer (403 `ACCOUNT_OWNER_REQUIRED`); without a payment provider every route is 404
 * `BILLING_UNAVAILABLE`.
 *
 * @since 0.2.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import * as ApiError from "../ApiError.js"
import { Interval } from "../Billing.js"
import { PlanId } from "../Plan.js"
import * as RequestBody from "../RequestBody.js"
import { Authentication } from "./Authentication.js"
import { sessionOnly } from "./RequiredScope.js"

/**
 * A plan's price on one cadence: the amount in the currency's minor unit (cents), the currency lower-case as ISO
 * 4217 (as the provider writes it). Both null when the operator sold the cadence without stating its amount
 * (`billing.amounts`).
 *
 * @since 0.2.0
 * @category models
 */
export class PlanPrice extends Schema.Class<PlanPrice>("PlanPrice")({
  interval: Interval,
  amount_minor: Schema.NullOr(Schema.Int),
  currency: Schema.NullOr(Schema.String)
}) {}

/**
 * A plan on sale, with its price on each cadence it is sold on.
 *
 * @since 0.2.0
 * @category models
 */
export class PlanOnSale extends Schema.Class<PlanOnSale>("PlanOnSale")({
  plan_id: PlanId,
  name: Schema.String,
  prices: Schema.Array(PlanPrice)
}) {}

/**
 * The account's billing record. With no subscription, `subscription_status` is null and so is every field about it;
 * `plan_id` is the plan in force either way.
 *
 * @since 0.2.0
 * @category models
 */
export class BillingRecord extends Schema.Class<BillingRecord>("BillingRecord")({
  /** The provider's status of the subscription (`active`, `past_due`, `canceled`, ...), null when there is none. */
  subscription_status: Schema.NullOr(Schema.String),
  /** The plan in force: it changes when the provider confirms a change, not when one is asked for. */
  plan_id: Schema.String,
  interval: Schema.NullOr(Interval),
  current_period_end: Schema.NullOr(Schema.DateTimeUtc),
  /** A smaller plan booked for the period end. */
  pending_plan_id: Schema.NullOr(PlanId),
  /** Another cadence booked for the renewal. */
  pending_interval: Schema.NullOr(Interval),
  /** When the booked change takes effect. */
  plan_change_at: Schema.NullOr(Schema.DateTimeUtc),
  /** The subscription ends at the period end. */
  cancel_at_period_end: Schema.Boolean,
  /** The provider reported the last payment failed; a cancel now ends the subscription at once. */
  payment_failed: Schema.Boolean,
  plans_on_sale: Schema.Array(PlanOnSale)
}) {}

/**
 * @since 0.2.0
 * @category models
 */
export const CheckoutRequest = RequestBody.Struct({
  plan_id: PlanId,
  interval: Interval,
  /** Must be true: buying means accepting the terms. */
  accept_terms: Schema.Boolean
}).annotations({ identifier: "CheckoutRequest" })

/**
 * @since 0.2.0
 * @category models
 */
export const PlanChangeRequest = RequestBody.Struct({
  plan_id: PlanId,
  interval: Interval
}).annotations({ identifier: "PlanChangeRequest" })

/**
 * Where to send the person: the provider's checkout or portal page.
 *
 * @since 0.2.0
 * @category models
 */
export class ProviderRedirect extends Schema.Class<ProviderRedirect>("ProviderRedirect")({ url: Schema.String }) {}

/**
 * @since 0.2.0
 * @category groups
 */
export class BillingApi extends HttpApiGroup.make("billing")
  .add(
    HttpApiEndpoint.get("get", "/account/billing")
      .annotateContext(sessionOnly)
      .addSuccess(BillingRecord)
      .annotate(OpenApi.Summary, "The account's subscription and the plans on sale (session only)")
  )
  .add(
    HttpApiEndpoint.post("checkout", "/account/billing/checkout")
      .annotateContext(sessionOnly)
      .setPayload(CheckoutRequest)
      .addSuccess(ProviderRedirect)
      .addError(ApiError.Wire.Conflict)
      .annotate(OpenApi.Summary, "Buy a plan: answers the provider's checkout page to send the person to")
  )
  .add(
    HttpApiEndpoint.post("portal", "/account/billing/portal")
      .annotateContext(sessionOnly)
      .addSuccess(ProviderRedirect)
      .addError(ApiError.Wire.Conflict)
      .annotate(OpenApi.Summary, "The provider's customer portal (invoices, payment method)")
  )
  .add(
    HttpApiEndpoint.put("changePlan", "/account/billing/plan")
      .annotateContext(sessionOnly)
      .setPayload(PlanChangeRequest)
      .addSuccess(BillingRecord)
      .addError(ApiError.Wire.Conflict)
      .annotate(
        OpenApi.Summary,
        "Move plan: a bigger one at once (prorated), a smaller one or another cadence at the period end"
      )
  )
  .add(
    HttpApiEndpoint.post("cancel", "/account/billing/cancel")
      .annotateContext(sessionOnly)
      .addSuccess(BillingRecord)
      .addError(ApiError.Wire.Conflict)
      .annotate(OpenApi.Summary, "Cancel at the period end, or at once while the last payment failed")
  )
  .add(
    HttpApiEndpoint.del("withdrawCancel", "/account/billing/cancel")
      .annotateContext(sessionOnly)
      .addSuccess(BillingRecord)
      .addError(ApiError.Wire.Conflict)
      .annotate(OpenApi.Summary, "Withdraw a cancel booked for the period end")
  )
  // 503 PAYMENT_PROVIDER_UNAVAILABLE: the provider did not answer, after the adapter's retries.
  .addError(ApiError.Wire.ServiceUnavailable)
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Billing") {}
