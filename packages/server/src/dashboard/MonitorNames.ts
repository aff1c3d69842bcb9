/**
 * The org's monitors by name, for pages that name monitors they do not show (an incident's monitor, a maintenance
 * window's components) and offer them in a filter or a form. Read through `Targets`, as `GET /api/v1/targets` reads
 * them, so a page names only monitors its viewer could list.
 */
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import * as Effect from "effect/Effect"
import type { Targets } from "../targets/Targets.js"

export interface MonitorName {
  readonly id: string
  readonly name: string
}

/** The most monitors a page names (far above every plan's quota). */
const MAX = 1000

export interface MonitorNames {
  /** By name, for selects and checkbox lists. */
  readonly all: ReadonlyArray<MonitorName>
  /** The name of a monitor, undefined for one the org does not have (deleted since). */
  readonly nameOf: (id: string) => string | undefined
}

export const of = (targets: Targets, org: ActiveOrg): Effect.Effect<MonitorNames> =>
  Effect.map(
    targets.list(org, {
      limit: MAX,
      offset: 0,
      tag: undefined,
      enabled: undefined,
      q: undefined,
      managed_by: undefined
    }),
    ({ rows }) => {
      const all = rows
        .map((row): MonitorName => ({ id: row.id, name: row.name }))
        .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id))
      const byId = new Map(all.map((m) => [m.id.toLowerCase(), m.name]))
      return { all, nameOf: (id: string) => byId.get(id.toLowerCase()) }
    }
  )
