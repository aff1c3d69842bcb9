/**
 * What is for sale: `billing.prices` read both ways. A plan and cadence map to the provider's price (none: not for
 * sale, 409 PLAN_NOT_FOR_SALE where a route asks); a subscription's price maps back to the plan and cadence it
 * stands for (the webhook sets the plan in force from it).
 */
import type { PlanId } from "@signalman/core/Plan"
import * as Option from "effect/Option"
import type { BillingPrices, Interval, PaidPlanId } from "../config/BillingPrices.js"
import { intervals, paidPlans } from "../config/BillingPrices.js"

export type { Interval, PaidPlanId } from "../config/BillingPrices.js"

export interface PlanAndInterval {
  readonly plan: PaidPlanId
  readonly interval: Interval
}

export interface Prices {
  /** The price of a plan billed at a cadence; none when that pair is not for sale. */
  readonly priceOf: (plan: PlanId, interval: Interval) => Option.Option<string>
  /** The plan and cadence a price stands for; none for a price the settings do not name. */
  readonly planOf: (priceId: string) => Option.Option<PlanAndInterval>
  /** Every pair for sale, plans in `paidPlans` order, month before year. */
  readonly forSale: ReadonlyArray<PlanAndInterval & { readonly priceId: string }>
}

export const make = (prices: BillingPrices): Prices => {
  const forSale = paidPlans.flatMap((plan) =>
    intervals.flatMap((interval) => {
      const priceId = prices[plan]?.[interval]
      return priceId === undefined ? [] : [{ plan, interval, priceId }]
    })
  )
  return {
    priceOf: (plan, interval) =>
      Option.fromNullable(forSale.find((p) => p.plan === plan && p.interval === interval)?.priceId),
    planOf: (priceId) =>
      Option.map(Option.fromNullable(forSale.find((p) => p.priceId === priceId)), ({ plan, interval }) => ({
        plan,
        interval
      })),
    forSale
  }
}
