/**
 * Holds and account deletion end to end (docs/billing.md "Holds and account deletion"), on one server with the fake
 * Stripe (support/FakeStripe.ts) as its payment provider.
 *
 * Holds: after a downgrade the newest monitors and status pages beyond the plan are held (a held monitor is not
 * scheduled, a held page answers 404 publicly), the owner picks what to keep with `PUT /api/v1/account/holds` (all
 * or nothing), and moving back up releases everything. The plan changes the ways it changes in production: SQL (as
 * a support person would), the operator's API and the payment provider's webhook; the holds follow each without
 * being told.
 *
 * Deletion: a live subscription is ended at the provider before the account is deleted; when the provider refuses
 * or cannot be reached, the deletion is refused and nothing is deleted.
 */
import { expect } from "@effect/vitest"
import { Holds } from "@signalman/core/api/Holds"
import { DashboardSummary } from "@signalman/core/api/Results"
import { Me } from "@signalman/core/Identity"
import { StatusPage } from "@signalman/core/StatusPage"
import { Target } from "@signalman/core/Target"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stripe from "../../src/billing/Stripe.js"
import { eventually } from "../support/Eventually.js"
import * as FakeStripe from "../support/FakeStripe.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import * as TestDatabase from "../support/TestDatabase.js"

const ADMIN = "holds-operator-admin-token-5b1e0c"

// Small plans, so a test makes a handful of monitors: founding and pro cover 4 monitors and 3 pages, free 2 and 1.
// The plan rows are this file's server's own.
const plans = [
  "UPDATE plans SET max_targets = 4, max_status_pages = 3 WHERE id IN ('founding', 'pro')",
  "UPDATE plans SET max_targets = 2, max_status_pages = 1 WHERE id = 'free'"
]

const settings = { SCHEDULER__REFRESH_SECS: "1", PLAN_CACHE_TTL_SECS: "1", OPERATOR__ADMIN_TOKEN: ADMIN }

class Fake extends Context.Tag("test/FakeStripe")<Fake, FakeStripe.FakeStripe>() {}

/** A server whose billing settings name the fake, the fake delivering its events to it. */
const serverWithStripe = Layer.scopedContext(
  Effect.gen(function* () {
    const fake = yield* FakeStripe.make()
    const running = yield* Fixture.start({ env: { ...settings, ...fake.env() }, sql: plans })
    fake.deliverTo(running.server.baseUrl)
    return Context.make(Fixture.Fixture, running).pipe(Context.add(Fake, fake))
  })
)

/**
 * A person subscribed to pro at the fake, as checkout leaves them: the customer stored for the account, the paid
 * checkout's events delivered to the webhook (which moves the plan in force to pro).
 */
const subscribed = (label: string) =>
  Effect.gen(function* () {
    const fake = yield* Fake
    const { server } = yield* Fixture.Fixture
    const person = yield* Fixture.person({ label })
    const stripe = Stripe.make({ secretKey: fake.secretKey, apiBase: fake.origin })
    const customer = yield* stripe.createCustomer({ accountId: person.accountId, email: person.email })
    yield* server.sql`
      INSERT INTO billing_accounts (account_id, customer_id) VALUES (${person.accountId}, ${customer.id})
    `.pipe(Effect.orDie)
    const checkout = yield* stripe.createCheckout({
      customerId: customer.id,
      priceId: "price_pro_month",
      accountId: person.accountId,
      successUrl: `${server.baseUrl}/settings/billing`,
      cancelUrl: `${server.baseUrl}/settings/billing`
    })
    fake.takeEvents()
    const subscription = fake.completeCheckout(checkout.id)
    yield* fake.flush()
    const plan = yield* planOf(person)
    expect(plan).toBe("pro")
    return { person, subscription, stripe }
  }).pipe(Effect.orDie)

const billingStatus = (person: Fixture.Person) =>
  Effect.flatMap(Fixture.Fixture, ({ server }) =>
    server.sql<{
      status: string | null
    }>`SELECT status FROM billing_accounts WHERE account_id = ${person.accountId}`.pipe(
      Effect.orDie,
      Effect.map((rows) => rows[0]?.status)
    )
  )

/** Whether the person and their account are deleted (in their grace). */
const deletedAt = (person: Fixture.Person) =>
  Effect.flatMap(Fixture.Fixture, ({ server }) =>
    server.sql<{ user: boolean; account: boolean }>`
      SELECT u.deleted_at IS NOT NULL AS user, a.deleted_at IS NOT NULL AS account
      FROM users u JOIN accounts a ON a.id = u.account_id WHERE u.id = ${person.userId}
    `.pipe(
      Effect.orDie,
      Effect.map((rows) => rows[0])
    )
  )

const planOf = (person: Fixture.Person) =>
  Effect.flatMap(Fixture.Fixture, ({ server }) =>
    server.sql<{ plan_id: string }>`SELECT plan_id FROM accounts WHERE id = ${person.accountId}`.pipe(
      Effect.orDie,
      Effect.map((rows) => rows[0]?.plan_id)
    )
  )

let slugs = 0
const slug = (label: string) => `${label}-${Date.now().toString(36)}-${slugs++}`

type Person = Fixture.Person

const monitor = (person: Person, name: string) =>
  Effect.map(
    person.browser.request("/api/v1/targets", {
      json: { name, check: { type: "http", url: `https://${name.toLowerCase()}.example.com/health` } }
    }),
    (reply) => Http.expectOk(reply, Target, 201).id
  )

const page = (person: Person, name: string) =>
  Effect.map(
    person.browser.request("/api/v1/status-pages", { json: { slug: slug("holds"), name, published: true } }),
    (reply) => Http.expectOk(reply, StatusPage, 201)
  )

const holds = (person: Person) =>
  Effect.map(person.browser.request("/api/v1/account/holds"), (r) => Http.expectOk(r, Holds))

const pick = (
  person: Person,
  body: { keep_monitors: ReadonlyArray<string>; keep_status_pages: ReadonlyArray<string> }
) => person.browser.request("/api/v1/account/holds", { method: "PUT", json: body })

/** The held ids of a holds document, monitors and pages. */
const heldOf = (document: Holds) => ({
  monitors: document.monitors.filter((m) => m.held).map((m) => m.id),
  pages: document.status_pages.filter((p) => p.held).map((p) => p.id)
})

/** The schedule rows' holds of these monitors, as the scheduler sees them. */
const scheduled = (ids: ReadonlyArray<string>) =>
  Effect.flatMap(Fixture.Fixture, ({ server }) =>
    Effect.map(
      server.sql<{ id: string; held: boolean }>`
        SELECT target_id::text AS id, bool_or(held) AS held FROM schedules WHERE target_id::text IN ${server.sql.in([...ids])}
        GROUP BY target_id
      `.pipe(Effect.orDie),
      (rows) => Object.fromEntries(rows.map((r) => [r.id, r.held]))
    )
  )

const publicStatus = (pageSlug: string) =>
  Effect.flatMap(Fixture.Fixture, ({ server }) =>
    Effect.map(Http.request(`${server.baseUrl}/p/${pageSlug}`), (r) => r.status)
  )

const setPlan = (person: Person, plan: "free" | "founding") =>
  Effect.flatMap(Fixture.Fixture, ({ server }) =>
    server.sql`UPDATE accounts SET plan_id = ${plan} WHERE id = ${person.accountId}`.pipe(Effect.orDie)
  )

const expectFlags = (ids: ReadonlyArray<string>, held: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const want = Object.fromEntries(ids.map((id) => [id, held.includes(id)]))
    const seen = yield* eventually(scheduled(ids), (flags) => JSON.stringify(flags) === JSON.stringify(want))
    expect(seen).toEqual(want)
  })

const expectPublic = (pageSlug: string, status: number) =>
  Effect.gen(function* () {
    expect(yield* eventually(publicStatus(pageSlug), (s) => s === status)).toBe(status)
  })

Fixture.describeWith(`holds and account deletion (${TestDatabase.kind} database)`, serverWithStripe, (it) => {
  it.effect("a downgrade holds the newest; a pick decides; moving up releases; the pick decides the next time", () =>
    Effect.gen(function* () {
      const alice = yield* Fixture.person({ label: "holds", plan: "founding" })
      const m1 = yield* monitor(alice, "One")
      const m2 = yield* monitor(alice, "Two")
      const m3 = yield* monitor(alice, "Three")
      const p1 = yield* page(alice, "First")
      const p2 = yield* page(alice, "Second")
      const ms = [m1, m2, m3]

      const before = yield* holds(alice)
      expect(before.limits).toEqual({ max_targets: 4, max_status_pages: 3 })
      expect(before.monitors.map((m) => [m.id, m.name, m.held])).toEqual([
        [m1, "One", false],
        [m2, "Two", false],
        [m3, "Three", false]
      ])
      expect(heldOf(before)).toEqual({ monitors: [], pages: [] })

      // Down to free by SQL: nothing tells the server; the newest beyond the limits are held.
      yield* setPlan(alice, "free")
      const down = yield* holds(alice)
      expect(down.limits).toEqual({ max_targets: 2, max_status_pages: 1 })
      expect(heldOf(down)).toEqual({ monitors: [m3], pages: [p2.id] })
      yield* expectFlags(ms, [m3])
      yield* expectPublic(p2.slug, 404)
      expect(yield* publicStatus(p1.slug)).toBe(200)
      const summary = Http.decode(yield* alice.browser.request("/api/v1/dashboard/summary"), DashboardSummary)
      expect(summary.targets.held).toBe(1)
      // Nothing is deleted: the held page is still the owner's, and the dashboard says it is held.
      expect((yield* alice.browser.request(`/api/v1/status-pages/${p2.id}`)).status).toBe(200)
      const listed = yield* alice.browser.request("/status-pages")
      expect(listed.status).toBe(200)
      expect(listed.text).toMatch(new RegExp(`${p2.id}">Second</a></th>\\s*<td><span class="state state-paused">Held`))
      expect(listed.text).toMatch(new RegExp(`${p1.id}">First</a></th>\\s*<td><span class="state state-up">Published`))

      // The owner keeps the newest monitor and page: at once, the free place goes to the oldest other.
      const picked = yield* pick(alice, { keep_monitors: [m3], keep_status_pages: [p2.id] })
      expect(heldOf(Http.expectOk(picked, Holds))).toEqual({ monitors: [m2], pages: [p1.id] })
      expect(yield* scheduled(ms)).toEqual({ [m1]: false, [m2]: true, [m3]: false })
      yield* expectPublic(p1.slug, 404)
      yield* expectPublic(p2.slug, 200)
      expect(heldOf(yield* holds(alice))).toEqual({ monitors: [m2], pages: [p1.id] })

      // Back up: everything is released.
      yield* setPlan(alice, "founding")
      expect(heldOf(yield* holds(alice))).toEqual({ monitors: [], pages: [] })
      yield* expectFlags(ms, [])
      yield* expectPublic(p1.slug, 200)

      // Down again: the stored pick decides, not the age.
      yield* setPlan(alice, "free")
      yield* expectFlags(ms, [m2])
      yield* expectPublic(p1.slug, 404)
      yield* expectPublic(p2.slug, 200)
    })
  )

  it.effect("the operator's plan change is followed too", () =>
    Effect.gen(function* () {
      const { server } = yield* Fixture.Fixture
      const bob = yield* Fixture.person({ label: "holds-op", plan: "founding" })
      const ms = [yield* monitor(bob, "A"), yield* monitor(bob, "B"), yield* monitor(bob, "C")]
      const operator = (plan: string) =>
        Http.request(`${server.baseUrl}/operator/accounts/${bob.accountId}/plan`, {
          method: "PUT",
          headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
          body: JSON.stringify({ plan_id: plan })
        })
      expect((yield* operator("free")).status).toBe(200)
      yield* expectFlags(ms, [ms[2] ?? ""])
      expect(heldOf(yield* holds(bob)).monitors).toEqual([ms[2]])
      expect((yield* operator("founding")).status).toBe(200)
      yield* expectFlags(ms, [])
    })
  )

  it.effect("a downgrade by the provider's webhook is followed too", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const { person, subscription, stripe } = yield* subscribed("holds-webhook")
      const ms = [yield* monitor(person, "A"), yield* monitor(person, "B"), yield* monitor(person, "C")]
      const first = yield* page(person, "First")
      const second = yield* page(person, "Second")
      expect(heldOf(yield* holds(person))).toEqual({ monitors: [], pages: [] })
      // The subscription ends at the provider; its event moves the plan to free, and nothing else is told.
      yield* stripe.cancelNow(subscription.id).pipe(Effect.orDie)
      yield* fake.flush()
      expect(yield* planOf(person)).toBe("free")
      expect(heldOf(yield* holds(person))).toEqual({ monitors: [ms[2]], pages: [second.id] })
      yield* expectFlags(ms, [ms[2] ?? ""])
      yield* expectPublic(second.slug, 404)
      expect(yield* publicStatus(first.slug)).toBe(200)
    })
  )

  it.effect("a pick is all or nothing: over the plan 422 QUOTA_EXCEEDED, an id not the account's 404 naming it", () =>
    Effect.gen(function* () {
      const carol = yield* Fixture.person({ label: "holds-pick", plan: "founding" })
      const dave = yield* Fixture.person({ label: "holds-other", plan: "founding" })
      const a = yield* monitor(carol, "A")
      const b = yield* monitor(carol, "B")
      const c = yield* monitor(carol, "C")
      const ms = [a, b, c]
      const pages = [yield* page(carol, "P"), yield* page(carol, "Q")]
      const foreign = yield* monitor(dave, "Foreign")
      const foreignPage = yield* page(dave, "Foreign page")
      yield* setPlan(carol, "free")
      const start = yield* holds(carol)
      expect(heldOf(start)).toEqual({ monitors: [c], pages: [pages[1]?.id] })

      const over = yield* pick(carol, { keep_monitors: [a, b, c], keep_status_pages: [] })
      expect(Http.refusal(over)).toEqual({ status: 422, code: "QUOTA_EXCEEDED", field: null })
      expect(Http.envelope(over).details).toEqual({ quota: "max_targets", current: 3, limit: 2, plan: "free" })
      const overPages = yield* pick(carol, { keep_monitors: [], keep_status_pages: pages.map((p) => p.id) })
      expect(Http.refusal(overPages)).toEqual({ status: 422, code: "QUOTA_EXCEEDED", field: null })
      expect(Http.envelope(overPages).details).toMatchObject({ quota: "max_status_pages", current: 2, limit: 1 })

      // A good monitor pick with another account's page: nothing of it is stored.
      const foreignOne = yield* pick(carol, { keep_monitors: [c, a], keep_status_pages: [foreignPage.id] })
      expect(Http.refusal(foreignOne)).toEqual({ status: 404, code: "NOT_FOUND", field: "keep_status_pages[0]" })
      const foreignTwo = yield* pick(carol, { keep_monitors: [c, foreign], keep_status_pages: [] })
      expect(Http.refusal(foreignTwo)).toEqual({ status: 404, code: "NOT_FOUND", field: "keep_monitors[1]" })
      expect(yield* holds(carol)).toEqual(start)
      yield* expectFlags(ms, [c])

      // Not an id at all: the body's own refusal.
      const malformed = yield* pick(carol, { keep_monitors: ["nope"], keep_status_pages: [] })
      expect(Http.refusal(malformed)).toEqual({ status: 400, code: "VALIDATION_FAILED", field: "keep_monitors[0]" })
      const missing = yield* carol.browser.request("/api/v1/account/holds", {
        method: "PUT",
        json: { keep_monitors: [] }
      })
      expect(Http.refusal(missing)).toEqual({ status: 400, code: "VALIDATION_FAILED", field: "keep_status_pages" })

      // A name given twice counts once.
      const twice = yield* pick(carol, { keep_monitors: [c, c, b], keep_status_pages: [] })
      expect(heldOf(Http.expectOk(twice, Holds)).monitors).toEqual([a])
    })
  )

  it.effect("the gates: session only, the org's owner, the account's payer", () =>
    Effect.gen(function* () {
      const { server } = yield* Fixture.Fixture
      const erin = yield* Fixture.person({ label: "holds-payer" })
      const frank = yield* Fixture.person({ label: "holds-coowner" })
      const grace = yield* Fixture.person({ label: "holds-member" })
      expect(Http.refusal(yield* erin.api("/api/v1/account/holds"))).toMatchObject({
        status: 403,
        code: "SESSION_REQUIRED"
      })
      // Frank owns Erin's org too, Grace is a member of it; neither pays for it.
      yield* server.sql`
        INSERT INTO memberships (org_id, user_id, role) VALUES
          (${erin.org.id}, ${frank.userId}, 'owner'), (${erin.org.id}, ${grace.userId}, 'member')
      `.pipe(Effect.orDie)
      const inErins = { headers: { "x-signalman-org": erin.org.slug } }
      // Their memberships were read (and cached for seconds) when they signed in: wait until the new ones show.
      const asFrank = yield* eventually(
        frank.browser.request("/api/v1/account/holds", inErins),
        (reply) => reply.status !== 400
      )
      expect(Http.refusal(asFrank)).toEqual({
        status: 403,
        code: "ACCOUNT_OWNER_REQUIRED",
        field: null
      })
      const put = { ...inErins, method: "PUT", json: { keep_monitors: [], keep_status_pages: [] } }
      expect(Http.refusal(yield* frank.browser.request("/api/v1/account/holds", put)).code).toBe(
        "ACCOUNT_OWNER_REQUIRED"
      )
      const asGrace = yield* eventually(
        grace.browser.request("/api/v1/account/holds", inErins),
        (reply) => reply.status !== 400
      )
      expect(Http.refusal(asGrace).code).toBe("OWNER_REQUIRED")
      // In his own org, Frank is the payer.
      expect((yield* frank.browser.request("/api/v1/account/holds")).status).toBe(200)
      expect((yield* erin.browser.request("/api/v1/account/holds")).status).toBe(200)
    })
  )
  it.effect("deleting the account ends a live subscription at the provider first; the account is in its grace", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const { person, subscription } = yield* subscribed("delete-paid")
      const deleted = yield* person.browser.request("/api/v1/me", { method: "DELETE" })
      const me = Http.expectOk(deleted, Me)
      expect(me.deletion_scheduled_for).not.toBeNull()
      expect(fake.subscriptions.get(subscription.id)?.status).toBe("canceled")
      const cancels = fake.received.filter(
        (r) => r.method === "DELETE" && r.path === `/v1/subscriptions/${subscription.id}`
      )
      expect(cancels.length).toBeGreaterThanOrEqual(1)
      expect(yield* billingStatus(person)).toBe("canceled")
      expect(yield* deletedAt(person)).toEqual({ user: true, account: true })
    })
  )

  it.effect("a provider that refuses to end it, or cannot be reached, refuses the deletion; nothing is deleted", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const { person, subscription } = yield* subscribed("delete-refused")
      fake.refuseCancel(true)
      const refused = yield* person.browser
        .request("/api/v1/me", { method: "DELETE" })
        .pipe(Effect.ensuring(Effect.sync(() => fake.refuseCancel(false))))
      expect(Http.refusal(refused)).toEqual({ status: 409, code: "SUBSCRIPTION_STATE", field: null })
      expect(Http.envelope(refused).details).toMatchObject({ reason: "provider_refused" })
      expect(fake.subscriptions.get(subscription.id)?.status).toBe("active")
      expect(yield* deletedAt(person)).toEqual({ user: false, account: false })
      expect(Http.expectOk(yield* person.browser.request("/api/v1/me"), Me).deletion_scheduled_for).toBeNull()

      // Every attempt answered 500: the provider is unavailable.
      fake.failNext(3, 500)
      const unavailable = yield* person.browser.request("/api/v1/me", { method: "DELETE" })
      expect(Http.refusal(unavailable)).toEqual({ status: 409, code: "SUBSCRIPTION_STATE", field: null })
      expect(Http.envelope(unavailable).details).toMatchObject({ reason: "provider_unavailable" })
      expect(fake.subscriptions.get(subscription.id)?.status).toBe("active")
      expect(yield* deletedAt(person)).toEqual({ user: false, account: false })

      // The provider back: the deletion goes through.
      expect((yield* person.browser.request("/api/v1/me", { method: "DELETE" })).status).toBe(200)
      expect(fake.subscriptions.get(subscription.id)?.status).toBe("canceled")
    })
  )

  it.effect("a subscription already ended at the provider, its event not here yet, does not stop the deletion", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const { person, subscription, stripe } = yield* subscribed("delete-ended-there")
      yield* stripe.cancelNow(subscription.id).pipe(Effect.orDie)
      fake.takeEvents()
      expect(yield* billingStatus(person)).toBe("active")
      expect((yield* person.browser.request("/api/v1/me", { method: "DELETE" })).status).toBe(200)
      expect(yield* billingStatus(person)).toBe("canceled")
      expect(yield* deletedAt(person)).toEqual({ user: true, account: true })
    })
  )

  it.effect("an account without a live subscription is deleted without a call to the provider", () =>
    Effect.gen(function* () {
      const fake = yield* Fake
      const { server } = yield* Fixture.Fixture
      const never = yield* Fixture.person({ label: "delete-free" })
      const ended = yield* Fixture.person({ label: "delete-ended" })
      yield* server.sql`
        INSERT INTO billing_accounts (account_id, customer_id, subscription_id, status)
        VALUES (${ended.accountId}, ${`cus_gone_${ended.accountId}`}, ${`sub_gone_${ended.accountId}`}, 'canceled')
      `.pipe(Effect.orDie)
      const calls = fake.received.length
      for (const person of [never, ended]) {
        expect((yield* person.browser.request("/api/v1/me", { method: "DELETE" })).status).toBe(200)
        expect(yield* deletedAt(person)).toEqual({ user: true, account: true })
      }
      expect(fake.received.length).toBe(calls)
    })
  )
})

Fixture.describe(`holds without a payment provider (${TestDatabase.kind} database)`, (it) => {
  it.effect("404 BILLING_UNAVAILABLE", () =>
    Effect.gen(function* () {
      const alice = yield* Fixture.person({ label: "holds-nobilling" })
      expect(Http.refusal(yield* alice.browser.request("/api/v1/account/holds"))).toEqual({
        status: 404,
        code: "BILLING_UNAVAILABLE",
        field: null
      })
      const put = { method: "PUT", json: { keep_monitors: [], keep_status_pages: [] } }
      expect(Http.refusal(yield* alice.browser.request("/api/v1/account/holds", put)).code).toBe("BILLING_UNAVAILABLE")
    })
  )
})
