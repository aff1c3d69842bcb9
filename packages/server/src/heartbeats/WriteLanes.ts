/**
 * Write lanes of the ping path: verdict-changing pings are written by several group commits at once, one per lane,
 * so first pings are not bound by one transaction's round trips at a time. A monitor always falls in the same lane
 * (a hash of its id), which keeps its pings in order and means two lanes never write the same monitor's rows: the
 * state, the ping log, the results, the rollups and the incident engine are all keyed by the monitor, so concurrent
 * lanes share no row (docs/decisions.md, "Heartbeat ingest (issue 20)").
 */

/** What decides the number of lanes. */
export interface LaneSettings {
  readonly "heartbeats.write_lanes": number
  readonly "database.max_connections": number
  readonly "database.url": string | undefined
}

/**
 * The lanes a process runs: the setting, capped at half the connection pool (the token lookups, the API and the
 * incident ticks need the rest), and one on the embedded database, whose single connection would only queue them.
 */
export const count = (settings: LaneSettings): number =>
  settings["database.url"] === undefined
    ? 1
    : Math.max(1, Math.min(settings["heartbeats.write_lanes"], Math.floor(settings["database.max_connections"] / 2)))

/** A monitor's lane: FNV-1a of its id, so the spread is even and the same in every process. */
export const of = (targetId: string, lanes: number): number => {
  if (lanes <= 1) return 0
  let hash = 0x811c9dc5
  for (let i = 0; i < targetId.length; i++) {
    hash ^= targetId.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return (hash >>> 0) % lanes
}
