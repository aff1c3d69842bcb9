/**
 * `GET /on-call/schedules/<id>`: one schedule. Who is on call now, the calendar of the next 14 days (`?from=` a
 * date moves it; in the schedule's zone), its layers and overrides; for whoever may change on-call, an override
 * added (`PATCH` with the list and one more) or removed (the list without it), the schedule edited or deleted.
 */
import { MAX_OVERRIDES, type Override, type Schedule } from "@signalman/core/oncall/Schedule"
import * as DateTime from "effect/DateTime"
import type * as Layout from "../Layout.js"
import { type Html, html } from "../Template.js"
import * as Time from "../Time.js"
import * as Access from "./Access.js"
import * as CalendarTable from "./CalendarTable.js"
import type { People } from "./People.js"
import * as ScheduleForm from "./ScheduleForm.js"
import * as Words from "./Words.js"

export interface ScheduleView {
  readonly schedule: Schedule
  readonly onCallNow: { readonly user_id: string | null; readonly layer: number | null }
  readonly calendar: CalendarTable.CalendarView
  readonly people: People
  readonly access: Access.Access
  readonly now: DateTime.Utc
}

const nowLine = (view: ScheduleView): Html => {
  const { user_id, layer } = view.onCallNow
  if (user_id === null) return html`<p class="oncall-current" id="on-call-now">Nobody is on call now.</p>`
  const through =
    layer === null ? "an override" : `layer ${layer + 1} (${view.schedule.layers[layer]?.name ?? "deleted"})`
  return html`<p class="oncall-current" id="on-call-now">On call now: <strong>${view.people.nameOf(user_id)}</strong>
<span class="muted">through ${through}</span></p>`
}

const layers = (view: ScheduleView): Html => {
  const list = view.schedule.layers
  if (list.length === 0) return html`<p class="muted">No layers yet: nobody is on call except through overrides.</p>`
  return html`<ol class="oncall-layers">${list.map(
    (layer) => html`<li><strong>${layer.name}</strong>: ${Words.rotation(layer)}, from ${Time.time(layer.starts_at)}.
<br>In turn: ${layer.participants.map((id, i) => html`${i > 0 ? ", " : ""}${view.people.nameOf(id)}`)}.
${
  layer.restrictions.length === 0
    ? html`<br>Covers every hour.`
    : html`<br>Covers only ${layer.restrictions.map((r, i) => html`${i > 0 ? "; " : ""}${Words.restriction(r)}`)}.`
}</li>`
  )}</ol>
<p class="muted">When layers overlap, the last one that covers the moment wins.</p>`
}

const wire = (o: Override) => ({
  user_id: o.user_id,
  starts_at: DateTime.formatIso(o.starts_at),
  ends_at: DateTime.formatIso(o.ends_at)
})

const overrideRows = (view: ScheduleView): Html => {
  const s = view.schedule
  const list = [...s.overrides.entries()].sort(
    ([, a], [, b]) => DateTime.toEpochMillis(a.starts_at) - DateTime.toEpochMillis(b.starts_at)
  )
  if (list.length === 0) return html`<p class="muted">No overrides.</p>`
  const write = Access.canWrite(view.access)
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Overrides"><table class="oncall-overrides">
<caption class="visually-hidden">Overrides of ${s.name}, by start</caption>
<thead><tr><th scope="col">Who</th><th scope="col">From</th><th scope="col">Until</th>${write ? html`<th scope="col">Actions</th>` : ""}</tr></thead>
<tbody>${list.map(([index, o]) => {
    const ended = DateTime.lessThanOrEqualTo(o.ends_at, view.now)
    const others = s.overrides.filter((_, k) => k !== index).map(wire)
    return html`<tr><th scope="row">${view.people.nameOf(o.user_id)}${ended ? html` <span class="muted">(ended)</span>` : ""}</th>
<td>${Time.time(o.starts_at)}</td><td>${Time.time(o.ends_at)}</td>${
      write
        ? html`<td><button type="button" class="js-only danger" data-action="/api/v1/oncall/schedules/${s.id}"
  data-method="PATCH" data-body="${JSON.stringify({ overrides: others })}"
  data-confirm="Remove this override of ${view.people.nameOf(o.user_id)}?">Remove override</button></td>`
        : ""
    }</tr>`
  })}</tbody></table></div>`
}

const addOverride = (view: ScheduleView): Html => {
  const s = view.schedule
  if (s.overrides.length >= MAX_OVERRIDES) {
    return html`<p class="muted">This schedule has the most overrides it takes (${MAX_OVERRIDES}); remove one first.</p>`
  }
  const n = s.overrides.length
  const starts = DateTime.add(DateTime.startOf(view.now, "hour"), { hours: 1 })
  const ends = DateTime.add(starts, { days: 1 })
  const instant = (id: string, name: string, at: DateTime.Utc) =>
    html`<input type="datetime-local" id="${id}" name="${name}" data-type="instant" required value="${Time.localValue(at)}"
  data-instant="${DateTime.formatIso(at)}" aria-describedby="${id}-hint"><p class="hint" id="${id}-hint">In ${Time.zoneNote}.</p>`
  // The API takes the list whole: the stored overrides go along as they are, the new one after them.
  return html`<form class="oncall-override" data-api="/api/v1/oncall/schedules/${s.id}" data-method="PATCH" data-reload
  method="post" action="/dashboard/js-required" novalidate aria-labelledby="add-override-heading">
<h3 id="add-override-heading">Add an override</h3>
${s.overrides.map(wire).map(
  (o, k) => html`<input type="hidden" name="overrides[${k}].user_id" value="${o.user_id}">
<input type="hidden" name="overrides[${k}].starts_at" value="${o.starts_at}">
<input type="hidden" name="overrides[${k}].ends_at" value="${o.ends_at}">`
)}
<div class="field"><label for="override-user">Who</label>
<select id="override-user" name="overrides[${n}].user_id">
${view.people.all.map((m) => html`<option value="${m.user_id}">${view.people.nameOf(m.user_id)}</option>`)}
</select></div>
<div class="field"><label for="override-starts">From</label>${instant("override-starts", `overrides[${n}].starts_at`, starts)}</div>
<div class="field"><label for="override-ends">Until</label>${instant("override-ends", `overrides[${n}].ends_at`, ends)}</div>
<p class="form-status" data-form-status role="status"></p>
<button type="submit">Add override</button>
</form>`
}

export const render = (view: ScheduleView): Layout.Content => {
  const s = view.schedule
  const write = Access.canWrite(view.access)
  return {
    title: `${s.name} · On-call`,
    body: html`<p class="breadcrumb"><a href="/on-call">On-call</a></p>
<div class="page-head"><h1>${s.name}</h1>${
      write
        ? html`<button type="button" class="js-only danger" data-action="/api/v1/oncall/schedules/${s.id}" data-method="DELETE"
  data-redirect="/on-call" data-confirm="Delete the schedule ${s.name}? Its layers and overrides go with it.">Delete schedule</button>`
        : ""
    }</div>
${Access.notice(view.access)}
${write ? html`<p class="no-js-only note">Changing the schedule needs JavaScript; this page reads without it.</p>` : ""}
<p>Time zone: <strong>${s.time_zone}</strong></p>
${nowLine(view)}
<section aria-labelledby="calendar-heading">
<h2 id="calendar-heading">Calendar</h2>
${CalendarTable.render(view.calendar)}
</section>
<section aria-labelledby="layers-heading">
<h2 id="layers-heading">Layers</h2>
${layers(view)}
</section>
<section aria-labelledby="overrides-heading">
<h2 id="overrides-heading">Overrides</h2>
<p class="muted">An override puts one person on call for a while, whatever the layers say.</p>
${overrideRows(view)}
${write ? addOverride(view) : ""}
</section>
${
  write
    ? html`<section aria-labelledby="edit-heading">
<h2 id="edit-heading">Edit</h2>
${ScheduleForm.form({ schedule: s, people: view.people, now: view.now })}
</section>`
    : ""
}`
  }
}
