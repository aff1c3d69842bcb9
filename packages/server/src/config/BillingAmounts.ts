/**
 * `billing.amounts`: what each plan and cadence costs, as the billing page and `GET /api/v1/account/billing` show
 * it: `{ "pro": { "month": { "amount_minor": 1200, "currency": "usd" } } }`. The amount charged is the provider's
 * price (`billing.prices`); this is its label, kept in the configuration because the adapter makes only the
 * provider calls decisions.md lists (no price lookups) and the plans table is the quotas' (see docs/billing.md).
 */
import * as Either from "effect/Either"
import { type Interval, intervals, type PaidPlanId, paidPlans } from "./BillingPrices.js"

export interface Amount {
  /** In the currency's minor unit (cents). */
  readonly amount_minor: number
  /** Lower-case ISO 4217, as the provider writes it. */
  readonly currency: string
}

export type BillingAmounts = {
  readonly [P in PaidPlanId]?: { readonly [I in Interval]?: Amount }
}

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isPaidPlan = (key: string): key is PaidPlanId => paidPlans.some((p) => p === key)
const isInterval = (key: string): key is Interval => intervals.some((i) => i === key)

const SHAPE = 'must be a JSON object like {"pro":{"month":{"amount_minor":1200,"currency":"usd"}}}'

const amountOf = (where: string, raw: unknown): Either.Either<Amount, string> => {
  if (!isRecord(raw)) return Either.left(`${where} must be {"amount_minor": <whole number>, "currency": "<iso code>"}`)
  const { amount_minor, currency, ...rest } = raw
  const extra = Object.keys(rest)[0]
  if (extra !== undefined) return Either.left(`${where} has unknown key ${JSON.stringify(extra)}`)
  if (typeof amount_minor !== "number" || !Number.isSafeInteger(amount_minor) || amount_minor < 0) {
    return Either.left(`${where}.amount_minor must be a whole number of the currency's minor unit (cents)`)
  }
  if (typeof currency !== "string" || !/^[A-Za-z]{3}$/.test(currency)) {
    return Either.left(`${where}.currency must be a three-letter ISO 4217 code`)
  }
  return Either.right({ amount_minor, currency: currency.toLowerCase() })
}

/** The map, from the file's object or the environment's JSON string, or a reason it is wrong. */
export const parse = (raw: unknown): Either.Either<BillingAmounts, string> => {
  let value = raw
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw)
    } catch {
      return Either.left(SHAPE)
    }
  }
  if (!isRecord(value)) return Either.left(SHAPE)
  const out: { [P in PaidPlanId]?: { [I in Interval]?: Amount } } = {}
  for (const [plan, cadences] of Object.entries(value)) {
    if (!isPaidPlan(plan)) return Either.left(`has plan ${JSON.stringify(plan)}; plans sold: ${paidPlans.join(", ")}`)
    if (!isRecord(cadences)) return Either.left(`${plan} must map month and/or year to an amount`)
    const entry: { [I in Interval]?: Amount } = {}
    for (const [interval, amount] of Object.entries(cadences)) {
      if (!isInterval(interval)) {
        return Either.left(`${plan} has cadence ${JSON.stringify(interval)}; cadences: ${intervals.join(", ")}`)
      }
      const parsed = amountOf(`${plan}.${interval}`, amount)
      if (Either.isLeft(parsed)) return Either.left(parsed.left)
      entry[interval] = parsed.right
    }
    out[plan] = entry
  }
  return Either.right(out)
}
