/**
 * Region policy (service-api.md "Alert config": `region_policy`; decisions.md "Regions, probe agents and browser
 * flows"): how many of a monitor's probe regions must agree it is down before an incident opens. Agreement is judged
 * over each region's confirmed verdict (`Confirmation`), so every region has confirmed its own failures before it
 * counts.
 *
 * **Silent regions abstain.** A region with no result in the last three intervals counts as neither up nor down:
 * `majority`, `all` and `{ count: N }` are judged over the regions that are reporting (a count is held to how many
 * are), `any` still needs one reporting region down, and a silent region that was down no longer counts as down.
 * With no region reporting the judgement is `silent` and the engine changes nothing. Silence is counted from a
 * region's newest result, or from `reporting_since` (when the monitor began reporting, or began again after every
 * region had fallen silent) when that is later: for three intervals after that moment a region keeps its last
 * verdict (one never heard from counts as up), so the region that happens to report first after a monitor is made,
 * paused or cut off does not decide alone.
 *
 * @since 0.1.0
 */
import * as DateTime from "effect/DateTime"
import type * as Confirmation from "./Confirmation.js"
import type { Impact } from "./Incident.js"
import type { RegionPolicy } from "./Target.js"

/**
 * How many intervals without a result make a region silent.
 *
 * @since 0.1.0
 * @category constants
 */
export const SILENT_AFTER_INTERVALS = 3

/**
 * What silence is measured against: the monitor's check interval and when its regions began reporting (null when
 * not known: a state stored before the rule, where a region never heard from is silent at once).
 *
 * @since 0.1.0
 * @category models
 */
export interface Silence {
  readonly interval_secs: number
  readonly reporting_since: DateTime.Utc | null
}

/**
 * How many of `regions` regions must be down: `any` one, a strict `majority`, `all`, or `{ count }` (held to the
 * number of regions, which a later PUT of regions, or regions falling silent, may have made smaller than the
 * count).
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
 * The moment a region falls silent: three intervals after its newest result, or after `reporting_since` when that
 * is later. Undefined when it has neither: it has been silent all along.
 *
 * @since 0.1.0
 * @category silence
 */
export const silentFrom = (track: Confirmation.Track | undefined, silence: Silence): DateTime.Utc | undefined => {
  const heard = track?.last_at
  const base =
    heard === undefined
      ? silence.reporting_since
      : silence.reporting_since === null
        ? heard
        : DateTime.max(heard, silence.reporting_since)
  return base === null
    ? undefined
    : DateTime.add(base, { seconds: SILENT_AFTER_INTERVALS * Math.max(1, silence.interval_secs) })
}

/**
 * Whether a region reports at `at`: it is not yet silent.
 *
 * @since 0.1.0
 * @category silence
 */
export const reports = (track: Confirmation.Track | undefined, silence: Silence, at: DateTime.Utc): boolean => {
  const until = silentFrom(track, silence)
  return until !== undefined && DateTime.lessThan(at, until)
}

/**
 * The regions' joint verdict at a moment.
 *
 * - `silent`: no region reports; nothing can be judged, so nothing changes.
 * - `up`: the policy is not met. `down` lists the reporting regions confirmed down all the same (the advisories);
 *   `since` is when a region's falling silent ended agreement, when that is what ended it.
 * - `down`: the policy is met by the reporting regions in `down`. `since` is when agreement began: the moment the
 *   required number of them had all started the streaks that confirmed them, or, when a region's falling silent
 *   brought agreement, that moment if later. `impact` says how bad it is.
 *
 * @since 0.1.0
 * @category models
 */
export type Agreement =
  | { readonly verdict: "silent" }
  | { readonly verdict: "up"; readonly down: ReadonlyArray<string>; readonly since: DateTime.Utc | undefined }
  | {
      readonly verdict: "down"
      readonly down: ReadonlyArray<string>
      readonly since: DateTime.Utc
      readonly impact: Impact
    }

const isDown = (track: Confirmation.Track | undefined): track is Confirmation.Track & { since: DateTime.Utc } =>
  track?.down === true && track.since !== null

/**
 * Judge the confirmed verdicts of the monitor's regions at `at`. Tracks of regions no longer configured do not
 * count, nor do silent regions. The impact is `degraded` when every down region only saw degraded results,
 * `major_outage` when every reporting region is down with a down or error result, `partial_outage` otherwise.
 *
 * @since 0.1.0
 * @category policies
 */
export const judge = (
  policy: RegionPolicy,
  regions: ReadonlyArray<string>,
  tracks: Readonly<Record<string, Confirmation.Track>>,
  at: DateTime.Utc,
  silence: Silence
): Agreement => {
  const names = [...new Set(regions)]
  const reporting = names.filter((name) => reports(tracks[name], silence, at))
  if (reporting.length === 0) return { verdict: "silent" }
  const agrees = (set: ReadonlyArray<string>) =>
    set.filter((name) => isDown(tracks[name])).length >= required(policy, set.length)
  const verdict = agrees(reporting)

  // When did silence last turn the verdict? Walk back through the moments regions fell silent, newest first, adding
  // each back (regions silenced at the same moment together): the first set that judges otherwise names the moment.
  const silenced = new Map<number, Array<string>>()
  for (const name of names) {
    const from = silentFrom(tracks[name], silence)
    if (from === undefined || reporting.includes(name)) continue
    const key = DateTime.toEpochMillis(from)
    silenced.set(key, [...(silenced.get(key) ?? []), name])
  }
  let turned: DateTime.Utc | undefined
  const set = [...reporting]
  for (const [millis, group] of [...silenced].sort(([a], [b]) => b - a)) {
    set.push(...group)
    if (agrees(set) !== verdict) {
      turned = DateTime.unsafeMake(millis)
      break
    }
  }

  const down = reporting.filter((name) => isDown(tracks[name]))
  if (!verdict) return { verdict: "up", down, since: turned }
  const needed = required(policy, reporting.length)
  const starts = down.flatMap((name) => {
    const track = tracks[name]
    return isDown(track) ? [track.since] : []
  })
  starts.sort(DateTime.Order)
  const streaks = starts[needed - 1] ?? starts[starts.length - 1] ?? at
  const since = turned === undefined ? streaks : DateTime.max(streaks, turned)
  const outages = down.filter((name) => tracks[name]?.status !== "degraded").length
  const impact: Impact = outages === 0 ? "degraded" : outages === reporting.length ? "major_outage" : "partial_outage"
  return { verdict: "down", down, since, impact }
}

/**
 * The next moment one of the reporting regions falls silent after `at`, when more than one region is configured
 * (with one, silence only ever leaves nobody reporting, which changes nothing). The engine's clock ticks the
 * monitor then, so silence takes effect without waiting for another result.
 *
 * @since 0.1.0
 * @category silence
 */
export const nextSilence = (
  regions: ReadonlyArray<string>,
  tracks: Readonly<Record<string, Confirmation.Track>>,
  at: DateTime.Utc,
  silence: Silence
): DateTime.Utc | undefined => {
  const names = [...new Set(regions)]
  if (names.length < 2) return undefined
  let next: DateTime.Utc | undefined
  for (const name of names) {
    const from = silentFrom(tracks[name], silence)
    if (from !== undefined && DateTime.greaterThan(from, at) && (next === undefined || DateTime.lessThan(from, next)))
      next = from
  }
  return next
}
