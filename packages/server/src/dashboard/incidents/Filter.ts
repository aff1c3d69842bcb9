/**
 * The incident list's query string: which incidents (open, closed or all; involving a monitor; of a severity) and
 * which page of them. Read leniently, since people edit addresses and keep old links: a value that means nothing
 * is the default, never an error page. Links are made from the same shape, so paging keeps the filters.
 */
import { Severity } from "@signalman/core/Incident"
import * as Schema from "effect/Schema"

export const PAGE_SIZE = 25

export type Status = "open" | "closed" | "all"

export interface Filter {
  readonly status: Status
  readonly target_id: string | undefined
  readonly severity: Severity | undefined
  /** 1-based. */
  readonly page: number
}

export const defaults: Filter = { status: "all", target_id: undefined, severity: undefined, page: 1 }

const isUuid = Schema.is(Schema.UUID)
const isSeverity = Schema.is(Severity)
const isStatus = Schema.is(Schema.Literal("open", "closed", "all"))

/** Whether the filter narrows the list (any filter but the page). */
export const narrows = (filter: Filter): boolean =>
  filter.status !== defaults.status || filter.target_id !== undefined || filter.severity !== undefined

/** The filter a query string asks for; anything unreadable is left at its default. */
export const parse = (params: URLSearchParams): Filter => {
  const status = params.get("status")
  const target = params.get("target_id")?.toLowerCase()
  const severity = params.get("severity")
  const page = Number(params.get("page") ?? "1")
  return {
    status: isStatus(status) ? status : defaults.status,
    target_id: isUuid(target) ? target : undefined,
    severity: isSeverity(severity) ? severity : undefined,
    page: Number.isSafeInteger(page) && page >= 1 ? page : 1
  }
}

/** The list's address for a filter: only what differs from the defaults, so plain links stay plain. */
export const href = (filter: Filter): string => {
  const params = new URLSearchParams()
  if (filter.status !== defaults.status) params.set("status", filter.status)
  if (filter.target_id !== undefined) params.set("target_id", filter.target_id)
  if (filter.severity !== undefined) params.set("severity", filter.severity)
  if (filter.page !== 1) params.set("page", String(filter.page))
  const query = params.toString()
  return query === "" ? "/incidents" : `/incidents?${query}`
}

/** How many pages `total` incidents fill (at least one, for the empty list). */
export const pageCount = (total: number): number => Math.max(1, Math.ceil(total / PAGE_SIZE))
