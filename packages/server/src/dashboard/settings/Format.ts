/**
 * How the settings pages write moments, durations and quantities: dates in UTC (the server does not know the
 * reader's zone, and a fixed zone reads the same for everyone on a team) inside `<time>` carrying the exact instant,
 * with how long ago or ahead it is in words, so a list of sessions or tokens is read at a glance.
 */
import * as DateTime from "effect/DateTime"
import { type Html, html } from "../Template.js"

export type Instant = Date | DateTime.DateTime

const toDate = (instant: Instant): Date => (instant instanceof Date ? instant : DateTime.toDateUtc(instant))

const pad = (n: number) => String(n).padStart(2, "0")

/** `2025-03-04 05:06 UTC`. */
export const utc = (instant: Instant): string => {
  const d = toDate(instant)
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`
}

const units: ReadonlyArray<readonly [string, number]> = [
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000]
]

/** `3 minutes ago`, `in 29 days`, `just now`: the largest whole unit, rounded down. */
export const relative = (instant: Instant, now: Date): string => {
  const delta = toDate(instant).getTime() - now.getTime()
  const span = Math.abs(delta)
  for (const [unit, ms] of units) {
    const count = Math.floor(span / ms)
    if (count >= 1) {
      const words = `${count} ${unit}${count === 1 ? "" : "s"}`
      return delta < 0 ? `${words} ago` : `in ${words}`
    }
  }
  return "just now"
}

/** The instant for people (UTC) and machines (`datetime`), with its distance from now in words. */
export const time = (instant: Instant, now: Date): Html => {
  const d = toDate(instant)
  return html`<time datetime="${d.toISOString()}">${utc(d)}</time> <span class="muted">(${relative(d, now)})</span>`
}

/** The distance from now in words, for a table's cell; the exact instant rides along for machines and hovering. */
export const ago = (instant: Instant, now: Date): Html => {
  const d = toDate(instant)
  return html`<time datetime="${d.toISOString()}" title="${utc(d)}">${relative(d, now)}</time>`
}

/** `1 monitor`, `3 monitors`. */
export const count = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`

/** `1 MiB`, `512 KiB`, `300 bytes`: the plan's byte figures. */
export const bytes = (n: number): string => {
  if (n >= 1_048_576 && n % 1_048_576 === 0) return `${n / 1_048_576} MiB`
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`
  return count(n, "byte")
}
