/**
 * The Stripe webhook (`POST /webhooks/stripe`) end to end: the fake Stripe (support/FakeStripe.ts) sends real
 * signed events to a real server. Signature refusals change nothing; each event is applied once; events late,
 * twice and out of order end in the provider's current state; checkout, a failed payment, a booked change, cancel
 * at period end and deletion each move the plan in force as the provider says.
 */
import { assert, expect } from "@effect/vitest"
import { type AccountId, OrgUsage } from "@signalman/core/Identity"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stripe from "../../src/billing/Stripe.js"
import { eventually } from "../support/Eventually.js"
import * as FakeStripe from "../support/FakeStripe.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import * as TestDatabase from "../support/TestDatabase.js"

class Fake extends Context.Tag("test/FakeStripe")<Fake, FakeStripe.FakeStripe>() {}

/** A server whose billing settings name the fake, the fake delivering its events to it. */
const serverWithStripe = Layer.scopedContext(
  Effect.gen(function* () {
    const fake = yield* FakeStripe.make()
    const running = yield* Fixture.start({ env: fake.env() })
    fake.deliverTo(running.server.baseUrl)
    return Context.make(Fixture.Fixture, running).pipe(Context.add(Fake, fake))
  })
)

interface BillingRow {
  readonly subscription_id: string | null
  readonly status: string | null
  readonly plan_id: string | null
  readonly interval: string | null
  readonly current_period_end: Date | null
  readonly pending_plan_id: string | null
  readonly pending_interval: string | null
  readonly plan_change_at: Date | null
  readonly schedule_id: string | null
  readonly cancel_at_period_end: boolean
  readonly payment_failed: boolean
}

/** The account's plan in force and its billing row. */
const stateOf = (accountId: AccountId) =>
  Effect.gen(function* () {
    const { server } = yield* Fixture.Fixture
    const [account] = yield* server.sql<{ readonly plan_id: string }>`
      SELECT plan_id FROM accounts WHERE id = ${accountId}
    `.pipe(Effect.orDie)
    const [billing] = yield* server.sql<BillingRow>`
      SELECT subscription_id, status, plan_id, interval, current_period_end, pending_plan_id, pending_interval,
        plan_change_at, schedule_id, cancel_at_period_end, payment_failed
      FROM billing_accounts WHERE account_id = ${accountId}
    `.pipe(Effect.orDie)
    return { plan: account?.plan_id, billing }
  })

const eventsRecorded = (eventId: string) =>
  Effect.flatMap(Fixture.Fixture, ({ server }) =>
    server.sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM billing_events WHERE event_id = ${eventId}`.pipe(
      Effect.orDie,
      Effect.map((rows) => rows[0]?.n ?? 0)
    )
  )

const adapter = (fake: FakeStripe.FakeStripe) => Stripe.make({ secretKey: fake.secretKey, apiBase: fake.origin })

/**
 * A person whose checkout at the fake is paid: the customer is stored for the account as the checkout route does,
 * and the events the payment made are handed back unsent.
 */
const checkedOut = (priceId = "price_pro_month") =>
  Effect.gen(function* () {
    const fake = yield* Fake
    const { server } = yield* Fixture.Fixture
    const person = yield* Fixture.person({ label: "billing" })
    const stripe = adapter(fake)
    const customer = yield* stripe.createCustomer({ accountId: person.accountId, email: person.email })
    yield* server.sql`
      INSERT INTO billing_accounts (account_id, customer_id) VALUES (${person.accountId}, ${customer.id})
    `.pipe(Effect.orDie)
    const checkout = yield* stripe.createCheckout({
      customerId: customer.id,
      priceId,
      accountId: person.accountId,
      successUrl: `${server.baseUrl}/dashboard/settings/billing`,
      cancelUrl: `${server.baseUrl}/dashboard/settings/billing`
    })
    fake.takeEvents()
    const subscription = fake.completeCheckout(checkout.id)
    return { person, subscription, events: fake.takeEvents() }
  }).pipe(Effect.orDie)

/** The plan the API applies to the person's org, as its usage endpoint reports it. */
const planSeenByApi = (person: Fixture.Person) =>
  Effect.map(person.api(`/api/v1/orgs/${person.org.id}/usage`), (reply) => Http.expectOk(reply, OrgUsage).plan.id)

const byType = (events: ReadonlyArray<FakeStripe.StripeEvent>, type: string) => {
  const found = events.find((e) => e.type === type)
  assert(found !== undefined, `no ${type} among ${events.map((e) => e.type).join(", ")}`)
  return found
}

const sendAll = (events: ReadonlyArray<FakeStripe.StripeEvent>) =>
  Effect.gen(function* () {
    const fake = yield* Fake
    for (const event of events) {
      const [delivery] = yield* fake.send(event)
      expect(delivery?.status, delivery?.text).toBe(200)
    }
  })

Fixture.describeWith(`Stripe webhook (${TestDatabase.kind} database)`, serverWithStripe, (it) => {
  it.effect("a missing, wrongly keyed, stale or malformed signature is 400 and changes nothing", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const { person, events } = yield* checkedOut()
      const completed = byType(events, "checkout.session.completed")
      const before = yield* stateOf(person.accountId)
      const cases: ReadonlyArray<[string, FakeStripe.SendOptions]> = [
        ["missing", { header: null }],
        ["wrong secret", { secret: "whsec_not_the_endpoints" }],
        ["stale timestamp", { late: true }],
        ["malformed", { header: "v1=abc,t=yesterday" }],
        ["no v1", { header: `t=${Math.floor(Date.now() / 1000)}` }],
        ["not a header", { header: "signed" }],
        ["another body's signature", { header: `t=${Math.floor(Date.now() / 1000)},v1=${"ab".repeat(32)}` }]
      ]
      for (const [name, options] of cases) {
        const [delivery] = yield* fake.send(completed, options)
        assert(delivery !== undefined)
        expect(Http.refusal(Http.body(delivery.status, delivery.text)), name).toEqual({
          status: 400,
          code: "VALIDATION_FAILED",
          field: "stripe-signature"
        })
      }
      expect(yield* eventsRecorded(completed.id)).toBe(0)
      expect(yield* stateOf(person.accountId)).toEqual(before)
      expect(before.plan).toBe("free")
    })
  )

  it.effect("a signed body that is not a Stripe event is 400; an event type not used is 200 and ignored", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const notAnEvent = { ...fake.event("x", {}), data: "nothing" } as unknown as FakeStripe.StripeEvent
      const [bad] = yield* fake.send(notAnEvent)
      assert(bad !== undefined)
      expect(Http.refusal(Http.body(bad.status, bad.text))).toEqual({
        status: 400,
        code: "VALIDATION_FAILED",
        field: "body"
      })
      const [other] = yield* fake.send(fake.event("customer.created", { id: "cus_x" }))
      expect(other?.status).toBe(200)
      expect(other?.text).toContain('"ignored"')
    })
  )

  it.effect("checkout completed puts the subscription's plan in force and stores the subscription", () =>
    Effect.gen(function* () {
      const { person, subscription, events } = yield* checkedOut("price_pro_year")
      // The plan the API applies is read (and cached) before the events arrive.
      expect(yield* planSeenByApi(person)).toBe("free")
      yield* sendAll(events)
      const state = yield* stateOf(person.accountId)
      expect(state.plan).toBe("pro")
      expect(state.billing).toEqual({
        subscription_id: subscription.id,
        status: "active",
        plan_id: "pro",
        interval: "year",
        current_period_end: new Date(subscription.periodEnd * 1000),
        pending_plan_id: null,
        pending_interval: null,
        plan_change_at: null,
        schedule_id: null,
        cancel_at_period_end: false,
        payment_failed: false
      })
      // The API applies it at once: the webhook dropped this process's cached plan of the account.
      expect(yield* planSeenByApi(person)).toBe("pro")
    })
  )

  it.effect("an event delivered twice is applied once: the second is answered without asking the provider", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const { person, events } = yield* checkedOut()
      const completed = byType(events, "checkout.session.completed")
      const reads = () => fake.received.filter((r) => r.method === "GET").length
      const readsBefore = reads()
      const deliveries = yield* fake.send(completed, { twice: true })
      expect(deliveries.map((d) => d.status)).toEqual([200, 200])
      expect(deliveries[0]?.text).toContain('"applied"')
      expect(deliveries[1]?.text).toContain('"duplicate"')
      expect(reads() - readsBefore).toBe(1)
      expect(yield* eventsRecorded(completed.id)).toBe(1)
      expect((yield* stateOf(person.accountId)).plan).toBe("pro")
    })
  )

  it.effect("events out of order end in the provider's current state", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const { person, subscription, events } = yield* checkedOut("price_pro_month")
      // The subscription's creation arrives before the checkout that made it: found by its customer.
      yield* sendAll([byType(events, "customer.subscription.created")])
      expect((yield* stateOf(person.accountId)).billing?.subscription_id).toBe(subscription.id)
      expect((yield* stateOf(person.accountId)).plan).toBe("pro")
      // An `updated` whose snapshot is old (monthly) is delivered after the move to yearly: the yearly stays.
      const old = fake.event("customer.subscription.updated", fake.subscriptionObject(subscription.id))
      yield* adapter(fake).changePriceNow({ subscriptionId: subscription.id, priceId: "price_founding_year" })
      yield* sendAll(fake.takeEvents())
      yield* sendAll([old, byType(events, "checkout.session.completed"), byType(events, "invoice.paid")])
      const state = yield* stateOf(person.accountId)
      expect(state.plan).toBe("founding")
      expect(state.billing).toMatchObject({ plan_id: "founding", interval: "year", status: "active" })
    }).pipe(Effect.orDie)
  )

  it.effect(
    "a delivery whose provider read went stale while another was applied reads again: the provider's state wins",
    () =>
      Effect.gen(function* () {
        const fake = yield* Fake
        const { person, subscription, events } = yield* checkedOut("price_pro_month")
        yield* sendAll(events)
        const reads = () =>
          fake.received.filter((r) => r.method === "GET" && r.path === `/v1/subscriptions/${subscription.id}`).length
        const readsBefore = reads()
        // The next read is answered late, with the state of its arrival (monthly).
        fake.stallNext(1, 1_500)
        const slow = yield* Effect.fork(
          fake.send(fake.event("customer.subscription.updated", fake.subscriptionObject(subscription.id)))
        )
        yield* eventually(Effect.sync(reads), (n) => n > readsBefore)
        // Meanwhile the subscription moves to yearly and that event is applied first.
        yield* adapter(fake).changePriceNow({ subscriptionId: subscription.id, priceId: "price_pro_year" })
        yield* sendAll(fake.takeEvents())
        expect((yield* stateOf(person.accountId)).billing?.interval).toBe("year")
        const [delivery] = yield* Fiber.join(slow)
        expect(delivery?.status, delivery?.text).toBe(200)
        // The slow delivery saw the row change under it and read again instead of writing its monthly answer.
        expect(yield* stateOf(person.accountId)).toMatchObject({ plan: "pro", billing: { interval: "year" } })
        expect(reads() - readsBefore).toBe(4)
      }).pipe(Effect.orDie)
  )

  it.effect("a failed payment sets payment_failed and keeps the plan; the next paid invoice clears it", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const { person, subscription, events } = yield* checkedOut()
      yield* sendAll(events)
      fake.failPayment(subscription.id)
      const failed = fake.takeEvents()
      yield* sendAll([byType(failed, "invoice.payment_failed")])
      expect(yield* stateOf(person.accountId)).toMatchObject({
        plan: "pro",
        billing: { status: "past_due", payment_failed: true }
      })
      fake.advance(subscription.id)
      yield* sendAll(fake.takeEvents())
      // The late `updated` of the failure changes nothing: the provider says the latest invoice is paid.
      yield* sendAll([byType(failed, "customer.subscription.updated")])
      expect(yield* stateOf(person.accountId)).toMatchObject({
        plan: "pro",
        billing: { status: "active", payment_failed: false }
      })
    })
  )

  it.effect("a change booked for the period end shows as pending, then takes effect when the period ends", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const { person, subscription, events } = yield* checkedOut("price_pro_month")
      yield* sendAll(events)
      const { scheduleId } = yield* adapter(fake).bookAtPeriodEnd({
        subscriptionId: subscription.id,
        priceId: "price_founding_year"
      })
      yield* sendAll(fake.takeEvents())
      expect(yield* stateOf(person.accountId)).toMatchObject({
        plan: "pro",
        billing: {
          plan_id: "pro",
          schedule_id: scheduleId,
          pending_plan_id: "founding",
          pending_interval: "year",
          plan_change_at: new Date(subscription.periodEnd * 1000)
        }
      })
      fake.advance(subscription.id)
      yield* sendAll(fake.takeEvents())
      expect(yield* stateOf(person.accountId)).toMatchObject({
        plan: "founding",
        billing: {
          plan_id: "founding",
          interval: "year",
          pending_plan_id: null,
          plan_change_at: null,
          schedule_id: null
        }
      })
    }).pipe(Effect.orDie)
  )

  it.effect("cancel at period end is recorded; at the period end the account returns to the free plan", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const { person, subscription, events } = yield* checkedOut()
      yield* sendAll(events)
      yield* adapter(fake).setCancelAtPeriodEnd({ subscriptionId: subscription.id, value: true })
      yield* sendAll(fake.takeEvents())
      expect(yield* stateOf(person.accountId)).toMatchObject({ plan: "pro", billing: { cancel_at_period_end: true } })
      fake.advance(subscription.id)
      yield* sendAll(fake.takeEvents())
      expect(yield* stateOf(person.accountId)).toMatchObject({
        plan: "free",
        billing: { status: "canceled", cancel_at_period_end: false }
      })
    }).pipe(Effect.orDie)
  )

  it.effect("a deleted subscription returns the account to the free plan, whatever arrives after", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const { person, subscription, events } = yield* checkedOut()
      yield* sendAll(events)
      expect((yield* stateOf(person.accountId)).plan).toBe("pro")
      yield* adapter(fake).cancelNow(subscription.id)
      yield* sendAll(fake.takeEvents())
      expect(yield* stateOf(person.accountId)).toMatchObject({ plan: "free", billing: { status: "canceled" } })
      // The original `created` redelivered late (a new event id) cannot bring the plan back.
      yield* sendAll([
        fake.event("customer.subscription.created", byType(events, "customer.subscription.created").data.object)
      ])
      expect((yield* stateOf(person.accountId)).plan).toBe("free")
    }).pipe(Effect.orDie)
  )

  it.effect("a provider that cannot be read is 503 and the event is not recorded; the redelivery applies it", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const { person, events } = yield* checkedOut()
      const completed = byType(events, "checkout.session.completed")
      fake.failNext(3, 500)
      const [refused] = yield* fake.send(completed)
      expect(refused?.status).toBe(503)
      expect(yield* eventsRecorded(completed.id)).toBe(0)
      expect((yield* stateOf(person.accountId)).plan).toBe("free")
      yield* sendAll([completed])
      expect((yield* stateOf(person.accountId)).plan).toBe("pro")
    })
  )

  it.scoped("without billing.provider the webhook answers 404 BILLING_UNAVAILABLE", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const bare = yield* Fixture.start({})
      fake.deliverTo(bare.server.baseUrl)
      const [delivery] = yield* fake.send(fake.event("checkout.session.completed", {}))
      const { server } = yield* Fixture.Fixture
      fake.deliverTo(server.baseUrl)
      assert(delivery !== undefined)
      expect(Http.refusal(Http.body(delivery.status, delivery.text))).toEqual({
        status: 404,
        code: "BILLING_UNAVAILABLE",
        field: null
      })
    }).pipe(Effect.orDie)
  )
})
