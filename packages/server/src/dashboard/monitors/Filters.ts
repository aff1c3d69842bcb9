/**
 * The overview's filters, read from the query of `GET /` (the filter form is a plain GET form, so they work without
 * script and a filtered view is a link): a name search, state, kind, tag, group, and the page. A value that is not
 * one of the choices is ignored rather than refused, as a stale bookmark should still open the page.
 */
import { CheckKind } from "@signalman/core/CheckSpec"
import * as Schema from "effect/Schema"
import { type MonitorState, MonitorState as MonitorStateSchema } from "../../engine/Repo.js"

/** Rows per page: 1,000 monitors are five pages, each light enough to render and update live. */
export const PAGE_SIZE = 200

export interface Filters {
  /** Part of the name, any case; empty matches every name. */
  readonly q: string
  readonly state: MonitorState | undefined
  readonly kind: CheckKind | undefined
  readonly tag: string
  readonly group: string
  /** From 1. */
  readonly page: number
}

export const none: Filters = { q: "", state: undefined, kind: undefined, tag: "", group: "", page: 1 }

const isState = Schema.is(MonitorStateSchema)
const isKind = Schema.is(CheckKind)

const text = (params: URLSearchParams, name: string, max: number) => (params.get(name) ?? "").trim().slice(0, max)

export const parse = (params: URLSearchParams): Filters => {
  const state = params.get("state") ?? ""
  const kind = params.get("kind") ?? ""
  const page = Number(params.get("page") ?? "1")
  return {
    q: text(params, "q", 200),
    state: isState(state) ? state : undefined,
    kind: isKind(kind) ? kind : undefined,
    tag: text(params, "tag", 64),
    group: text(params, "group", 100),
    page: Number.isInteger(page) && page >= 1 && page <= 100_000 ? page : 1
  }
}

/** Whether any filter narrows the list (the page aside). */
export const narrowed = (f: Filters): boolean =>
  f.q !== "" || f.state !== undefined || f.kind !== undefined || f.tag !== "" || f.group !== ""

/** What the filters look at of a monitor. */
export interface Filterable {
  readonly name: string
  readonly kind: string
  readonly tags: ReadonlyArray<string>
  readonly group_name: string | null
}

/** Whether a monitor, in its state, passes the filters. */
export const matches = (f: Filters, monitor: Filterable, state: MonitorState): boolean =>
  (f.q === "" || monitor.name.toLowerCase().includes(f.q.toLowerCase())) &&
  (f.state === undefined || state === f.state) &&
  (f.kind === undefined || monitor.kind === f.kind) &&
  (f.tag === "" || monitor.tags.includes(f.tag)) &&
  (f.group === "" || monitor.group_name === f.group)

/** The overview's URL for these filters (defaults left out). */
export const href = (f: Filters): string => {
  const params = new URLSearchParams()
  if (f.q !== "") params.set("q", f.q)
  if (f.state !== undefined) params.set("state", f.state)
  if (f.kind !== undefined) params.set("kind", f.kind)
  if (f.tag !== "") params.set("tag", f.tag)
  if (f.group !== "") params.set("group", f.group)
  if (f.page > 1) params.set("page", String(f.page))
  const query = params.toString()
  return query === "" ? "/" : `/?${query}`
}
