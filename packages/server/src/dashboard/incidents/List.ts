/**
 * `GET /incidents`: the org's incidents, newest first, filtered by state, monitor and severity through a plain GET
 * form and paged with plain links (both work without script), and the form that declares an incident by hand
 * (`POST /api/v1/incidents`, then to the new incident's page).
 */
import type { Incident } from "@signalman/core/api/Incidents"
import { MAX_TITLE_LENGTH } from "@signalman/core/IncidentNarration"
import type * as DateTime from "effect/DateTime"
import type * as Layout from "../Layout.js"
import type { MonitorNames } from "../MonitorNames.js"
import { type Html, html } from "../Template.js"
import * as Time from "../Time.js"
import * as Filter from "./Filter.js"
import * as Words from "./Words.js"

export interface ListView {
  readonly orgName: string
  readonly filter: Filter.Filter
  readonly rows: ReadonlyArray<Incident>
  readonly total: number
  readonly monitors: MonitorNames
  /** Whether the plan lets people write public narration (a public title, updates). */
  readonly narration: boolean
  readonly now: DateTime.Utc
}

const statusWords: Readonly<Record<Filter.Status, string>> = {
  all: "All",
  open: "Open",
  closed: "Closed"
}

const option = (value: string, label: string, selected: boolean): Html =>
  html`<option value="${value}"${selected ? html` selected` : ""}>${label}</option>`

const filters = (view: ListView): Html => html`<form class="filters" method="get" action="/incidents"
  aria-label="Filter incidents">
  <div class="field"><label for="filter-status">State</label>
    <select id="filter-status" name="status">
      ${(["all", "open", "closed"] as const).map((s) => option(s, statusWords[s], view.filter.status === s))}
    </select></div>
  <div class="field"><label for="filter-monitor">Monitor</label>
    <select id="filter-monitor" name="target_id">
      ${option("", "Any monitor", view.filter.target_id === undefined)}
      ${view.monitors.all.map((m) => option(m.id, m.name, m.id.toLowerCase() === view.filter.target_id))}
    </select></div>
  <div class="field"><label for="filter-severity">Severity</label>
    <select id="filter-severity" name="severity">
      ${option("", "Any severity", view.filter.severity === undefined)}
      ${(["critical", "major", "minor"] as const).map((s) =>
        option(s, Words.severityWords[s], view.filter.severity === s)
      )}
    </select></div>
  <button type="submit">Filter</button>
  ${Filter.narrows(view.filter) ? html`<a href="/incidents">Clear filters</a>` : ""}
</form>`

/** The monitors an incident involves, each a link to its page; a deleted one by its id. */
export const monitorLinks = (incident: Pick<Incident, "components">, monitors: MonitorNames): Html => {
  if (incident.components.length === 0) return html`<span class="muted">None named</span>`
  return html`${incident.components.map(
    (id, i) =>
      html`${i > 0 ? ", " : ""}${
        monitors.nameOf(id) === undefined
          ? html`<span class="muted">deleted monitor</span>`
          : html`<a href="/monitors/${id}">${monitors.nameOf(id)}</a>`
      }`
  )}`
}

const titleOf = (incident: Incident): string =>
  incident.title ?? (incident.number === null ? "Untitled incident" : `Incident #${incident.number}`)

const row = (incident: Incident, view: ListView): Html => {
  const state = Words.stateOf(incident)
  const ended = incident.ended_at
  return html`<tr>
<th scope="row"><a href="/incidents/${incident.id}">${titleOf(incident)}</a>${
    incident.number === null
      ? html` <span class="muted">declared</span>`
      : html` <span class="muted">#${incident.number}</span>`
  }</th>
<td><span class="state ${state.tone}">${state.label}</span></td>
<td>${Words.impactWords[incident.impact]}<br><span class="muted">${
    incident.severity === null ? "no severity set" : `${Words.severityWords[incident.severity]} severity`
  }</span></td>
<td>${monitorLinks(incident, view.monitors)}</td>
<td>${Time.time(incident.started_at)}<br><span class="muted">${
    ended === null
      ? html`for ${Time.between(incident.started_at, view.now)} so far`
      : html`lasted ${Time.between(incident.started_at, ended)}`
  }</span></td>
</tr>`
}

const pager = (view: ListView): Html => {
  const pages = Filter.pageCount(view.total)
  const page = Math.min(view.filter.page, pages)
  if (pages === 1) return html``
  return html`<nav class="pager" aria-label="Pages of incidents">
${page > 1 ? html`<a href="${Filter.href({ ...view.filter, page: page - 1 })}" rel="prev">Previous page</a>` : ""}
<span>Page ${page} of ${pages}</span>
${page < pages ? html`<a href="${Filter.href({ ...view.filter, page: page + 1 })}" rel="next">Next page</a>` : ""}
</nav>`
}

const table = (view: ListView): Html => {
  if (view.rows.length === 0) {
    return html`<p>${
      view.total > 0
        ? html`No incidents on this page. <a href="${Filter.href({ ...view.filter, page: 1 })}">Back to the first page</a>.`
        : Filter.narrows(view.filter)
          ? "No incidents match these filters."
          : "No incidents yet. When a monitor fails, its incident shows here."
    }</p>`
  }
  const first = (view.filter.page - 1) * Filter.PAGE_SIZE + 1
  return html`<p class="muted" id="incident-count">Showing ${first} to ${first + view.rows.length - 1} of ${view.total}
${view.total === 1 ? "incident" : "incidents"}.</p>
<div class="table-wrap" tabindex="0" role="region" aria-label="Incidents"><table class="incident-list" aria-describedby="incident-count">
<caption class="visually-hidden">Incidents of ${view.orgName}, newest first</caption>
<thead><tr><th scope="col">Incident</th><th scope="col">State</th><th scope="col">Impact and severity</th>
<th scope="col">Monitors</th><th scope="col">Started</th></tr></thead>
<tbody>
${view.rows.map((incident) => row(incident, view))}
</tbody></table></div>
${pager(view)}`
}

const declareForm = (view: ListView): Html => html`<section aria-labelledby="declare-heading" id="declare">
<h2 id="declare-heading">Declare an incident</h2>
<p class="muted">For trouble the checks do not see. A declared incident pages nobody; it shows on the status pages of
the monitors it names.</p>
<form class="incident-declare" data-api="/api/v1/incidents" data-method="POST" data-redirect="/incidents/{id}"
  method="post" action="/dashboard/js-required">
  <div class="field"><label for="declare-title">Title</label>
    <input type="text" id="declare-title" name="title" required maxlength="${MAX_TITLE_LENGTH}"
      aria-describedby="declare-title-hint">
    <p class="hint" id="declare-title-hint">For your team; the public title below is what status pages show.</p></div>
  <div class="field"><label for="declare-impact">Impact</label>
    <select id="declare-impact" name="impact">
      ${(["degraded", "partial_outage", "major_outage"] as const).map((i) =>
        option(i, Words.impactWords[i], i === "partial_outage")
      )}
    </select></div>
  <div class="field"><label for="declare-severity">Severity</label>
    <select id="declare-severity" name="severity">
      ${option("", "Not set", true)}
      ${(["critical", "major", "minor"] as const).map((s) => option(s, Words.severityWords[s], false))}
    </select></div>
  <fieldset data-field="components">
    <legend>Affected monitors</legend>
    ${
      view.monitors.all.length === 0
        ? html`<p class="muted">This organization has no monitors yet; the incident will name none.</p>
<input type="hidden" name="components" data-type="json" value="[]">`
        : view.monitors.all.map(
            (m) =>
              html`<label class="inline"><input type="checkbox" name="components" data-type="set" value="${m.id}"> ${m.name}</label>`
          )
    }
  </fieldset>
  <div class="field"><label class="inline"><input type="checkbox" name="counts_as_downtime" data-type="boolean">
    Counts as downtime of these monitors</label></div>
  <fieldset>
    <legend>Public narration (optional)</legend>
    ${
      view.narration
        ? ""
        : html`<p class="note">Your plan does not include public incident narration: a public title or first update
will be refused. The incident can still be declared without them.</p>`
    }
    <div class="field"><label for="declare-public-title">Public title</label>
      <input type="text" id="declare-public-title" name="public_title" maxlength="${MAX_TITLE_LENGTH}"></div>
    <div class="field"><label for="declare-message">First update (investigating)</label>
      <textarea id="declare-message" name="message" rows="3"></textarea></div>
  </fieldset>
  <p class="form-status" data-form-status role="status"></p>
  <button type="submit" class="primary">Declare incident</button>
</form>
</section>`

export const render = (view: ListView): Layout.Content => ({
  title: "Incidents",
  body: html`<div class="page-head"><h1>Incidents</h1>
<a class="button" href="#declare">Declare an incident</a></div>
${filters(view)}
${table(view)}
${declareForm(view)}`
})
