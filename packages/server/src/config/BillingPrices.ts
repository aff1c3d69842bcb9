/**
 * `billing.prices`: the provider's price of each plan and cadence (`decisions.md`, "Billing"), as
 * `{ "pro": { "month": "price_..", "year": "price_.." }, "founding": { .. } }`. A pair left out is not for sale. Parsed
 * with the configuration so a typo stops the boot instead of surfacing as a refused checkout; `billing/Prices.ts`
 * answers both directions (plan and cadence to price, price back to plan and cadence).
 */
import type { PlanId } from "@signalman/core/Plan"
import * as Either from "effect/Either"

/** A paid plan: the free plan is never sold. */
export type PaidPlanId = Exclude<PlanId, "free">

export const paidPlans: ReadonlyArray<PaidPlanId> = ["founding", "pro"]

export type Interval = "month" | "year"

export const intervals: ReadonlyArray<Interval> = ["month", "year"]

export type BillingPrices = {
  readonly [P in PaidPlanId]?: { readonly [I in Interval]?: string }
}

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isPaidPlan = (key: string): key is PaidPlanId => paidPlans.some((p) => p === key)
const isInterval = (key: string): key is Interval => intervals.some((i) => i === key)

/** The map, from the file's object or the environment's JSON string, or a reason it is wrong. */
export const parse = (raw: unknown): Either.Either<BillingPrices, string> => {
  let value = raw
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw)
    } catch {
      return Either.left("must be a JSON object of plans, each mapping month and year to a price id")
    }
  }
  if (!isRecord(value)) return Either.left("must be an object of plans, each mapping month and year to a price id")
  const out: { [P in PaidPlanId]?: { [I in Interval]?: string } } = {}
  const seen = new Set<string>()
  for (const [plan, cadences] of Object.entries(value)) {
    if (!isPaidPlan(plan)) return Either.left(`has plan ${JSON.stringify(plan)}; plans sold: ${paidPlans.join(", ")}`)
    if (!isRecord(cadences)) return Either.left(`${plan} must map month and/or year to a price id`)
    const entry: { [I in Interval]?: string } = {}
    for (const [interval, price] of Object.entries(cadences)) {
      if (!isInterval(interval)) {
        return Either.left(`${plan} has cadence ${JSON.stringify(interval)}; cadences: ${intervals.join(", ")}`)
      }
      if (typeof price !== "string" || price.trim() === "") {
        return Either.left(`${plan}.${interval} must be a price id`)
      }
      // The webhook maps a subscription's price back to its plan: one price cannot stand for two pairs.
      if (seen.has(price)) return Either.left(`price ${price} is given to more than one plan and cadence`)
      seen.add(price)
      entry[interval] = price
    }
    out[plan] = entry
  }
  return Either.right(out)
}
