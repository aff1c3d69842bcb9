import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Billing from "../src/Billing.js"

const prices: Billing.Prices = {
  founding: { month: "price_founding_m" },
  pro: { month: "price_pro_m", year: "price_pro_y" }
}

const periodEnd = new Date("2026-12-01T00:00:00Z")

const live = (over: Partial<Billing.Subscription> = {}): Billing.Subscription => ({
  status: "active",
  planId: "pro",
  interval: "month",
  currentPeriodEnd: periodEnd,
  pendingPlanId: null,
  pendingInterval: null,
  scheduleId: null,
  cancelAtPeriodEnd: false,
  paymentFailed: false,
  ...over
})

const refusal = <A>(result: Either.Either<A, { status: number; code: string; field: string | null }>) =>
  Either.match(result, {
    onLeft: (e) => ({ status: e.status, code: e.code, field: e.field }),
    onRight: (a) => ({ ok: a })
  })

const state = { status: 409, code: "SUBSCRIPTION_STATE", field: null }

describe("Billing.checkout", () => {
  it("with no subscription, or an ended one, buys the plan's price", () => {
    const request = { plan_id: "pro", interval: "year", accept_terms: true } as const
    expect(refusal(Billing.checkout(null, request, prices))).toEqual({ ok: { priceId: "price_pro_y" } })
    expect(refusal(Billing.checkout(live({ status: "canceled" }), request, prices))).toEqual({
      ok: { priceId: "price_pro_y" }
    })
  })

  it("terms not accepted: 400 VALIDATION_FAILED on accept_terms, before anything else", () => {
    expect(
      refusal(Billing.checkout(live(), { plan_id: "free", interval: "year", accept_terms: false }, prices))
    ).toEqual({ status: 400, code: "VALIDATION_FAILED", field: "accept_terms" })
  })

  it("a plan and cadence without a price: 409 PLAN_NOT_FOR_SALE on plan_id", () => {
    for (const [plan, interval] of [
      ["free", "month"],
      ["founding", "year"]
    ] as const) {
      expect(refusal(Billing.checkout(null, { plan_id: plan, interval, accept_terms: true }, prices))).toEqual({
        status: 409,
        code: "PLAN_NOT_FOR_SALE",
        field: "plan_id"
      })
    }
  })

  it("buying while one is live (past_due included): 409 SUBSCRIPTION_STATE", () => {
    for (const status of ["active", "past_due", "trialing", "unpaid"]) {
      expect(
        refusal(Billing.checkout(live({ status }), { plan_id: "pro", interval: "month", accept_terms: true }, prices))
      ).toEqual(state)
    }
  })
})

describe("Billing.changePlan", () => {
  it("a bigger plan: at once, dropping a booking first", () => {
    expect(
      refusal(Billing.changePlan(live({ planId: "founding" }), { plan_id: "pro", interval: "month" }, prices))
    ).toEqual({ ok: { _tag: "UpgradeNow", priceId: "price_pro_m", releaseScheduleId: null } })
    expect(
      refusal(
        Billing.changePlan(
          live({ planId: "founding", pendingInterval: "year", scheduleId: "sub_sched_1" }),
          { plan_id: "pro", interval: "year" },
          prices
        )
      )
    ).toEqual({ ok: { _tag: "UpgradeNow", priceId: "price_pro_y", releaseScheduleId: "sub_sched_1" } })
  })

  it("a smaller plan: booked for the period end", () => {
    expect(refusal(Billing.changePlan(live(), { plan_id: "founding", interval: "month" }, prices))).toEqual({
      ok: {
        _tag: "BookAtPeriodEnd",
        priceId: "price_founding_m",
        planId: "founding",
        interval: "month",
        at: periodEnd,
        releaseScheduleId: null
      }
    })
  })

  it("the same plan on the other cadence: booked for the renewal", () => {
    const result = Billing.changePlan(live(), { plan_id: "pro", interval: "year" }, prices)
    expect(Either.getOrThrow(result)).toMatchObject({ _tag: "BookAtPeriodEnd", planId: "pro", interval: "year" })
  })

  it("back to what is in force while a change is booked: the booking is withdrawn", () => {
    const downgrade = live({ pendingPlanId: "founding", scheduleId: "sub_sched_2" })
    expect(refusal(Billing.changePlan(downgrade, { plan_id: "pro", interval: "month" }, prices))).toEqual({
      ok: { _tag: "WithdrawBooking", scheduleId: "sub_sched_2" }
    })
  })

  it("another booking replaces the one there", () => {
    const booked = live({ pendingInterval: "year", scheduleId: "sub_sched_3" })
    expect(
      Either.getOrThrow(Billing.changePlan(booked, { plan_id: "founding", interval: "month" }, prices))
    ).toMatchObject({ _tag: "BookAtPeriodEnd", planId: "founding", releaseScheduleId: "sub_sched_3" })
  })

  it("to the plan and cadence in force, or already booked: 409 SUBSCRIPTION_STATE", () => {
    expect(refusal(Billing.changePlan(live(), { plan_id: "pro", interval: "month" }, prices))).toEqual(state)
    const booked = live({ pendingPlanId: "founding", scheduleId: "s" })
    expect(refusal(Billing.changePlan(booked, { plan_id: "founding", interval: "month" }, prices))).toEqual(state)
  })

  it("while a cancel is booked, or with no subscription: 409 SUBSCRIPTION_STATE", () => {
    const request = { plan_id: "founding", interval: "month" } as const
    expect(refusal(Billing.changePlan(live({ cancelAtPeriodEnd: true }), request, prices))).toEqual(state)
    expect(refusal(Billing.changePlan(null, request, prices))).toEqual(state)
    expect(refusal(Billing.changePlan(live({ status: "canceled" }), request, prices))).toEqual(state)
  })

  it("a plan and cadence without a price: 409 PLAN_NOT_FOR_SALE, with or without a subscription", () => {
    for (const subscription of [live(), null]) {
      expect(refusal(Billing.changePlan(subscription, { plan_id: "founding", interval: "year" }, prices))).toEqual({
        status: 409,
        code: "PLAN_NOT_FOR_SALE",
        field: "plan_id"
      })
    }
  })
})

describe("Billing.cancel and withdrawCancel", () => {
  it("cancels at the period end, dropping a booked change", () => {
    expect(refusal(Billing.cancel(live({ scheduleId: "s", pendingPlanId: "founding" })))).toEqual({
      ok: { _tag: "AtPeriodEnd", releaseScheduleId: "s" }
    })
  })

  it("cancels at once when the last payment failed, even with a cancel booked", () => {
    expect(refusal(Billing.cancel(live({ status: "past_due", paymentFailed: true })))).toEqual({ ok: { _tag: "Now" } })
    expect(refusal(Billing.cancel(live({ paymentFailed: true, cancelAtPeriodEnd: true })))).toEqual({
      ok: { _tag: "Now" }
    })
  })

  it("with none, or one already booked: 409 SUBSCRIPTION_STATE", () => {
    expect(refusal(Billing.cancel(null))).toEqual(state)
    expect(refusal(Billing.cancel(live({ status: "canceled" })))).toEqual(state)
    expect(refusal(Billing.cancel(live({ cancelAtPeriodEnd: true })))).toEqual(state)
  })

  it("withdraws a booked cancel, and only that", () => {
    expect(refusal(Billing.withdrawCancel(live({ cancelAtPeriodEnd: true })))).toEqual({ ok: undefined })
    expect(refusal(Billing.withdrawCancel(live()))).toEqual(state)
    expect(refusal(Billing.withdrawCancel(null))).toEqual(state)
  })
})

describe("Billing.isBigger", () => {
  it("orders free < founding < pro", () => {
    expect(Billing.isBigger("pro", "founding")).toBe(true)
    expect(Billing.isBigger("founding", "free")).toBe(true)
    expect(Billing.isBigger("founding", "pro")).toBe(false)
    expect(Billing.isBigger("pro", "pro")).toBe(false)
  })
})
