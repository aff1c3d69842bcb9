/**
 * The form that schedules a maintenance window (`POST /api/v1/maintenance`) or edits one (`PATCH
 * /api/v1/maintenance/<id>`): title, description, start and end (`datetime-local` in the viewer's zone, sent as
 * RFC 3339 instants), the monitors it covers and whether it keeps their alerts quiet. Field names are the API's, so
 * a refusal lands on its field. A running window's start is shown but not sent: it cannot move.
 */
import {
  MAX_DESCRIPTION_LENGTH,
  MAX_TITLE_LENGTH,
  type MaintenanceWindowResource
} from "@signalman/core/api/Maintenance"
import * as DateTime from "effect/DateTime"
import type { MonitorNames } from "../MonitorNames.js"
import { type Html, html } from "../Template.js"
import * as Time from "../Time.js"

export interface FormView {
  /** The window to edit; undefined for a new one. */
  readonly window: MaintenanceWindowResource | undefined
  readonly monitors: MonitorNames
  readonly now: DateTime.Utc
}

/** A new window's suggested start: the next whole hour. */
export const suggestedStart = (now: DateTime.Utc): DateTime.Utc =>
  DateTime.add(DateTime.startOf(now, "hour"), { hours: 1 })

const instantInput = (
  id: string,
  name: string,
  at: DateTime.Utc,
  options: { readonly disabled: boolean; readonly hint: Html }
): Html => html`<input type="datetime-local" id="${id}" name="${name}" data-type="instant" required
  value="${Time.localValue(at)}" data-instant="${DateTime.formatIso(at)}"${
    Time.offMinute(at) ? html` step="any"` : ""
  }${options.disabled ? html` disabled` : ""} aria-describedby="${id}-hint">
<p class="hint" id="${id}-hint">${options.hint}</p>`

export const form = (view: FormView): Html => {
  const window = view.window
  const starts = window?.starts_at ?? suggestedStart(view.now)
  const ends = window?.ends_at ?? DateTime.add(starts, { hours: 1 })
  const running = window?.status === "running"
  const covered = new Set((window?.components ?? []).map((id) => id.toLowerCase()))
  const prefix = window === undefined ? "new" : "edit"
  return html`<form class="maintenance-form" ${
    window === undefined
      ? html`data-api="/api/v1/maintenance" data-method="POST" data-redirect="/maintenance/{id}"`
      : html`data-api="/api/v1/maintenance/${window.id}" data-method="PATCH" data-reload`
  } method="post" action="/dashboard/js-required">
  <div class="field"><label for="${prefix}-title">Title</label>
    <input type="text" id="${prefix}-title" name="title" required maxlength="${MAX_TITLE_LENGTH}"
      value="${window?.title ?? ""}"></div>
  <div class="field"><label for="${prefix}-description">Description</label>
    <textarea id="${prefix}-description" name="description" rows="4" data-empty="keep"
      maxlength="${MAX_DESCRIPTION_LENGTH}" aria-describedby="${prefix}-description-hint">${window?.description ?? ""}</textarea>
    <p class="hint" id="${prefix}-description-hint">Shown on the status pages of the monitors it covers.</p></div>
  <div class="field"><label for="${prefix}-starts">Starts</label>
    ${instantInput(`${prefix}-starts`, "starts_at", starts, {
      disabled: running,
      hint: running
        ? html`It has started, so its start cannot move. In ${Time.zoneNote}.`
        : html`In ${Time.zoneNote}. A start in the past begins it at once.`
    })}</div>
  <div class="field"><label for="${prefix}-ends">Ends</label>
    ${instantInput(`${prefix}-ends`, "ends_at", ends, {
      disabled: false,
      hint: html`In ${Time.zoneNote}.${running ? " An end in the past ends it now." : ""}`
    })}</div>
  <fieldset data-field="components">
    <legend>Monitors it covers</legend>
    ${
      view.monitors.all.length === 0
        ? html`<p class="muted">This organization has no monitors yet.</p>`
        : view.monitors.all.map(
            (m) =>
              html`<label class="inline"><input type="checkbox" name="components" data-type="set" value="${m.id}"${
                covered.has(m.id.toLowerCase()) ? html` checked` : ""
              }> ${m.name}</label>`
          )
    }
  </fieldset>
  <div class="field"><label class="inline"><input type="checkbox" name="suppress_alerts" data-type="boolean"${
    (window?.suppress_alerts ?? true) ? html` checked` : ""
  } aria-describedby="${prefix}-suppress-hint"> Suppress alerts</label>
    <p class="hint" id="${prefix}-suppress-hint">While it runs, failures of these monitors open no incident and page
nobody.</p></div>
  <p class="form-status" data-form-status role="status"></p>
  <button type="submit" class="primary">${window === undefined ? "Schedule maintenance" : "Save changes"}</button>
</form>`
}
