/**
 * `GET /maintenance`: the org's windows in three tables, as the API lists them by status: in progress now, upcoming
 * (soonest first) and past (completed or cancelled, latest start first, paged with plain links).
 */
import type { MaintenanceWindowResource } from "@signalman/core/api/Maintenance"
import type * as Layout from "../Layout.js"
import type { MonitorNames } from "../MonitorNames.js"
import { type Html, html } from "../Template.js"
import * as Time from "../Time.js"
import * as Words from "./Words.js"

/** Past windows per page. */
export const PAGE_SIZE = 25

/** The most live (upcoming or running) windows a table lists; the plans' quotas keep far fewer. */
export const LIVE_LIMIT = 200

export interface Section {
  readonly rows: ReadonlyArray<MaintenanceWindowResource>
  readonly total: number
}

export interface ListView {
  readonly orgName: string
  readonly active: Section
  readonly upcoming: Section
  readonly past: Section
  /** The page of past windows shown, 1-based. */
  readonly page: number
  readonly monitors: MonitorNames
}

/** The page of past windows a query string asks for (anything unreadable is the first). */
export const pageOf = (params: URLSearchParams): number => {
  const page = Number(params.get("page") ?? "1")
  return Number.isSafeInteger(page) && page >= 1 ? page : 1
}

const covered = (w: MaintenanceWindowResource, monitors: MonitorNames): Html => {
  if (w.components.length === 0) return html`<span class="muted">None</span>`
  const names = w.components.map((id) => monitors.nameOf(id) ?? "deleted monitor")
  return names.length <= 3
    ? html`${names.join(", ")}`
    : html`${names.slice(0, 2).join(", ")} and ${names.length - 2} more`
}

const table = (id: string, caption: string, section: Section, view: ListView, empty: string): Html => {
  if (section.rows.length === 0) return html`<p class="muted">${empty}</p>`
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${caption}"><table class="maintenance-list" id="${id}">
<caption class="visually-hidden">${caption}</caption>
<thead><tr><th scope="col">Title</th><th scope="col">Status</th><th scope="col">When</th>
<th scope="col">Monitors</th></tr></thead>
<tbody>
${section.rows.map((w) => {
  const status = Words.statusWords[w.status]
  return html`<tr>
<th scope="row"><a href="/maintenance/${w.id}">${w.title}</a></th>
<td><span class="state ${status.tone}">${status.label}</span></td>
<td>${Time.time(w.starts_at)}<br>to ${Time.time(w.ends_at)}</td>
<td>${covered(w, view.monitors)}<br><span class="muted">${
    w.suppress_alerts ? "alerts suppressed" : "alerts not suppressed"
  }</span></td>
</tr>`
})}
</tbody></table></div>
${section.total > section.rows.length && id !== "maintenance-past" ? html`<p class="muted">And ${section.total - section.rows.length} more.</p>` : ""}`
}

const pager = (view: ListView): Html => {
  const pages = Math.max(1, Math.ceil(view.past.total / PAGE_SIZE))
  if (pages === 1) return html``
  const page = Math.min(view.page, pages)
  return html`<nav class="pager" aria-label="Pages of past maintenance">
${page > 1 ? html`<a href="/maintenance?page=${page - 1}#past-heading" rel="prev">Previous page</a>` : ""}
<span>Page ${page} of ${pages}</span>
${page < pages ? html`<a href="/maintenance?page=${page + 1}#past-heading" rel="next">Next page</a>` : ""}
</nav>`
}

export const render = (view: ListView): Layout.Content => ({
  title: "Maintenance",
  body: html`<div class="page-head"><h1>Maintenance</h1>
<a class="button primary" href="/maintenance/new">Schedule maintenance</a></div>
<p class="muted">Planned work on your monitors: shown on their status pages, and while it runs their alerts can stay
quiet. Times are in ${Time.zoneNote}.</p>
<section aria-labelledby="active-heading">
<h2 id="active-heading">In progress</h2>
${table("maintenance-active", `Maintenance in progress at ${view.orgName}`, view.active, view, "Nothing is in progress.")}
</section>
<section aria-labelledby="upcoming-heading">
<h2 id="upcoming-heading">Upcoming</h2>
${table("maintenance-upcoming", `Upcoming maintenance at ${view.orgName}, soonest first`, view.upcoming, view, "Nothing is scheduled.")}
</section>
<section aria-labelledby="past-heading">
<h2 id="past-heading">Past</h2>
${table("maintenance-past", `Past maintenance at ${view.orgName}, latest first`, view.past, view, view.page > 1 ? "No past maintenance on this page." : "No maintenance has ended yet.")}
${pager(view)}
</section>`
})
