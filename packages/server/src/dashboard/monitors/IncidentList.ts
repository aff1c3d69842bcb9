/**
 * The monitor's incidents, newest first, as `GET /api/v1/incidents?target_id=` lists them, each linking to its own
 * page (`/incidents/<id>`), where it is acknowledged, narrated and resolved.
 */
import type { Incident } from "@signalman/core/api/Incidents"
import { type Html, html } from "../Template.js"
import * as Format from "./DetailFormat.js"

const impactWords: Readonly<Record<string, string>> = {
  degraded: "Degraded",
  partial_outage: "Partial outage",
  major_outage: "Major outage"
}

/** Where the incident stands, in words. */
export const standing = (incident: Incident): string => {
  if (incident.status === "closed") return incident.close_reason === "resolved" ? "Resolved" : "Recovered"
  if (incident.recovering_since !== null) return "Recovering"
  return incident.acknowledged_at === null ? "Open" : "Open, acknowledged"
}

const titleOf = (incident: Incident): string =>
  incident.title ?? (incident.number === null ? "Incident" : `Incident #${incident.number}`)

export const section = (incidents: ReadonlyArray<Incident>, total: number, now: number): Html =>
  html`<section aria-labelledby="incidents" class="detail-section">
<h2 id="incidents">Incidents</h2>
${
  incidents.length === 0
    ? html`<p>No incidents for this monitor.</p>`
    : html`<div class="table-wrap"><table>
<caption>${incidents.length < total ? `The ${incidents.length} latest of ${total} incidents` : "Incidents"}, newest first</caption>
<thead><tr><th scope="col">Incident</th><th scope="col">Status</th><th scope="col">Impact</th>
<th scope="col">Started</th><th scope="col">Lasted</th></tr></thead>
<tbody>
${incidents.map((incident) => {
  const started = Format.toDate(incident.started_at).getTime()
  const ended = incident.ended_at === null ? undefined : Format.toDate(incident.ended_at).getTime()
  return html`<tr><td><a href="/incidents/${incident.id}">${titleOf(incident)}</a></td>
<td>${incident.status === "open" ? html`<span class="state state-down">${standing(incident)}</span>` : standing(incident)}</td>
<td>${impactWords[incident.impact] ?? incident.impact}</td>
<td>${Format.time(incident.started_at)}</td>
<td>${ended === undefined ? `${Format.span(now - started)} so far` : Format.span(ended - started)}</td></tr>`
})}
</tbody></table></div>`
}
${incidents.length < total ? html`<p><a href="/incidents">Every incident</a></p>` : ""}
</section>`
