/**
 * The public status surface: what a status page tells anyone who opens it (the JSON of `/api/public/v1/*`, which
 * the HTML page, the feed and the badge are rendered from), and the pure rules behind it: a component's status
 * from its incidents, maintenance and latest check, the page's overall status, and the day bars of a component's
 * history. Wire types carry a monitor's public face only: never its address, headers, credentials or any other
 * part of its check.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import type { CheckStatus } from "./CheckResult.js"
import { Impact, Phase, Severity } from "./Incident.js"
import * as Pagination from "./Pagination.js"
import { PublicLocale } from "./PublicLocale.js"

/**
 * A component as a visitor sees it. `maintenance` while a running window covers it; `unknown` until it is probed.
 *
 * @since 0.2.0
 * @category models
 */
export const ComponentStatus = Schema.Literal(
  "operational",
  "degraded",
  "partial_outage",
  "major_outage",
  "maintenance",
  "unknown"
)

/**
 * @since 0.2.0
 * @category models
 */
export type ComponentStatus = typeof ComponentStatus.Type

/**
 * The page as a whole: the worst of its components (`unknown` ones do not count).
 *
 * @since 0.2.0
 * @category models
 */
export const OverallStatus = Schema.Literal("operational", "degraded", "partial_outage", "major_outage", "maintenance")

/**
 * @since 0.2.0
 * @category models
 */
export type OverallStatus = typeof OverallStatus.Type

/**
 * The colour of one day of a component's history: the worst incident impact that day, else `maintenance` when a
 * window ran, else `operational` when it was checked, else `no_data`.
 *
 * @since 0.2.0
 * @category models
 */
export const DayStatus = Schema.Literal(
  "operational",
  "degraded",
  "partial_outage",
  "major_outage",
  "maintenance",
  "no_data"
)

/**
 * @since 0.2.0
 * @category models
 */
export type DayStatus = typeof DayStatus.Type

/**
 * The page's own data: name, language and branding.
 *
 * @since 0.2.0
 * @category models
 */
export const PublicPage = Schema.Struct({
  id: Schema.UUID,
  slug: Schema.String,
  name: Schema.String,
  locale: PublicLocale,
  logo_url: Schema.NullOr(Schema.String),
  primary_color: Schema.String,
  theme: Schema.Literal("light", "dark", "auto"),
  powered_by: Schema.Boolean
}).annotations({ identifier: "PublicPage" })

/**
 * @since 0.2.0
 * @category models
 */
export type PublicPage = typeof PublicPage.Type

/**
 * A monitor curated onto the page: its public name, description and group, its status now and its time-based
 * uptime over the last 90 days (null until it is probed).
 *
 * @since 0.2.0
 * @category models
 */
export const PublicComponent = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  group: Schema.NullOr(Schema.String),
  status: ComponentStatus,
  uptime_pct: Schema.NullOr(Schema.Number)
}).annotations({ identifier: "PublicComponent" })

/**
 * @since 0.2.0
 * @category models
 */
export type PublicComponent = typeof PublicComponent.Type

/**
 * One update of an incident's public timeline (people's updates; the engine's system notes stay internal).
 *
 * @since 0.2.0
 * @category models
 */
export const PublicIncidentUpdate = Schema.Struct({
  id: Schema.UUID,
  phase: Phase,
  message: Schema.String,
  created_at: Schema.DateTimeUtc
}).annotations({ identifier: "PublicIncidentUpdate" })

/**
 * @since 0.2.0
 * @category models
 */
export type PublicIncidentUpdate = typeof PublicIncidentUpdate.Type

/**
 * An incident touching the page: `title` is the public title when written, else null (pages show a title from the
 * impact in their language); `components` lists only the page's components it touches.
 *
 * @since 0.2.0
 * @category models
 */
export const PublicIncident = Schema.Struct({
  id: Schema.UUID,
  title: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  impact: Impact,
  severity: Schema.NullOr(Severity),
  status: Schema.Literal("open", "resolved"),
  started_at: Schema.DateTimeUtc,
  ended_at: Schema.NullOr(Schema.DateTimeUtc),
  components: Schema.Array(Schema.UUID)
}).annotations({ identifier: "PublicIncident" })

/**
 * @since 0.2.0
 * @category models
 */
export type PublicIncident = typeof PublicIncident.Type

/**
 * An incident with its public timeline, oldest first.
 *
 * @since 0.2.0
 * @category models
 */
export const PublicIncidentDetail = Schema.Struct({
  ...PublicIncident.fields,
  updates: Schema.Array(PublicIncidentUpdate)
}).annotations({ identifier: "PublicIncidentDetail" })

/**
 * @since 0.2.0
 * @category models
 */
export type PublicIncidentDetail = typeof PublicIncidentDetail.Type

/**
 * @since 0.2.0
 * @category models
 */
export const PublicMaintenanceUpdate = Schema.Struct({
  id: Schema.UUID,
  message: Schema.String,
  status: Schema.NullOr(Schema.Literal("scheduled", "in_progress", "verifying", "completed")),
  created_at: Schema.DateTimeUtc
}).annotations({ identifier: "PublicMaintenanceUpdate" })

/**
 * A maintenance window covering the page's components (cancelled windows are not shown).
 *
 * @since 0.2.0
 * @category models
 */
export const PublicMaintenance = Schema.Struct({
  id: Schema.UUID,
  title: Schema.String,
  description: Schema.String,
  status: Schema.Literal("upcoming", "running", "completed"),
  starts_at: Schema.DateTimeUtc,
  ends_at: Schema.DateTimeUtc,
  components: Schema.Array(Schema.UUID),
  updates: Schema.Array(PublicMaintenanceUpdate)
}).annotations({ identifier: "PublicMaintenance" })

/**
 * @since 0.2.0
 * @category models
 */
export type PublicMaintenance = typeof PublicMaintenance.Type

/**
 * `GET /api/public/v1/status`. `incidents`: the open ones and those resolved in the last 7 days, newest first;
 * `recent_maintenance`: finished windows that started in the last 30 days, newest first.
 *
 * @since 0.2.0
 * @category models
 */
export const PublicStatus = Schema.Struct({
  page: PublicPage,
  status: OverallStatus,
  components: Schema.Array(PublicComponent),
  incidents: Schema.Array(PublicIncident),
  active_maintenance: Schema.Array(PublicMaintenance),
  upcoming_maintenance: Schema.Array(PublicMaintenance),
  recent_maintenance: Schema.Array(PublicMaintenance),
  generated_at: Schema.DateTimeUtc
}).annotations({ identifier: "PublicStatus" })

/**
 * @since 0.2.0
 * @category models
 */
export type PublicStatus = typeof PublicStatus.Type

/**
 * One UTC day of a component's history.
 *
 * @since 0.2.0
 * @category models
 */
export const DayBar = Schema.Struct({
  date: Schema.String,
  status: DayStatus,
  uptime_pct: Schema.NullOr(Schema.Number),
  incidents: Schema.Int,
  maintenance: Schema.Boolean
}).annotations({ identifier: "DayBar" })

/**
 * @since 0.2.0
 * @category models
 */
export type DayBar = typeof DayBar.Type

/**
 * `GET /api/public/v1/components/{id}/history`: `days` bars, oldest first, the last one today (UTC).
 *
 * @since 0.2.0
 * @category models
 */
export const ComponentHistory = Schema.Struct({
  component: Schema.Struct({ id: Schema.UUID, name: Schema.String }),
  days: Schema.Int,
  bars: Schema.Array(DayBar)
}).annotations({ identifier: "ComponentHistory" })

/**
 * @since 0.2.0
 * @category models
 */
export type ComponentHistory = typeof ComponentHistory.Type

/**
 * `GET /api/public/v1/maintenance`: running windows and those starting in the next 30 days (soonest first).
 *
 * @since 0.2.0
 * @category models
 */
export const PublicMaintenanceList = Schema.Struct({
  active: Schema.Array(PublicMaintenance),
  upcoming: Schema.Array(PublicMaintenance)
}).annotations({ identifier: "PublicMaintenanceList" })

/**
 * @since 0.2.0
 * @category models
 */
export const PublicIncidentPage = Pagination.page(PublicIncident, "PublicIncidentPage")

/**
 * @since 0.2.0
 * @category models
 */
export const PublicMaintenancePage = Pagination.page(PublicMaintenance, "PublicMaintenancePage")

/**
 * The most days of history a component answers, and the default.
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_HISTORY_DAYS = 365

/**
 * @since 0.2.0
 * @category constants
 */
export const DEFAULT_HISTORY_DAYS = 90

// ---------------------------------------------------------------------------------------------------------------
// Pure rules

const impactRank: Record<Impact, number> = { degraded: 1, partial_outage: 2, major_outage: 3 }

/**
 * The worst of some impacts, undefined for none.
 *
 * @since 0.2.0
 * @category rules
 */
export const worstImpact = (impacts: Iterable<Impact>): Impact | undefined => {
  let worst: Impact | undefined
  for (const impact of impacts) if (worst === undefined || impactRank[impact] > impactRank[worst]) worst = impact
  return worst
}

/**
 * What a component shows. An open incident that is not recovering shows its impact (the worst of several); else a
 * running maintenance window shows `maintenance`; else the latest check: none yet is `unknown`, degraded is
 * `degraded`, anything else `operational` (a failure not confirmed into an incident does not flap the page, and a
 * recovering incident shows up, as the spec says).
 *
 * @since 0.2.0
 * @category rules
 */
export const componentStatus = (input: {
  readonly openImpacts: ReadonlyArray<Impact>
  readonly inMaintenance: boolean
  readonly latest: CheckStatus | null
}): ComponentStatus => {
  const worst = worstImpact(input.openImpacts)
  if (worst !== undefined) return worst
  if (input.inMaintenance) return "maintenance"
  if (input.latest === null) return "unknown"
  return input.latest === "degraded" ? "degraded" : "operational"
}

const overallRank: Record<OverallStatus, number> = {
  operational: 0,
  maintenance: 1,
  degraded: 2,
  partial_outage: 3,
  major_outage: 4
}

/**
 * The page's status: the worst component's, outages over maintenance over operational; `unknown` components and an
 * empty page are operational.
 *
 * @since 0.2.0
 * @category rules
 */
export const overallStatus = (statuses: Iterable<ComponentStatus>): OverallStatus => {
  let worst: OverallStatus = "operational"
  for (const status of statuses) {
    if (status === "unknown") continue
    if (overallRank[status] > overallRank[worst]) worst = status
  }
  return worst
}

const DAY_MS = 86_400_000

/**
 * The UTC day of an instant as `YYYY-MM-DD`.
 *
 * @since 0.2.0
 * @category rules
 */
export const dayKey = (ms: number): string => new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10)

/** A span `[from, until)`; `until` null runs on. */
interface Span {
  readonly from: number
  readonly until: number | null
}

/**
 * The day bars of one component, oldest first, the last being the day of `now` (UTC): per day the uptime of its
 * rollup (`up_secs / (up_secs + down_secs)`, null when nothing was judged), the incidents overlapping it with their
 * worst impact, and whether a maintenance window ran in it.
 *
 * @since 0.2.0
 * @category rules
 */
export const dayBars = (input: {
  readonly days: number
  readonly now: number
  readonly rollups: ReadonlyMap<string, { readonly up_secs: number; readonly down_secs: number }>
  readonly incidents: ReadonlyArray<Span & { readonly impact: Impact }>
  readonly maintenance: ReadonlyArray<Span>
}): Array<DayBar> => {
  const today = Math.floor(input.now / DAY_MS) * DAY_MS
  const bars: Array<DayBar> = []
  for (let i = input.days - 1; i >= 0; i--) {
    const start = today - i * DAY_MS
    const end = start + DAY_MS
    const overlaps = (span: Span) => span.from < end && (span.until === null || span.until > start)
    const incidents = input.incidents.filter(overlaps)
    const maintenance = input.maintenance.some(overlaps)
    const date = dayKey(start)
    const rollup = input.rollups.get(date)
    const judged = rollup === undefined ? 0 : rollup.up_secs + rollup.down_secs
    const uptime = rollup === undefined || judged === 0 ? null : (100 * rollup.up_secs) / judged
    const worst = worstImpact(incidents.map((incident) => incident.impact))
    const status: DayStatus =
      worst !== undefined ? worst : maintenance ? "maintenance" : uptime === null ? "no_data" : "operational"
    bars.push({ date, status, uptime_pct: uptime, incidents: incidents.length, maintenance })
  }
  return bars
}

/**
 * A contrasting text colour (black or white) for a background, by WCAG relative luminance: whichever gives the
 * higher contrast ratio.
 *
 * @since 0.2.0
 * @category rules
 */
export const textOn = (hex: string): "#000000" | "#ffffff" => {
  const l = luminance(hex)
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? "#000000" : "#ffffff"
}

/**
 * WCAG 2.1 contrast ratio of two `#rrggbb` colours (1 to 21).
 *
 * @since 0.2.0
 * @category rules
 */
export const contrastRatio = (a: string, b: string): number => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number]
  return (hi + 0.05) / (lo + 0.05)
}

const luminance = (hex: string): number => {
  const channel = (i: number) => {
    const c = Number.parseInt(hex.slice(1 + 2 * i, 3 + 2 * i), 16) / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }
  return 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2)
}

/**
 * A stored branding colour when it is a `#rrggbb` (or `#rgb`) value, lower case and expanded; else the default.
 * Anything else (a name, a url(), markup) never reaches a page.
 *
 * @since 0.2.0
 * @category rules
 */
export const safeColor = (value: unknown, fallback = "#2563eb"): string => {
  if (typeof value !== "string") return fallback
  const v = value.trim().toLowerCase()
  if (/^#[0-9a-f]{6}$/.test(v)) return v
  if (/^#[0-9a-f]{3}$/.test(v)) return `#${v[1]}${v[1]}${v[2]}${v[2]}${v[3]}${v[3]}`
  return fallback
}
