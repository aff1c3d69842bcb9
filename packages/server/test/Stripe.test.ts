/**
 * The Stripe adapter (billing/Stripe.ts) against the fake Stripe (support/FakeStripe.ts) over loopback HTTP: the
 * form encoding, the key and idempotency keys, retries on 500 and on 429 with Retry-After, Stripe's error objects,
 * the timeout, and each operation's mapping to `ProviderSubscription`. Also the billing settings and the price map.
 */
import { assert, describe, expect, it, layer } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ConfiguredProvider from "../src/billing/ConfiguredProvider.js"
import type { PaymentProviderError } from "../src/billing/PaymentProvider.js"
import * as Prices from "../src/billing/Prices.js"
import * as Stripe from "../src/billing/Stripe.js"
import * as StripeForm from "../src/billing/StripeForm.js"
import * as Config from "../src/config/Config.js"
import * as Load from "../src/config/Load.js"
import * as FakeStripe from "./support/FakeStripe.js"

class Fake extends Context.Tag("test/FakeStripe")<Fake, FakeStripe.FakeStripe>() {}

const ACCOUNT = "3f1c2a52-8a35-4f3e-9e0c-3b7b1f3f9a10"

/** The adapter over the fake, with a short timeout and backoff so failures are quick to test. */
const adapter = (fake: FakeStripe.FakeStripe, options: Partial<Stripe.Options> = {}) =>
  Stripe.make({ secretKey: fake.secretKey, apiBase: fake.origin, timeoutMs: 2_000, backoffBaseMs: 20, ...options })

const providerError = <A>(effect: Effect.Effect<A, PaymentProviderError>) =>
  Effect.map(Effect.either(effect), (result) => {
    assert(Either.isLeft(result), "the call was expected to fail")
    return result.left
  })

/** A live subscription at the fake, through the adapter's own customer and checkout calls. */
const subscribed = (fake: FakeStripe.FakeStripe, priceId = "price_pro_month") =>
  Effect.gen(function* () {
    const stripe = adapter(fake)
    const customer = yield* stripe.createCustomer({ accountId: crypto.randomUUID(), email: "a@example.com" })
    const checkout = yield* stripe.createCheckout({
      customerId: customer.id,
      priceId,
      accountId: ACCOUNT,
      successUrl: "http://localhost/ok",
      cancelUrl: "http://localhost/no"
    })
    fake.takeEvents()
    const subscription = fake.completeCheckout(checkout.id)
    fake.takeEvents()
    return subscription
  })

describe("Stripe form encoding", () => {
  it("nests objects and lists in brackets, booleans as true/false, skips undefined", () => {
    expect(
      StripeForm.pairs({
        mode: "subscription",
        line_items: [{ price: "price_1", quantity: 1 }],
        metadata: { account_id: "a" },
        cancel_at_period_end: false,
        expand: ["schedule", "latest_invoice"],
        absent: undefined
      })
    ).toEqual([
      ["mode", "subscription"],
      ["line_items[0][price]", "price_1"],
      ["line_items[0][quantity]", "1"],
      ["metadata[account_id]", "a"],
      ["cancel_at_period_end", "false"],
      ["expand[0]", "schedule"],
      ["expand[1]", "latest_invoice"]
    ])
    expect(StripeForm.encode({ a: { "b c": "x&y" } })).toBe("a%5Bb+c%5D=x%26y")
  })

  it("the fake parses bracketed keys as Stripe does", () => {
    expect(
      FakeStripe.parseForm([
        ["phases[0][items][0][price]", "p1"],
        ["phases[1][iterations]", "1"],
        ["expand[]", "a"],
        ["expand[]", "b"]
      ])
    ).toEqual({ phases: [{ items: [{ price: "p1" }] }, { iterations: "1" }], expand: ["a", "b"] })
  })
})

describe("billing settings", () => {
  it("unset provider means no billing; stripe with the default API origin", () => {
    const values = Config.fromEnv({})
    expect(values["billing.provider"]).toBeUndefined()
    expect(values["billing.stripe.api_base"]).toBe("https://api.stripe.com")
    expect(values["billing.prices"]).toEqual({})
    expect(Config.fromEnv({ BILLING__PROVIDER: "stripe" })["billing.provider"]).toBe("stripe")
  })

  it("refuses another provider, plain http off loopback, and a bad price map", () => {
    const refusal = (env: Record<string, string>) => {
      try {
        Config.fromEnv(env)
        return "accepted"
      } catch (e) {
        return String(e)
      }
    }
    expect(refusal({ BILLING__PROVIDER: "paypal" })).toContain("billing.provider")
    expect(refusal({ BILLING__STRIPE__API_BASE: "http://stripe.example" })).toContain("loopback")
    expect(refusal({ BILLING__STRIPE__API_BASE: "http://127.0.0.1:9" })).toBe("accepted")
    expect(refusal({ BILLING__PRICES: "{" })).toContain("billing.prices")
    expect(refusal({ BILLING__PRICES: '{"free":{"month":"price_1"}}' })).toContain('plan "free"')
    expect(refusal({ BILLING__PRICES: '{"pro":{"week":"price_1"}}' })).toContain('cadence "week"')
    expect(refusal({ BILLING__PRICES: '{"pro":{"month":""}}' })).toContain("pro.month must be a price id")
    expect(refusal({ BILLING__PRICES: '{"pro":{"month":"p"},"founding":{"year":"p"}}' })).toContain("more than one")
  })

  it("takes the price map as a nested object from a YAML config file", () => {
    const text =
      "billing:\n  provider: stripe\n  prices:\n    pro: { month: price_pm }\n    founding:\n      year: price_fy\n"
    const file = Either.getOrThrow(Load.parseFile(text, "signalman.yaml"))
    const values = Either.getOrThrow(Load.resolve({ env: {}, file: { path: "signalman.yaml", settings: file } }))
    expect(values["billing.prices"]).toEqual({ pro: { month: "price_pm" }, founding: { year: "price_fy" } })
    expect(values["billing.provider"]).toBe("stripe")
  })

  it.effect("without billing.provider there is no provider: 404 BILLING_UNAVAILABLE", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        ConfiguredProvider.require.pipe(
          Effect.provide(ConfiguredProvider.layer),
          Effect.provide(Config.layer(Config.fromEnv({})))
        )
      )
      expect(error).toMatchObject({ code: "BILLING_UNAVAILABLE", status: 404 })
    })
  )

  it.effect("billing.provider stripe without both secrets stops the boot", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(
        ConfiguredProvider.require.pipe(
          Effect.provide(ConfiguredProvider.layer),
          Effect.provide(
            Config.layer(Config.fromEnv({ BILLING__PROVIDER: "stripe", BILLING__STRIPE__SECRET_KEY: "sk_test_x" }))
          )
        )
      )
      expect(String(exit)).toContain("billing.stripe.webhook_secret must both be set")
      const ready = yield* ConfiguredProvider.require.pipe(
        Effect.provide(ConfiguredProvider.layer),
        Effect.provide(
          Config.layer(
            Config.fromEnv({
              BILLING__PROVIDER: "stripe",
              BILLING__STRIPE__SECRET_KEY: "sk_test_x",
              BILLING__STRIPE__WEBHOOK_SECRET: "whsec_x"
            })
          )
        )
      )
      expect(typeof ready.getSubscription).toBe("function")
    })
  )

  it("maps plan and cadence to a price and back; a pair left out is not for sale", () => {
    const prices = Prices.make(
      Config.fromEnv({ BILLING__PRICES: '{"pro":{"month":"pm","year":"py"}}' })["billing.prices"]
    )
    expect(prices.priceOf("pro", "year")).toEqual(Option.some("py"))
    expect(prices.priceOf("founding", "month")).toEqual(Option.none())
    expect(prices.priceOf("free", "month")).toEqual(Option.none())
    expect(prices.planOf("pm")).toEqual(Option.some({ plan: "pro", interval: "month" }))
    expect(prices.planOf("price_other")).toEqual(Option.none())
    expect(prices.forSale.map((p) => p.priceId)).toEqual(["pm", "py"])
  })
})

layer(Layer.scoped(Fake, FakeStripe.make()), { excludeTestServices: true })("Stripe adapter", (it) => {
  it.effect(
    "creates a customer with the bearer key, a form body and an idempotency key; the same account again is replayed",
    () =>
      Effect.gen(function* () {
        const fake = yield* Fake
        const stripe = adapter(fake)
        const accountId = crypto.randomUUID()
        const first = yield* stripe.createCustomer({ accountId, email: "owner@example.com" })
        const second = yield* stripe.createCustomer({ accountId, email: "owner@example.com" })
        expect(second.id).toBe(first.id)
        const calls = fake.received.filter((r) => r.path === "/v1/customers" && r.idempotencyKey?.includes(accountId))
        expect(calls.map((r) => r.replayed)).toEqual([false, true])
        expect(calls[0]?.authorization).toBe(`Bearer ${fake.secretKey}`)
        expect(calls[0]?.pairs).toEqual([
          ["email", "owner@example.com"],
          ["metadata[account_id]", accountId]
        ])
        expect(calls[0]?.idempotencyKey).toBe(calls[1]?.idempotencyKey)
        expect([...fake.customers.values()].filter((c) => c.metadata["account_id"] === accountId)).toHaveLength(1)
      })
  )

  it.effect("creates a subscription checkout for the account with one line item", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const stripe = adapter(fake)
      const customer = yield* stripe.createCustomer({ accountId: crypto.randomUUID(), email: "c@example.com" })
      const checkout = yield* stripe.createCheckout({
        customerId: customer.id,
        priceId: "price_pro_year",
        accountId: ACCOUNT,
        successUrl: "http://localhost:1/dashboard/settings/billing?done=1",
        cancelUrl: "http://localhost:1/dashboard/settings/billing"
      })
      expect(checkout.url).toBe(`${fake.origin}/checkout/${checkout.id}`)
      const call = fake.received.findLast((r) => r.path === "/v1/checkout/sessions")
      expect(call?.params).toEqual({
        mode: "subscription",
        customer: customer.id,
        client_reference_id: ACCOUNT,
        line_items: [{ price: "price_pro_year", quantity: "1" }],
        success_url: "http://localhost:1/dashboard/settings/billing?done=1",
        cancel_url: "http://localhost:1/dashboard/settings/billing",
        subscription_data: { metadata: { account_id: ACCOUNT } }
      })
      expect(call?.idempotencyKey).toMatch(/^signalman-/)
      const portal = yield* stripe.createPortal({ customerId: customer.id, returnUrl: "http://localhost:1/back" })
      expect(portal.url).toMatch(new RegExp(`^${fake.origin}/portal/bps_`))
    })
  )

  it.effect("retries a 500 with the same idempotency key, and gives up after three attempts as unavailable", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const stripe = adapter(fake)
      const before = fake.received.length
      fake.failNext(2, 500)
      const customer = yield* stripe.createCustomer({ accountId: crypto.randomUUID(), email: "r@example.com" })
      const calls = fake.received.slice(before)
      expect(calls.map((r) => r.injected)).toEqual([true, true, false])
      expect(new Set(calls.map((r) => r.idempotencyKey)).size).toBe(1)
      expect(fake.customers.has(customer.id)).toBe(true)

      fake.failNext(3, 500)
      const error = yield* providerError(stripe.createPortal({ customerId: customer.id, returnUrl: "http://x/" }))
      expect(error.kind).toBe("unavailable")
      expect(error.status).toBe(500)
    })
  )

  it.effect("waits the Retry-After a 429 asks for, and fails at once when it asks for longer than the bound", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const stripe = adapter(fake)
      const customer = yield* stripe.createCustomer({ accountId: crypto.randomUUID(), email: "w@example.com" })
      const before = fake.received.length
      fake.failNext(1, 429, 1)
      const started = Date.now()
      yield* stripe.createPortal({ customerId: customer.id, returnUrl: "http://x/" })
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_000)
      const calls = fake.received.slice(before)
      expect(calls.map((r) => r.injected)).toEqual([true, false])
      expect(calls[0]?.idempotencyKey).toBe(calls[1]?.idempotencyKey)

      fake.failNext(1, 429, 60)
      const quick = Date.now()
      const error = yield* providerError(stripe.createPortal({ customerId: customer.id, returnUrl: "http://x/" }))
      expect(Date.now() - quick).toBeLessThan(1_000)
      expect(error).toMatchObject({ kind: "unavailable", status: 429 })
    })
  )

  it.effect("decodes Stripe's error object into a refusal, without retrying", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const stripe = adapter(fake)
      const before = fake.received.length
      const error = yield* providerError(stripe.createPortal({ customerId: "cus_nobody", returnUrl: "http://x/" }))
      expect(error).toMatchObject({ kind: "refused", status: 404, code: "resource_missing" })
      expect(error.message).toContain("No such customer: 'cus_nobody'")
      expect(fake.received.length - before).toBe(1)

      const wrongKey = yield* providerError(
        adapter(fake, { secretKey: "sk_test_wrong" }).getSubscription("sub_whatever")
      )
      expect(wrongKey).toMatchObject({ kind: "refused", status: 401 })
      expect(wrongKey.message).toContain("Invalid API Key")
    })
  )

  it.effect(
    "times out a stalled answer, retries with the same key, and fails as unavailable when every attempt stalls",
    () =>
      Effect.gen(function* () {
        const fake = yield* Fake
        const stripe = adapter(fake, { timeoutMs: 200 })
        const before = fake.received.length
        fake.stallNext(1, 600)
        const customer = yield* stripe.createCustomer({ accountId: crypto.randomUUID(), email: "t@example.com" })
        // The stalled request was handled, its answer lost to the timeout: the retry is answered from the
        // idempotency store, and there is one customer.
        const calls = fake.received.slice(before)
        expect(calls.map((r) => r.replayed)).toEqual([false, true])
        expect(new Set(calls.map((r) => r.idempotencyKey)).size).toBe(1)
        expect([...fake.customers.values()].filter((c) => c.email === "t@example.com")).toHaveLength(1)
        expect(fake.customers.has(customer.id)).toBe(true)

        fake.stallNext(3, 400)
        const error = yield* providerError(stripe.getSubscription("sub_slow"))
        expect(error.kind).toBe("unavailable")
        expect(error.message).toContain("no answer within 200 ms")
      })
  )

  it.effect("reads a subscription: price, cadence, period end, invoice paid, no schedule", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const subscription = yield* subscribed(fake, "price_pro_year")
      const read = yield* adapter(fake).getSubscription(subscription.id)
      expect(read).toEqual({
        id: subscription.id,
        customerId: subscription.customer,
        status: "active",
        priceId: "price_pro_year",
        interval: "year",
        currentPeriodEnd: new Date(subscription.periodEnd * 1000),
        cancelAtPeriodEnd: false,
        scheduleId: null,
        latestInvoicePaid: true,
        pendingChange: null
      })
      const call = fake.received.findLast((r) => r.method === "GET")
      expect(call?.idempotencyKey).toBeNull()
      expect(call?.params).toEqual({ expand: ["latest_invoice", "schedule"] })
      const missing = yield* providerError(adapter(fake).getSubscription("sub_missing"))
      expect(missing).toMatchObject({ kind: "refused", status: 404, code: "resource_missing" })
    })
  )

  it.effect("changes the price at once with prorations, and books cancel at period end and withdraws it", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const stripe = adapter(fake)
      const subscription = yield* subscribed(fake, "price_founding_month")
      const changed = yield* stripe.changePriceNow({ subscriptionId: subscription.id, priceId: "price_pro_month" })
      expect(changed.priceId).toBe("price_pro_month")
      const call = fake.received.findLast(
        (r) => r.method === "POST" && r.path === `/v1/subscriptions/${subscription.id}`
      )
      expect(call?.params).toMatchObject({
        items: [{ id: subscription.itemId, price: "price_pro_month" }],
        proration_behavior: "create_prorations"
      })
      expect(
        (yield* stripe.setCancelAtPeriodEnd({ subscriptionId: subscription.id, value: true })).cancelAtPeriodEnd
      ).toBe(true)
      // The same parameters again are a new logical call: a new key, so the withdrawal above is not replayed.
      expect(
        (yield* stripe.setCancelAtPeriodEnd({ subscriptionId: subscription.id, value: false })).cancelAtPeriodEnd
      ).toBe(false)
      expect(
        (yield* stripe.setCancelAtPeriodEnd({ subscriptionId: subscription.id, value: true })).cancelAtPeriodEnd
      ).toBe(true)
      expect(fake.subscriptions.get(subscription.id)?.cancelAtPeriodEnd).toBe(true)
    })
  )

  it.effect("books a change for the period end on a schedule, reads it back as the next phase, and releases it", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const stripe = adapter(fake)
      const subscription = yield* subscribed(fake, "price_pro_month")
      const { scheduleId } = yield* stripe.bookAtPeriodEnd({
        subscriptionId: subscription.id,
        priceId: "price_founding_month"
      })
      const update = fake.received.findLast((r) => r.path === `/v1/subscription_schedules/${scheduleId}`)
      expect(update?.params).toMatchObject({
        end_behavior: "release",
        phases: [
          {
            items: [{ price: "price_pro_month", quantity: "1" }],
            start_date: String(subscription.periodStart),
            end_date: String(subscription.periodEnd)
          },
          { items: [{ price: "price_founding_month", quantity: "1" }], iterations: "1" }
        ]
      })
      const read = yield* stripe.getSubscription(subscription.id)
      expect(read.scheduleId).toBe(scheduleId)
      expect(read.pendingChange).toEqual({
        priceId: "price_founding_month",
        at: new Date(subscription.periodEnd * 1000)
      })
      // Booking again rewrites the same schedule instead of failing on a second one.
      const again = yield* stripe.bookAtPeriodEnd({ subscriptionId: subscription.id, priceId: "price_pro_year" })
      expect(again.scheduleId).toBe(scheduleId)
      expect((yield* stripe.getSubscription(subscription.id)).pendingChange?.priceId).toBe("price_pro_year")

      yield* stripe.releaseSchedule(scheduleId)
      const released = yield* stripe.getSubscription(subscription.id)
      expect(released.scheduleId).toBeNull()
      expect(released.pendingChange).toBeNull()
      expect(released.priceId).toBe("price_pro_month")
    })
  )

  it.effect("cancels at once, and a provider that refuses the cancel is a refusal", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const stripe = adapter(fake)
      const subscription = yield* subscribed(fake)
      fake.refuseCancel()
      const refused = yield* providerError(stripe.cancelNow(subscription.id))
      expect(refused).toMatchObject({ kind: "refused", status: 402 })
      fake.refuseCancel(false)
      const canceled = yield* stripe.cancelNow(subscription.id)
      expect(canceled.status).toBe("canceled")
      expect(fake.received.findLast((r) => r.method === "DELETE")?.idempotencyKey).toBeNull()
      expect(fake.takeEvents().map((e) => e.type)).toEqual(["customer.subscription.deleted"])
    })
  )

  it.effect("a failed payment shows as an unpaid latest invoice", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const subscription = yield* subscribed(fake)
      fake.failPayment(subscription.id)
      const read = yield* adapter(fake).getSubscription(subscription.id)
      expect(read).toMatchObject({ status: "past_due", latestInvoicePaid: false })
    })
  )
})
