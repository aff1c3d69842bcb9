/**
 * The answer of the `get_monitor_status` tool: the monitor as `GET /targets/{id}` shows it, and its state now as the
 * engine judges it from its regions' latest results (`engine/MonitorState`), with a paused monitor shown as paused
 * and one with no result yet as unknown.
 */
import { CheckStatus } from "@signalman/core/CheckResult"
import { Target } from "@signalman/core/Target"
import * as DateTime from "effect/DateTime"
import * as Schema from "effect/Schema"
import type * as MonitorState from "../engine/MonitorState.js"

/** One probe region's latest status. */
export const RegionStatus = Schema.Struct({
  region: Schema.String,
  status: CheckStatus,
  since: Schema.DateTimeUtc,
  last_check_at: Schema.DateTimeUtc
})

export const MonitorStatus = Schema.Struct({
  monitor: Target,
  status: Schema.Literal("up", "degraded", "down", "error", "unknown", "paused"),
  /** When the monitor entered its status; null while unknown or paused. */
  since: Schema.NullOr(Schema.DateTimeUtc),
  last_check_at: Schema.NullOr(Schema.DateTimeUtc),
  regions: Schema.Array(RegionStatus)
})

export type MonitorStatus = typeof MonitorStatus.Type

const utc = (date: Date) => DateTime.unsafeFromDate(date)

/** The status of `monitor` in `state` (undefined: no result yet). A paused monitor is paused whatever it last said. */
export const of = (monitor: Target, state: MonitorState.MonitorState | undefined): MonitorStatus => {
  const regions = (state?.regions ?? []).map((r) => ({
    region: r.region,
    status: r.status,
    since: utc(r.since),
    last_check_at: utc(r.last_at)
  }))
  const last_check_at = state === undefined ? null : utc(state.last_at)
  // When it was paused is not kept (its last change may be another edit), so a paused monitor has no `since`.
  if (!monitor.enabled) return { monitor, status: "paused", since: null, last_check_at, regions }
  if (state === undefined) return { monitor, status: "unknown", since: null, last_check_at, regions }
  return { monitor, status: state.status, since: utc(state.since), last_check_at, regions }
}
