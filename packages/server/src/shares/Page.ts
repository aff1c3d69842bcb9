/**
 * The page a share link opens, `GET /m/<token>`: a read-only view of one monitor for people without an account.
 *
 * It shows the monitor's name and kind, where it stands now, uptime over 24 hours, 7 and 30 days, response times
 * over the last day, its latest results and incidents. It never shows the check itself: no URL, host, headers,
 * credentials, expected values, nor the text of a result's error or details (those quote the address and what the
 * server answered). Incidents show their public title when one is set, else what kind of trouble it was.
 *
 * An unknown, revoked or expired token, or one of a deleted org, gets the same 404 page. The answer is never
 * cached (`private, no-store`), so a revocation holds from the next request; it asks robots not to index it and
 * browsers not to send the link on as a referrer.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { CheckResult } from "@signalman/core/CheckResult"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { escapeHtml, page } from "../http/Html.js"
import type { Route } from "../http/RouteTable.js"
import { Shares } from "./Shares.js"
import { type IncidentRow, type SharedView, ShareView } from "./View.js"

export const routes: ReadonlyArray<Route> = [{ method: "GET", path: "/m/:token", body: "none" }]

const headers = {
  "cache-control": "private, no-store",
  "x-robots-tag": "noindex, nofollow",
  "referrer-policy": "no-referrer"
}

const withHeaders = (response: HttpServerResponse.HttpServerResponse) =>
  HttpServerResponse.setHeaders(response, headers)

const notFoundPage = withHeaders(
  page(
    "Link not found",
    `<h1>This link does not work</h1>
<p>The link is wrong, or whoever shared it has withdrawn it or let it expire. Ask them for a new one.</p>`,
    404
  )
)

const kindLabels: Record<string, string> = {
  http: "HTTP",
  tcp: "TCP port",
  ping: "Ping",
  dns: "DNS",
  tls_cert: "TLS certificate",
  domain_expiry: "Domain expiry",
  flow: "Browser flow",
  heartbeat: "Heartbeat",
  manual: "Manual"
}

const statusLabels: Record<string, string> = {
  up: "Up",
  degraded: "Degraded",
  down: "Down",
  error: "Check error",
  paused: "Paused",
  unknown: "No data yet"
}

const impactLabels: Record<string, string> = {
  degraded: "Degraded performance",
  partial_outage: "Partial outage",
  major_outage: "Outage"
}

const percent = (value: number | null) => (value === null ? "–" : `${value.toFixed(value === 100 ? 0 : 2)}%`)

const millis = (value: number | null) => (value === null ? "–" : `${Math.round(value)} ms`)

const instant = (date: Date) =>
  `<time datetime="${date.toISOString()}">${date.toISOString().slice(0, 16).replace("T", " ")} UTC</time>`

const duration = (ms: number) => {
  const minutes = Math.max(1, Math.round(ms / 60_000))
  if (minutes < 60) return `${minutes} min`
  const hours = Math.floor(minutes / 60)
  return hours < 48 ? `${hours} h ${minutes % 60} min` : `${Math.floor(hours / 24)} d ${hours % 24} h`
}

/** The newest results first: the time, region, verdict and duration only (a result's error quotes the address). */
const resultsTable = (results: ReadonlyArray<CheckResult>) =>
  results.length === 0
    ? `<p class="note">No results in the last 30 days.</p>`
    : `<table>
<thead><tr><th>Checked</th><th>Region</th><th>Status</th><th>Response</th></tr></thead>
<tbody>
${results
  .map(
    (r) =>
      `<tr><td>${instant(new Date(r.checked_at.epochMillis))}</td><td>${escapeHtml(r.region)}</td><td class="s-${escapeHtml(r.status)}">${escapeHtml(statusLabels[r.status] ?? r.status)}</td><td>${r.status === "error" ? "–" : millis(r.duration_ms)}</td></tr>`
  )
  .join("\n")}
</tbody>
</table>`

const incidentsList = (incidents: ReadonlyArray<IncidentRow>, now: number) =>
  incidents.length === 0
    ? `<p class="note">No incidents in the last 90 days.</p>`
    : `<ul>
${incidents
  .map((i) => {
    const title = i.public_title ?? impactLabels[i.impact] ?? "Incident"
    const span =
      i.ended_at === null
        ? `since ${instant(i.started_at)} (ongoing, ${duration(now - i.started_at.getTime())})`
        : `${instant(i.started_at)}, lasted ${duration(i.ended_at.getTime() - i.started_at.getTime())}`
    return `<li><strong>${escapeHtml(title)}</strong>: ${span}</li>`
  })
  .join("\n")}
</ul>`

/** Mean response time per bucket as a line; numbers only, nothing to escape. */
const sparkline = (values: ReadonlyArray<number>) => {
  if (values.length < 2) return ""
  const max = Math.max(...values, 1)
  const points = values
    .map((v, i) => `${((i / (values.length - 1)) * 300).toFixed(1)},${(40 - (v / max) * 38).toFixed(1)}`)
    .join(" ")
  return `<svg viewBox="0 0 300 40" width="100%" height="40" role="img" aria-label="Response time over the last 24 hours"><polyline fill="none" stroke="currentColor" stroke-width="1.5" points="${points}"/></svg>`
}

const style = `<style>
  body { max-width: 44rem; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #8884; }
  .status { font-size: 1.25rem; font-weight: 600; }
  .s-up { color: #15803d; } .s-degraded, .s-error { color: #b45309; } .s-down { color: #b91c1c; }
  dl { display: grid; grid-template-columns: max-content auto; gap: .25rem 1rem; }
  dt { font-weight: 600; } dd { margin: 0; }
</style>`

const render = (view: SharedView) => {
  const body = `${style}
<h1>${escapeHtml(view.name)}</h1>
<p class="note">${escapeHtml(kindLabels[view.kind] ?? view.kind)} monitor · shared read-only view</p>
<p class="status s-${escapeHtml(view.status)}">${escapeHtml(statusLabels[view.status] ?? view.status)}</p>
<h2>Uptime</h2>
<dl>
<dt>Last 24 hours</dt><dd>${percent(view.uptime.day)}</dd>
<dt>Last 7 days</dt><dd>${percent(view.uptime.week)}</dd>
<dt>Last 30 days</dt><dd>${percent(view.uptime.month)}</dd>
</dl>
<h2>Response time, last 24 hours</h2>
<dl>
<dt>Average</dt><dd>${millis(view.latency.mean)}</dd>
<dt>Worst p95 of ${view.latency.bucketSecs / 60} minutes</dt><dd>${millis(view.latency.p95)}</dd>
</dl>
${sparkline(view.latency.series)}
<h2>Recent checks</h2>
${resultsTable(view.recent)}
<h2>Incidents</h2>
${incidentsList(view.incidents, view.now)}
<p class="note">Updated ${instant(new Date(view.now))}.</p>`
  return withHeaders(page(`${view.name} status`, body))
}

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const shares = yield* Shares
    const views = yield* ShareView

    yield* router.get(
      "/m/:token",
      Effect.gen(function* () {
        const params = yield* HttpRouter.params
        const shared = yield* shares.resolve(params["token"] ?? "")
        const view = shared === undefined ? undefined : yield* views.of(shared)
        return view === undefined ? notFoundPage : render(view)
      })
    )
  })
).pipe(Layer.provide([Shares.Default, ShareView.Default]))
