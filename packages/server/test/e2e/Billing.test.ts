/**
 * The billing endpoints against the fake Stripe (support/FakeStripe.ts), over real HTTP on both databases: every row
 * of the spec's Subscription state table, each confirmed by the fake's signed webhook event (the plan in force moves
 * only then), every refusal (SUBSCRIPTION_STATE in each of its cases, PLAN_NOT_FOR_SALE, accept_terms, the session and
 * payer gates, BILLING_UNAVAILABLE on a server without a provider), the provider failing and refusing, and that no
 * request holds the database while it waits for the provider.
 */
import { assert, expect, layer } from "@effect/vitest"
import { BillingRecord, ProviderRedirect } from "@signalman/core/api/Billing"
import { Org } from "@signalman/core/Identity"
import * as Context from "effect/Context"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { eventually } from "../support/Eventually.js"
import * as FakeStripe from "../support/FakeStripe.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import * as Identity from "../support/Identity.js"
import * as TestDatabase from "../support/TestDatabase.js"

class Fake extends Context.Tag("test/FakeStripe")<Fake, FakeStripe.FakeStripe>() {}

// Founding is sold by the month only: founding by the year is the pair not for sale.
const prices: FakeStripe.Prices = {
  pro: { month: "price_pro_month", year: "price_pro_year" },
  founding: { month: "price_founding_month" }
}

const amounts = {
  pro: { month: { amount_minor: 1900, currency: "usd" }, year: { amount_minor: 19000, currency: "usd" } },
  founding: { month: { amount_minor: 900, currency: "usd" } }
}

const server = Layer.scopedContext(
  Effect.gen(function* () {
    const fake = yield* FakeStripe.make({ prices })
    const running = yield* Fixture.start({
      env: { ...fake.env(prices), BILLING__AMOUNTS: JSON.stringify(amounts) }
    })
    fake.deliverTo(running.server.baseUrl)
    return Context.make(Fixture.Fixture, running).pipe(Context.add(Fake, fake))
  })
)

const BILLING = "/api/v1/account/billing"

const routes: ReadonlyArray<readonly [string, string, unknown]> = [
  ["GET", BILLING, undefined],
  ["POST", `${BILLING}/checkout`, { plan_id: "pro", interval: "month", accept_terms: true }],
  ["POST", `${BILLING}/portal`, undefined],
  ["PUT", `${BILLING}/plan`, { plan_id: "pro", interval: "month" }],
  ["POST", `${BILLING}/cancel`, undefined],
  ["DELETE", `${BILLING}/cancel`, undefined]
]

const send = (person: Identity.Person, method: string, path: string, json?: unknown) =>
  person.browser.request(path, json === undefined ? { method } : { method, json })

const record = (person: Identity.Person) =>
  Effect.map(person.browser.request(BILLING), (reply) => Http.expectOk(reply, BillingRecord))

const changePlan = (person: Identity.Person, plan_id: string, interval: string) =>
  send(person, "PUT", `${BILLING}/plan`, { plan_id, interval })

const refusal = (reply: Http.Body) => Http.refusal(reply)
const state = { status: 409, code: "SUBSCRIPTION_STATE", field: null }

/** Checkout answers the fake's page; its session id is the URL's last segment. */
const checkout = (person: Identity.Person, plan_id: string, interval: string) =>
  Effect.gen(function* () {
    const reply = yield* send(person, "POST", `${BILLING}/checkout`, { plan_id, interval, accept_terms: true })
    const { url } = Http.expectOk(reply, ProviderRedirect)
    const id = new URL(url).pathname.split("/").pop() ?? ""
    return { url, id }
  })

/** Until the record satisfies `done`; the last one read either way. */
const until = (person: Identity.Person, done: (r: BillingRecord) => boolean) =>
  eventually(record(person), done, { timeoutMs: 10_000 })

/** A new person who buys `plan` by `interval` and whose subscription the webhook has confirmed. */
const subscriber = (plan: "pro" | "founding", interval: "month" | "year") =>
  Effect.gen(function* () {
    const fake = yield* Fake
    const person = yield* Fixture.person({ label: "payer" })
    const { id } = yield* checkout(person, plan, interval)
    const subscription = fake.completeCheckout(id)
    yield* fake.flush()
    const live = yield* until(person, (r) => r.subscription_status === "active" && r.plan_id === plan)
    expect(live).toMatchObject({ subscription_status: "active", plan_id: plan, interval })
    return { person, subscriptionId: subscription.id }
  })

const periodEnd = (r: BillingRecord) =>
  r.current_period_end === null ? null : DateTime.toEpochMillis(r.current_period_end)

layer(server, { excludeTestServices: true })(`Billing (${TestDatabase.kind} database)`, (it) => {
  it.effect("the record before buying: the free plan, the plans on sale with their amounts; nothing to change", () =>
    Effect.gen(function* () {
      const person = yield* Fixture.person({ label: "looker" })
      const before = yield* record(person)
      expect(before).toMatchObject({
        subscription_status: null,
        plan_id: "free",
        interval: null,
        current_period_end: null,
        pending_plan_id: null,
        pending_interval: null,
        plan_change_at: null,
        cancel_at_period_end: false,
        payment_failed: false
      })
      expect(before.plans_on_sale.map((p) => ({ plan: p.plan_id, prices: p.prices.map((x) => ({ ...x })) }))).toEqual([
        { plan: "founding", prices: [{ interval: "month", amount_minor: 900, currency: "usd" }] },
        {
          plan: "pro",
          prices: [
            { interval: "month", amount_minor: 1900, currency: "usd" },
            { interval: "year", amount_minor: 19000, currency: "usd" }
          ]
        }
      ])
      // Nothing to change, cancel or open without a subscription.
      expect(refusal(yield* changePlan(person, "pro", "month"))).toEqual(state)
      expect(refusal(yield* send(person, "POST", `${BILLING}/cancel`))).toEqual(state)
      expect(refusal(yield* send(person, "DELETE", `${BILLING}/cancel`))).toEqual(state)
      expect(refusal(yield* send(person, "POST", `${BILLING}/portal`))).toEqual(state)
    })
  )

  it.effect(
    "checkout refusals: terms not accepted, a pair not for sale, an unknown plan; nothing reaches the provider",
    () =>
      Effect.gen(function* () {
        const fake = yield* Fake
        const person = yield* Fixture.person({ label: "refused" })
        const path = `${BILLING}/checkout`
        const before = fake.received.length
        expect(
          refusal(yield* send(person, "POST", path, { plan_id: "pro", interval: "month", accept_terms: false }))
        ).toEqual({ status: 400, code: "VALIDATION_FAILED", field: "accept_terms" })
        expect(refusal(yield* send(person, "POST", path, { plan_id: "pro", interval: "month" }))).toMatchObject({
          status: 400,
          field: "accept_terms"
        })
        for (const [plan_id, interval] of [
          ["founding", "year"],
          ["free", "month"]
        ]) {
          expect(refusal(yield* send(person, "POST", path, { plan_id, interval, accept_terms: true }))).toEqual({
            status: 409,
            code: "PLAN_NOT_FOR_SALE",
            field: "plan_id"
          })
        }
        expect(
          refusal(yield* send(person, "POST", path, { plan_id: "enterprise", interval: "month", accept_terms: true }))
        ).toMatchObject({ status: 400, field: "plan_id" })
        expect(
          refusal(yield* send(person, "POST", path, { plan_id: "pro", interval: "week", accept_terms: true }))
        ).toMatchObject({ status: 400, field: "interval" })
        expect(fake.received.length).toBe(before)
      })
  )

  it.effect(
    "no subscription -> checkout: one customer per account, the provider's URL, live only once the webhook confirms",
    () =>
      Effect.gen(function* () {
        const fake = yield* Fake
        const { server } = yield* Fixture.Fixture
        const person = yield* Fixture.person({ label: "buyer" })
        const first = yield* checkout(person, "pro", "year")
        const second = yield* checkout(person, "pro", "year")
        expect(first.url.startsWith(fake.origin)).toBe(true)
        const session = fake.checkoutSessions.get(second.id)
        assert.isDefined(session)
        expect(fake.checkoutSessions.get(first.id)?.customer).toBe(session.customer)
        expect([...fake.customers.values()].filter((c) => c.email === person.email)).toHaveLength(1)
        expect(session.priceId).toBe("price_pro_year")
        // On the server's public base URL (the test server's names this host by name, not address).
        const onServer = (url: string) => `${new URL(url).port}${new URL(url).pathname}${new URL(url).search}`
        const port = new URL(server.baseUrl).port
        expect(onServer(session.successUrl)).toBe(`${port}/settings/billing?checkout=done`)
        expect(onServer(session.cancelUrl)).toBe(`${port}/settings/billing?checkout=cancelled`)

        // Paid at the provider, but not in force until its event arrives.
        fake.completeCheckout(second.id)
        expect((yield* record(person)).subscription_status).toBe(null)
        expect((yield* record(person)).plan_id).toBe("free")
        yield* fake.flush()
        const live = yield* until(person, (r) => r.subscription_status === "active")
        expect(live).toMatchObject({ plan_id: "pro", interval: "year", cancel_at_period_end: false })
        expect(periodEnd(live)).toBeGreaterThan(Date.now())

        // Buying again while one is live.
        expect(
          refusal(
            yield* send(person, "POST", `${BILLING}/checkout`, {
              plan_id: "founding",
              interval: "month",
              accept_terms: true
            })
          )
        ).toEqual(state)
        // The portal opens for the customer.
        const portal = Http.expectOk(yield* send(person, "POST", `${BILLING}/portal`), ProviderRedirect)
        expect(portal.url.startsWith(`${fake.origin}/portal/`)).toBe(true)
        const asked = fake.received.filter((r) => r.path === "/v1/billing_portal/sessions").at(-1)
        expect(onServer(String(asked?.params["return_url"]))).toBe(`${port}/settings/billing`)
      })
  )

  it.effect("live -> a bigger plan: at once, prorated by the provider; in force when the event arrives", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const { person, subscriptionId } = yield* subscriber("founding", "month")
      const answered = Http.expectOk(yield* changePlan(person, "pro", "month"), BillingRecord)
      // The answer is the record as it stands: the webhook has not confirmed yet.
      expect(answered.plan_id).toBe("founding")
      const update = fake.received.filter(
        (r) => r.method === "POST" && r.path === `/v1/subscriptions/${subscriptionId}`
      )
      expect(update.at(-1)?.params["proration_behavior"]).toBe("create_prorations")
      expect(fake.subscriptions.get(subscriptionId)?.priceId).toBe("price_pro_month")
      yield* fake.flush()
      const after = yield* until(person, (r) => r.plan_id === "pro")
      expect(after).toMatchObject({ plan_id: "pro", interval: "month", pending_plan_id: null })
    })
  )

  it.effect(
    "live -> a smaller plan: booked for the period end; booked twice refused; back to the paid plan withdraws it",
    () =>
      Effect.gen(function* () {
        const fake = yield* Fake
        const { person, subscriptionId } = yield* subscriber("pro", "month")
        const booked = Http.expectOk(yield* changePlan(person, "founding", "month"), BillingRecord)
        expect(booked).toMatchObject({ plan_id: "pro", pending_plan_id: "founding", pending_interval: null })
        expect(booked.plan_change_at === null ? null : DateTime.toEpochMillis(booked.plan_change_at)).toBe(
          periodEnd(booked)
        )
        const scheduleId = fake.subscriptions.get(subscriptionId)?.schedule ?? ""
        expect(scheduleId).not.toBe("")
        expect(fake.schedules.get(scheduleId)?.phases.map((p) => p.priceId)).toEqual([
          "price_pro_month",
          "price_founding_month"
        ])
        // The webhook's word on the booking agrees with what the request wrote.
        yield* fake.flush()
        expect(yield* record(person)).toMatchObject({ plan_id: "pro", pending_plan_id: "founding" })

        expect(refusal(yield* changePlan(person, "founding", "month"))).toEqual(state)
        expect(refusal(yield* changePlan(person, "founding", "year"))).toEqual({
          status: 409,
          code: "PLAN_NOT_FOR_SALE",
          field: "plan_id"
        })

        // Moving back: the booking is withdrawn, the schedule released, nothing charged.
        const withdrawn = Http.expectOk(yield* changePlan(person, "pro", "month"), BillingRecord)
        expect(withdrawn).toMatchObject({ plan_id: "pro", pending_plan_id: null, plan_change_at: null })
        expect(fake.schedules.get(scheduleId)?.status).toBe("released")
        yield* fake.flush()
        expect(yield* record(person)).toMatchObject({ plan_id: "pro", pending_plan_id: null })

        // Booked again, and the period ends: the smaller plan is in force.
        Http.expectOk(yield* changePlan(person, "founding", "month"), BillingRecord)
        yield* fake.flush()
        fake.advance(subscriptionId)
        yield* fake.flush()
        const after = yield* until(person, (r) => r.plan_id === "founding")
        expect(after).toMatchObject({ plan_id: "founding", pending_plan_id: null, plan_change_at: null })
      })
  )

  it.effect("live -> the other interval: booked for the renewal; the cadence in force refused; in force after", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const { person, subscriptionId } = yield* subscriber("pro", "month")
      expect(refusal(yield* changePlan(person, "pro", "month"))).toEqual(state)
      const booked = Http.expectOk(yield* changePlan(person, "pro", "year"), BillingRecord)
      expect(booked).toMatchObject({
        plan_id: "pro",
        interval: "month",
        pending_plan_id: null,
        pending_interval: "year"
      })
      expect(fake.subscriptions.get(subscriptionId)?.priceId).toBe("price_pro_month")
      yield* fake.flush()
      fake.advance(subscriptionId)
      yield* fake.flush()
      const after = yield* until(person, (r) => r.interval === "year")
      expect(after).toMatchObject({ plan_id: "pro", interval: "year", pending_interval: null })
    })
  )

  it.effect(
    "live -> cancel booked for the period end; a second cancel and a plan change refused; withdrawn; then ended",
    () =>
      Effect.gen(function* () {
        const fake = yield* Fake
        const { person, subscriptionId } = yield* subscriber("pro", "month")
        const cancelled = Http.expectOk(yield* send(person, "POST", `${BILLING}/cancel`), BillingRecord)
        expect(cancelled).toMatchObject({ cancel_at_period_end: true, subscription_status: "active", plan_id: "pro" })
        expect(fake.subscriptions.get(subscriptionId)?.cancelAtPeriodEnd).toBe(true)
        expect(refusal(yield* send(person, "POST", `${BILLING}/cancel`))).toEqual(state)
        expect(refusal(yield* changePlan(person, "founding", "month"))).toEqual(state)

        const kept = Http.expectOk(yield* send(person, "DELETE", `${BILLING}/cancel`), BillingRecord)
        expect(kept.cancel_at_period_end).toBe(false)
        expect(fake.subscriptions.get(subscriptionId)?.cancelAtPeriodEnd).toBe(false)
        expect(refusal(yield* send(person, "DELETE", `${BILLING}/cancel`))).toEqual(state)
        yield* fake.flush()

        // A booked downgrade is dropped by a cancel (the provider's schedule would refuse it otherwise).
        Http.expectOk(yield* changePlan(person, "founding", "month"), BillingRecord)
        const again = Http.expectOk(yield* send(person, "POST", `${BILLING}/cancel`), BillingRecord)
        expect(again).toMatchObject({ cancel_at_period_end: true, pending_plan_id: null })
        yield* fake.flush()
        fake.advance(subscriptionId)
        yield* fake.flush()
        const ended = yield* until(person, (r) => r.subscription_status === "canceled")
        expect(ended.plan_id).toBe("free")
        // Ended: a new one may be bought.
        const { url } = yield* checkout(person, "founding", "month")
        expect(url.startsWith(fake.origin)).toBe(true)
      })
  )

  it.effect("live with a failed payment -> cancel ends it at once; a provider that will not is answered 409", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const { person, subscriptionId } = yield* subscriber("pro", "month")
      fake.failPayment(subscriptionId)
      yield* fake.flush()
      const failed = yield* until(person, (r) => r.payment_failed)
      expect(failed).toMatchObject({ payment_failed: true, subscription_status: "past_due" })

      fake.refuseCancel(true)
      const refused = yield* send(person, "POST", `${BILLING}/cancel`)
      fake.refuseCancel(false)
      expect(refusal(refused)).toEqual({ status: 409, code: "PAYMENT_PROVIDER_REFUSED", field: null })
      expect(Http.envelope(refused).details).toMatchObject({ provider_status: 402 })

      Http.expectOk(yield* send(person, "POST", `${BILLING}/cancel`), BillingRecord)
      expect(fake.subscriptions.get(subscriptionId)?.status).toBe("canceled")
      yield* fake.flush()
      const ended = yield* until(person, (r) => r.subscription_status === "canceled")
      expect(ended.plan_id).toBe("free")
    })
  )

  it.effect("the provider not answering past the retries: 503 PAYMENT_PROVIDER_UNAVAILABLE, nothing written", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const person = yield* Fixture.person({ label: "outage" })
      fake.failNext(3, 500)
      const reply = yield* send(person, "POST", `${BILLING}/checkout`, {
        plan_id: "pro",
        interval: "month",
        accept_terms: true
      })
      expect(refusal(reply)).toEqual({ status: 503, code: "PAYMENT_PROVIDER_UNAVAILABLE", field: null })
      expect(Http.envelope(reply).details).toMatchObject({ provider_status: 500 })
      // Nothing was stored: the next checkout makes the customer and answers.
      const { url } = yield* checkout(person, "pro", "month")
      expect(url.startsWith(fake.origin)).toBe(true)
    })
  )

  it.effect("no transaction is held across a provider call: the account is read and written while one waits", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const { person, subscriptionId } = yield* subscriber("pro", "month")
      fake.stallNext(1, 3_000)
      const slow = yield* Effect.fork(send(person, "POST", `${BILLING}/cancel`))
      // The forked request reads the account and is at the provider within milliseconds; the provider holds it 3 s.
      // Were a transaction open across that call, the embedded database (one connection) would answer nothing else
      // and PostgreSQL would hold the row's writers until it ended.
      yield* Effect.sleep("300 millis")
      const started = Date.now()
      expect((yield* record(person)).plan_id).toBe("pro")
      const [delivery] = yield* fake.send(
        fake.event("customer.subscription.updated", fake.subscriptionObject(subscriptionId))
      )
      expect(delivery?.status).toBeLessThan(300)
      expect(Date.now() - started).toBeLessThan(2_000)
      expect(Option.isNone(yield* Fiber.poll(slow))).toBe(true)
      const done = yield* Fiber.join(slow)
      expect(Http.expectOk(done, BillingRecord).cancel_at_period_end).toBe(true)
    })
  )

  it.effect("the gates: a token is refused as on every session-only route; a member; an owner who does not pay", () =>
    Effect.gen(function* () {
      const { server, smtp } = yield* Fixture.Fixture
      const payer = yield* Fixture.person({ label: "org-payer" })
      for (const [method, path, json] of routes) {
        const reply = yield* payer.api(path, json === undefined ? { method } : { method, json })
        expect(refusal(reply), `${method} ${path}`).toEqual({ status: 403, code: "SESSION_REQUIRED", field: null })
      }

      const join = (role: "owner" | "member") =>
        Effect.gen(function* () {
          const email = Identity.uniqueEmail(`billing-${role}`)
          const before = smtp.mails().filter((m) => m.to === email).length
          const invited = yield* payer.browser.request(`/api/v1/orgs/${payer.org.id}/invitations`, {
            json: { email, role }
          })
          expect(invited.status, invited.text).toBe(201)
          const mails = yield* Effect.promise(() => smtp.waitFor(email, before + 1))
          const token = /accept\?token=([A-Za-z0-9_-]+)/.exec(mails[before]?.text ?? "")?.[1]
          const person = yield* Identity.signIn(server, smtp, email)
          const joined = Http.expectOk(
            yield* person.browser.request("/api/v1/invitations/accept", { json: { token } }),
            Org
          )
          expect(joined.role).toBe(role)
          return person
        })

      const orgHeader = { "x-signalman-org": payer.org.slug }
      const member = yield* join("member")
      const coOwner = yield* join("owner")
      for (const [method, path, json] of routes) {
        const init = { method, headers: orgHeader, ...(json === undefined ? {} : { json }) }
        expect(refusal(yield* member.browser.request(path, init)), `${method} ${path}`).toEqual({
          status: 403,
          code: "OWNER_REQUIRED",
          field: null
        })
        expect(refusal(yield* coOwner.browser.request(path, init)), `${method} ${path}`).toEqual({
          status: 403,
          code: "ACCOUNT_OWNER_REQUIRED",
          field: null
        })
      }
      // The payer of the same org passes.
      expect((yield* payer.browser.request(BILLING, { headers: orgHeader })).status).toBe(200)
      // The billing page, on the org they joined: the payer manages it, not them; the payer gets the controls.
      for (const other of [member, coOwner]) {
        const page = yield* other.browser.request("/settings/billing")
        expect(page.status).toBe(200)
        expect(page.text).toContain("managed by the person who pays for it")
        expect(page.text).not.toContain("/api/v1/account/billing/checkout")
      }
      expect((yield* payer.browser.request("/settings/billing")).text).toContain("/api/v1/account/billing/checkout")
    })
  )
})

Fixture.describe(`Billing without a payment provider (${TestDatabase.kind} database)`, (it) => {
  it.effect("every billing route is 404 BILLING_UNAVAILABLE; a token still gets SESSION_REQUIRED first", () =>
    Effect.gen(function* () {
      const person = yield* Fixture.person({ label: "no-billing" })
      for (const [method, path, json] of routes) {
        expect(refusal(yield* send(person, method, path, json)), `${method} ${path}`).toEqual({
          status: 404,
          code: "BILLING_UNAVAILABLE",
          field: null
        })
        const reply = yield* person.api(path, json === undefined ? { method } : { method, json })
        expect(refusal(reply).code).toBe("SESSION_REQUIRED")
      }
      // The billing page shows the plan and its usage, and no subscription part.
      const page = yield* person.browser.request("/settings/billing")
      expect(page.status).toBe(200)
      expect(page.text).toContain("Your plan")
      expect(page.text).not.toContain("subscription-title")
    })
  )
})
