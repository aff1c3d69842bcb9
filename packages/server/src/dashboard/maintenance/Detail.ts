/**
 * `GET /maintenance/<id>`: one window, its updates, and what can still be done with it: edit it while it is upcoming
 * or running (`PATCH`), end a running one now, cancel one that has not ended (`DELETE`, kept as history), and post
 * updates to any window but a cancelled one (`POST .../updates`). An ended or cancelled window reads only.
 */
import {
  MAX_MESSAGE_LENGTH,
  type MaintenanceUpdate,
  type MaintenanceWindowResource
} from "@signalman/core/api/Maintenance"
import { MAX_UPDATES } from "@signalman/core/MaintenanceWindow"
import * as DateTime from "effect/DateTime"
import type * as Layout from "../Layout.js"
import type { MonitorNames } from "../MonitorNames.js"
import { type Html, html } from "../Template.js"
import * as Time from "../Time.js"
import * as Form from "./Form.js"
import * as Words from "./Words.js"

export interface DetailView {
  readonly window: MaintenanceWindowResource
  readonly monitors: MonitorNames
  readonly viewerId: string
  readonly now: DateTime.Utc
}

const who = (by: string | null, viewerId: string) => (by === null ? "someone" : by === viewerId ? "you" : "a teammate")

const sourceWords = { ui: "the dashboard", api: "the API", iac: "configuration as code" } as const

export const monitorList = (components: ReadonlyArray<string>, monitors: MonitorNames): Html =>
  components.length === 0
    ? html`<span class="muted">None</span>`
    : html`${components.map(
        (id, i) =>
          html`${i > 0 ? ", " : ""}${
            monitors.nameOf(id) === undefined
              ? html`<span class="muted">deleted monitor</span>`
              : html`<a href="/monitors/${id}">${monitors.nameOf(id)}</a>`
          }`
      )}`

const facts = (view: DetailView): Html => {
  const w = view.window
  return html`<dl class="facts">
<dt>Starts</dt><dd>${Time.time(w.starts_at)}</dd>
<dt>Ends</dt><dd>${Time.time(w.ends_at)} <span class="muted">(${Time.between(w.starts_at, w.ends_at)})</span></dd>
<dt>Monitors</dt><dd>${monitorList(w.components, view.monitors)}</dd>
<dt>Alerts</dt><dd>${w.suppress_alerts ? "Suppressed while it runs" : "Not suppressed"}</dd>
${
  w.deleted_at === null
    ? ""
    : html`<dt>Cancelled</dt><dd>${Time.time(w.deleted_at)} by ${who(w.deleted_by, view.viewerId)}</dd>`
}
<dt>Last changed</dt><dd>${Time.time(w.updated_at)} through ${sourceWords[w.write_source]}</dd>
${
  w.managed_by === null
    ? ""
    : html`<dt>Managed by</dt><dd>the configuration project <code>${w.managed_by.project}</code>
<span class="muted">(an apply of it may overwrite changes made here)</span></dd>`
}
</dl>`
}

const update = (u: MaintenanceUpdate, viewerId: string): Html => html`<li class="timeline-entry timeline-update">
<p class="timeline-head"><span class="timeline-kind">${u.status === null ? "Update" : `Update: ${Words.stageWords[u.status]}`}</span>
${Time.time(u.created_at)} <span class="muted">by ${who(u.created_by, viewerId)}</span></p>
<p class="timeline-message">${u.message}</p></li>`

const updates = (view: DetailView): Html => {
  const w = view.window
  const full = w.updates.length >= MAX_UPDATES
  return html`<section aria-labelledby="updates-heading">
<h2 id="updates-heading">Updates</h2>
${
  w.updates.length === 0
    ? html`<p class="muted">No updates yet.</p>`
    : html`<ol class="timeline">${w.updates.map((u) => update(u, view.viewerId))}</ol>`
}
${
  w.status === "cancelled"
    ? html`<p class="muted">A cancelled window takes no updates.</p>`
    : full
      ? html`<p class="muted">This window has the most updates it takes (${MAX_UPDATES}).</p>`
      : html`<form class="maintenance-update" data-api="/api/v1/maintenance/${w.id}/updates" data-method="POST"
  data-reload method="post" action="/dashboard/js-required" aria-labelledby="post-update-heading">
  <h3 id="post-update-heading">Post an update</h3>
  <div class="field"><label for="update-status">Stage</label>
    <select id="update-status" name="status">
      <option value="">Not said</option>
      ${Words.stages.map((s) => html`<option value="${s}">${Words.stageWords[s]}</option>`)}
    </select></div>
  <div class="field"><label for="update-message">Message</label>
    <textarea id="update-message" name="message" rows="3" aria-describedby="update-message-hint"></textarea>
    <p class="hint" id="update-message-hint">Shown on status pages and sent to their subscribers; at most
${MAX_MESSAGE_LENGTH} characters.</p></div>
  <p class="form-status" data-form-status role="status"></p>
  <button type="submit">Post update</button>
</form>`
}
</section>`
}

const actions = (view: DetailView): Html => {
  const w = view.window
  if (w.status !== "upcoming" && w.status !== "running") return html``
  const path = `/api/v1/maintenance/${w.id}`
  return html`<div class="maintenance-actions">
${
  w.status === "running"
    ? html`<button type="button" class="js-only" data-action="${path}" data-method="PATCH"
  data-body="${JSON.stringify({ ends_at: DateTime.formatIso(w.starts_at) })}"
  data-confirm="End this maintenance now? Its monitors' alerts resume at once.">End now</button>`
    : ""
}
<button type="button" class="js-only danger" data-action="${path}" data-method="DELETE"
  data-confirm="Cancel this maintenance window? It stays listed as cancelled and stops suppressing alerts at once.">Cancel window</button>
</div>`
}

export const render = (view: DetailView): Layout.Content => {
  const w = view.window
  const status = Words.statusWords[w.status]
  const editable = w.status === "upcoming" || w.status === "running"
  return {
    title: `${w.title} · Maintenance`,
    body: html`<p class="breadcrumb"><a href="/maintenance">Maintenance</a></p>
<div class="page-head"><h1>${w.title}</h1>${actions(view)}</div>
<p><span class="state ${status.tone}">${status.label}</span></p>
<p class="no-js-only note">Editing, cancelling and posting updates need JavaScript; this page reads without it.</p>
${w.description === "" ? "" : html`<p class="maintenance-description">${w.description}</p>`}
${facts(view)}
${updates(view)}
${
  editable
    ? html`<section aria-labelledby="edit-heading">
<h2 id="edit-heading">Edit</h2>
${Form.form({ window: w, monitors: view.monitors, now: view.now })}
</section>`
    : html`<p class="muted">This window has ${w.status === "cancelled" ? "been cancelled" : "ended"}; it is kept as
history and can no longer be edited.</p>`
}`
  }
}
