/**
 * The webhook's pure parts: Stripe's signature check (billing/WebhookSignature.ts) and what the webhook writes from
 * the provider's answer (billing/ProviderState.ts).
 */
import { createHmac } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import type { AccountId } from "@signalman/core/Identity"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type { ProviderSubscription } from "../src/billing/PaymentProvider.js"
import * as Prices from "../src/billing/Prices.js"
import * as ProviderState from "../src/billing/ProviderState.js"
import * as WebhookSignature from "../src/billing/WebhookSignature.js"

const secret = "whsec_test"
const body = new TextEncoder().encode('{\n  "id": "evt_1"\n}')
const now = 1_800_000_000
const sign = (t: number, key = secret, payload = body) =>
  createHmac("sha256", key).update(`${t}.`).update(payload).digest("hex")

const reason = (header: string | undefined, at = now) =>
  Either.match(WebhookSignature.verify({ header, body, secret, nowSecs: at }), {
    onLeft: (refusal) => refusal.reason,
    onRight: () => "ok"
  })

describe("Stripe-Signature", () => {
  it("accepts the signature of the raw bytes, among several v1 values and other schemes", () => {
    expect(reason(`t=${now},v1=${sign(now)}`)).toBe("ok")
    expect(reason(`t=${now},v1=${sign(now, "whsec_old")},v1=${sign(now)},v0=abc`)).toBe("ok")
    expect(reason(` t=${now} , v1=${sign(now).toUpperCase()} `)).toBe("ok")
  })

  it("refuses a missing, malformed, mismatched or stale header", () => {
    expect(reason(undefined)).toBe("missing")
    expect(reason("")).toBe("missing")
    expect(reason("garbage")).toBe("malformed")
    expect(reason(`t=soon,v1=${sign(now)}`)).toBe("malformed")
    expect(reason(`t=${now},t=${now},v1=${sign(now)}`)).toBe("malformed")
    expect(reason(`t=${now}`)).toBe("malformed")
    expect(reason(`t=${now},v1=xyz`)).toBe("malformed")
    expect(reason(`t=${now},v1=${sign(now, "whsec_other")}`)).toBe("mismatch")
    expect(reason(`t=${now},v1=${sign(now, secret, new TextEncoder().encode('{"id":"evt_1"}'))}`)).toBe("mismatch")
    expect(reason(`t=${now - 1},v1=${sign(now)}`)).toBe("mismatch")
    expect(reason(`t=${now - 300},v1=${sign(now - 300)}`)).toBe("ok")
    expect(reason(`t=${now - 301},v1=${sign(now - 301)}`)).toBe("stale")
    expect(reason(`t=${now + 301},v1=${sign(now + 301)}`)).toBe("stale")
  })
})

const prices = Prices.make({
  pro: { month: "price_pro_month", year: "price_pro_year" },
  founding: { month: "price_founding_month" }
})
const accountId = "3f1c2a52-8a35-4f3e-9e0c-3b7b1f3f9a10" as AccountId
const periodEnd = new Date("2027-01-01T00:00:00Z")
const subscription = (overrides: Partial<ProviderSubscription> = {}): ProviderSubscription => ({
  id: "sub_1",
  customerId: "cus_1",
  status: "active",
  priceId: "price_pro_month",
  interval: "month",
  currentPeriodEnd: periodEnd,
  cancelAtPeriodEnd: false,
  scheduleId: null,
  latestInvoicePaid: true,
  pendingChange: null,
  ...overrides
})
const derive = (s: ProviderSubscription, eventType = "customer.subscription.updated", paymentFailedBefore = false) =>
  ProviderState.derive({ accountId, subscription: s, prices, paymentFailedBefore, eventType })

describe("the state the webhook writes", () => {
  it("a live subscription's price is the plan in force; an ended one is the free plan; incomplete changes nothing", () => {
    expect(derive(subscription()).planInForce).toEqual(Option.some("pro"))
    expect(derive(subscription({ status: "past_due", latestInvoicePaid: false })).planInForce).toEqual(
      Option.some("pro")
    )
    for (const status of ["canceled", "incomplete_expired", "unpaid", "paused"]) {
      expect(derive(subscription({ status })).planInForce, status).toEqual(Option.some("free"))
    }
    expect(derive(subscription({ status: "incomplete" })).planInForce).toEqual(Option.none())
    expect(derive(subscription({ priceId: "price_unknown" })).planInForce).toEqual(Option.none())
  })

  it("the schedule's next phase is the booked change, in the plan and cadence its price stands for", () => {
    const at = new Date("2026-12-31T00:00:00Z")
    const { state } = derive(
      subscription({ scheduleId: "sched_1", pendingChange: { priceId: "price_founding_month", at } })
    )
    expect(state).toMatchObject({
      pending_plan_id: "founding",
      pending_interval: "month",
      plan_change_at: at,
      schedule_id: "sched_1"
    })
    const unknown = derive(subscription({ pendingChange: { priceId: "price_unknown", at } })).state
    expect(unknown).toMatchObject({ pending_plan_id: null, pending_interval: null, plan_change_at: null })
    const ended = derive(
      subscription({ status: "canceled", scheduleId: "s", pendingChange: { priceId: "price_pro_year", at } })
    )
    expect(ended.state).toMatchObject({ pending_plan_id: null, schedule_id: null, cancel_at_period_end: false })
  })

  it("payment_failed follows the latest invoice: set by a failure, cleared once paid or ended", () => {
    const unpaid = subscription({ latestInvoicePaid: false })
    expect(derive(unpaid, "invoice.payment_failed").state.payment_failed).toBe(true)
    expect(derive(subscription({ status: "past_due", latestInvoicePaid: false })).state.payment_failed).toBe(true)
    // An open invoice not yet attempted is no failure, and does not clear one either.
    expect(derive(unpaid, "customer.subscription.updated", false).state.payment_failed).toBe(false)
    expect(derive(unpaid, "customer.subscription.updated", true).state.payment_failed).toBe(true)
    // A late failure event after the invoice was paid: the provider says paid.
    expect(derive(subscription(), "invoice.payment_failed", true).state.payment_failed).toBe(false)
    expect(
      derive(subscription({ status: "canceled", latestInvoicePaid: false }), "invoice.payment_failed").state
        .payment_failed
    ).toBe(false)
  })
})
