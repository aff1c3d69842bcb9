/**
 * Per-region advisories (decisions.md "Regions, probe agents and browser flows"): while some of a monitor's regions
 * are confirmed down without meeting its `region_policy`, and no incident of the monitor is open, the monitor carries
 * one advisory per such region instead of an incident (`GET /api/v1/targets/{id}` field `advisories`). The incident
 * engine says which (`IncidentMachine.advisories`); the incident writer stores them as its state changes.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * One region confirmed down on its own: `status` is its latest failing status, `since` when the streak that
 * confirmed it began.
 *
 * @since 0.1.0
 * @category models
 */
export const RegionAdvisory = Schema.Struct({
  region: Schema.String,
  status: Schema.Literal("degraded", "down", "error"),
  since: Schema.DateTimeUtc
}).annotations({ identifier: "RegionAdvisory" })

/**
 * @since 0.1.0
 * @category models
 */
export type RegionAdvisory = typeof RegionAdvisory.Type
