/**
 * Instants on a page. The server does not know the viewer's time zone, so an instant is written in UTC inside a
 * `<time datetime>` carrying the exact instant, and the script (`client/times.ts`) rewrites it in the viewer's zone;
 * without the script the page reads in UTC and says so. `datetime-local` inputs get the same treatment: a UTC value
 * the script replaces, and `data-type="instant"` sends it back as an RFC 3339 instant. Durations are plain words.
 */
import * as DateTime from "effect/DateTime"
import { type Html, html } from "./Template.js"

const pad = (n: number) => String(n).padStart(2, "0")

const toDate = (at: DateTime.Utc | Date): Date => (at instanceof Date ? at : DateTime.toDateUtc(at))

/** `2026-05-01 22:00 UTC`: what a page says before the script puts it in the viewer's zone. */
export const utcText = (at: DateTime.Utc | Date): string => {
  const d = toDate(at)
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`
  )
}

/** An instant as a `<time>` the script shows in the viewer's zone. */
export const time = (at: DateTime.Utc | Date): Html => {
  const d = toDate(at)
  return html`<time datetime="${d.toISOString()}" data-local>${utcText(d)}</time>`
}

/**
 * A `datetime-local` input's value for an instant, in UTC (the script rewrites it in the viewer's zone): minutes,
 * with seconds and milliseconds only when the instant has them, so sending it back unchanged keeps the instant.
 */
export const localValue = (at: DateTime.Utc | Date): string => {
  const d = toDate(at)
  const iso = d.toISOString()
  const minutes = iso.slice(0, 16)
  if (d.getUTCSeconds() === 0 && d.getUTCMilliseconds() === 0) return minutes
  return d.getUTCMilliseconds() === 0 ? iso.slice(0, 19) : iso.slice(0, 23)
}

/** Whether an instant falls off the minute, so its input needs a finer `step` than the default minute. */
export const offMinute = (at: DateTime.Utc | Date): boolean => {
  const d = toDate(at)
  return d.getUTCSeconds() !== 0 || d.getUTCMilliseconds() !== 0
}

/** The words the page uses for the zone its times are in; the script names the viewer's zone instead. */
export const zoneNote: Html = html`<span data-time-zone>UTC</span>`

/**
 * A duration in words, to the unit people think in: `45 s`, `12 min`, `3 h 5 min`, `2 d 4 h`. Negative durations
 * (clocks disagreeing by a moment) read as none.
 */
export const duration = (millis: number): string => {
  const seconds = Math.max(0, Math.floor(millis / 1000))
  if (seconds < 60) return `${seconds} s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes} min`
  const hours = Math.floor(minutes / 60)
  if (hours < 24) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`
  const days = Math.floor(hours / 24)
  return hours % 24 === 0 ? `${days} d` : `${days} d ${hours % 24} h`
}

/** The time between two instants in words (see `duration`). */
export const between = (from: DateTime.Utc | Date, to: DateTime.Utc | Date): string =>
  duration(toDate(to).getTime() - toDate(from).getTime())
