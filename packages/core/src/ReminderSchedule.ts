/**
 * The reminder-gap law (service-api.md "Alert config": `renotify_interval_secs`): the first reminder comes one
 * interval after the incident opened, each further one after double the previous gap, capped at one day; an
 * interval already longer than a day keeps its own cadence. An interval of 0 sends no reminders.
 *
 * @since 0.1.0
 */
import * as DateTime from "effect/DateTime"

/**
 * The longest gap doubling may reach, in seconds (one day).
 *
 * @since 0.1.0
 * @category constants
 */
export const GAP_CAP_SECS = 86400

/**
 * The gap in seconds before reminder number `sent + 1`, once `sent` reminders have gone out; undefined when
 * reminders are off.
 *
 * @since 0.1.0
 * @category schedule
 */
export const gap = (intervalSecs: number, sent: number): number | undefined => {
  if (intervalSecs <= 0) return undefined
  if (intervalSecs > GAP_CAP_SECS) return intervalSecs
  // Doubling stops at the cap, so a long outage never overflows to Infinity or wraps.
  let secs = intervalSecs
  for (let i = 0; i < sent && secs < GAP_CAP_SECS; i++) secs *= 2
  return Math.min(secs, GAP_CAP_SECS)
}

/**
 * When the next reminder is due, counted from `from` (when the previous notification was due), or undefined
 * when reminders are off.
 *
 * @since 0.1.0
 * @category schedule
 */
export const nextAt = (from: DateTime.Utc, intervalSecs: number, sent: number): DateTime.Utc | undefined => {
  const secs = gap(intervalSecs, sent)
  return secs === undefined ? undefined : DateTime.add(from, { seconds: secs })
}
