/**
 * `GET /`: the org's monitors at a glance. Every monitor is read lean with its state (two statements for all of
 * them), so the counts by state and the filters see the whole org; the page's rows (at most `Filters.PAGE_SIZE`) are
 * read in full from the same `Targets` service as `GET /api/v1/targets`, shaped by `toTarget`, and get their recent
 * results, uptime and response times in three more statements and their advisories in one, whatever their number.
 * Writes (bulk pause, resume, tag, delete) go from the browser to `POST /api/v1/targets/bulk-action`; the rows update
 * live over the tab's event stream (docs/dashboard.md, "Live updates").
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Readings } from "../../engine/Readings.js"
import type { MonitorState } from "../../engine/Repo.js"
import type { Route } from "../../http/RouteTable.js"
import * as IncidentTargetAdvisories from "../../incidents/TargetAdvisories.js"
import * as Advisories from "../../targets/Advisories.js"
import { toTarget } from "../../targets/Stored.js"
import { type IndexRow, Targets } from "../../targets/Targets.js"
import { Pages, type PageViewer } from "../Page.js"
import { type Html, html } from "../Template.js"
import * as Filters from "./Filters.js"
import * as Rows from "./Rows.js"

export const routes: ReadonlyArray<Route> = [{ method: "GET", path: "/", body: "none" }]

const count = (n: number) => n.toLocaleString("en-US")

// One collator for every comparison: `localeCompare` with options builds one per call, which for a sort of 1,000
// names was most of the page's own time.
const collator = new Intl.Collator("en", { sensitivity: "base", numeric: true })

const byName = (a: IndexRow, b: IndexRow) => collator.compare(a.name, b.name) || (a.id < b.id ? -1 : 1)

const empty = html`<section class="empty-state" aria-labelledby="empty-title">
<h2 id="empty-title">No monitors yet</h2>
<p>A monitor checks a website, an API, a port, a DNS record, a certificate or a domain on a schedule, or listens for a
job's heartbeat, and tells you when it fails.</p>
<p><a class="button primary" href="/monitors/new">Create your first monitor</a></p>
<p class="muted">You can also create monitors from a script with the <a href="/docs">API</a> or the
<code>signalman</code> CLI.</p>
</section>`

interface Counts {
  readonly total: number
  readonly byState: ReadonlyMap<MonitorState, number>
}

const strip = (counts: Counts, day: { readonly checks: number; readonly uptime_pct: number | null }): Html =>
  html`<section aria-labelledby="glance-title">
<h2 id="glance-title" class="visually-hidden">At a glance</h2>
<ul class="cards glance">
<li class="card"><a href="/"><span class="figure">${count(counts.total)}</span> monitors</a></li>
${Rows.states.map(
  (state) =>
    html`<li class="card"><a href="${Filters.href({ ...Filters.none, state })}"><span class="figure">${count(
      counts.byState.get(state) ?? 0
    )}</span> <span class="state state-${state}">${Rows.stateWords[state]}</span></a></li>`
)}
<li class="card"><span class="figure">${day.uptime_pct === null ? "–" : Rows.percent(day.uptime_pct)}</span> uptime, last 24 h
<span class="row-note">${count(day.checks)} ${day.checks === 1 ? "check" : "checks"}</span></li>
</ul>
</section>`

const select = (
  name: string,
  label: string,
  current: string,
  options: ReadonlyArray<readonly [value: string, text: string]>
): Html => html`<div class="field"><label for="filter-${name}">${label}</label>
<select id="filter-${name}" name="${name}">
<option value="">Any</option>
${options.map(([value, text]) => html`<option value="${value}"${value === current ? html` selected` : ""}>${text}</option>`)}
</select></div>`

const filterForm = (f: Filters.Filters, all: ReadonlyArray<IndexRow>): Html => {
  const tags = [...new Set(all.flatMap((t) => t.tags))].sort(collator.compare)
  const groups = [...new Set(all.flatMap((t) => (t.group_name === null ? [] : [t.group_name])))].sort(collator.compare)
  const kinds = [...new Set(all.map((t) => t.kind))].sort()
  return html`<form class="filters" method="get" action="/" role="search" aria-label="Filter monitors">
<div class="field"><label for="filter-q">Name</label>
<input type="search" id="filter-q" name="q" value="${f.q}" maxlength="200" placeholder="Search by name"></div>
${select(
  "state",
  "State",
  f.state ?? "",
  Rows.states.map((s) => [s, Rows.stateWords[s]] as const)
)}
${select(
  "kind",
  "Kind",
  f.kind ?? "",
  kinds.map((k) => [k, Rows.kindWords[k] ?? k] as const)
)}
${select(
  "tag",
  "Tag",
  f.tag,
  tags.map((t) => [t, t] as const)
)}
${select(
  "group",
  "Group",
  f.group,
  groups.map((g) => [g, g] as const)
)}
<button type="submit">Filter</button>
${Filters.narrowed(f) && html`<a href="/">Clear filters</a>`}
</form>`
}

const bulkBar = html`<div class="bulk-bar js-only" role="group" aria-labelledby="bulk-title">
<p id="bulk-title" class="bulk-title">With the selected monitors (<span data-bulk-count>0</span>)</p>
<div class="bulk-tags">
<div class="field"><label for="bulk-tags">Tags, comma-separated</label>
<input type="text" id="bulk-tags" name="tags" data-type="csv" placeholder="e.g. production, eu"></div>
<button type="submit" data-bulk-action="tag-add">Add tags</button>
<button type="submit" data-bulk-action="tag-remove">Remove tags</button>
</div>
<div class="bulk-actions">
<button type="submit" data-bulk-action="disable">Pause</button>
<button type="submit" data-bulk-action="enable">Resume</button>
<button type="submit" class="danger" data-bulk-action="delete"
data-bulk-confirm="Delete the selected monitors? Their results and incidents are deleted with them.">Delete</button>
</div>
<input type="hidden" name="action" value="">
<p class="form-status" data-form-status role="status"></p>
</div>`

/**
 * What the sign-in and invitation flows land here to say (auth-and-limits.md): `?joined=<slug>` after an invitation
 * was accepted (the org is now the active one), `?invite=missed` when a carried invitation could not be redeemed.
 */
const welcome = (viewer: PageViewer, params: URLSearchParams): Html => {
  const joined = params.get("joined")
  const org = joined === null ? undefined : viewer.memberships.find((m) => m.slug === joined)
  if (org !== undefined) {
    return html`<p class="flash" role="status">Welcome to ${org.name}. You are a member now, and it is the organization
these pages show.</p>`
  }
  if (params.get("invite") === "missed") {
    return html`<p class="flash" role="status">The invitation you followed could not be used: it may be for another
address, revoked, or the organization may have no seat left. Ask whoever invited you for a new one.</p>`
  }
  return html``
}

const pager = (f: Filters.Filters, page: number, pages: number): Html =>
  pages <= 1
    ? html``
    : html`<nav class="pager" aria-label="Pages of monitors">
${page > 1 ? html`<a rel="prev" href="${Filters.href({ ...f, page: page - 1 })}">Previous page</a>` : ""}
<span>Page ${page} of ${pages}</span>
${page < pages ? html`<a rel="next" href="${Filters.href({ ...f, page: page + 1 })}">Next page</a>` : ""}
</nav>`

const table = (
  viewer: PageViewer,
  rows: ReadonlyArray<Html>,
  caption: string,
  now: Date
): Html => html`<form id="bulk" data-api="/api/v1/targets/bulk-action" data-method="POST" data-reload data-bulk
method="post" action="/dashboard/js-required" autocomplete="off">
${bulkBar}
<div class="table-wrap"><table class="monitors" data-live-src="${`/dashboard/events?org=${encodeURIComponent(
  viewer.org.slug
)}&since=${now.getTime()}`}">
<caption>${caption} <span class="live-status js-only" data-live-status>Connecting live updates…</span></caption>
<thead><tr>
<th scope="col" class="select js-only"><input type="checkbox" data-select-all aria-label="Select every monitor on this page"></th>
<th scope="col">Monitor</th><th scope="col">State</th><th scope="col">Recent results</th>
<th scope="col" class="num">Uptime 24 h</th><th scope="col" class="num">Uptime 30 d</th>
<th scope="col">Response time, 24 h</th><th scope="col">Group and tags</th>
</tr></thead>
<tbody>
${rows}
</tbody></table></div>
</form>
<div class="visually-hidden" role="status" aria-live="polite" data-live-announce></div>`

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const targets = yield* Targets
    const readings = yield* Readings
    const advisories = yield* Advisories.Advisories
    const { page } = yield* Pages
    yield* router.get(
      "/",
      page("monitors", (viewer) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const params = new URL(request.url, "http://dashboard.invalid").searchParams
          const filters = Filters.parse(params)
          const now = new Date()
          const head = html`<div class="page-head"><h1>Monitors</h1>
<a class="button primary" href="/monitors/new">New monitor</a></div>${welcome(viewer, params)}`
          // Every monitor (lean) and every state: the counts and the filters are of the whole org.
          const [index, states] = yield* Effect.all(
            [targets.index(viewer.active), readings.statesOfOrg(viewer.active.id)],
            { concurrency: 2 }
          )
          if (index.length === 0) return { title: "Monitors", body: html`${head}${empty}` }
          const all = [...index].sort(byName)
          const stateOf = (id: string): MonitorState => states.get(id)?.state ?? "pending"
          const byState = new Map<MonitorState, number>()
          for (const m of all) byState.set(stateOf(m.id), (byState.get(stateOf(m.id)) ?? 0) + 1)
          const matching = all.filter((m) => Filters.matches(filters, m, stateOf(m.id)))
          const pages = Math.max(1, Math.ceil(matching.length / Filters.PAGE_SIZE))
          const current = Math.min(filters.page, pages)
          const ids = matching.slice((current - 1) * Filters.PAGE_SIZE, current * Filters.PAGE_SIZE).map((m) => m.id)

          // The page's rows in full, as the API answers them, with their figures and advisories.
          const [rows, figures, advised, summary] = yield* Effect.all(
            [
              targets.many(viewer.active, ids),
              readings.figures(ids, now),
              advisories.of(ids),
              readings.summary(viewer.active.id)
            ],
            { concurrency: 4 }
          )
          const byId = new Map(rows.map((row) => [row.id, toTarget(row)]))
          const shown = ids.flatMap((id) => {
            const target = byId.get(id)
            return target === undefined ? [] : [target]
          })
          const markup = shown.map((t) =>
            Rows.row(
              t,
              { state: states.get(t.id), figures: figures.get(t.id), advisories: advised.get(t.id) ?? [] },
              now
            )
          )
          const first = (current - 1) * Filters.PAGE_SIZE + 1
          const caption =
            matching.length === 0
              ? "No monitors match"
              : `${Filters.narrowed(filters) ? "Matching monitors" : "Monitors"}: ${count(first)}–${count(
                  first + shown.length - 1
                )} of ${count(matching.length)}`
          return {
            title: "Monitors",
            body: html`${head}
${strip({ total: all.length, byState }, summary.last_24h)}
${filterForm(filters, all)}
${
  matching.length === 0
    ? html`<p class="empty-state">No monitor matches these filters. <a href="/">Show every monitor</a></p>`
    : html`${table(viewer, markup, caption, now)}${pager(filters, current, pages)}`
}`
          }
        })
      )
    )
  })
).pipe(Layer.provide([Targets.Default, IncidentTargetAdvisories.layer]))
