/**
 * A heartbeat monitor's own section: its ping URL with a copy button and snippets to paste (`PingSnippets`), the
 * rotation of that URL through the API's rotate endpoint (the old URL kept for 24 hours, or ended at once), what the
 * record says (last ping, start, failure and its output, the period observed against the one declared, and the
 * cadence advice), and the last pings.
 */
import type { HeartbeatRecord } from "@signalman/core/heartbeat/HeartbeatRecord"
import type { PingRow } from "../../heartbeats/Repo.js"
import { type Html, html } from "../Template.js"
import * as Format from "./DetailFormat.js"
import * as PingSnippets from "./PingSnippets.js"

export interface Input {
  readonly id: string
  readonly record: HeartbeatRecord
  readonly pings: ReadonlyArray<PingRow>
  readonly grace: number
}

const copyButton = (sourceId: string, what: string): Html =>
  html`<button type="button" class="js-only copy" data-copy="${sourceId}" data-copy-label="${what}">Copy<span class="visually-hidden"> ${what.toLowerCase()}</span></button>`

/** The advice in words, with what to do about it. */
export const adviceWords = (record: HeartbeatRecord, grace: number): string | undefined => {
  const advice = record.cadence_advice
  if (advice === undefined) return undefined
  const observed = record.observed_period_secs === null ? "" : ` (every ${Format.seconds(record.observed_period_secs)})`
  const suggested = Format.seconds(advice.suggested_period_secs)
  return advice.kind === "too_tight"
    ? `The job pings less often${observed} than the period and grace allow (${Format.seconds(
        record.declared_period_secs + grace
      )}), so a late run reads as an outage. Consider a period of ${suggested}.`
    : `The period and grace (${Format.seconds(
        record.declared_period_secs + grace
      )}) are far longer than the job's real cadence${observed}, so a stopped job is noticed late. Consider a period of ${suggested}.`
}

const signalWords: Readonly<Record<PingRow["signal"], string>> = { success: "Success", start: "Start", fail: "Failure" }

const pingsTable = (pings: ReadonlyArray<PingRow>): Html =>
  pings.length === 0
    ? html`<p>No pings in the last 14 days.</p>`
    : html`<div class="table-wrap"><table>
<caption>The last ${pings.length} pings, newest first (kept 14 days)</caption>
<thead><tr><th scope="col">When</th><th scope="col">Signal</th><th scope="col" class="num">Exit status</th>
<th scope="col" class="num">Run took</th></tr></thead>
<tbody>
${pings.map(
  (p) =>
    html`<tr><td>${Format.time(p.at, true)}</td><td>${
      p.signal === "fail"
        ? html`<span class="state state-down">${signalWords[p.signal]}</span>`
        : p.signal === "success"
          ? html`<span class="state state-up">${signalWords[p.signal]}</span>`
          : signalWords[p.signal]
    }</td><td class="num">${p.exit_code ?? "–"}</td><td class="num">${
      p.run_duration_ms === null ? "–" : Format.span(p.run_duration_ms)
    }</td></tr>`
)}
</tbody></table></div>`

const when = (at: Parameters<typeof Format.time>[0] | null | undefined): Html | string =>
  at === null || at === undefined ? "never" : Format.time(at, true)

const rotation = (input: Input): Html => {
  const { record } = input
  const api = `/api/v1/targets/${input.id}/heartbeat`
  return html`<h3 id="rotation">Rotate the ping URL</h3>
<p>A new URL replaces this one; jobs still on the old one keep counting for 24 hours, or stop at once if you choose so.
${record.rotated_at === null ? "" : html`Last rotated ${Format.time(record.rotated_at)}.`}</p>
${
  record.previous_url_expires_at === undefined
    ? ""
    : html`<p class="notice" id="previous-url">The previous URL works until ${Format.time(record.previous_url_expires_at)}; ${
        record.previous_url_last_used_at === null || record.previous_url_last_used_at === undefined
          ? "nothing has used it since the rotation."
          : html`last used ${Format.time(record.previous_url_last_used_at, true)}.`
      }</p>`
}
<div class="detail-actions">
<button type="button" class="js-only" data-action="${api}/rotate" data-method="POST" data-body="{}"
  data-confirm="Make a new ping URL? The current one keeps working for 24 hours.">Rotate URL</button>
<button type="button" class="js-only danger" data-action="${api}/rotate" data-method="POST"
  data-body='{"revoke_previous_immediately":true}'
  data-confirm="Make a new ping URL and stop the current one now? Jobs still using it will be ignored.">Rotate and stop the old URL now</button>
${
  record.previous_url_expires_at === undefined
    ? ""
    : html`<button type="button" class="js-only" data-action="${api}/previous" data-method="DELETE"
  data-confirm="Stop the previous ping URL now?">Stop the previous URL now</button>`
}
</div>`
}

export const section = (input: Input): Html => {
  const { record } = input
  const advice = adviceWords(record, input.grace)
  return html`<section aria-labelledby="heartbeat" class="detail-section">
<h2 id="heartbeat">Ping URL</h2>
<p>Have the job call this URL when it runs. It needs no key: anyone holding it can report on this monitor, so keep it
as you would a password.</p>
<div class="copyable"><code id="ping-url">${record.ping_url}</code>${copyButton("ping-url", "Ping URL")}</div>
<p class="note">Add <code>/start</code> when a run begins, <code>/fail</code> when it fails, or <code>/</code> and the exit
status (<code>/0</code> is a success).</p>
<h3 id="snippets">Snippets</h3>
${PingSnippets.snippets(record.ping_url, record.declared_period_secs).map(
  (s) => html`<div class="snippet"><h4 id="snippet-${s.key}-title">${s.title}</h4>
<div class="copyable"><pre id="snippet-${s.key}" tabindex="0" aria-labelledby="snippet-${s.key}-title"><code>${s.text}</code></pre>${copyButton(
    `snippet-${s.key}`,
    `${s.title} snippet`
  )}</div></div>`
)}
<h3 id="record">What the pings said</h3>
<dl class="facts">
<dt>First ping</dt><dd>${record.pending ? "none yet: the monitor waits for it" : when(record.first_ping_at)}</dd>
<dt>Last ping</dt><dd>${when(record.last_ping_at)}</dd>
<dt>Last start</dt><dd>${when(record.last_start_at)}</dd>
<dt>Last failure</dt><dd>${when(record.last_fail_at)}${
    record.last_exit_code === null ? "" : `, exit status ${record.last_exit_code}`
  }</dd>
<dt>Period</dt><dd>${Format.seconds(record.declared_period_secs)}, grace ${Format.seconds(input.grace)}</dd>
<dt>Observed period</dt><dd>${
    record.observed_period_secs === null
      ? "not yet known (two successes needed)"
      : `${Format.seconds(record.observed_period_secs)} (median gap between successes over 14 days)`
  }</dd>
</dl>
${advice === undefined ? "" : html`<p class="notice" id="cadence-advice"><strong>Cadence advice:</strong> ${advice}</p>`}
${
  record.last_failure_output === null
    ? ""
    : html`<h4 id="failure-output-title">Output of the last failed run</h4>
<pre id="failure-output" tabindex="0" aria-labelledby="failure-output-title"><code>${record.last_failure_output}</code></pre>`
}
<h3 id="pings">Last pings</h3>
${pingsTable(input.pings)}
${rotation(input)}
</section>`
}
