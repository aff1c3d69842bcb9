/// <reference lib="dom" />
/**
 * The billing page in real headless Chromium against the fake Stripe: a plan bought through the checkout form (the
 * terms refused on their field first, then the browser sent to the provider's page), the page after the provider's
 * webhook (plan, cadence, period end), a smaller plan booked and withdrawn, a cancel booked and withdrawn, a failed
 * payment's notice, and the portal. Every state is audited with axe and captured in both themes.
 */
import { expect } from "@effect/vitest"
import { BillingRecord } from "@signalman/core/api/Billing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { Page } from "puppeteer-core"
import * as Dashboard from "../support/Dashboard.js"
import { eventually } from "../support/Eventually.js"
import * as FakeStripe from "../support/FakeStripe.js"
import * as Fixture from "../support/Fixture.js"
import * as TestDatabase from "../support/TestDatabase.js"

class Fake extends Context.Tag("test/FakeStripe")<Fake, FakeStripe.FakeStripe>() {}

const amounts = {
  pro: { month: { amount_minor: 1900, currency: "usd" }, year: { amount_minor: 19000, currency: "usd" } },
  founding: { month: { amount_minor: 900, currency: "usd" }, year: { amount_minor: 9000, currency: "usd" } }
}

const server = Layer.scopedContext(
  Effect.gen(function* () {
    const fake = yield* FakeStripe.make()
    const running = yield* Fixture.start({ env: { ...fake.env(), BILLING__AMOUNTS: JSON.stringify(amounts) } })
    fake.deliverTo(running.server.baseUrl)
    return Context.make(Fixture.Fixture, running).pipe(Context.add(Fake, fake))
  })
)

const textOf = (page: Page, selector: string) =>
  Effect.promise(() => page.$eval(selector, (element) => element.textContent ?? ""))

const exists = (page: Page, selector: string) => Effect.promise(() => page.$(selector).then((e) => e !== null))

const select = (page: Page, selector: string, value: string) =>
  Effect.promise(() => page.select(selector, value).then(() => undefined))

/** Clicks and waits for the page the click leads to (a redirect or a reload) to load. */
const clickAndLoad = (page: Page, selector: string) =>
  Effect.promise(() =>
    Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click(selector)]).then(() => undefined)
  )

Fixture.describeWith(`dashboard billing (${TestDatabase.kind} database)`, server, (it) => {
  it.scoped(
    "buy, change, cancel and withdraw from the billing page; the notices of each state; the portal",
    () =>
      Effect.gen(function* () {
        const fake = yield* Fake
        const { server } = yield* Fixture.Fixture
        const person = yield* Fixture.person({ label: "page-payer" })
        const context = yield* Dashboard.context
        const page = yield* Dashboard.tab(context, server.baseUrl, person)
        page.on("dialog", (dialog) => {
          void dialog.accept()
        })
        const at = (path: string) => `${server.baseUrl}${path}`
        const billingAccount = () =>
          Effect.promise(() =>
            fetch(at("/api/v1/account/billing"), {
              headers: { cookie: [...person.browser.cookies].map(([k, v]) => `${k}=${v}`).join("; ") }
            })
              .then((r) => r.json())
              .then((body: unknown) => Schema.decodeUnknownSync(BillingRecord)(body))
          )

        expect(yield* Dashboard.visit(page, at("/settings/billing"))).toBe(200)
        expect(yield* textOf(page, "main")).toContain("has no subscription")
        expect(yield* textOf(page, "main")).toContain("19.00 USD a month")
        yield* Dashboard.auditAndCapture(page, "billing-none")

        // The terms not accepted: the API's refusal lands on the checkbox.
        yield* select(page, "#checkout-plan", "pro")
        yield* select(page, "#checkout-interval", "year")
        yield* Effect.promise(() => page.click("#checkout-form button[type=submit]"))
        yield* Dashboard.until(page, `document.querySelector('#checkout-terms[aria-invalid="true"]') !== null`)

        // Accepted: the browser goes to the provider's checkout page.
        yield* Effect.promise(() => page.click("#checkout-terms"))
        yield* clickAndLoad(page, "#checkout-form button[type=submit]")
        expect(page.url().startsWith(`${fake.origin}/checkout/`)).toBe(true)
        const sessionId = new URL(page.url()).pathname.split("/").pop() ?? ""
        expect(fake.checkoutSessions.get(sessionId)?.priceId).toBe("price_pro_year")
        const subscription = fake.completeCheckout(sessionId)
        yield* fake.flush()
        yield* eventually(billingAccount(), (b) => b.subscription_status === "active")

        expect(yield* Dashboard.visit(page, at("/settings/billing?checkout=done"))).toBe(200)
        expect(yield* textOf(page, "#checkout-outcome")).toContain("payment went through")
        expect(yield* textOf(page, "dl.facts")).toContain("Pro")
        expect(yield* textOf(page, "dl.facts")).toContain("yearly")
        yield* Dashboard.auditAndCapture(page, "billing-live")

        // A smaller plan, booked for the period end, then withdrawn.
        yield* select(page, "#plan-plan", "founding")
        yield* clickAndLoad(page, "#plan-form button[type=submit]")
        expect(yield* textOf(page, "#pending-change")).toContain("Founding")
        yield* Dashboard.auditAndCapture(page, "billing-downgrade-booked")
        yield* clickAndLoad(page, "#pending-change button")
        expect(yield* exists(page, "#pending-change")).toBe(false)

        // A cancel, booked and withdrawn.
        yield* clickAndLoad(page, "button[data-action$='/billing/cancel'][data-method='POST']")
        expect(yield* textOf(page, "#cancel-booked")).toContain("Your subscription ends")
        yield* Dashboard.auditAndCapture(page, "billing-cancel-booked")
        yield* clickAndLoad(page, "#cancel-booked button")
        expect(yield* exists(page, "#cancel-booked")).toBe(false)

        // A failed payment: the notice.
        fake.failPayment(subscription.id)
        yield* fake.flush()
        yield* eventually(billingAccount(), (b) => b.payment_failed)
        expect(yield* Dashboard.visit(page, at("/settings/billing"))).toBe(200)
        expect(yield* textOf(page, "#payment-failed")).toContain("last payment failed")
        yield* Dashboard.auditAndCapture(page, "billing-payment-failed")

        // The portal: the browser goes to the provider's portal.
        yield* clickAndLoad(page, "#open-portal")
        expect(page.url().startsWith(`${fake.origin}/portal/`)).toBe(true)
      }),
    90_000
  )
})
