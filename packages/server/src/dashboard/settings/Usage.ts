/**
 * A plan's figures as the usage API answers them (`GET /api/v1/orgs/{id}/usage`, `GET /api/v1/me/usage`): pooled
 * quotas against their limits, the plan's other limits, per-minute budgets and features, each named in words.
 * The organization and billing pages both show them; the names of the figures are the API's own, the words here.
 */
import type { OrgUsage, UsageFigure } from "@signalman/core/Identity"
import { type Html, html } from "../Template.js"
import * as Format from "./Format.js"

const quotaLabels: Readonly<Record<string, string>> = {
  max_orgs: "Organizations",
  max_targets: "Monitors",
  max_members: "Members (distinct people across the account's organizations)",
  max_pending_invitations: "Pending invitations",
  max_status_pages: "Status pages",
  max_public_components: "Monitors shown on public status pages",
  max_shared_monitors: "Monitors with share links",
  max_maintenance_windows: "Maintenance windows",
  max_notification_channels: "Alert channels",
  max_escalation_policies: "Escalation policies",
  max_on_call_schedules: "On-call schedules",
  api_tokens: "Your API tokens",
  owned_orgs: "Organizations your account owns"
}

const policyLabels: Readonly<Record<string, string>> = {
  min_check_interval_secs: "Shortest check interval",
  retention_days: "History kept",
  raw_days: "Per-check detail kept",
  evidence_days: "Failed browser-flow evidence kept",
  max_flow_steps: "Steps per browser flow",
  max_flow_checks: "Browser-flow monitors per organization",
  max_regions: "Regions per monitor",
  max_api_tokens_per_user: "API tokens per person",
  max_share_links_per_monitor: "Share links per monitor",
  max_logo_size_bytes: "Status page logo size"
}

const rateLabels: Readonly<Record<string, string>> = {
  api_writes_per_minute: "API writes",
  api_reads_per_minute: "API reads",
  bulk_ops_per_minute: "Bulk operations",
  test_now_per_minute: "Test checks and test notifications",
  check_now_per_minute: "Checks run on demand",
  support_per_minute: "Support requests"
}

const flagLabels: Readonly<Record<string, string>> = {
  custom_domain_enabled: "Custom domains for status pages",
  white_label_enabled: "Status pages without the Signalman badge",
  sms_alerts_enabled: "SMS alerts",
  incident_narration_enabled: "Incident narration",
  on_call_enabled: "On-call schedules and escalation",
  private_pages_enabled: "Private status pages"
}

/** A figure's name in words; an unknown name (a figure added to the API later) as it is spelled. */
export const label = (name: string): string =>
  quotaLabels[name] ?? policyLabels[name] ?? rateLabels[name] ?? flagLabels[name] ?? name

/** A policy value in its unit: seconds, days, bytes, or a count where 0 means the feature is not included. */
export const policyValue = (name: string, value: number): string => {
  if (name.endsWith("_secs")) return Format.count(value, "second")
  if (name.endsWith("_days")) return Format.count(value, "day")
  if (name.endsWith("_bytes")) return Format.bytes(value)
  if (name === "max_flow_checks" && value === 0) return "Not included"
  return String(value)
}

const BAR = 96

/** How much is used, drawn; the words beside it say the same, so it is hidden from assistive technology. */
export const bar = (current: number, limit: number, full: boolean): Html => {
  const used = Math.round((BAR * Math.min(current, limit)) / Math.max(1, limit))
  return html`<svg class="usage-bar" width="${BAR}" height="8" viewBox="0 0 ${BAR} 8" aria-hidden="true" focusable="false">
<rect class="usage-track" width="${BAR}" height="8" rx="4"></rect><rect class="${full ? "usage-used usage-full" : "usage-used"}" width="${used}" height="8" rx="4"></rect></svg>`
}

/** Used, limit and what is left, in words; at the limit said outright, not only by the meter. */
const figureRow = (name: string, figure: typeof UsageFigure.Type): Html => {
  const left = Math.max(0, figure.limit - figure.current)
  const full = figure.current >= figure.limit
  return html`<tr>
<th scope="row">${label(name)}</th>
<td class="num">${figure.current}</td>
<td class="num">${figure.limit}</td>
<td>${full ? html`<strong class="at-limit">At the limit</strong>` : html`${left} left`}
${bar(figure.current, figure.limit, full)}</td>
</tr>`
}

/** Quotas against their limits (pooled over the account, or the person's own). */
export const quotaTable = (
  caption: string,
  figures: ReadonlyArray<readonly [string, typeof UsageFigure.Type]>
): Html => html`<div class="table-wrap"><table class="usage">
<caption>${caption}</caption>
<thead><tr><th scope="col">Quota</th><th scope="col" class="num">Used</th><th scope="col" class="num">Limit</th><th scope="col">Room</th></tr></thead>
<tbody>${figures.map(([name, figure]) => figureRow(name, figure))}</tbody>
</table></div>`

/** The plan's other limits, per-minute budgets and features. */
export const planTables = (usage: OrgUsage): Html => html`<div class="table-wrap"><table>
<caption>Limits of the ${usage.plan.name} plan</caption>
<thead><tr><th scope="col">Limit</th><th scope="col">Value</th></tr></thead>
<tbody>${Object.entries(usage.policy).map(
  ([name, value]) => html`<tr><th scope="row">${label(name)}</th><td>${policyValue(name, value)}</td></tr>`
)}</tbody>
</table></div>
<div class="table-wrap"><table>
<caption>Requests per minute</caption>
<thead><tr><th scope="col">Kind of request</th><th scope="col" class="num">Per minute</th></tr></thead>
<tbody>${Object.entries(usage.rates).map(
  ([name, value]) => html`<tr><th scope="row">${label(name)}</th><td class="num">${value}</td></tr>`
)}</tbody>
</table></div>
<div class="table-wrap"><table>
<caption>Features</caption>
<thead><tr><th scope="col">Feature</th><th scope="col">On this plan</th></tr></thead>
<tbody>${Object.entries(usage.flags).map(
  ([name, on]) => html`<tr><th scope="row">${label(name)}</th><td>${on ? "Included" : "Not included"}</td></tr>`
)}</tbody>
</table></div>`
