/**
 * The subscription's state rules (service-api.md, "Subscription" state table): from the account's billing state and
 * a request, what to ask of the payment provider, or the refusal. Pure: the server reads the state, asks this, calls
 * the provider with no transaction open, and writes what the provider answered.
 *
 * The provider's webhook is the authority on what is in force (plan, interval, status); the decisions here only
 * name the provider call. What a decision books for later (a smaller plan, another interval, a cancel) is what the
 * server may write at once, as pending.
 *
 * @since 0.2.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as ApiError from "./ApiError.js"
import type { PlanId } from "./Plan.js"

/**
 * How often a subscription renews.
 *
 * @since 0.2.0
 * @category models
 */
export const Interval = Schema.Literal("month", "year")

/**
 * @since 0.2.0
 * @category models
 */
export type Interval = typeof Interval.Type

/**
 * The provider's price of each plan and cadence (`billing.prices`); a plan and cadence without one is not for sale.
 *
 * @since 0.2.0
 * @category models
 */
export type Prices = Partial<Record<PlanId, Partial<Record<Interval, string>>>>

/**
 * The plans by size, smallest first: each is more generous than the one before on every quota
 * (auth-and-limits.md, "Plans"), so "bigger" is this order.
 *
 * @since 0.2.0
 * @category constants
 */
export const planOrder: ReadonlyArray<PlanId> = ["free", "founding", "pro"]

/**
 * @since 0.2.0
 * @category predicates
 */
export const isBigger = (to: PlanId, from: PlanId): boolean => planOrder.indexOf(to) > planOrder.indexOf(from)

/**
 * The price of a plan on a cadence, when it is sold so.
 *
 * @since 0.2.0
 * @category getters
 */
export const priceOf = (prices: Prices, plan: PlanId, interval: Interval): string | undefined =>
  prices[plan]?.[interval]

// The provider's subscription statuses that end it: a new one may be bought. Everything else (active, trialing,
// past_due, unpaid, incomplete, paused) is a subscription the account still has.
const endedStatuses: ReadonlySet<string> = new Set(["canceled", "incomplete_expired"])

/**
 * The account's subscription as the server keeps it (the webhook's last word plus what is booked).
 *
 * @since 0.2.0
 * @category models
 */
export interface Subscription {
  readonly status: string
  readonly planId: PlanId
  readonly interval: Interval
  readonly currentPeriodEnd: Date
  readonly pendingPlanId: PlanId | null
  readonly pendingInterval: Interval | null
  readonly scheduleId: string | null
  readonly cancelAtPeriodEnd: boolean
  readonly paymentFailed: boolean
}

/**
 * Whether the account has a subscription that has not ended.
 *
 * @since 0.2.0
 * @category predicates
 */
export const isLive = (subscription: Subscription | null): subscription is Subscription =>
  subscription !== null && !endedStatuses.has(subscription.status)

/**
 * Whether a change is booked for the period end (a smaller plan or another interval).
 *
 * @since 0.2.0
 * @category predicates
 */
export const hasBooking = (subscription: Subscription): boolean =>
  subscription.pendingPlanId !== null || subscription.pendingInterval !== null

/**
 * What a change would leave in force at renewal: the booking if any, else what is in force.
 *
 * @since 0.2.0
 * @category getters
 */
export const booked = (subscription: Subscription): { readonly planId: PlanId; readonly interval: Interval } => ({
  planId: subscription.pendingPlanId ?? subscription.planId,
  interval: subscription.pendingInterval ?? subscription.interval
})

const stateError = (message: string, state: string) =>
  ApiError.make("SUBSCRIPTION_STATE", message, { details: { state } })

const notForSale = (plan: PlanId, interval: Interval) =>
  ApiError.make("PLAN_NOT_FOR_SALE", `The ${plan} plan is not sold by the ${interval}`, {
    field: "plan_id",
    details: { plan_id: plan, interval }
  })

/**
 * @since 0.2.0
 * @category models
 */
export interface CheckoutRequest {
  readonly plan_id: PlanId
  readonly interval: Interval
  readonly accept_terms: boolean
}

/**
 * Buying: the terms accepted, the plan sold on that cadence, and no subscription live.
 *
 * @since 0.2.0
 * @category rules
 */
export const checkout = (
  subscription: Subscription | null,
  request: CheckoutRequest,
  prices: Prices
): Either.Either<{ readonly priceId: string }, ApiError.BadRequest | ApiError.Conflict> => {
  if (request.accept_terms !== true) {
    return Either.left(
      ApiError.make("VALIDATION_FAILED", "The terms must be accepted (accept_terms: true) to buy a plan", {
        field: "accept_terms"
      })
    )
  }
  const priceId = priceOf(prices, request.plan_id, request.interval)
  if (priceId === undefined) return Either.left(notForSale(request.plan_id, request.interval))
  if (isLive(subscription)) {
    return Either.left(stateError("The account already has a subscription: change its plan instead", "live"))
  }
  return Either.right({ priceId })
}

/**
 * @since 0.2.0
 * @category models
 */
export interface PlanChangeRequest {
  readonly plan_id: PlanId
  readonly interval: Interval
}

/**
 * What a plan change asks of the provider. `releaseScheduleId` is a booking to drop first: an upgrade or a new
 * booking replaces it, and the provider keeps one schedule per subscription.
 *
 * @since 0.2.0
 * @category models
 */
export type PlanChange =
  /** A strictly bigger plan: in force at once, prorated by the provider. */
  | {
      readonly _tag: "UpgradeNow"
      readonly priceId: string
      readonly releaseScheduleId: string | null
    }
  /** A smaller plan, or the same plan on the other cadence: booked for the period end. */
  | {
      readonly _tag: "BookAtPeriodEnd"
      readonly priceId: string
      readonly planId: PlanId
      readonly interval: Interval
      readonly at: Date
      readonly releaseScheduleId: string | null
    }
  /** Back to what is in force while a change is booked: the booking is withdrawn, nothing is charged. */
  | { readonly _tag: "WithdrawBooking"; readonly scheduleId: string | null }

/**
 * Moving plan: a plan and cadence without a price is not for sale; otherwise refused without a live subscription,
 * while a cancel is booked, or to the plan and cadence already in force (with nothing booked) or already booked.
 *
 * @since 0.2.0
 * @category rules
 */
export const changePlan = (
  subscription: Subscription | null,
  request: PlanChangeRequest,
  prices: Prices
): Either.Either<PlanChange, ApiError.Conflict> => {
  // What is asked for is judged first, where the subscription stands after: the same order as checkout's.
  const priceId = priceOf(prices, request.plan_id, request.interval)
  if (priceId === undefined) return Either.left(notForSale(request.plan_id, request.interval))
  if (!isLive(subscription)) {
    return Either.left(stateError("The account has no subscription: buy one through checkout", "none"))
  }
  if (subscription.cancelAtPeriodEnd) {
    return Either.left(
      stateError("A cancel is booked for the period end: withdraw it before changing plan", "cancel_booked")
    )
  }
  const inForce = request.plan_id === subscription.planId && request.interval === subscription.interval
  if (inForce) {
    return hasBooking(subscription)
      ? Either.right({ _tag: "WithdrawBooking", scheduleId: subscription.scheduleId })
      : Either.left(
          stateError(`The ${request.plan_id} plan by the ${request.interval} is already in force`, "in_force")
        )
  }
  const next = booked(subscription)
  if (hasBooking(subscription) && request.plan_id === next.planId && request.interval === next.interval) {
    return Either.left(
      stateError(`The ${request.plan_id} plan by the ${request.interval} is already booked`, "change_booked")
    )
  }
  if (isBigger(request.plan_id, subscription.planId)) {
    return Either.right({ _tag: "UpgradeNow", priceId, releaseScheduleId: subscription.scheduleId })
  }
  return Either.right({
    _tag: "BookAtPeriodEnd",
    priceId,
    planId: request.plan_id,
    interval: request.interval,
    at: subscription.currentPeriodEnd,
    releaseScheduleId: subscription.scheduleId
  })
}

/**
 * What a cancel asks of the provider.
 *
 * @since 0.2.0
 * @category models
 */
export type Cancel =
  /** The subscription runs to the period end, then ends; a booked change is dropped first. */
  | { readonly _tag: "AtPeriodEnd"; readonly releaseScheduleId: string | null }
  /** The last payment failed: nothing more is owed for a period not paid, so it ends now. */
  | { readonly _tag: "Now" }

/**
 * Cancelling: at the period end, or at once while the last payment failed; refused with no live subscription or
 * with a cancel already booked (and the payments in order).
 *
 * @since 0.2.0
 * @category rules
 */
export const cancel = (subscription: Subscription | null): Either.Either<Cancel, ApiError.Conflict> => {
  if (!isLive(subscription)) return Either.left(stateError("The account has no subscription to cancel", "none"))
  if (subscription.paymentFailed) return Either.right({ _tag: "Now" })
  if (subscription.cancelAtPeriodEnd) {
    return Either.left(stateError("A cancel is already booked for the period end", "cancel_booked"))
  }
  return Either.right({ _tag: "AtPeriodEnd", releaseScheduleId: subscription.scheduleId })
}

/**
 * Withdrawing a booked cancel: refused when none is booked.
 *
 * @since 0.2.0
 * @category rules
 */
export const withdrawCancel = (subscription: Subscription | null): Either.Either<void, ApiError.Conflict> => {
  if (!isLive(subscription)) return Either.left(stateError("The account has no subscription", "none"))
  if (!subscription.cancelAtPeriodEnd) return Either.left(stateError("No cancel is booked", "live"))
  return Either.right(undefined)
}
