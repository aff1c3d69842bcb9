/**
 * The top of the monitor detail page: the name (the page's one `h1`), kind, what it checks, its state in words and
 * since when, and the actions on it. Every action writes through the JSON API from the browser (check now, pause or
 * resume, duplicate, delete); without JavaScript they are not shown, and the edit link (a page of its own) is.
 */
import type { Target } from "@signalman/core/Target"
import type { MonitorState, RegionState } from "../../engine/MonitorState.js"
import { type Html, html } from "../Template.js"
import * as Format from "./DetailFormat.js"

/** The monitor's state as the page says it. */
export interface StateView {
  /** A status word key (`up`, `down`, `paused`, `pending`, ...). */
  readonly status: string
  readonly since: Date | undefined
  /** What the state rests on, in words. */
  readonly basis: string
  /** Each region's own state, when the results speak for more than one. */
  readonly regions: ReadonlyArray<RegionState>
}

export interface StateSources {
  readonly target: Target
  readonly now: number
  /** From the results, for every kind but manual. */
  readonly results: MonitorState | undefined
  /** A heartbeat monitor still waiting for its first ping. */
  readonly heartbeatPending: boolean
  /** A manual monitor's state. */
  readonly manual: { readonly status: string; readonly since: Date } | undefined
}

/** The state a page shows: paused first, then a manual monitor's set state, a heartbeat's wait, the results'. */
export const stateOf = (sources: StateSources): StateView => {
  const { target } = sources
  if (!target.enabled) {
    return {
      status: "paused",
      since: undefined,
      basis: "Paused: no checks run and no incident opens until resumed.",
      regions: []
    }
  }
  if (sources.manual !== undefined) {
    return { status: sources.manual.status, since: sources.manual.since, basis: "Set by hand.", regions: [] }
  }
  if (sources.heartbeatPending) {
    return {
      status: "pending",
      since: Format.toDate(target.created_at),
      basis: "Waiting for the first ping: nothing is judged until it comes.",
      regions: []
    }
  }
  const results = sources.results
  if (results === undefined) {
    return { status: "pending", since: undefined, basis: "No result yet: the first check has not run.", regions: [] }
  }
  return {
    status: results.status,
    since: results.since,
    basis:
      results.regions.length > 1
        ? `The worst of ${results.regions.length} regions; last result ${Format.span(sources.now - results.last_at.getTime())} ago.`
        : `Last result ${Format.span(sources.now - results.last_at.getTime())} ago.`,
    regions: results.regions.length > 1 ? results.regions : []
  }
}

/** What the monitor checks, in a line (never a credential: the check is the API's redacted one). */
export const subject = (target: Target): string => {
  const check = target.check
  const text = (key: string): string => {
    const value = check[key]
    return typeof value === "string" || typeof value === "number" ? String(value) : ""
  }
  switch (check["type"]) {
    case "http":
      return `${text("method") || "GET"} ${text("url")}`
    case "tcp":
      return `${text("host")}:${text("port")}`
    case "ping":
      return text("host")
    case "dns":
      return `${text("record_type")} ${text("domain")}`
    case "tls_cert":
      return `${text("host")}:${text("port") || "443"}`
    case "domain_expiry":
      return text("domain")
    case "flow":
      return text("start_url")
    case "heartbeat":
      return `expects a ping every ${Format.seconds(Number(check["period"]))}, grace ${Format.seconds(Number(check["grace"]))}`
    default:
      return "state set by hand"
  }
}

/** What the duplicate form asks for as the copy's address, by kind; undefined where a copy has none. */
const addressLabel = (kind: string): { readonly label: string; readonly type: string } | undefined => {
  switch (kind) {
    case "http":
    case "flow":
      return { label: "URL of the copy", type: "url" }
    case "tcp":
    case "tls_cert":
      return { label: "Host (or host:port) of the copy", type: "text" }
    case "ping":
      return { label: "Host of the copy", type: "text" }
    case "dns":
    case "domain_expiry":
      return { label: "Domain of the copy", type: "text" }
    default:
      return undefined
  }
}

const duplicateForm = (target: Target): Html => {
  const address = addressLabel(target.check["type"] === undefined ? "" : String(target.check["type"]))
  const api = `/api/v1/targets/${target.id}/duplicate`
  return html`<details class="js-only duplicate">
<summary>Duplicate…</summary>
<form data-api="${api}" data-method="POST" data-redirect="/monitors/{data[0].id}" method="post"
  action="/dashboard/js-required" novalidate>
<div class="field"><label for="copy-name">Name of the copy</label>
<input id="copy-name" name="copies[0].name" type="text" value="${`${target.name} (copy)`}" maxlength="200"
  data-empty="keep"></div>
${
  address === undefined
    ? ""
    : html`<div class="field"><label for="copy-address">${address.label}</label>
<input id="copy-address" name="copies[0].address" type="${address.type}" aria-describedby="copy-address-hint">
<p class="hint" id="copy-address-hint">Leave empty to check the same address.</p></div>`
}
<p data-form-status role="status"></p>
<button type="submit" class="primary">Make the copy</button>
</form>
</details>`
}

const actions = (target: Target): Html => {
  const path = `/api/v1/targets/${target.id}`
  const probed = target.check["type"] !== "heartbeat" && target.check["type"] !== "manual"
  return html`<div class="detail-actions" role="group" aria-label="Actions on this monitor">
<a class="button" href="/monitors/${target.id}/edit">Edit</a>
${
  probed
    ? html`<button type="button" class="js-only primary" data-action="${path}/check-now" data-method="POST">Check now</button>`
    : ""
}
${
  target.enabled
    ? html`<button type="button" class="js-only" data-action="${path}" data-method="PATCH" data-body='{"enabled":false}'>Pause</button>`
    : html`<button type="button" class="js-only" data-action="${path}" data-method="PATCH" data-body='{"enabled":true}'>Resume</button>`
}
<button type="button" class="js-only danger" data-action="${path}" data-method="DELETE" data-redirect="/"
  data-confirm="${`Delete “${target.name}”? Its results, incidents and share links are deleted with it.`}">Delete</button>
${duplicateForm(target)}
</div>`
}

/** The head of the page. */
export const head = (target: Target, state: StateView, now: number): Html => {
  const kind = String(target.check["type"] ?? "")
  return html`<div class="page-head detail-head">
<h1>${target.name}</h1>
${actions(target)}
</div>
<p class="detail-subject"><span class="tag">${Format.kindWords[kind] ?? kind}</span> <code>${subject(target)}</code></p>
<div class="detail-state" id="state">
<p class="detail-state-line">${Format.status(state.status)}${
    state.since === undefined
      ? ""
      : html` <span>since ${Format.time(state.since)} (${Format.span(now - state.since.getTime())})</span>`
  }</p>
<p class="note">${state.basis}</p>
${
  state.regions.length === 0
    ? ""
    : html`<ul class="region-states" aria-label="State by region">
${state.regions.map(
  (r) =>
    html`<li><strong>${r.region}</strong>: ${Format.status(r.status)} since ${Format.time(r.since)}, last result ${Format.time(r.last_at)}</li>`
)}
</ul>`
}
${
  target.advisories.length === 0
    ? ""
    : html`<ul class="advisories">
${target.advisories.map(
  (a) =>
    html`<li>${Format.status(a.status)} in region <strong>${a.region}</strong> since ${Format.time(a.since)}: not enough regions agree for an incident (region policy ${typeof target.region_policy === "string" ? target.region_policy : `${target.region_policy.count} regions`}).</li>`
)}
</ul>`
}
</div>`
}
