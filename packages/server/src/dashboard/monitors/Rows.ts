/**
 * A monitor's row of the overview, and the parts of it that change as results arrive (state, recent-results bar,
 * uptime, response time). The page renders whole rows; the live stream renders the same parts with the same code
 * and the page's script puts them in place, so a row updated live reads exactly as a reloaded one.
 */
import type { RegionAdvisory } from "@signalman/core/RegionAdvisory"
import type { Target } from "@signalman/core/Target"
import * as DateTime from "effect/DateTime"
import * as MonitorFigures from "../../engine/MonitorFigures.js"
import type { MonitorState, StateRow } from "../../engine/Repo.js"
import { type Html, html, raw } from "../Template.js"
import * as Beats from "./Beats.js"
import * as Sparkline from "./Sparkline.js"

/** What is known of a monitor now: its state and figures (absent for a monitor gone meanwhile), its advisories. */
export interface Snapshot {
  readonly state: StateRow | undefined
  readonly figures: MonitorFigures.Figures | undefined
  readonly advisories: ReadonlyArray<RegionAdvisory>
}

export const stateWords: Readonly<Record<MonitorState, string>> = {
  up: "Up",
  degraded: "Degraded",
  down: "Down",
  error: "Error",
  pending: "Pending",
  paused: "Paused"
}

export const states: ReadonlyArray<MonitorState> = ["down", "error", "degraded", "up", "pending", "paused"]

export const kindWords: Readonly<Record<string, string>> = {
  http: "HTTP",
  tcp: "TCP",
  ping: "Ping",
  dns: "DNS",
  tls_cert: "TLS certificate",
  domain_expiry: "Domain expiry",
  flow: "Browser flow",
  heartbeat: "Heartbeat",
  manual: "Manual"
}

const text = (check: Readonly<Record<string, unknown>>, key: string): string | undefined => {
  const value = check[key]
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined
}

const period = (secs: number): string =>
  secs % 86_400 === 0
    ? `${secs / 86_400} d`
    : secs % 3600 === 0
      ? `${secs / 3600} h`
      : secs % 60 === 0
        ? `${secs / 60} min`
        : `${secs} s`

/** What the monitor looks at, in a few words: its URL, host and port, domain, or how it is fed. */
export const subject = (target: Target): string => {
  const check = target.check
  switch (text(check, "type")) {
    case "http":
      return text(check, "url") ?? ""
    case "flow":
      return text(check, "start_url") ?? ""
    case "tcp":
    case "tls_cert":
      return `${text(check, "host") ?? ""}:${text(check, "port") ?? ""}`
    case "ping":
      return text(check, "host") ?? ""
    case "dns":
      return `${text(check, "domain") ?? ""} ${text(check, "record_type") ?? ""}`.trim()
    case "domain_expiry":
      return text(check, "domain") ?? ""
    case "heartbeat": {
      const seconds = check["period"]
      return typeof seconds === "number" ? `pinged every ${period(seconds)}` : "pinged by a job"
    }
    case "manual":
      return "state set by hand"
    default:
      return ""
  }
}

/** The monitor's kind in words. */
export const kindOf = (target: Target): string => {
  const kind = text(target.check, "type") ?? ""
  return kindWords[kind] ?? kind
}

/** `99.95%`, cut rather than rounded so a monitor that was down at all never reads 100%. */
export const percent = (pct: number): string => (pct >= 100 ? "100%" : `${(Math.floor(pct * 100) / 100).toFixed(2)}%`)

const stateOf = (snapshot: Snapshot): MonitorState => snapshot.state?.state ?? "pending"

export const statePart = (snapshot: Snapshot, now: Date): Html => {
  const state = stateOf(snapshot)
  return html`<span class="state state-${state}">${stateWords[state]}</span>${
    snapshot.state?.held === true && html`<span class="row-note">Not running: over the plan's monitor limit</span>`
  }${
    snapshot.advisories.length > 0 &&
    html`<ul class="advisories">${snapshot.advisories.map(
      (a) =>
        html`<li>${Beats.statusWords[a.status]} in ${a.region} since ${Beats.when(DateTime.toDate(a.since), now)}</li>`
    )}</ul>`
  }`
}

export const beatsPart = (snapshot: Snapshot, now: Date): Html => {
  const bar = Beats.bar(snapshot.figures?.recent ?? [], now)
  if (bar.marks.length === 0) return html`<span class="muted">No recent results</span>`
  // Empty slots keep every bar the same length; they say nothing, so assistive technology skips them.
  const slots = Math.max(0, MonitorFigures.RECENT - bar.marks.length)
  return html`<div class="beats" role="group" aria-label="${bar.summary}">${
    slots > 0 && raw(`<span class="beat beat-none" aria-hidden="true"></span>`.repeat(slots))
  }${bar.marks.map((m) => html`<span class="beat beat-${m.status}" role="img" aria-label="${m.label}"></span>`)}</div>`
}

const uptimePart = (pct: number | null | undefined): Html =>
  pct === null || pct === undefined
    ? html`<span aria-hidden="true">–</span><span class="visually-hidden">No data</span>`
    : html`${percent(pct)}`

export const uptimeDayPart = (snapshot: Snapshot): Html => uptimePart(snapshot.figures?.uptimeDay)
export const uptimeMonthPart = (snapshot: Snapshot): Html => uptimePart(snapshot.figures?.uptimeMonth)

const BOX: Sparkline.Box = { width: 96, height: 24, pad: 2 }

/** Kinds whose results measure no response time: a heartbeat's pings and a manual set are not requests made. */
const unmeasured = new Set(["heartbeat", "manual"])

export const latencyPart = (snapshot: Snapshot): Html => {
  if (unmeasured.has(snapshot.state?.kind ?? "")) return html`<span class="muted">Not measured</span>`
  const figures = snapshot.figures
  const latest = [...(figures?.recent ?? [])].reverse().find((b) => b.status !== "error")
  const hours = (figures?.hours ?? []).map((h) => h.meanMs)
  const shape = Sparkline.geometry(hours, BOX)
  // One measured hour is a dot, not a line: the latest figure says as much.
  const chart =
    shape.max === null || shape.min === null || hours.filter((h) => h !== null).length < 2
      ? html``
      : html`<svg class="sparkline" width="${BOX.width}" height="${BOX.height}" viewBox="0 0 ${BOX.width} ${BOX.height}" role="img" aria-label="${`Hourly mean response time over the last 24 hours: ${Beats.duration(shape.min)} to ${Beats.duration(shape.max)}`}"><path d="${raw(shape.d)}" fill="none" stroke="currentColor" stroke-width="1.5" stroke-linecap="round" stroke-linejoin="round"/></svg>`
  return html`${chart}<span class="latest">${
    latest === undefined ? html`<span class="muted">No response time</span>` : Beats.duration(latest.durationMs)
  }</span>`
}

/** The parts the live stream sends, by the `data-part` of the cell they fill. */
export const parts = (snapshot: Snapshot, now: Date): Readonly<Record<string, string>> => ({
  state: statePart(snapshot, now).text,
  beats: beatsPart(snapshot, now).text,
  "uptime-day": uptimeDayPart(snapshot).text,
  "uptime-month": uptimeMonthPart(snapshot).text,
  latency: latencyPart(snapshot).text
})

/** A whole row: selection, name and subject, the live parts, tags and group. */
export const row = (
  target: Target,
  snapshot: Snapshot,
  now: Date
): Html => html`<tr data-monitor="${target.id}" data-state="${stateOf(snapshot)}">
<td class="select js-only"><input type="checkbox" name="ids" value="${target.id}" data-type="set" aria-label="${`Select ${target.name}`}"></td>
<th scope="row"><a href="/monitors/${target.id}">${target.name}</a><span class="row-note">${kindOf(target)}${
  subject(target) === "" ? "" : html` · ${subject(target)}`
}</span></th>
<td data-part="state">${statePart(snapshot, now)}</td>
<td data-part="beats">${beatsPart(snapshot, now)}</td>
<td class="num" data-part="uptime-day">${uptimeDayPart(snapshot)}</td>
<td class="num" data-part="uptime-month">${uptimeMonthPart(snapshot)}</td>
<td class="latency" data-part="latency">${latencyPart(snapshot)}</td>
<td>${target.group === null ? "" : html`<span class="row-group">${target.group}</span>`}${target.tags.map(
  (t) => html`<span class="tag">${t}</span>`
)}</td>
</tr>`
