/**
 * A monitor's state now, from what its regions last said: the worst of their latest statuses stands for the monitor
 * (as the dashboard summary counts it). Since when: for down, when the first region still down went down (one region
 * down is enough to hold it, and nothing is worse); for any other status, when the last region entered its current
 * status, since before that a region may have been worse (so the monitor was). Each region's own state is kept
 * beside it for a page that lists them.
 */
import type { CheckStatus } from "@signalman/core/CheckResult"

/** One region's latest status, when it came, and when the run of that status began. */
export interface RegionState {
  readonly region: string
  readonly status: CheckStatus
  readonly last_at: Date
  readonly since: Date
}

/** The monitor's state: undefined while no region has a result. */
export interface MonitorState {
  readonly status: CheckStatus
  readonly since: Date
  /** The newest result of any region. */
  readonly last_at: Date
  /** Every region with a result, by region id. */
  readonly regions: ReadonlyArray<RegionState>
}

/** Worst first: a region down outweighs one that could not judge, which outweighs a degraded one. */
const SEVERITY: ReadonlyArray<CheckStatus> = ["down", "error", "degraded", "up"]

const rank = (status: CheckStatus): number => SEVERITY.indexOf(status)

/** The monitor's state from its regions' states; undefined for none. */
export const fold = (regions: ReadonlyArray<RegionState>): MonitorState | undefined => {
  const first = regions[0]
  if (first === undefined) return undefined
  const worst = regions.reduce((w, r) => (rank(r.status) < rank(w.status) ? r : w), first).status
  const since =
    worst === "down"
      ? Math.min(...regions.filter((r) => r.status === "down").map((r) => r.since.getTime()))
      : Math.max(...regions.map((r) => r.since.getTime()))
  return {
    status: worst,
    since: new Date(since),
    last_at: new Date(Math.max(...regions.map((r) => r.last_at.getTime()))),
    regions: [...regions].sort((a, b) => (a.region < b.region ? -1 : a.region > b.region ? 1 : 0))
  }
}
