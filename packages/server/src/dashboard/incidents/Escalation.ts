/**
 * The escalation part of an incident's page: the walk the API answers as the incident's `escalation` (the policy,
 * where the walk stands, the page due next and when) and every page sent with its recipients and how each fared,
 * the targets named as the org knows them (oncall/Words).
 */
import type {
  EscalationStatus,
  IncidentEscalation,
  PageOutcome,
  PageRecipient
} from "@signalman/core/IncidentEscalation"
import * as OnCallWords from "../oncall/Words.js"
import { type Html, html } from "../Template.js"
import * as Time from "../Time.js"

const statusWords: Readonly<Record<EscalationStatus, { readonly label: string; readonly tone: string }>> = {
  active: { label: "Escalating", tone: "state-down" },
  acknowledged: { label: "Stopped: acknowledged", tone: "state-up" },
  resolved: { label: "Stopped: resolved", tone: "state-up" },
  recovered: { label: "Stopped: the monitor recovered", tone: "state-up" },
  exhausted: { label: "Every step was paged", tone: "state-degraded" }
}

const outcomeWords: Readonly<Record<PageOutcome, string>> = {
  paged: "paged",
  nobody_on_call: "nobody was on call",
  not_found: "no longer exists or left the org",
  disabled: "channel paused, not sent"
}

const position = (p: { readonly step: number; readonly round: number }, rounds: boolean) =>
  `step ${p.step}${rounds ? `, round ${p.round}` : ""}`

const recipient = (r: PageRecipient, names: OnCallWords.Names): Html => {
  // A schedule's page names who was on call then.
  const who = r.target.type === "schedule" && r.user_id !== null ? html` (${names.people.nameOf(r.user_id)})` : ""
  return html`<li>${OnCallWords.target(r.target, names)}${who}: <span class="${r.outcome === "paged" ? "" : "muted"}">${outcomeWords[r.outcome]}</span></li>`
}

export const section = (escalation: IncidentEscalation | null, names: OnCallWords.Names): Html => {
  if (escalation === null) {
    return html`<section aria-labelledby="escalation-heading">
<h2 id="escalation-heading">Escalation</h2>
<p class="muted">This incident walks no escalation policy (none was bound to its monitor when it opened).</p>
</section>`
  }
  const status = statusWords[escalation.status]
  const rounds = escalation.pages.some((p) => p.round > 1) || (escalation.next?.round ?? 1) > 1
  return html`<section aria-labelledby="escalation-heading" id="escalation">
<h2 id="escalation-heading">Escalation</h2>
<dl class="facts">
<dt>Policy</dt><dd>${
    escalation.policy_id === null
      ? html`${escalation.policy_name} <span class="muted">(deleted)</span>`
      : html`<a href="/on-call/policies/${escalation.policy_id}">${escalation.policy_name}</a>`
  }</dd>
<dt>Status</dt><dd><span class="state ${status.tone}" id="escalation-status">${status.label}</span>${
    escalation.stopped_at === null ? "" : html` <span class="muted">at ${Time.time(escalation.stopped_at)}</span>`
  }</dd>
<dt>Next page</dt><dd id="escalation-next">${
    escalation.next === null
      ? html`<span class="muted">None: nothing more will be paged</span>`
      : html`Page ${escalation.next.page} (${position(escalation.next, rounds)}) due ${Time.time(escalation.next.due_at)}`
  }</dd>
</dl>
${
  escalation.pages.length === 0
    ? html`<p class="muted">No page has gone out yet.</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="escalation-heading"><table class="escalation-pages">
<caption class="visually-hidden">Pages sent, oldest first</caption>
<thead><tr><th scope="col">Page</th><th scope="col">Due</th><th scope="col">Sent</th><th scope="col">Recipients</th></tr></thead>
<tbody>${escalation.pages.map(
        (p) => html`<tr><th scope="row">${p.page} <span class="muted">(${position(p, rounds)})</span></th>
<td>${Time.time(p.due_at)}</td><td>${Time.time(p.paged_at)}</td>
<td><ul class="oncall-pieces">${p.recipients.map((r) => recipient(r, names))}</ul></td></tr>`
      )}</tbody></table></div>`
}
</section>`
}
