/**
 * The subscription part of `/settings/billing`: what the account pays for (plan, cadence, period end, a change or a
 * cancel booked, a failed payment) and the buttons that change it, each writing through the JSON API
 * (`/api/v1/account/billing*`) with the dashboard's forms and actions: checkout and the portal follow the provider's
 * URL the API answers; a change, a cancel or a withdrawal loads the page again (without the checkout's outcome).
 * Only the account's payer sees the controls, as only they may use the API behind them.
 */
import type { BillingRecord, PlanOnSale, PlanPrice } from "@signalman/core/api/Billing"
import type { Interval } from "@signalman/core/Billing"
import * as Plan from "@signalman/core/Plan"
import * as Schema from "effect/Schema"
import { type Html, html } from "../Template.js"
import { time } from "../Time.js"
import * as Fields from "./Fields.js"

const intervalWords: Readonly<Record<Interval, string>> = { month: "monthly", year: "yearly" }
const perInterval: Readonly<Record<Interval, string>> = { month: "a month", year: "a year" }

const planName = (id: string): string => (Schema.is(Plan.PlanId)(id) ? Plan.plans[id].name : id)

/** `12.00 USD a month`, in the currency's own minor unit; the cadence alone when the operator gave no amount. */
export const priceText = (price: PlanPrice): string => {
  if (price.amount_minor === null || price.currency === null) return `billed ${intervalWords[price.interval]}`
  const currency = price.currency.toUpperCase()
  let digits = 2
  try {
    digits = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2
  } catch {
    // An unknown code: shown with two decimals, as most currencies are.
  }
  return `${(price.amount_minor / 10 ** digits).toFixed(digits)} ${currency} ${perInterval[price.interval]}`
}

const catalogue = (plans: ReadonlyArray<PlanOnSale>): Html => html`<div class="table-wrap"><table>
<caption>Plans on sale</caption>
<thead><tr><th scope="col">Plan</th><th scope="col">Monthly</th><th scope="col">Yearly</th></tr></thead>
<tbody>${plans.map((plan) => {
  const cell = (interval: Interval) => {
    const price = plan.prices.find((p) => p.interval === interval)
    return price === undefined ? html`<span class="muted">Not sold</span>` : priceText(price)
  }
  return html`<tr><th scope="row">${plan.name}</th><td>${cell("month")}</td><td>${cell("year")}</td></tr>`
})}</tbody>
</table></div>`

const planOptions = (plans: ReadonlyArray<PlanOnSale>) => plans.map((p) => [p.plan_id, p.name] as const)

const intervalOptions: ReadonlyArray<readonly [string, string]> = [
  ["month", "Monthly"],
  ["year", "Yearly"]
]

const checkoutForm = (plans: ReadonlyArray<PlanOnSale>): Html => html`<form id="checkout-form" class="panel"
  data-api="/api/v1/account/billing/checkout" data-method="POST" data-follow="url" method="post" action="/dashboard/js-required">
<h3>Buy a plan</h3>
${Fields.select({ id: "checkout-plan", name: "plan_id", label: "Plan", options: planOptions(plans) })}
${Fields.select({
  id: "checkout-interval",
  name: "interval",
  label: "Billed",
  hint: "A yearly plan is paid for the year ahead.",
  options: intervalOptions
})}
${Fields.checkbox({
  id: "checkout-terms",
  name: "accept_terms",
  label: "I accept the terms of service",
  checked: false,
  hint: "Needed to buy a plan."
})}
${Fields.status}
<button type="submit" class="primary">Continue to payment</button>
</form>`

const changeForm = (
  record: BillingRecord,
  plans: ReadonlyArray<PlanOnSale>
): Html => html`<form id="plan-form" class="panel"
  data-api="/api/v1/account/billing/plan" data-method="PUT" data-redirect="/settings/billing" method="post" action="/dashboard/js-required">
<h3>Change plan</h3>
<p class="hint">A bigger plan applies at once, and the provider charges the difference for the rest of the period. A
smaller plan, or the other billing cadence, starts at the end of the period.</p>
${Fields.select({
  id: "plan-plan",
  name: "plan_id",
  label: "Plan",
  options: planOptions(plans),
  selected: record.pending_plan_id ?? record.plan_id
})}
${Fields.select({
  id: "plan-interval",
  name: "interval",
  label: "Billed",
  options: intervalOptions,
  selected: record.pending_interval ?? record.interval ?? "month"
})}
${Fields.status}
<button type="submit">Change plan</button>
</form>`

const pending = (record: BillingRecord): Html => {
  if (record.pending_plan_id === null && record.pending_interval === null) return html``
  const plan = planName(record.pending_plan_id ?? record.plan_id)
  const interval = record.pending_interval ?? record.interval ?? "month"
  const keep = JSON.stringify({ plan_id: record.plan_id, interval: record.interval })
  return html`<p class="note" id="pending-change">From ${record.plan_change_at === null ? "the end of the period" : time(record.plan_change_at)}
your plan becomes <strong>${plan}</strong>, billed ${intervalWords[interval]}.
<button type="button" class="js-only" data-action="/api/v1/account/billing/plan" data-method="PUT" data-body="${keep}" data-redirect="/settings/billing">Keep my current plan</button></p>`
}

const cancelControls = (record: BillingRecord): Html =>
  record.cancel_at_period_end
    ? html`<p class="note" id="cancel-booked">Your subscription ends${record.current_period_end === null ? "" : html` on ${time(record.current_period_end)}`};
after that the account is on the Free plan.
<button type="button" class="js-only" data-action="/api/v1/account/billing/cancel" data-method="DELETE" data-redirect="/settings/billing">Keep my subscription</button></p>`
    : html`<p><button type="button" class="danger js-only" data-action="/api/v1/account/billing/cancel" data-method="POST" data-redirect="/settings/billing"
  data-confirm="${
    record.payment_failed
      ? "Cancel now? The last payment failed, so the subscription ends at once and the account moves to the Free plan."
      : "Cancel at the end of the period? The plan stays until then, then the account moves to the Free plan."
  }">Cancel subscription</button></p>`

const checkoutBanner = (outcome: string | undefined): Html =>
  outcome === "done"
    ? html`<p role="status" id="checkout-outcome">Thank you: the payment went through. Your plan changes as soon as the payment provider confirms it, usually within a minute.</p>`
    : outcome === "cancelled"
      ? html`<p role="status" id="checkout-outcome">Checkout was left before paying: nothing was charged.</p>`
      : html``

/** The section for the account's payer. */
export const forPayer = (record: BillingRecord, checkout: string | undefined): Html => {
  const plans = record.plans_on_sale
  const live = record.subscription_status !== null && record.interval !== null
  return html`<section aria-labelledby="subscription-title">
<h2 id="subscription-title">Subscription</h2>
${checkoutBanner(checkout)}
${
  record.payment_failed
    ? html`<p role="alert" id="payment-failed">The last payment failed. Update your payment method in the billing portal, or cancel: the subscription then ends at once.</p>`
    : ""
}
${
  live
    ? html`<dl class="facts">
<dt>Plan</dt><dd>${planName(record.plan_id)}</dd>
<dt>Billed</dt><dd>${record.interval === null ? "" : intervalWords[record.interval]}</dd>
<dt>Status</dt><dd>${record.subscription_status}</dd>
<dt>Current period ends</dt><dd>${record.current_period_end === null ? "" : time(record.current_period_end)}</dd>
</dl>
${pending(record)}
${record.cancel_at_period_end ? "" : changeForm(record, plans)}
${cancelControls(record)}`
    : html`<p>Your account is on the ${planName(record.plan_id)} plan and has no subscription.</p>
${plans.length === 0 ? html`<p class="note">No plan is on sale right now.</p>` : checkoutForm(plans)}`
}
${plans.length === 0 ? "" : catalogue(plans)}
${
  live
    ? html`<p><button type="button" class="js-only" id="open-portal" data-action="/api/v1/account/billing/portal" data-method="POST" data-follow="url">Invoices and payment method</button>
<span class="hint">Opens the payment provider's billing portal.</span></p>`
    : ""
}
</section>`
}

/** The section for an owner or member who does not pay for the org's account. */
export const notPayer: Html = html`<section aria-labelledby="subscription-title">
<h2 id="subscription-title">Subscription</h2>
<p class="note">The subscription of this organization's account is managed by the person who pays for it. Switch to an
organization your own account owns to manage yours.</p>
</section>`
