/**
 * The monitor's recent results, newest first, as the API's `/results` answers them: filtered by status and region
 * with a plain GET form and paged with plain links, so both work without JavaScript and every view has its own URL.
 */
import type { CheckResult } from "@signalman/core/CheckResult"
import { type Html, html } from "../Template.js"
import * as Format from "./DetailFormat.js"
import * as DetailQuery from "./DetailQuery.js"

export interface Input {
  readonly id: string
  readonly query: DetailQuery.DetailQuery
  /** The regions a person may filter by. */
  readonly regions: ReadonlyArray<string>
  readonly results: ReadonlyArray<CheckResult>
  readonly total: number
  /** The oldest instant the plan keeps results from. */
  readonly from: Date
}

const filters = (input: Input): Html => {
  const { query } = input
  return html`<form class="filters" method="get" action="/monitors/${input.id}#results">
${query.range === DetailQuery.defaults.range ? "" : html`<input type="hidden" name="range" value="${query.range}">`}
<div class="field"><label for="filter-status">Status</label>
<select id="filter-status" name="status">
<option value=""${query.status === undefined ? html` selected` : ""}>Any status</option>
${DetailQuery.statuses.map(
  (s) => html`<option value="${s}"${query.status === s ? html` selected` : ""}>${Format.statusWords[s] ?? s}</option>`
)}
</select></div>
${
  input.regions.length < 2
    ? ""
    : html`<div class="field"><label for="filter-region">Region</label>
<select id="filter-region" name="region">
<option value=""${query.region === undefined ? html` selected` : ""}>Every region</option>
${input.regions.map((r) => html`<option value="${r}"${query.region === r ? html` selected` : ""}>${r}</option>`)}
</select></div>`
}
<button type="submit">Filter</button>
${
  query.status === undefined && query.region === undefined
    ? ""
    : html`<a href="${DetailQuery.href(input.id, { ...query, status: undefined, region: undefined, page: 1 }, {}, "#results")}">Clear filters</a>`
}
</form>`
}

const pager = (input: Input): Html => {
  const { query, total } = input
  const pages = Math.min(Math.max(1, Math.ceil(total / DetailQuery.PAGE_SIZE)), DetailQuery.MAX_PAGE)
  if (pages === 1) return html``
  const first = (query.page - 1) * DetailQuery.PAGE_SIZE + 1
  const last = Math.min(query.page * DetailQuery.PAGE_SIZE, total)
  return html`<nav class="pager" aria-label="Pages of results">
${
  query.page > 1
    ? html`<a href="${DetailQuery.href(input.id, query, { page: query.page - 1 }, "#results")}" rel="prev">Newer</a>`
    : ""
}
<span>${first}–${last} of ${total}</span>
${
  query.page < pages
    ? html`<a href="${DetailQuery.href(input.id, query, { page: query.page + 1 }, "#results")}" rel="next">Older</a>`
    : ""
}
</nav>`
}

/** What a result says beyond its status: its error, or for a passing flow how many steps ran. */
const detailOf = (result: CheckResult): string => {
  if (result.error !== null) return result.error
  const steps = result.details?.["steps"]
  if (Array.isArray(steps)) return `${steps.length} ${steps.length === 1 ? "step" : "steps"} passed`
  return ""
}

export const section = (input: Input): Html => {
  const filtered = input.query.status !== undefined || input.query.region !== undefined
  return html`<section aria-labelledby="results" class="detail-section">
<h2 id="results">Results</h2>
${filters(input)}
${
  input.results.length === 0
    ? html`<p>${filtered ? "No result matches these filters." : "No results yet."}</p>`
    : html`<div class="table-wrap"><table class="results-table">
<caption>Results since ${Format.time(input.from)}, newest first${
        filtered
          ? `: ${[
              input.query.status === undefined ? undefined : `status ${Format.statusWords[input.query.status]}`,
              input.query.region === undefined ? undefined : `region ${input.query.region}`
            ]
              .filter((part) => part !== undefined)
              .join(", ")}`
          : ""
      }</caption>
<thead><tr><th scope="col">Checked</th><th scope="col">Region</th><th scope="col">Status</th>
<th scope="col" class="num">Duration</th><th scope="col">Details</th></tr></thead>
<tbody>
${input.results.map(
  (r) =>
    html`<tr><td>${Format.time(r.checked_at, true)}</td><td>${r.region}</td><td>${Format.status(r.status)}</td>
<td class="num">${Format.millis(r.duration_ms)}</td><td class="result-detail">${detailOf(r)}</td></tr>`
)}
</tbody></table></div>
${pager(input)}`
}
</section>`
}
