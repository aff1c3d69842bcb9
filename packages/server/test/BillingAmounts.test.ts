import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as BillingAmounts from "../src/config/BillingAmounts.js"

const reason = (raw: unknown) => Either.match(BillingAmounts.parse(raw), { onLeft: (l) => l, onRight: () => "ok" })

describe("billing.amounts", () => {
  it("reads the file's object and the environment's JSON alike; the currency lower-cased", () => {
    const value = { pro: { month: { amount_minor: 1900, currency: "USD" } }, founding: {} }
    expect(BillingAmounts.parse(value)).toEqual(
      Either.right({ pro: { month: { amount_minor: 1900, currency: "usd" } }, founding: {} })
    )
    expect(BillingAmounts.parse(JSON.stringify(value))).toEqual(BillingAmounts.parse(value))
    expect(BillingAmounts.parse({})).toEqual(Either.right({}))
  })

  it("refuses what it cannot show, naming the place", () => {
    expect(reason("{not json")).toContain("JSON object")
    expect(reason([])).toContain("JSON object")
    expect(reason({ free: { month: { amount_minor: 0, currency: "usd" } } })).toContain('"free"')
    expect(reason({ pro: { week: { amount_minor: 1, currency: "usd" } } })).toContain('"week"')
    expect(reason({ pro: { month: 1900 } })).toContain("pro.month")
    expect(reason({ pro: { month: { amount_minor: 19.5, currency: "usd" } } })).toContain("pro.month.amount_minor")
    expect(reason({ pro: { month: { amount_minor: -1, currency: "usd" } } })).toContain("pro.month.amount_minor")
    expect(reason({ pro: { month: { amount_minor: 1900, currency: "dollars" } } })).toContain("pro.month.currency")
    expect(reason({ pro: { month: { amount_minor: 1900, currency: "usd", tax: 1 } } })).toContain('"tax"')
  })
})
