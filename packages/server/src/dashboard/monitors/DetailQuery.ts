/**
 * The detail page's own query: the chart's range (`range`), the results' filters (`status`, `region`) and page
 * (`page`). Read leniently, since these come from links and a hand-edited URL: a value that is not one of the
 * choices falls back to its default rather than failing the page. Links are built here too, so every link keeps
 * the other choices and leaves defaults out.
 */
import type { CheckStatus } from "@signalman/core/CheckResult"

const HOUR = 3_600_000
const DAY = 24 * HOUR

/** The chart's ranges, in the order the page offers them. */
export const ranges = {
  "24h": { ms: DAY, label: "24 hours", short: "24 h" },
  "7d": { ms: 7 * DAY, label: "7 days", short: "7 d" },
  "30d": { ms: 30 * DAY, label: "30 days", short: "30 d" },
  "90d": { ms: 90 * DAY, label: "90 days", short: "90 d" }
} as const

export type RangeKey = keyof typeof ranges

export const rangeKeys: ReadonlyArray<RangeKey> = ["24h", "7d", "30d", "90d"]

export const statuses: ReadonlyArray<CheckStatus> = ["up", "degraded", "down", "error"]

/** Results shown on one page. */
export const PAGE_SIZE = 25

/** The most pages a link goes to: past it, a person filters instead (the API has every result). */
export const MAX_PAGE = 400

export interface DetailQuery {
  readonly range: RangeKey
  readonly status: CheckStatus | undefined
  readonly region: string | undefined
  /** From 1. */
  readonly page: number
}

export const defaults: DetailQuery = { range: "24h", status: undefined, region: undefined, page: 1 }

const isRange = (value: string): value is RangeKey => value in ranges
const isStatus = (value: string): value is CheckStatus => statuses.some((s) => s === value)
const REGION = /^[a-z0-9][a-z0-9-]{0,31}$/

/** The query as the page reads it. */
export const parse = (search: URLSearchParams): DetailQuery => {
  const range = search.get("range") ?? ""
  const status = search.get("status") ?? ""
  const region = search.get("region") ?? ""
  const page = Number(search.get("page") ?? "1")
  return {
    range: isRange(range) ? range : defaults.range,
    status: isStatus(status) ? status : undefined,
    region: REGION.test(region) ? region : undefined,
    page: Number.isInteger(page) && page >= 1 ? Math.min(page, MAX_PAGE) : 1
  }
}

/** The page's URL with `changes` applied to `query`; defaults are left out, and `hash` ends it. */
export const href = (id: string, query: DetailQuery, changes: Partial<DetailQuery> = {}, hash = ""): string => {
  const next = { ...query, ...changes }
  const search = new URLSearchParams()
  if (next.range !== defaults.range) search.set("range", next.range)
  if (next.status !== undefined) search.set("status", next.status)
  if (next.region !== undefined) search.set("region", next.region)
  if (next.page !== 1) search.set("page", String(next.page))
  const text = search.toString()
  return `/monitors/${encodeURIComponent(id)}${text === "" ? "" : `?${text}`}${hash}`
}
