/**
 * `GET /on-call`: the org's schedules (with who each has on call now) and escalation policies, and the org's
 * default policy (set with `PUT /api/v1/oncall/default-escalation-policy`). A plan without on-call says so and
 * links billing; a member reads, an owner writes.
 */
import type { EscalationPolicy } from "@signalman/core/oncall/EscalationPolicy"
import type { Schedule } from "@signalman/core/oncall/Schedule"
import type * as Layout from "../Layout.js"
import { type Html, html } from "../Template.js"
import * as Access from "./Access.js"
import type { People } from "./People.js"

export interface ListView {
  readonly orgName: string
  readonly schedules: ReadonlyArray<{ readonly schedule: Schedule; readonly onCall: string | null }>
  readonly schedulesTotal: number
  readonly policies: ReadonlyArray<EscalationPolicy>
  readonly policiesTotal: number
  readonly defaultPolicy: string | null
  readonly people: People
  readonly access: Access.Access
}

const more = (shown: number, total: number) =>
  total > shown ? html`<p class="muted">And ${total - shown} more.</p>` : ""

const schedules = (view: ListView): Html =>
  view.schedules.length === 0
    ? html`<p class="muted">No schedules yet.</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Schedules"><table class="oncall-schedules">
<caption class="visually-hidden">On-call schedules of ${view.orgName}</caption>
<thead><tr><th scope="col">Name</th><th scope="col">On call now</th><th scope="col">Time zone</th><th scope="col">Layers</th></tr></thead>
<tbody>${view.schedules.map(
        ({
          schedule,
          onCall
        }) => html`<tr><th scope="row"><a href="/on-call/schedules/${schedule.id}">${schedule.name}</a></th>
<td>${onCall === null ? html`<span class="muted">Nobody</span>` : view.people.nameOf(onCall)}</td>
<td>${schedule.time_zone}</td><td>${schedule.layers.length}</td></tr>`
      )}</tbody></table></div>${more(view.schedules.length, view.schedulesTotal)}`

const policies = (view: ListView): Html =>
  view.policies.length === 0
    ? html`<p class="muted">No escalation policies yet.</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Escalation policies"><table class="oncall-policies">
<caption class="visually-hidden">Escalation policies of ${view.orgName}</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Steps</th><th scope="col">Repeat</th></tr></thead>
<tbody>${view.policies.map(
        (p) =>
          html`<tr><th scope="row"><a href="/on-call/policies/${p.id}">${p.name}</a>${
            p.id.toLowerCase() === view.defaultPolicy?.toLowerCase() ? html` <span class="muted">(default)</span>` : ""
          }</th><td>${p.steps.length}</td><td>${p.repeat === 0 ? "None" : `${p.repeat} more`}</td></tr>`
      )}</tbody></table></div>${more(view.policies.length, view.policiesTotal)}`

const defaultForm = (view: ListView): Html => {
  const write = Access.canWrite(view.access)
  const current = view.defaultPolicy?.toLowerCase() ?? ""
  return html`<form class="oncall-default" data-api="/api/v1/oncall/default-escalation-policy" data-method="PUT"
  data-reload method="post" action="/dashboard/js-required" aria-labelledby="default-heading">
<h2 id="default-heading">Default policy</h2>
<div class="field"><label for="default-policy">Monitors created without a policy take</label>
<select id="default-policy" name="escalation_policy_id" data-empty="null"${write ? "" : html` disabled`} aria-describedby="default-policy-hint">
<option value=""${current === "" ? html` selected` : ""}>No policy</option>
${view.policies.map(
  (p) => html`<option value="${p.id}"${p.id.toLowerCase() === current ? html` selected` : ""}>${p.name}</option>`
)}
</select>
<p class="hint" id="default-policy-hint">Copies of a monitor that may not keep its policy take it too.</p></div>
<p class="form-status" data-form-status role="status"></p>
${write ? html`<button type="submit">Save default</button>` : ""}
</form>`
}

export const render = (view: ListView): Layout.Content => {
  const write = Access.canWrite(view.access)
  return {
    title: "On-call",
    body: html`<div class="page-head"><h1>On-call</h1></div>
${Access.notice(view.access)}
<p class="muted">Schedules say who is on call when; escalation policies say whom an unacknowledged incident pages,
and in which order. A monitor walks the policy chosen in its editor.</p>
<section aria-labelledby="schedules-heading">
<div class="page-head"><h2 id="schedules-heading">Schedules</h2>${
      write ? html`<a class="button primary" href="/on-call/schedules/new">New schedule</a>` : ""
    }</div>
${schedules(view)}
</section>
<section aria-labelledby="policies-heading">
<div class="page-head"><h2 id="policies-heading">Escalation policies</h2>${
      write ? html`<a class="button primary" href="/on-call/policies/new">New policy</a>` : ""
    }</div>
${policies(view)}
</section>
${defaultForm(view)}`
  }
}
