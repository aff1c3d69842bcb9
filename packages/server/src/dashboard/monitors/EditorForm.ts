/**
 * The monitor form, for a new monitor (`POST /api/v1/targets`) or a stored one (`PATCH /api/v1/targets/{id}`): the
 * common fields, the kind's fieldset, alerting with the org's channels, where it runs, a variables picker for the
 * fields that take `{{key}}` references, and "Test now" (`POST /api/v1/targets/test`, nothing saved). Every field is
 * named by its path in the API's body; client/monitorBody.ts turns what the field types cannot say (headers, alert
 * bindings, a status list) into the API's shapes, and on an edit sends only the sections that were changed, so an
 * untouched check, and the credentials in it, stay as stored. A PATCH takes no regions, so an edit changes them in a
 * second form (`PUT /api/v1/targets/{id}/regions`).
 */
import type { Region } from "@signalman/core/api/Targets"
import type { Channel } from "@signalman/core/Channel"
import type { CheckKind } from "@signalman/core/CheckSpec"
import type { ManagedBy } from "@signalman/core/ManagedBy"
import type * as Plan from "@signalman/core/Plan"
import type { TargetId } from "@signalman/core/Target"
import * as TargetRules from "@signalman/core/TargetRules"
import type { Variable } from "@signalman/core/Variable"
import { attributes, type Html, html } from "../Template.js"
import { spoken } from "./Durations.js"
import type { MonitorValues } from "./EditorValues.js"
import { checkbox, checkboxes, input, select } from "./Fields.js"
import { kindFieldset } from "./KindFields.js"
import * as Kinds from "./Kinds.js"

/** What the form is for: a new monitor, or changing a stored one. */
export type Mode =
  | { readonly _tag: "create" }
  | { readonly _tag: "edit"; readonly id: TargetId; readonly managedBy: ManagedBy | null }

/** The escalation policies a monitor may walk, and whether the viewer may choose one (the API's on-call gate). */
export interface EscalationChoices {
  readonly policies: ReadonlyArray<{ readonly id: string; readonly name: string }>
  /** The org's default policy, which a new monitor left at "default" takes. */
  readonly defaultId: string | null
  /** Why the viewer may not change it (the gate's words), undefined when they may. */
  readonly refused: string | undefined
}

/** The org's choices the form offers, read through the services the API's handlers use. */
export interface Choices {
  readonly plan: Plan.Plan
  readonly channels: ReadonlyArray<Channel>
  readonly escalation: EscalationChoices
  readonly regions: ReadonlyArray<Region>
  readonly variables: ReadonlyArray<Variable>
}

const kindOf = (values: MonitorValues): CheckKind => values.check.type

const identity = (values: MonitorValues): Html => html`<fieldset>
<legend>Monitor</legend>
${input({ name: "name", label: "Name", value: values.name, attrs: { required: true, maxlength: 200, autocomplete: "off" } })}
${checkbox({
  name: "enabled",
  label: "Enabled",
  checked: values.enabled,
  hint: "A paused monitor keeps its settings and history and runs no checks."
})}
${input({
  name: "tags",
  label: "Tags",
  value: values.tags.join(", "),
  hint: "Separated by commas.",
  attrs: { "data-type": "csv", autocomplete: "off" }
})}
${input({
  name: "group",
  label: "Group",
  value: values.group,
  hint: "Optional: monitors of one group are listed together.",
  attrs: { "data-empty": "null", maxlength: 100, autocomplete: "off" }
})}
</fieldset>`

const schedule = (values: MonitorValues, plan: Plan.Plan): Html => {
  const kind = kindOf(values)
  if (kind === "manual") {
    return html`<fieldset>
<legend>Schedule</legend>
<p>A manual monitor's interval is fixed at 60 seconds; it confirms a change at once (one confirmation) and closes
its incident as soon as it is set up again.</p>
</fieldset>`
  }
  const floor = TargetRules.effectiveFloor(kind, plan)
  const hint =
    kind === "heartbeat"
      ? "How often the service looks for a missed ping. Left empty, a tenth of period + grace, held between 60 and " +
        "300 seconds (300 seconds for a day's period and an hour's grace); never coarser than that."
      : `Seconds between checks: at least ${floor} (${spoken(floor)}) for this kind on the ${plan.name} plan.`
  return html`<fieldset>
<legend>Schedule</legend>
${input({ name: "interval", label: "Interval (seconds)", type: "number", value: values.interval, hint, attrs: { min: floor } })}
</fieldset>`
}

/**
 * The escalation policy an incident of the monitor walks. A new monitor left at the org's default sends nothing (a
 * create without the field takes the default); on an edit "No policy" sends null. Someone the on-call gate refuses
 * (a member, a plan without on-call) sees the choice disabled, with why: a disabled field is not sent.
 */
const escalation = (values: MonitorValues, choices: EscalationChoices): Html => {
  const current = values.escalation_policy_id
  const nameOf = (id: string | null) => choices.policies.find((p) => p.id.toLowerCase() === id?.toLowerCase())?.name
  const fallback =
    current === undefined
      ? [{ value: "", label: `The org's default (${nameOf(choices.defaultId) ?? "no policy"})` }]
      : [{ value: "", label: "No policy" }]
  return select({
    name: "escalation_policy_id",
    label: "Escalation policy",
    value: current === undefined || current === null ? "" : current.toLowerCase(),
    choices: [...fallback, ...choices.policies.map((p) => ({ value: p.id.toLowerCase(), label: p.name }))],
    hint:
      choices.refused === undefined
        ? html`Whom an unacknowledged incident pages, step by step. <a href="/on-call">Manage on-call</a>`
        : html`${choices.refused}. <a href="/on-call">See on-call</a>`,
    attrs: { "data-empty": current === undefined ? undefined : "null", disabled: choices.refused !== undefined }
  })
}

const alerting = (values: MonitorValues, channels: ReadonlyArray<Channel>, policies: EscalationChoices): Html => {
  const manual = kindOf(values) === "manual"
  return html`<fieldset>
<legend>Alerts</legend>
${checkboxes({
  name: "alerts",
  legend: "Alert channels",
  hint: html`Where incidents of this monitor are announced. <a href="/channels">Manage channels</a>`,
  choices: channels.map((c) => ({
    value: c.id,
    label: html`${c.name} <span class="muted">(${c.kind}${c.enabled ? "" : ", paused"})</span>`,
    checked: values.alerts.includes(c.id)
  })),
  empty: html`This organization has no alert channels yet: incidents still open and show on status pages.`
})}
${
  manual
    ? ""
    : html`${input({
        name: "alert_confirmations",
        label: "Confirmations",
        type: "number",
        value: values.alert_confirmations,
        hint: "Failing checks in a row before an incident opens; as many passing ones close it.",
        attrs: { min: 1, max: 100 }
      })}
${input({
  name: "recovery_period_secs",
  label: "Recovery period (seconds)",
  type: "number",
  value: values.recovery_period_secs,
  hint: "How long the monitor must stay up before its incident closes: 0 to 1800.",
  attrs: { min: 0, max: 1800 }
})}`
}
${input({
  name: "renotify_interval_secs",
  label: "Remind after (seconds)",
  type: "number",
  value: values.renotify_interval_secs,
  hint: "First reminder while an outage is unacknowledged, each next one twice as late; 0 sends none, otherwise at least 60.",
  attrs: { min: 0 }
})}
${checkbox({ name: "notify_recovery", label: "Announce recovery", checked: values.notify_recovery })}
${escalation(values, policies)}
</fieldset>`
}

const policyChoices = [
  { value: "any", label: "Any one region" },
  { value: "majority", label: "A majority of regions" },
  { value: "all", label: "Every region" },
  { value: "count", label: "A number of regions" }
]

const regionList = (values: MonitorValues, regions: ReadonlyArray<Region>): Html =>
  checkboxes({
    name: "regions",
    legend: "Regions",
    hint: "Where the probes run (at most 3).",
    choices: regions.map((r) => ({
      value: r.id,
      label: html`${r.name} <span class="muted">(${[r.id, r.city].filter((part) => part !== null).join(", ")})</span>`,
      checked: values.regions.includes(r.id)
    })),
    empty: "No probe region is enabled on this instance."
  })

const placement = (values: MonitorValues, regions: ReadonlyArray<Region>, mode: Mode): Html => {
  if (!Kinds.probed(kindOf(values))) return html``
  const policy = values.region_policy
  const count = typeof policy === "object" ? policy.count : undefined
  return html`<fieldset>
<legend>Where it runs</legend>
${select({
  name: "region_policy",
  label: "An incident opens when it is down in",
  value: typeof policy === "object" ? "count" : policy,
  choices: policyChoices,
  attrs: { "data-region-policy": true }
})}
${input({
  name: "region_policy.count",
  label: "Number of regions",
  type: "number",
  value: count,
  hint: "With a number of regions: how many must agree it is down.",
  attrs: { min: 1, disabled: count === undefined, "data-region-count": true },
  block: { hidden: count === undefined }
})}
${mode._tag === "create" ? regionList(values, regions) : html`<p class="note">Its regions are changed below.</p>`}
</fieldset>`
}

const variablePicker = (
  variables: ReadonlyArray<Variable>
): Html => html`<section class="variable-picker js-only" aria-labelledby="variables-title">
<h2 id="variables-title">Variables</h2>
${
  variables.length === 0
    ? html`<p class="note">This organization has no variables yet. <a href="/variables">Add one</a> to reuse a value
across monitors as {{key}}.</p>`
    : html`<p class="note" id="variables-note">Inserts {{key}} at the cursor of the field you were last in (URL, a header,
the body, a fill value). A secret variable goes only where secrets may: a header value, the body or a fill value.</p>
<ul class="variable-list">
${variables.map(
  (v) =>
    html`<li><button type="button"${attributes({
      "data-insert-variable": v.key,
      "data-secret": v.is_secret,
      "aria-describedby": "variables-note"
    })}><code>{{${v.key}}}</code>${v.is_secret ? html` <span class="muted">secret</span>` : ""}</button></li>`
)}
</ul>
<p class="note" data-variable-status role="status"></p>`
}
</section>`

const testNow = (
  regions: ReadonlyArray<Region>
): Html => html`<section class="test-now js-only" aria-labelledby="test-now-title">
<h2 id="test-now-title">Test now</h2>
<p class="note">Runs the check as the form has it, once, without saving anything.</p>
<div class="test-controls">
<div class="field">
<label for="test-region">Run from</label>
<select id="test-region" data-test-region data-field="region">
${regions.map((r) => html`<option${attributes({ value: r.id, selected: r.id === "local" })}>${r.name}</option>`)}
</select>
</div>
<button type="button" data-test-now>Test now</button>
</div>
<div class="test-result" data-test-result role="status" aria-live="polite"></div>
</section>`

const managedNotice = (managedBy: ManagedBy | null): Html =>
  managedBy === null
    ? html``
    : html`<p class="notice">This monitor is managed as code by the project <strong>${managedBy.project}</strong> (key
<code>${managedBy.key}</code>): its next <code>signalman apply</code> puts back what the file says.</p>`

/** The whole form, for a new monitor or a stored one. */
export const editorForm = (values: MonitorValues, choices: Choices, mode: Mode): Html => {
  const kind = kindOf(values)
  const api = mode._tag === "create" ? "/api/v1/targets" : `/api/v1/targets/${mode.id}`
  const cancel = mode._tag === "create" ? "/monitors/new" : `/monitors/${mode.id}`
  return html`${mode._tag === "edit" ? managedNotice(mode.managedBy) : ""}
<form class="monitor-form"${attributes({
    "data-api": api,
    "data-method": mode._tag === "create" ? "POST" : "PATCH",
    "data-redirect": "/monitors/{id}",
    "data-monitor-form": mode._tag,
    method: "post",
    action: "/dashboard/js-required",
    // The API judges every value and names the field; the browser's own bubbles would say less, and differently.
    novalidate: true
  })}>
${identity(values)}
${kindFieldset(values.check)}
${kind === "http" || kind === "flow" ? variablePicker(choices.variables) : ""}
${schedule(values, choices.plan)}
${alerting(values, choices.channels, choices.escalation)}
${placement(values, choices.regions, mode)}
${Kinds.probed(kind) ? testNow(choices.regions) : ""}
<p class="form-status" data-form-status role="status"></p>
<div class="form-actions">
<button type="submit" class="primary">${mode._tag === "create" ? "Create monitor" : "Save changes"}</button>
<a href="${cancel}">Cancel</a>
</div>
</form>`
}

/** An edit's second form: the monitor's regions, which a PATCH does not take. */
export const regionsForm = (id: TargetId, values: MonitorValues, regions: ReadonlyArray<Region>): Html =>
  Kinds.probed(kindOf(values))
    ? html`<form class="regions-form"${attributes({
        "data-api": `/api/v1/targets/${id}/regions`,
        "data-method": "PUT",
        "data-done": "Regions saved.",
        method: "post",
        action: "/dashboard/js-required",
        novalidate: true,
        "aria-labelledby": "regions-title"
      })}>
<h2 id="regions-title">Regions</h2>
${regionList(values, regions)}
<p class="form-status" data-form-status role="status"></p>
<button type="submit">Save regions</button>
</form>`
    : html``
