/**
 * What the webhook writes, from what the provider says now. The webhook never trusts an event's own snapshot:
 * events come late, twice and out of order, so it reads the subscription from the provider and writes that. Two
 * deliveries racing each write the provider's state as of their read; the later read wins, and it is the truth.
 *
 * - The plan in force (`accounts.plan_id`) follows the subscription's price while the subscription is live
 *   (`active`, `trialing`, and `past_due`, where the provider is still retrying the payment); an ended one
 *   (`canceled`, `incomplete_expired`, `unpaid`, `paused`) puts the account back on the free plan; `incomplete` (the
 *   first payment not made yet) changes nothing. A price the settings do not name leaves the plan as it is (an
 *   operator's mistake must not take a paying customer's plan away).
 * - A change booked for the period end is the next phase of the subscription's schedule.
 * - `payment_failed`: set when the latest invoice is unpaid and a payment failed (the `invoice.payment_failed` event,
 *   or the provider's `past_due`/`unpaid`); cleared when the latest invoice is paid or the subscription ended.
 */
import type { AccountId } from "@signalman/core/Identity"
import type { PlanId } from "@signalman/core/Plan"
import * as Option from "effect/Option"
import type { ProviderSubscription } from "./PaymentProvider.js"
import type { Prices } from "./Prices.js"
import type { SubscriptionState } from "./Repo.js"

const LIVE = new Set(["active", "trialing", "past_due"])
const ENDED = new Set(["canceled", "incomplete_expired", "unpaid", "paused"])
const FAILING = new Set(["past_due", "unpaid"])

export interface Derived {
  readonly state: SubscriptionState
  /** The plan the account is on from now; none leaves `accounts.plan_id` as it is. */
  readonly planInForce: Option.Option<PlanId>
}

export const derive = (input: {
  readonly accountId: AccountId
  readonly subscription: ProviderSubscription
  readonly prices: Prices
  /** The row's `payment_failed` before this event. */
  readonly paymentFailedBefore: boolean
  /** The event being applied (`invoice.payment_failed` says a payment failed). */
  readonly eventType: string
}): Derived => {
  const { subscription, prices } = input
  const ended = ENDED.has(subscription.status)
  const current = prices.planOf(subscription.priceId)
  const pending = ended || subscription.pendingChange === null ? Option.none() : Option.some(subscription.pendingChange)
  const pendingPlan = Option.flatMap(pending, (change) => prices.planOf(change.priceId))
  const paymentFailed =
    ended || subscription.latestInvoicePaid === true
      ? false
      : subscription.latestInvoicePaid === false &&
          (input.eventType === "invoice.payment_failed" || FAILING.has(subscription.status))
        ? true
        : input.paymentFailedBefore
  return {
    state: {
      account_id: input.accountId,
      customer_id: subscription.customerId,
      subscription_id: subscription.id,
      status: subscription.status,
      plan_id: Option.getOrNull(Option.map(current, (c) => c.plan)),
      interval: subscription.interval,
      current_period_end: subscription.currentPeriodEnd,
      pending_plan_id: Option.getOrNull(Option.map(pendingPlan, (p) => p.plan)),
      pending_interval: Option.getOrNull(Option.map(pendingPlan, (p) => p.interval)),
      plan_change_at: Option.isSome(pendingPlan) ? Option.getOrNull(Option.map(pending, (p) => p.at)) : null,
      schedule_id: ended ? null : subscription.scheduleId,
      cancel_at_period_end: ended ? false : subscription.cancelAtPeriodEnd,
      payment_failed: paymentFailed
    },
    planInForce: ended
      ? Option.some<PlanId>("free")
      : LIVE.has(subscription.status)
        ? Option.map(current, (c) => c.plan)
        : Option.none()
  }
}
