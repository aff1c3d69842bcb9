/**
 * `GET /on-call/policies/<id>`: one escalation policy: its steps in words (when each pages, and whom), how often it
 * repeats, whether it is the org's default; for whoever may change on-call, the policy edited or deleted (a policy
 * monitors bind, or the default, is refused by the API with its reason, said on the page).
 */
import type { EscalationPolicy } from "@signalman/core/oncall/EscalationPolicy"
import type * as Layout from "../Layout.js"
import { type Html, html } from "../Template.js"
import * as Access from "./Access.js"
import * as PolicyForm from "./PolicyForm.js"
import * as Words from "./Words.js"

export interface PolicyView {
  readonly policy: EscalationPolicy
  readonly isDefault: boolean
  readonly names: Words.Names
  readonly choices: PolicyForm.TargetChoices
  readonly access: Access.Access
}

export const steps = (policy: EscalationPolicy, names: Words.Names): Html => html`<ol class="oncall-steps">
${policy.steps.map(
  (step, i) =>
    html`<li><strong>${Words.delay(step.delay_minutes, i === 0)}</strong>: pages ${Words.targets(step.targets, names)}.</li>`
)}
</ol>
<p>${
  policy.repeat === 0
    ? "Walked once: after the last step, nobody more is paged."
    : `Walked ${policy.repeat + 1} times in all while nobody acknowledges.`
}</p>`

export const render = (view: PolicyView): Layout.Content => {
  const p = view.policy
  const write = Access.canWrite(view.access)
  return {
    title: `${p.name} · On-call`,
    body: html`<p class="breadcrumb"><a href="/on-call">On-call</a></p>
<div class="page-head"><h1>${p.name}</h1>${
      write
        ? html`<button type="button" class="js-only danger" data-action="/api/v1/oncall/escalation-policies/${p.id}"
  data-method="DELETE" data-redirect="/on-call" data-confirm="Delete the escalation policy ${p.name}?">Delete policy</button>`
        : ""
    }</div>
${Access.notice(view.access)}
${write ? html`<p class="no-js-only note">Changing the policy needs JavaScript; this page reads without it.</p>` : ""}
${view.isDefault ? html`<p><strong>The org's default policy</strong>: monitors created without one take it.</p>` : ""}
<section aria-labelledby="steps-heading">
<h2 id="steps-heading">Steps</h2>
<p class="muted">While an incident of a monitor bound to this policy is not acknowledged, each step pages its
targets in turn.</p>
${steps(p, view.names)}
</section>
${
  write
    ? html`<section aria-labelledby="edit-heading">
<h2 id="edit-heading">Edit</h2>
${PolicyForm.form(p, view.choices)}
</section>`
    : ""
}`
  }
}
