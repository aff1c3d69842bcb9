/**
 * How often a heartbeat really pings, and whether its declared window fits (service-api.md "Heartbeat record"):
 * the observed period is the median gap between successes over 14 days, null until a second success; the advice
 * appears from the fifth success. `/start` and failure pings count in neither: only a finished, successful run
 * shows the job's cadence.
 *
 * @since 0.1.0
 */
import * as DateTime from "effect/DateTime"
import * as Duration from "effect/Duration"
import * as Schema from "effect/Schema"

/**
 * How far back successes count.
 *
 * @since 0.1.0
 * @category constants
 */
export const LOOKBACK = Duration.days(14)

/**
 * Successes needed before any advice is given.
 *
 * @since 0.1.0
 * @category constants
 */
export const MIN_SUCCESSES_FOR_ADVICE = 5

/**
 * `period + grace` this many times the real cadence or more is too loose.
 *
 * @since 0.1.0
 * @category constants
 */
export const TOO_LOOSE_FACTOR = 4

/**
 * The median of a list of numbers (the mean of the middle two for an even count); none for an empty list.
 *
 * @since 0.1.0
 * @category statistics
 */
export const median = (values: ReadonlyArray<number>): number | undefined => {
  if (values.length === 0) return undefined
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  const upper = sorted[middle] ?? 0
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? 0) + upper) / 2
}

// The successes inside the lookback, oldest first.
const recent = (successes: ReadonlyArray<DateTime.Utc>, now: DateTime.Utc): ReadonlyArray<number> => {
  const since = DateTime.toEpochMillis(now) - Duration.toMillis(LOOKBACK)
  return successes
    .map(DateTime.toEpochMillis)
    .filter((at) => at >= since)
    .sort((a, b) => a - b)
}

/**
 * The observed period in whole seconds (rounded to the nearest): the median gap between the successes of the last
 * 14 days, or null with fewer than two of them.
 *
 * @since 0.1.0
 * @category derivations
 */
export const observedPeriod = (successes: ReadonlyArray<DateTime.Utc>, now: DateTime.Utc): number | null => {
  const times = recent(successes, now)
  const gaps = times.slice(1).map((at, i) => at - (times[i] ?? at))
  const gap = median(gaps)
  return gap === undefined ? null : Math.round(gap / 1000)
}

/**
 * The advice of the record: the declared window misses the real cadence (`too_tight`) or is at least four times it
 * (`too_loose`), with a period that fits.
 *
 * @since 0.1.0
 * @category models
 */
export const CadenceAdvice = Schema.Struct({
  kind: Schema.Literal("too_tight", "too_loose"),
  suggested_period_secs: Schema.Int
}).annotations({ identifier: "CadenceAdvice" })

/**
 * @since 0.1.0
 * @category models
 */
export type CadenceAdvice = typeof CadenceAdvice.Type

const minPeriod = 60
const maxPeriod = 30 * 24 * 60 * 60

// Jobs run on minute boundaries (cron), so the suggestion is the observed cadence rounded up to a whole minute,
// within the period's allowed range. Rounding up keeps a too_tight suggestion at or above the real cadence.
const suggestPeriod = (observed: number): number =>
  Math.min(maxPeriod, Math.max(minPeriod, Math.ceil(observed / 60) * 60))

/**
 * The cadence advice for a heartbeat, or none: absent below five successes in the lookback, when the window fits,
 * and when the suggested period is the declared one (a job pinging faster than the 60 s floor would otherwise be
 * told to change nothing, forever).
 *
 * @since 0.1.0
 * @category derivations
 */
export const advise = (
  window: { readonly period: number; readonly grace: number },
  successes: ReadonlyArray<DateTime.Utc>,
  now: DateTime.Utc
): CadenceAdvice | undefined => {
  if (recent(successes, now).length < MIN_SUCCESSES_FOR_ADVICE) return undefined
  const observed = observedPeriod(successes, now)
  if (observed === null || observed <= 0) return undefined
  const span = window.period + window.grace
  const kind = observed > span ? "too_tight" : span >= TOO_LOOSE_FACTOR * observed ? "too_loose" : undefined
  if (kind === undefined) return undefined
  const suggested = suggestPeriod(observed)
  return suggested === window.period ? undefined : { kind, suggested_period_secs: suggested }
}
