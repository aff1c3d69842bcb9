/**
 * How check results confirm a region's verdict (service-api.md "Alert config": `alert_confirmations`): a region
 * turns down after that many consecutive failing results from it, and up again after as many passing ones. The
 * confirmed verdicts of all regions are then weighed by the region policy (`RegionAgreement`).
 *
 * @since 0.1.0
 */
import * as DateTime from "effect/DateTime"
import * as Schema from "effect/Schema"
import type { CheckStatus } from "./CheckResult.js"

/**
 * What one result says to the incident engine.
 *
 * @since 0.1.0
 * @category models
 */
export type Verdict = "failing" | "passing" | "neutral"

/**
 * The prefix of a result's error when the internal-address guard refused to connect (spec decisions.md,
 * "The internal-address guard").
 *
 * @since 0.1.0
 * @category constants
 */
export const BLOCKED_PREFIX = "blocked:"

/**
 * How a result counts. `up` passes. `down` fails, and so do `degraded` (a manual monitor set degraded opens an
 * incident, so a probe's degraded must too; the incident's impact then says degraded) and `error` (a check that
 * keeps failing to judge, a refused handshake for one, needs a person as much as an outage does). A blocked result
 * is neutral: it is not downtime, opens nothing, and neither extends nor breaks a streak, like a tick the per-host
 * throttle dropped.
 *
 * @since 0.1.0
 * @category verdicts
 */
export const verdictOf = (status: CheckStatus, error: string | null): Verdict => {
  switch (status) {
    case "up":
      return "passing"
    case "degraded":
    case "down":
      return "failing"
    case "error":
      return error?.startsWith(BLOCKED_PREFIX) ? "neutral" : "failing"
  }
}

/**
 * One region's confirmation state. `down` is the confirmed verdict and `since` when the streak that confirmed it
 * began; `failing`/`passing` count the current streak; `status` is the status of the latest failing result (it
 * decides the impact); `last_at` is the newest result taken, so an older or repeated one is ignored.
 *
 * @since 0.1.0
 * @category models
 */
export const Track = Schema.Struct({
  down: Schema.Boolean,
  since: Schema.NullOr(Schema.DateTimeUtc),
  failing: Schema.Int,
  passing: Schema.Int,
  streak_since: Schema.NullOr(Schema.DateTimeUtc),
  status: Schema.Literal("degraded", "down", "error"),
  last_at: Schema.DateTimeUtc
}).annotations({ identifier: "Track" })

/**
 * @since 0.1.0
 * @category models
 */
export type Track = typeof Track.Type

/**
 * A region that has reported nothing yet, or whose confirmation was reset (after a person resolved its incident):
 * up, no streak. `at` is the newest result time already seen, kept so a replayed result is still recognised.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fresh = (at: DateTime.Utc): Track => ({
  down: false,
  since: null,
  failing: 0,
  passing: 0,
  streak_since: null,
  status: "down",
  last_at: at
})

/**
 * Whether a result at `at` is newer than everything the track has taken.
 *
 * @since 0.1.0
 * @category verdicts
 */
export const isNewer = (track: Track | undefined, at: DateTime.Utc): boolean =>
  track === undefined || DateTime.greaterThan(at, track.last_at)

/**
 * The track after one result. `confirmations` is the monitor's `alert_confirmations` (at least 1).
 *
 * @since 0.1.0
 * @category combinators
 */
export const take = (
  track: Track | undefined,
  status: CheckStatus,
  error: string | null,
  at: DateTime.Utc,
  confirmations: number
): Track => {
  const before = track ?? fresh(at)
  const verdict = verdictOf(status, error)
  const needed = Math.max(1, confirmations)
  switch (verdict) {
    case "neutral":
      return { ...before, last_at: at }
    case "failing": {
      // A failing result resets the passing count and vice versa, so one count is always 0.
      const failing = before.failing + 1
      const streak_since = failing === 1 ? at : (before.streak_since ?? at)
      const flips = !before.down && failing >= needed
      return {
        down: before.down || flips,
        since: flips ? streak_since : before.since,
        failing,
        passing: 0,
        streak_since,
        status: status === "up" ? before.status : status,
        last_at: at
      }
    }
    case "passing": {
      const passing = before.passing + 1
      const streak_since = passing === 1 ? at : (before.streak_since ?? at)
      const flips = before.down && passing >= needed
      return {
        down: before.down && !flips,
        since: flips ? streak_since : before.since,
        failing: 0,
        passing,
        streak_since,
        status: before.status,
        last_at: at
      }
    }
  }
}
