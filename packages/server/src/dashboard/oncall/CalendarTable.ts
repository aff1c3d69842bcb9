/**
 * A schedule's calendar as markup: a table with a row per local day (its date, a bar drawn in SVG from the pieces'
 * shares, and the pieces in words with their local times), each person in a colour of their own and always named,
 * today and the piece holding "now" said in words, a day of 23 or 25 hours said too; links move it by a week.
 */
import { type Html, html } from "../Template.js"
import * as Calendar from "./Calendar.js"
import type { People } from "./People.js"

export interface CalendarView {
  readonly scheduleId: string
  readonly calendar: Calendar.Calendar
  readonly order: ReadonlyArray<string>
  readonly people: People
  /** The first day of the view that opens by default (today in the schedule's zone). */
  readonly today: Calendar.LocalDate
}

const BAR_WIDTH = 1000

const pieceClass = (view: CalendarView, segment: Calendar.Segment) =>
  segment.user_id === null ? "oncall-nobody" : `oncall-c${Calendar.colourOf(view.order, segment.user_id)}`

const who = (view: CalendarView, segment: Calendar.Segment): Html =>
  segment.user_id === null
    ? html`<span class="muted">Nobody</span>`
    : html`${view.people.nameOf(segment.user_id)}${segment.layer === null ? html` <span class="muted">(override)</span>` : ""}`

const bar = (
  view: CalendarView,
  day: Calendar.Day
): Html => html`<svg class="oncall-bar" aria-hidden="true" focusable="false"
  viewBox="0 0 ${BAR_WIDTH} 16" preserveAspectRatio="none" width="100%" height="16">
${day.segments.map(
  (s) =>
    html`<rect class="${pieceClass(view, s)}" x="${(s.offset * BAR_WIDTH).toFixed(1)}" y="0" width="${(s.share * BAR_WIDTH).toFixed(1)}" height="16"></rect>`
)}
</svg>`

const dayNote = (day: Calendar.Day): string =>
  day.hours === 23 ? " (23 hours: clocks go forward)" : day.hours === 25 ? " (25 hours: clocks go back)" : ""

const row = (
  view: CalendarView,
  day: Calendar.Day
): Html => html`<tr data-date="${day.date}"${day.today ? html` class="oncall-today"` : ""}>
<th scope="row"><span class="oncall-day">${day.label}</span>${day.today ? html` <strong>Today</strong>` : ""}<span class="muted">${dayNote(day)}</span></th>
<td>${bar(view, day)}</td>
<td><ul class="oncall-pieces">${day.segments.map(
  (
    s
  ) => html`<li data-user="${s.user_id ?? ""}"${s.now ? html` class="oncall-now"` : ""}><span class="oncall-swatch ${pieceClass(view, s)}" aria-hidden="true"></span>
${s.from}–${s.to} ${who(view, s)}${s.now ? html` <strong>(on call now)</strong>` : ""}</li>`
)}</ul></td>
</tr>`

const link = (view: CalendarView, date: Calendar.LocalDate) =>
  `/on-call/schedules/${view.scheduleId}?from=${Calendar.dateText(date)}#calendar-heading`

export const render = (view: CalendarView): Html => {
  const { calendar } = view
  const first = calendar.days[0]
  const last = calendar.days[calendar.days.length - 1]
  const span = first === undefined || last === undefined ? "" : `${first.label} to ${last.label}`
  return html`<nav class="pager" aria-label="Weeks of the calendar">
<a href="${link(view, Calendar.addDays(calendar.first, -7))}" rel="prev">Previous week</a>
<a href="${link(view, view.today)}">From today</a>
<a href="${link(view, Calendar.addDays(calendar.first, 7))}" rel="next">Next week</a>
</nav>
<div class="table-wrap" tabindex="0" role="region" aria-label="Calendar of shifts"><table class="oncall-calendar">
<caption>Who is on call, ${span}, in ${calendar.time_zone} time</caption>
<thead><tr><th scope="col">Day</th><th scope="col"><span class="visually-hidden">Shifts drawn</span></th><th scope="col">On call</th></tr></thead>
<tbody>
${calendar.days.map((day) => row(view, day))}
</tbody></table></div>`
}
