/**
 * How the monitor detail page writes times, spans, latencies, percentages and statuses. Times are UTC and say so
 * (the page is rendered on the server, which does not know the reader's zone), inside `<time datetime>` so assistive
 * technology and scripts get the exact instant.
 */
import * as DateTime from "effect/DateTime"
import { type Html, html } from "../Template.js"

const pad = (n: number) => String(n).padStart(2, "0")

/** `2026-05-01 14:02 UTC` (with seconds when asked). */
export const utc = (at: Date, seconds = false): string =>
  `${at.getUTCFullYear()}-${pad(at.getUTCMonth() + 1)}-${pad(at.getUTCDate())} ${pad(at.getUTCHours())}:${pad(
    at.getUTCMinutes()
  )}${seconds ? `:${pad(at.getUTCSeconds())}` : ""} UTC`

/** A `Date` from either form the services answer. */
export const toDate = (at: Date | DateTime.Utc): Date => (at instanceof Date ? at : DateTime.toDate(at))

/** An instant as a `<time>` element. */
export const time = (at: Date | DateTime.Utc, seconds = false): Html => {
  const date = toDate(at)
  return html`<time datetime="${date.toISOString()}">${utc(date, seconds)}</time>`
}

/** A span in words, two units at most: `45 s`, `3 min 20 s`, `2 h 5 min`, `3 d 4 h`. */
export const span = (ms: number): string => {
  const secs = Math.max(0, Math.round(ms / 1000))
  if (secs < 60) return `${secs} s`
  const mins = Math.floor(secs / 60)
  if (mins < 60) return secs % 60 === 0 ? `${mins} min` : `${mins} min ${secs % 60} s`
  const hours = Math.floor(mins / 60)
  if (hours < 24) return mins % 60 === 0 ? `${hours} h` : `${hours} h ${mins % 60} min`
  const days = Math.floor(hours / 24)
  return hours % 24 === 0 ? `${days} d` : `${days} d ${hours % 24} h`
}

/** Seconds as a period in words (`1 h`, `1 d 12 h`). */
export const seconds = (secs: number): string => span(secs * 1000)

/** A latency: `84 ms`, `1.27 s`; a dash for none. */
export const millis = (ms: number | null | undefined): string => {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "–"
  if (ms < 1000) return `${Math.round(ms)} ms`
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`
}

/**
 * An uptime percentage that never rounds a failure away: 99.999 stays below 100 (`99.99 %` floors rather than
 * rounding up), and a whole 100 is written as such.
 */
export const percent = (pct: number | null): string => {
  if (pct === null) return "No data"
  if (pct >= 100) return "100 %"
  return `${(Math.floor(pct * 100) / 100).toFixed(2)} %`
}

/** The words for a check status. */
export const statusWords: Readonly<Record<string, string>> = {
  up: "Up",
  degraded: "Degraded",
  down: "Down",
  error: "Error",
  paused: "Paused",
  pending: "Pending",
  unknown: "Unknown"
}

/** A status in words, marked by its colour class (the word carries the meaning; the colour repeats it). */
export const status = (value: string): Html =>
  html`<span class="state state-${statusWords[value] === undefined ? "unknown" : value}">${
    statusWords[value] ?? value
  }</span>`

/** The words for a monitor's kind: the overview's, so a kind reads the same on every page. */
export { kindWords } from "./Rows.js"
