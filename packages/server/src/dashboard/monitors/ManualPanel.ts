/**
 * A manual monitor's state control: what is set now (status, note, when, by whom) and a form that sets it through
 * `PUT /api/v1/targets/{id}/state`. Setting degraded or down writes a result at once and opens an incident on the
 * writer's next pass; setting up closes it.
 */
import type { ManualState } from "@signalman/core/ManualState"
import { type Html, html } from "../Template.js"
import * as Format from "./DetailFormat.js"

export interface Input {
  readonly id: string
  readonly state: ManualState
  /** The person looking, to say "you" for their own set. */
  readonly viewerId: string
}

const CHOICES = [
  { value: "up", label: "Up", hint: "working normally" },
  { value: "degraded", label: "Degraded", hint: "working, but worse than it should" },
  { value: "down", label: "Down", hint: "not working: opens an incident" }
] as const

export const section = (input: Input): Html => {
  const { state } = input
  const setter =
    state.set_by === null ? "" : state.set_by === input.viewerId ? " by you" : " by another member of the organization"
  return html`<section aria-labelledby="manual" class="detail-section">
<h2 id="manual">State</h2>
<p>${Format.status(state.status)} set ${Format.time(state.set_at)}${setter}${
    state.set_by === null ? " (the state a manual monitor starts in)" : ""
  }.</p>
${state.note === null ? "" : html`<p>Note: <q class="manual-note">${state.note}</q></p>`}
<form class="manual-form" data-api="/api/v1/targets/${input.id}/state" data-method="PUT" data-reload
  method="post" action="/dashboard/js-required">
<fieldset data-field="status"><legend>Set the state</legend>
${CHOICES.map(
  (c) =>
    html`<label class="inline"><input type="radio" name="status" value="${c.value}"${
      c.value === state.status ? html` checked` : ""
    }> ${c.label} <span class="muted">(${c.hint})</span></label>`
)}
</fieldset>
<div class="field"><label for="manual-note">Note</label>
<input id="manual-note" name="note" type="text" value="${state.note ?? ""}" maxlength="200" aria-describedby="manual-note-hint">
<p class="hint" id="manual-note-hint">One line, at most 200 characters; shown with the state and as an incident's cause.
Empty clears it.</p></div>
<p data-form-status role="status"></p>
<button type="submit" class="primary">Set state</button>
</form>
</section>`
}
