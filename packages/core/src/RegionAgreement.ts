/**
 * Region policy (service-api.md "Alert config": `region_policy`): how many of a monitor's probe regions must agree
 * it is down before an incident opens. Agreement is judged over each region's confirmed verdict (`Confirmation`),
 * so every region has confirmed its own failures before it counts.
 *
 * @since 0.1.0
 */
import * as DateTime from "effect/DateTime"
import type * as Confirmation from "./Confirmation.js"
import type { Impact } from "./Incident.js"
import type { RegionPolicy } from "./Target.js"

/**
 * How many of `regions` regions must be down: `any` one, a strict `majority`, `all`, or `{ count }` (held to the
 * number of regions, which a later PUT of regions may have made smaller than the count).
 *
 * @since 0.1.0
 * @category policies
 */
export const required = (policy: RegionPolicy, regions: number): number => {
  const n = Math.max(1, regions)
  if (typeof policy === "object") return Math.min(Math.max(1, policy.count), n)
  switch (policy) {
    case "any":
      return 1
    case "majority":
      return Math.floor(n / 2) + 1
    case "all":
      return n
  }
}

/**
 * The regions' joint verdict. When they agree the monitor is down: `since` is when agreement began (the moment the
 * required number of regions had all started the streaks that confirmed them), and `impact` how bad it is.
 *
 * @since 0.1.0
 * @category models
 */
export type Agreement =
  | { readonly down: false }
  | { readonly down: true; readonly since: DateTime.Utc; readonly impact: Impact }

/**
 * Judge the confirmed verdicts of the monitor's regions. Tracks of regions no longer configured do not count.
 * The impact is `degraded` when every down region only saw degraded results, `major_outage` when every region is
 * down with a down or error result, `partial_outage` otherwise.
 *
 * @since 0.1.0
 * @category policies
 */
export const judge = (
  policy: RegionPolicy,
  regions: ReadonlyArray<string>,
  tracks: Readonly<Record<string, Confirmation.Track>>
): Agreement => {
  const names = [...new Set(regions)]
  const down = names.flatMap((name) => {
    const track = tracks[name]
    return track?.down && track.since !== null ? [{ track, since: track.since }] : []
  })
  const needed = required(policy, names.length)
  if (down.length < needed) return { down: false }
  const starts = down.map((d) => d.since).sort(DateTime.Order)
  const since = starts[needed - 1] ?? starts[starts.length - 1]
  if (since === undefined) return { down: false }
  const outages = down.filter((d) => d.track.status !== "degraded").length
  const impact: Impact = outages === 0 ? "degraded" : outages === names.length ? "major_outage" : "partial_outage"
  return { down: true, since, impact }
}
