/**
 * A browser flow's own section: how long each step takes over the range (the API's `/flow-steps`: one mean line per
 * step, and each step's runs, failures, mean and p95 in a table), and the screenshot the latest failed run kept of
 * the page at its failing step (`details.screenshot_url`, served by the API while the plan keeps evidence).
 */
import type { CheckResult } from "@signalman/core/CheckResult"
import * as DateTime from "effect/DateTime"
import { type Html, html } from "../Template.js"
import * as Format from "./DetailFormat.js"
import * as DetailQuery from "./DetailQuery.js"
import * as LineChart from "./LineChart.js"

export interface StepPoint {
  readonly at: DateTime.Utc
  readonly count: number
  readonly failures: number
  readonly mean_ms: number | null
  readonly p95_ms: number | null
}

export interface Input {
  readonly query: DetailQuery.DetailQuery
  readonly from: Date
  readonly to: Date
  readonly bucket_secs: number
  readonly steps: ReadonlyArray<{
    readonly index: number
    readonly action: string
    readonly series: ReadonlyArray<StepPoint>
  }>
  /** The latest failed run that kept a screenshot. */
  readonly failure: { readonly result: CheckResult; readonly screenshotUrl: string } | undefined
}

/** A step's totals over the range: runs, failures, the runs' mean, and the worst bucket's p95. */
export const stepTotals = (series: ReadonlyArray<StepPoint>) => {
  const runs = series.reduce((n, p) => n + p.count, 0)
  const timed = series.filter((p) => p.mean_ms !== null)
  const weight = timed.reduce((n, p) => n + p.count, 0)
  return {
    runs,
    failures: series.reduce((n, p) => n + p.failures, 0),
    mean: weight === 0 ? null : timed.reduce((sum, p) => sum + (p.mean_ms ?? 0) * p.count, 0) / weight,
    p95: series.reduce<number | null>((max, p) => (p.p95_ms === null ? max : Math.max(max ?? 0, p.p95_ms)), null)
  }
}

/** The screenshot path a flow result names, when it kept one. */
export const screenshotOf = (result: CheckResult): string | undefined => {
  const url = result.details?.["screenshot_url"]
  // Only the API's own path: the page shows it as an image, so nothing else may come through.
  return typeof url === "string" && /^\/api\/v1\/targets\/[0-9a-f-]+\/results\/[0-9a-f-]+\/screenshot$/.test(url)
    ? url
    : undefined
}

/** The failing step of a flow result, in words. */
const failingStep = (result: CheckResult): string | undefined => {
  const steps = result.details?.["steps"]
  if (!Array.isArray(steps)) return undefined
  for (const step of steps) {
    if (typeof step !== "object" || step === null) continue
    if (!("status" in step) || step.status !== "failed") continue
    const index = "index" in step && typeof step.index === "number" ? step.index : undefined
    const action = "action" in step && typeof step.action === "string" ? step.action : "step"
    return index === undefined ? action : `step ${index} (${action})`
  }
  return undefined
}

const stepLabel = (step: { readonly index: number; readonly action: string }) => `Step ${step.index}: ${step.action}`

const chart = (input: Input): Html => {
  const series = input.steps.map((step) => ({
    key: `${step.index}-${step.action}`,
    label: stepLabel(step),
    points: step.series.map((p) => ({ t: DateTime.toEpochMillis(p.at), v: p.mean_ms }))
  }))
  const geometry = LineChart.geometry(series, {
    from: input.from.getTime(),
    to: input.to.getTime(),
    bucketMs: input.bucket_secs * 1000
  })
  return html`<p id="flow-steps-desc">Mean time of each step per ${Format.seconds(input.bucket_secs)} over the last
${DetailQuery.ranges[input.query.range].label} (UTC), from the runs still kept in full.</p>
${LineChart.legend(series)}
${LineChart.render(geometry, { titleId: "flow-steps", descId: "flow-steps-desc" })}`
}

export const section = (input: Input): Html => {
  const failure = input.failure
  return html`<section aria-labelledby="flow-steps" class="detail-section">
<h2 id="flow-steps">Flow steps</h2>
${
  input.steps.length === 0
    ? html`<p>No runs of this flow in the range yet.</p>`
    : html`${chart(input)}
<div class="table-wrap"><table>
<caption>Each step over the range</caption>
<thead><tr><th scope="col">Step</th><th scope="col" class="num">Runs</th><th scope="col" class="num">Failed</th>
<th scope="col" class="num">Mean</th><th scope="col" class="num">Slowest p95</th></tr></thead>
<tbody>
${input.steps.map((step) => {
  const totals = stepTotals(step.series)
  return html`<tr><th scope="row">${stepLabel(step)}</th><td class="num">${totals.runs}</td><td class="num">${totals.failures}</td>
<td class="num">${Format.millis(totals.mean)}</td><td class="num">${Format.millis(totals.p95)}</td></tr>`
})}
</tbody></table></div>`
}
${
  failure === undefined
    ? ""
    : html`<h3 id="flow-failure">Last failure</h3>
<figure class="screenshot">
<img src="${failure.screenshotUrl}" alt="${`The page at ${failingStep(failure.result) ?? "the failing step"} when the flow failed`}" loading="lazy">
<figcaption>${Format.time(failure.result.checked_at, true)} in ${failure.result.region}: ${failure.result.error ?? "failed"}</figcaption>
</figure>`
}
</section>`
}
