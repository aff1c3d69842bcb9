/**
 * `GET /settings/billing`: the subscription (plan, cadence, period end, a booked change or cancel, a failed payment,
 * with the buttons to buy, change, cancel and open the provider's portal: `BillingSubscription.ts`) when a payment
 * provider is configured, then the plan of the person's own account and what it allows, as the API tells it today:
 * the pooled quotas against their use, the person's own quotas (API tokens, owned organizations), the plan's other
 * limits, per-minute budgets and features. Read through the same `Orgs.usage` and `MeService` as
 * `GET /api/v1/orgs/{id}/usage` and `GET /api/v1/me/usage`; the pooled figures are asked of an organization the
 * account owns, as a script would.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Plan from "@signalman/core/Plan"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { Billing } from "../../billing/Billing.js"
import { requirePayer } from "../../billing/Payer.js"
import { AppConfig } from "../../config/Config.js"
import type { Route } from "../../http/RouteTable.js"
import { MeService } from "../../me/Me.js"
import { Orgs } from "../../orgs/Orgs.js"
import { Pages } from "../Page.js"
import { html } from "../Template.js"
import * as BillingSubscription from "./BillingSubscription.js"
import { content } from "./Content.js"
import * as Usage from "./Usage.js"

export const routes: ReadonlyArray<Route> = [{ method: "GET", path: "/settings/billing", body: "none" }]

const planName = (id: string): string => (Schema.is(Plan.PlanId)(id) ? Plan.plans[id].name : id)

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const orgs = yield* Orgs
    const me = yield* MeService
    const billing = yield* Billing
    const payer = Effect.provideService(requirePayer, AppConfig, yield* AppConfig)
    const { page } = yield* Pages
    yield* router.get(
      "/settings/billing",
      page("billing", (viewer) =>
        Effect.gen(function* () {
          const document = yield* me.document(viewer.caller)
          const mine = yield* me.usage(viewer.caller)
          // The account's pooled figures are answered to its members; the account's own org is one the person is in.
          const owned = viewer.memberships.find((m) => m.account_id === viewer.user.account_id)
          const usage = owned === undefined ? undefined : yield* orgs.usage(viewer.user.id, owned.id)
          const name = usage?.plan.name ?? planName(document.plan_id)
          const query = yield* HttpServerRequest.ParsedSearchParams
          const checkout = typeof query["checkout"] === "string" ? query["checkout"] : undefined
          // The subscription of the account the page acts for (its org's, as the forms' API calls name it): the
          // controls for its payer, a note for anyone else, nothing when no provider is configured.
          const subscription = yield* payer.pipe(
            Effect.flatMap((payer) => billing.record(payer.accountId)),
            Effect.map((record) => BillingSubscription.forPayer(record, checkout)),
            Effect.catchTags({
              NotFound: () => Effect.succeed(html``),
              Forbidden: () => Effect.succeed(BillingSubscription.notPayer)
            })
          )
          const personal = Usage.quotaTable("Your own quotas", [
            ["api_tokens", mine.api_tokens],
            ["owned_orgs", mine.owned_orgs]
          ])
          return content(
            "Billing",
            html`<div class="page-head"><h1>Billing</h1></div>
${subscription}
<section aria-labelledby="plan-title">
<h2 id="plan-title">Your plan</h2>
<p class="plan-name"><strong>${name}</strong></p>
<p class="muted">The plan of your account (${viewer.user.email}). Every organization your account owns shares its quotas;
organizations you were invited to draw on their owners' plans.</p>
</section>
<section aria-labelledby="plan-usage-title">
<h2 id="plan-usage-title">Usage</h2>
${
  usage === undefined
    ? html`<p>Your account owns no organization, so nothing counts against the plan's shared quotas.</p>`
    : Usage.quotaTable(
        `Shared quotas of the ${usage.plan.name} plan`,
        Object.entries(usage.quotas).map(([quota, figure]) => [quota, figure] as const)
      )
}
${personal}
</section>
${
  usage !== undefined &&
  html`<section aria-labelledby="plan-limits-title">
<h2 id="plan-limits-title">What the plan includes</h2>
${Usage.planTables(usage)}
</section>`
}`
          )
        })
      )
    )
  })
).pipe(Layer.provide([Orgs.Default, MeService.Default, Billing.Default]))
