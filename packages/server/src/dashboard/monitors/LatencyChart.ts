/**
 * The detail page's response-time section: the server's quantiles (p50, p95, p99) per bucket over the chosen range,
 * drawn by `LineChart`; where the time goes (the mean of each connection phase over the range); and, for a monitor
 * probed from several regions, one median line per region. Each chart is described in words and its figures are in
 * a table beside it, so nothing is only a picture.
 */
import type { Point } from "../../engine/Readings.js"
import { type Html, html } from "../Template.js"
import * as Format from "./DetailFormat.js"
import * as DetailQuery from "./DetailQuery.js"
import * as LineChart from "./LineChart.js"

/** A latency series as `Readings.latency` answers it. */
export interface Latency {
  readonly bucket_secs: number
  readonly buckets: ReadonlyArray<Point>
}

export interface ByRegion {
  readonly bucket_secs: number
  readonly regions: ReadonlyArray<{ readonly region: string; readonly buckets: ReadonlyArray<Point> }>
}

export interface Input {
  readonly id: string
  readonly query: DetailQuery.DetailQuery
  readonly from: Date
  readonly to: Date
  /** The range was cut at the plan's retention. */
  readonly cut: boolean
  readonly latency: Latency
  /** Present when the monitor has results from more than one region in the range. */
  readonly byRegion: ByRegion | undefined
}

const at = (point: Point): number => Format.toDate(point.start).getTime()

const QUANTILES = [
  { key: "p50", label: "p50 (median)", of: (p: Point) => p.p50_ms },
  { key: "p95", label: "p95", of: (p: Point) => p.p95_ms },
  { key: "p99", label: "p99", of: (p: Point) => p.p99_ms }
] as const

export const PHASES = [
  { key: "dns_ms", label: "DNS lookup" },
  { key: "connect_ms", label: "Connect" },
  { key: "tls_ms", label: "TLS handshake" },
  { key: "first_byte_ms", label: "First byte" }
] as const

type PhaseKey = (typeof PHASES)[number]["key"]

/** The mean of each phase over the buckets, each bucket weighing as many checks as it had; null where none had it. */
export const phaseMeans = (buckets: ReadonlyArray<Point>): Readonly<Record<PhaseKey, number | null>> => {
  const mean = (key: PhaseKey): number | null => {
    let sum = 0
    let weight = 0
    for (const bucket of buckets) {
      const value = bucket.phases[key]
      if (value === null) continue
      sum += value * bucket.checks
      weight += bucket.checks
    }
    return weight === 0 ? null : sum / weight
  }
  return {
    dns_ms: mean("dns_ms"),
    connect_ms: mean("connect_ms"),
    tls_ms: mean("tls_ms"),
    first_byte_ms: mean("first_byte_ms")
  }
}

/** The range's figures in words: the checks' mean and the worst bucket of each quantile. */
export const summary = (buckets: ReadonlyArray<Point>) => {
  const measured = buckets.filter((b) => b.mean_ms !== null)
  const checks = measured.reduce((n, b) => n + b.checks, 0)
  const worst = (of: (p: Point) => number | null) =>
    measured.reduce<number | null>((max, b) => {
      const v = of(b)
      return v === null ? max : Math.max(max ?? 0, v)
    }, null)
  return {
    checks,
    mean: checks === 0 ? null : measured.reduce((sum, b) => sum + (b.mean_ms ?? 0) * b.checks, 0) / checks,
    p95: worst((b) => b.p95_ms),
    p99: worst((b) => b.p99_ms)
  }
}

const rangeNav = (input: Input): Html =>
  html`<nav class="range-switch" aria-label="Response time range">
<ul>
${DetailQuery.rangeKeys.map((key) => {
  const current = key === input.query.range
  return html`<li><a href="${DetailQuery.href(input.id, input.query, { range: key, page: 1 }, "#latency")}"${
    current ? html` aria-current="true"` : ""
  }>${DetailQuery.ranges[key].short}</a></li>`
})}
</ul>
</nav>`

/** The stacked bar of the phases' means: each phase as wide as its share of their sum. */
const phaseBar = (means: Readonly<Record<PhaseKey, number | null>>): Html => {
  const parts = PHASES.flatMap((phase, i) => {
    const v = means[phase.key]
    return v === null || v <= 0 ? [] : [{ ...phase, v, index: i }]
  })
  const total = parts.reduce((sum, p) => sum + p.v, 0)
  if (total === 0) return html``
  let x = 0
  return html`<svg class="phase-bar" viewBox="0 0 600 20" preserveAspectRatio="none" aria-hidden="true" focusable="false">
${parts.map((p) => {
  const width = (p.v / total) * 600
  const rect = html`<rect class="phase-${p.index}" x="${Math.round(x * 10) / 10}" y="0" width="${Math.round(width * 10) / 10}" height="20" fill="currentColor"/>`
  x += width
  return rect
})}
</svg>`
}

const phasesBlock = (buckets: ReadonlyArray<Point>): Html => {
  const means = phaseMeans(buckets)
  if (PHASES.every((p) => means[p.key] === null)) return html``
  return html`<h3 id="phases-title">Where the time goes</h3>
${phaseBar(means)}
<div class="table-wrap"><table class="phase-table">
<caption>Mean time of each phase of a check over the range</caption>
<thead><tr><th scope="col">Phase</th><th scope="col" class="num">Mean</th></tr></thead>
<tbody>
${PHASES.map(
  (p, i) =>
    html`<tr><th scope="row"><span class="phase-key phase-${i}" aria-hidden="true"></span>${p.label}</th><td class="num">${Format.millis(
      means[p.key]
    )}</td></tr>`
)}
</tbody></table></div>`
}

const regionsBlock = (input: Input, range: { from: number; to: number }): Html => {
  const byRegion = input.byRegion
  if (byRegion === undefined || byRegion.regions.length < 2) return html``
  const series = byRegion.regions.map((r) => ({
    key: r.region,
    label: r.region,
    points: r.buckets.map((b) => ({ t: at(b), v: b.p50_ms }))
  }))
  const geometry = LineChart.geometry(series, { ...range, bucketMs: byRegion.bucket_secs * 1000 })
  return html`<h3 id="regions-title">Median by region</h3>
<p id="regions-desc">${byRegion.regions
    .map((r) => `${r.region}: mean ${Format.millis(summary(r.buckets).mean)}`)
    .join("; ")}.</p>
${LineChart.legend(series)}
${LineChart.render(geometry, { titleId: "regions-title", descId: "regions-desc" })}`
}

const figuresTable = (buckets: ReadonlyArray<Point>): Html =>
  html`<details class="figures"><summary>Response times as a table</summary>
<div class="table-wrap"><table>
<caption>Response time per bucket, oldest first (UTC)</caption>
<thead><tr><th scope="col">From</th><th scope="col" class="num">Checks</th><th scope="col" class="num">p50</th>
<th scope="col" class="num">p95</th><th scope="col" class="num">p99</th><th scope="col" class="num">Mean</th></tr></thead>
<tbody>
${buckets.map(
  (b) =>
    html`<tr><td>${Format.time(b.start)}</td><td class="num">${b.checks}</td><td class="num">${Format.millis(
      b.p50_ms
    )}</td><td class="num">${Format.millis(b.p95_ms)}</td><td class="num">${Format.millis(b.p99_ms)}</td><td class="num">${Format.millis(
      b.mean_ms
    )}</td></tr>`
)}
</tbody></table></div></details>`

/** The section. */
export const section = (input: Input): Html => {
  const label = DetailQuery.ranges[input.query.range].label
  const buckets = input.latency.buckets
  const figures = summary(buckets)
  const range = { from: input.from.getTime(), to: input.to.getTime() }
  const head = html`<div class="section-head"><h2 id="latency">Response time</h2>${rangeNav(input)}</div>`
  const cut = input.cut
    ? html`<p class="note">Your plan keeps history from ${Format.time(input.from)}; the chart starts there.</p>`
    : ""
  if (figures.checks === 0) {
    return html`<section aria-labelledby="latency" class="detail-section">${head}${cut}
<p>No response times in the last ${label}.</p></section>`
  }
  const series = QUANTILES.map((q) => ({
    key: q.key,
    label: q.label,
    points: buckets.map((b) => ({ t: at(b), v: q.of(b) }))
  }))
  const geometry = LineChart.geometry(series, { ...range, bucketMs: input.latency.bucket_secs * 1000 })
  return html`<section aria-labelledby="latency" class="detail-section">
${head}${cut}
<p id="latency-desc">Over the last ${label}, ${figures.checks} measured ${figures.checks === 1 ? "check" : "checks"} in buckets of
${Format.seconds(input.latency.bucket_secs)}: mean ${Format.millis(figures.mean)}; the slowest bucket's p95
${Format.millis(figures.p95)} and p99 ${Format.millis(figures.p99)}. Times on the axis are UTC.</p>
${LineChart.legend(series)}
${LineChart.render(geometry, { titleId: "latency", descId: "latency-desc" })}
${figuresTable(buckets)}
${phasesBlock(buckets)}
${regionsBlock(input, range)}
</section>`
}
