/**
 * `GET /incidents/<id>`: one incident as its responders need it. What it is and where it stands (the monitor it
 * belongs to, or the monitors a declared one names), the timeline, the narration people write for status pages
 * (`PATCH /api/v1/incidents/<id>`, `POST .../updates`), acknowledge and resolve, the delivery log (which
 * notifications went where, and how they fared) and the postmortem (`PUT .../postmortem`). Every write goes
 * through the JSON API from the page's forms and buttons; the page itself only reads.
 */
import type { Delivery, IncidentDetail, Postmortem } from "@signalman/core/api/Incidents"
import { MAX_POSTMORTEM_LENGTH } from "@signalman/core/api/Incidents"
import type { Phase } from "@signalman/core/Incident"
import { MAX_DESCRIPTION_LENGTH, MAX_MESSAGE_LENGTH, MAX_TITLE_LENGTH } from "@signalman/core/IncidentNarration"
import type * as DateTime from "effect/DateTime"
import type * as Layout from "../Layout.js"
import type { MonitorNames } from "../MonitorNames.js"
import type * as OnCallWords from "../oncall/Words.js"
import { type Html, html } from "../Template.js"
import * as Time from "../Time.js"
import * as Escalation from "./Escalation.js"
import { monitorLinks } from "./List.js"
import * as Timeline from "./Timeline.js"
import * as Words from "./Words.js"

export interface DetailView {
  readonly incident: IncidentDetail
  readonly deliveries: ReadonlyArray<Delivery>
  readonly postmortem: PostmortemDoc | undefined
  readonly monitors: MonitorNames
  /** Whether the plan lets people write public narration. */
  readonly narration: boolean
  /** What the escalation's targets are named by (its people, schedules and channels). */
  readonly names: OnCallWords.Names
  /** The viewer's user id, to say "you" for what they wrote. */
  readonly viewerId: string
  readonly now: DateTime.Utc
}

type PostmortemDoc = typeof Postmortem.Type

const phases: ReadonlyArray<Phase> = ["investigating", "identified", "monitoring", "resolved", "postmortem"]

const titleOf = (incident: IncidentDetail): string =>
  incident.title ?? (incident.number === null ? "Untitled incident" : `Incident #${incident.number}`)

const by = (view: DetailView, who: string | null) => Words.authorWords(who, view.viewerId)

const actions = (view: DetailView): Html => {
  const { incident } = view
  if (incident.status === "closed") return html``
  const path = `/api/v1/incidents/${incident.id}`
  return html`<div class="incident-actions">
${
  incident.acknowledged_at === null
    ? html`<button type="button" class="js-only primary" data-action="${path}/acknowledge" data-method="POST">Acknowledge</button>`
    : ""
}
<button type="button" class="js-only" data-action="${path}/resolve" data-method="POST"
  data-confirm="Resolve this incident now? It closes at once and its notifications stop.">Resolve</button>
</div>`
}

const facts = (view: DetailView): Html => {
  const { incident } = view
  const monitor = incident.origin === "monitor" && incident.target_id !== null ? incident.target_id : undefined
  const ended = incident.ended_at
  return html`<dl class="facts">
<dt>${monitor === undefined ? "Affected monitors" : "Monitor"}</dt>
<dd>${monitorLinks(incident, view.monitors)}</dd>
<dt>Started</dt>
<dd>${Time.time(incident.started_at)} ${
    incident.origin === "declared"
      ? html`<span class="muted">(declared by ${by(view, incident.created_by)})</span>`
      : html`<span class="muted">(confirmed by the monitor's checks)</span>`
  }</dd>
<dt>Acknowledged</dt>
<dd>${
    incident.acknowledged_at === null
      ? html`<span class="muted">Not yet</span>`
      : html`${Time.time(incident.acknowledged_at)} by ${by(view, incident.acknowledged_by)}`
  }</dd>
${
  incident.recovering_since === null
    ? ""
    : html`<dt>Recovering since</dt><dd>${Time.time(incident.recovering_since)}
<span class="muted">(checks pass; it closes once the recovery period has passed)</span></dd>`
}
<dt>Ended</dt>
<dd>${
    ended === null
      ? html`<span class="muted">Ongoing, for ${Time.between(incident.started_at, view.now)}</span>`
      : html`${Time.time(ended)}, ${
          incident.close_reason === "resolved"
            ? html`resolved by ${by(view, incident.resolved_by)}`
            : "recovered by passing checks"
        }, after ${Time.between(incident.started_at, ended)}`
  }</dd>
<dt>Impact</dt><dd>${Words.impactWords[incident.impact]}</dd>
<dt>Severity</dt>
<dd>${incident.severity === null ? html`<span class="muted">Not set</span>` : Words.severityWords[incident.severity]}</dd>
<dt>Counts as downtime</dt><dd>${incident.counts_as_downtime ? "Yes" : "No"}</dd>
${incident.regions_down.length === 0 ? "" : html`<dt>Regions down</dt><dd>${incident.regions_down.join(", ")}</dd>`}
${
  incident.recovered.length === 0
    ? ""
    : html`<dt>Recovered for a while</dt><dd><ul class="plain">${incident.recovered.map(
        (stretch) => html`<li>${Time.time(stretch.from)} to ${Time.time(stretch.until)}</li>`
      )}</ul></dd>`
}
</dl>`
}

const timelineEntry = (view: DetailView, entry: Timeline.Entry): Html => {
  switch (entry._tag) {
    case "Note":
      return html`<li class="timeline-entry timeline-note">
<p class="timeline-head"><span class="timeline-kind">Note</span> ${Time.time(entry.at)} <span class="muted">by ${by(view, entry.by)}</span></p>
<p class="timeline-message">${entry.message}</p></li>`
    case "Update":
      return html`<li class="timeline-entry timeline-update">
<p class="timeline-head"><span class="timeline-kind">Update: ${Words.phaseWords[entry.phase]}</span> ${Time.time(entry.at)}
<span class="muted">by ${by(view, entry.by)}</span></p>
<p class="timeline-message">${entry.message}</p></li>`
    case "Notification": {
      const d = entry.delivery
      return html`<li class="timeline-entry timeline-notification">
<p class="timeline-head"><span class="timeline-kind">Notification</span> ${Time.time(entry.at)}</p>
<p class="timeline-message">${Words.noticeWords(d)} to ${d.channel.name} (${d.channel.kind}):
<span class="state ${Words.deliveryTone[d.status]}">${Words.deliveryWords[d.status]}</span></p></li>`
    }
  }
}

const timeline = (view: DetailView): Html => {
  const entries = Timeline.entries(view.incident.updates, view.deliveries)
  return html`<section aria-labelledby="timeline-heading">
<h2 id="timeline-heading">Timeline</h2>
${
  entries.length === 0
    ? html`<p class="muted">Nothing recorded yet.</p>`
    : html`<ol class="timeline">${entries.map((entry) => timelineEntry(view, entry))}</ol>`
}
</section>`
}

const planNote = (view: DetailView): Html =>
  view.narration
    ? html``
    : html`<p class="note" id="narration-plan">Your plan does not include public incident narration: the public title
and description and timeline updates are refused. The title and severity stay yours to set.</p>`

const option = (value: string, label: string, selected: boolean): Html =>
  html`<option value="${value}"${selected ? html` selected` : ""}>${label}</option>`

const narrate = (view: DetailView): Html => {
  const { incident } = view
  const path = `/api/v1/incidents/${incident.id}`
  const described = view.narration ? "" : "narration-plan"
  return html`<section aria-labelledby="narrate-heading">
<h2 id="narrate-heading">Narrate</h2>
${planNote(view)}
<div class="form-columns">
<form class="incident-details" data-api="${path}" data-method="PATCH" data-reload method="post"
  action="/dashboard/js-required" aria-labelledby="details-heading">
  <h3 id="details-heading">For your team</h3>
  <div class="field"><label for="incident-title">Title</label>
    <input type="text" id="incident-title" name="title" value="${incident.title ?? ""}" data-empty="null"
      maxlength="${MAX_TITLE_LENGTH}" aria-describedby="incident-title-hint">
    <p class="hint" id="incident-title-hint">${
      incident.origin === "monitor" ? "Empty shows the monitor's name." : "A declared incident keeps a title."
    }</p></div>
  <div class="field"><label for="incident-severity">Severity</label>
    <select id="incident-severity" name="severity" data-empty="null">
      ${option("", "Not set", incident.severity === null)}
      ${(["critical", "major", "minor"] as const).map((s) =>
        option(s, Words.severityWords[s], incident.severity === s)
      )}
    </select></div>
  ${
    incident.origin === "declared"
      ? html`<div class="field"><label class="inline"><input type="checkbox" name="counts_as_downtime"
  data-type="boolean"${incident.counts_as_downtime ? html` checked` : ""}> Counts as downtime</label></div>`
      : ""
  }
  <p class="form-status" data-form-status role="status"></p>
  <button type="submit">Save details</button>
</form>
<form class="incident-public" data-api="${path}" data-method="PATCH" data-reload method="post"
  action="/dashboard/js-required" aria-labelledby="public-heading">
  <h3 id="public-heading">For status pages</h3>
  <div class="field"><label for="incident-public-title">Public title</label>
    <input type="text" id="incident-public-title" name="public_title" value="${incident.public_title ?? ""}"
      data-empty="null" maxlength="${MAX_TITLE_LENGTH}"${described === "" ? "" : html` aria-describedby="${described}"`}></div>
  <div class="field"><label for="incident-public-description">Public description</label>
    <textarea id="incident-public-description" name="public_description" rows="4" data-empty="null"
      maxlength="${MAX_DESCRIPTION_LENGTH}">${incident.public_description ?? ""}</textarea></div>
  <p class="form-status" data-form-status role="status"></p>
  <button type="submit">Save public narration</button>
</form>
</div>
<form class="incident-update" data-api="${path}/updates" data-method="POST" data-reload method="post"
  action="/dashboard/js-required" aria-labelledby="update-heading">
  <h3 id="update-heading">Post an update</h3>
  <div class="field"><label for="update-phase">Phase</label>
    <select id="update-phase" name="phase">
      ${phases.map((p) => option(p, Words.phaseWords[p], p === suggestedPhase(incident)))}
    </select></div>
  <div class="field"><label for="update-message">Message</label>
    <textarea id="update-message" name="message" rows="4" aria-describedby="update-message-hint"></textarea>
    <p class="hint" id="update-message-hint">Shown on status pages and sent to their subscribers; at most
${MAX_MESSAGE_LENGTH} characters.</p></div>
  <p class="form-status" data-form-status role="status"></p>
  <button type="submit" class="primary">Post update</button>
</form>
</section>`
}

/** The phase a new update most likely reports: the latest update's (it most often goes on), `resolved` once closed. */
export const suggestedPhase = (incident: IncidentDetail): Phase => {
  if (incident.status === "closed") return "resolved"
  const latest = Timeline.latestUpdate(Timeline.entries(incident.updates, []))
  return latest === undefined ? "investigating" : latest.phase
}

const deliveries = (view: DetailView): Html => html`<section aria-labelledby="deliveries-heading">
<h2 id="deliveries-heading">Notifications</h2>
${
  view.deliveries.length === 0
    ? html`<p class="muted">No notifications were sent for this incident${
        view.incident.origin === "declared" ? " (a declared incident pages nobody)" : ""
      }.</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="deliveries-heading"><table class="delivery-list">
<caption class="visually-hidden">Notifications of this incident, oldest first</caption>
<thead><tr><th scope="col">Notice</th><th scope="col">Channel</th><th scope="col">Status</th>
<th scope="col">When</th></tr></thead>
<tbody>
${view.deliveries.map(
  (d) => html`<tr>
<th scope="row">${Words.noticeWords(d)}</th>
<td>${d.channel.name} <span class="muted">(${d.channel.kind}${d.channel.id === null ? ", deleted" : ""})</span></td>
<td><span class="state ${Words.deliveryTone[d.status]}">${Words.deliveryWords[d.status]}</span>
<span class="muted">after ${d.attempts} ${d.attempts === 1 ? "attempt" : "attempts"}</span>${
    d.last_error === null
      ? ""
      : html`<br><span class="delivery-error">${d.last_status_code === null ? "" : `HTTP ${d.last_status_code}: `}${
          d.last_error
        }</span>`
  }</td>
<td>queued ${Time.time(d.created_at)}${
    d.delivered_at !== null
      ? html`<br>delivered ${Time.time(d.delivered_at)}`
      : d.next_attempt_at !== null && d.status === "pending"
        ? html`<br>next try ${Time.time(d.next_attempt_at)}`
        : ""
  }</td>
</tr>`
)}
</tbody></table></div>`
}
</section>`

const postmortem = (view: DetailView): Html => {
  const written = view.postmortem
  return html`<section aria-labelledby="postmortem-heading">
<h2 id="postmortem-heading">Postmortem</h2>
${
  written === undefined
    ? html`<p class="muted">No postmortem is written yet. It stays internal to your organization.</p>`
    : html`<p class="muted">Last edited ${Time.time(written.updated_at)} by ${by(view, written.updated_by)}; internal to
your organization.</p>
<div class="postmortem" id="postmortem-body">${written.body}</div>`
}
<form class="incident-postmortem" data-api="/api/v1/incidents/${view.incident.id}/postmortem" data-method="PUT"
  data-reload method="post" action="/dashboard/js-required">
  <div class="field"><label for="postmortem-text">${written === undefined ? "Write the postmortem" : "Edit the postmortem"}</label>
    <textarea id="postmortem-text" name="body" rows="10" data-empty="keep" maxlength="${MAX_POSTMORTEM_LENGTH}"
      aria-describedby="postmortem-hint">${written?.body ?? ""}</textarea>
    <p class="hint" id="postmortem-hint">Markdown, kept as written; at most ${MAX_POSTMORTEM_LENGTH} characters.</p></div>
  <p class="form-status" data-form-status role="status"></p>
  <button type="submit">Save postmortem</button>
</form>
</section>`
}

export const render = (view: DetailView): Layout.Content => {
  const { incident } = view
  const state = Words.stateOf(incident)
  const title = titleOf(incident)
  return {
    title: `${title} · Incidents`,
    body: html`<p class="breadcrumb"><a href="/incidents">Incidents</a></p>
<div class="page-head"><h1>${title}</h1>${actions(view)}</div>
<p class="incident-summary"><span class="state ${state.tone}">${state.label}</span>
<span>${Words.impactWords[incident.impact]}</span>
<span class="muted">${
      incident.origin === "declared" ? "Declared incident" : `Incident #${incident.number ?? ""} of its monitor`
    }</span></p>
<p class="no-js-only note">Acknowledging, resolving and writing need JavaScript; this page reads without it.</p>
${facts(view)}
${
  incident.public_title === null && incident.public_description === null
    ? ""
    : html`<section aria-labelledby="public-now-heading" class="public-now">
<h2 id="public-now-heading">Public narration</h2>
${incident.public_title === null ? "" : html`<p class="public-title">${incident.public_title}</p>`}
${incident.public_description === null ? "" : html`<p class="timeline-message">${incident.public_description}</p>`}
</section>`
}
${incident.origin === "monitor" ? Escalation.section(incident.escalation, view.names) : ""}
${timeline(view)}
${narrate(view)}
${deliveries(view)}
${postmortem(view)}`
  }
}
