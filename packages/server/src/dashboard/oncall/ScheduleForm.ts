/**
 * The form that creates a schedule (`POST /api/v1/oncall/schedules`) or changes one (`PATCH .../schedules/<id>`):
 * name, time zone, and its layers, each with its start, rotation (length and handoff time in the schedule's zone),
 * participants in rotation order (chosen from the org's members) and weekly restrictions. Fields are named by the
 * API's paths (`layers[0].rotation.handoff`), so a refusal lands on its field; `client/oncall.ts` drops what was
 * left blank (a spare layer, an empty participant slot, a restriction with no day) before sending, since a list of
 * objects is more than the field types say. Overrides have their own form on the schedule's page.
 */
import type { Layer, Restriction, Schedule } from "@signalman/core/oncall/Schedule"
import {
  MAX_LAYERS,
  MAX_NAME_LENGTH,
  MAX_PARTICIPANTS,
  MAX_ROTATION_COUNT,
  WEEKDAYS
} from "@signalman/core/oncall/Schedule"
import * as DateTime from "effect/DateTime"
import { attributes, type Html, html } from "../Template.js"
import * as Time from "../Time.js"
import type { People } from "./People.js"

const dayWords: Readonly<Record<(typeof WEEKDAYS)[number], string>> = {
  mon: "Mon",
  tue: "Tue",
  wed: "Wed",
  thu: "Thu",
  fri: "Fri",
  sat: "Sat",
  sun: "Sun"
}

/** Every IANA zone the runtime knows, UTC first. */
const zones: ReadonlyArray<string> = ["UTC", ...Intl.supportedValuesOf("timeZone").filter((z) => z !== "UTC")]

const idOf = (name: string) => `s-${name.replace(/[^A-Za-z0-9]+/g, "-").replace(/-$/, "")}`

/** Participant slots a layer offers: its own and two spare, at least three, at most the bound. */
export const participantSlots = (listed: number): number => Math.min(MAX_PARTICIPANTS, Math.max(3, listed + 2))

const participantSlot = (prefix: string, k: number, chosen: string | undefined, people: People): Html => {
  const name = `${prefix}.participants[${k}]`
  const id = idOf(name)
  const known = chosen === undefined || people.has(chosen)
  return html`<div class="field"><label for="${id}">Participant ${k + 1}</label>
<select id="${id}" name="${name}">
<option value=""${chosen === undefined ? html` selected` : ""}>Nobody</option>
${known ? "" : html`<option value="${chosen ?? ""}" selected>${people.nameOf(chosen ?? "")}</option>`}
${people.all.map(
  (m) =>
    html`<option${attributes({ value: m.user_id, selected: chosen?.toLowerCase() === m.user_id.toLowerCase() })}>${people.nameOf(m.user_id)}</option>`
)}
</select></div>`
}

const restriction = (prefix: string, r: number, value: Restriction | undefined): Html => {
  const name = `${prefix}.restrictions[${r}]`
  const id = idOf(name)
  const days = new Set(value?.days ?? [])
  return html`<fieldset class="oncall-restriction" data-field="${name}">
<legend>${value === undefined ? "Add a restriction" : `Restriction ${r + 1}`}</legend>
<fieldset class="inline-choices" data-field="${name}.days"><legend class="visually-hidden">Days</legend>
${WEEKDAYS.map(
  (d) =>
    html`<label class="inline"><input type="checkbox" name="${name}.days" data-type="set" value="${d}"${days.has(d) ? html` checked` : ""}> ${dayWords[d]}</label>`
)}
</fieldset>
<div class="field"><label for="${id}-from">From</label>
<input type="time" id="${id}-from" name="${name}.from" value="${value?.from ?? "09:00"}"></div>
<div class="field"><label for="${id}-to">To</label>
<input type="time" id="${id}-to" name="${name}.to" value="${value?.to ?? "17:00"}"></div>
<p class="hint">${value === undefined ? "Tick days to add it; a To at or before From runs past midnight." : "Untick every day to remove it."}</p>
</fieldset>`
}

const layerFieldset = (i: number, layer: Layer | undefined, people: People, now: DateTime.Utc): Html => {
  const prefix = `layers[${i}]`
  const id = idOf(prefix)
  const starts = layer?.starts_at ?? DateTime.startOf(now, "day")
  const slots = participantSlots(layer?.participants.length ?? 0)
  const restrictions = layer?.restrictions ?? []
  return html`<fieldset class="oncall-layer" data-layer="${i}"${layer === undefined ? html` data-spare` : ""}>
<legend>${layer === undefined ? (i === 0 ? "Layer 1" : `Add layer ${i + 1}`) : `Layer ${i + 1}: ${layer.name}`}</legend>
${layer === undefined ? html`<p class="hint">Choose its participants to add this layer; without any, it is left out.</p>` : ""}
<div class="field"><label for="${id}-name">Layer name</label>
<input type="text" id="${id}-name" name="${prefix}.name" maxlength="${MAX_NAME_LENGTH}" value="${layer?.name ?? (i === 0 ? "Primary" : "")}" autocomplete="off"></div>
<div class="field"><label for="${id}-starts">Rotation starts</label>
<input type="datetime-local" id="${id}-starts" name="${prefix}.starts_at" data-type="instant"
  value="${Time.localValue(starts)}" data-instant="${DateTime.formatIso(starts)}" aria-describedby="${id}-starts-hint">
<p class="hint" id="${id}-starts-hint">When participant 1's first turn begins, in ${Time.zoneNote}.</p></div>
<div class="field"><label for="${id}-count">Each turn lasts</label>
<input type="number" id="${id}-count" name="${prefix}.rotation.length.count" data-type="number" step="1" min="1"
  max="${MAX_ROTATION_COUNT}" value="${layer?.rotation.length.count ?? 1}"></div>
<div class="field"><label for="${id}-unit">Unit</label>
<select id="${id}-unit" name="${prefix}.rotation.length.unit">
${(["hours", "days", "weeks"] as const).map(
  (u) =>
    html`<option${attributes({ value: u, selected: (layer?.rotation.length.unit ?? "weeks") === u })}>${u}</option>`
)}
</select></div>
<div class="field"><label for="${id}-handoff">Handoff time</label>
<input type="time" id="${id}-handoff" name="${prefix}.rotation.handoff" value="${layer?.rotation.handoff ?? "09:00"}"
  aria-describedby="${id}-handoff-hint">
<p class="hint" id="${id}-handoff-hint">In the schedule's time zone: day and week turns hand over at this time, so a
turn across a daylight-saving change lasts an hour more or less.</p></div>
<fieldset data-field="${prefix}.participants"><legend>Participants, in rotation order</legend>
${Array.from({ length: slots }, (_, k) => participantSlot(prefix, k, layer?.participants[k], people))}
</fieldset>
${restrictions.map((r, n) => restriction(prefix, n, r))}
${restriction(prefix, restrictions.length, undefined)}
${
  layer === undefined
    ? ""
    : html`<label class="inline"><input type="checkbox" data-remove-layer="${i}"> Remove this layer</label>`
}
</fieldset>`
}

export interface FormView {
  readonly schedule: Schedule | undefined
  readonly people: People
  readonly now: DateTime.Utc
}

export const form = (view: FormView): Html => {
  const s = view.schedule
  const layers = s?.layers ?? []
  // A new schedule opens with one layer to fill; a stored one shows its layers and one spare to add.
  const spare = layers.length < MAX_LAYERS ? [layerFieldset(layers.length, undefined, view.people, view.now)] : []
  const zone = s?.time_zone ?? "UTC"
  return html`<form class="oncall-form" data-oncall="schedule" ${
    s === undefined
      ? html`data-api="/api/v1/oncall/schedules" data-method="POST" data-redirect="/on-call/schedules/{id}"`
      : html`data-api="/api/v1/oncall/schedules/${s.id}" data-method="PATCH" data-reload`
  } method="post" action="/dashboard/js-required" novalidate>
<div class="field"><label for="schedule-name">Name</label>
<input type="text" id="schedule-name" name="name" required maxlength="${MAX_NAME_LENGTH}" value="${s?.name ?? ""}" autocomplete="off"></div>
<div class="field"><label for="schedule-zone">Time zone</label>
<select id="schedule-zone" name="time_zone" aria-describedby="schedule-zone-hint">
${zones.map((z) => html`<option${attributes({ value: z, selected: z === zone })}>${z}</option>`)}
</select>
<p class="hint" id="schedule-zone-hint">Handoffs, restrictions and the calendar are in this zone.</p></div>
${layers.map((layer, i) => layerFieldset(i, layer, view.people, view.now))}
${spare}
<p class="form-status" data-form-status role="status"></p>
<button type="submit" class="primary">${s === undefined ? "Create schedule" : "Save schedule"}</button>
</form>`
}
