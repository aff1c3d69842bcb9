/**
 * The recent-results bar's shaping: each of a monitor's latest results as a mark with its status and a text that
 * says what the colour shows (status, when, from where when the monitor runs in several regions, how long or why it
 * failed), and a sentence for the whole bar. Times are UTC, as the server cannot know the reader's zone.
 */
import type { CheckStatus } from "@signalman/core/CheckResult"
import type { Beat } from "../../engine/MonitorFigures.js"

export interface Mark {
  readonly status: CheckStatus
  readonly label: string
}

export interface Bar {
  readonly marks: ReadonlyArray<Mark>
  /** The whole bar in words: how many results, of which statuses, and the latest. */
  readonly summary: string
}

const DAY = 86_400_000
const MAX_ERROR = 100
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const

export const statusWords: Readonly<Record<CheckStatus, string>> = {
  up: "Up",
  degraded: "Degraded",
  down: "Down",
  error: "Error"
}

const two = (n: number) => String(n).padStart(2, "0")

/** `14:03:09 UTC` within a day of `now`, `3 May 14:03 UTC` before. */
export const when = (at: Date, now: Date): string => {
  const time = `${two(at.getUTCHours())}:${two(at.getUTCMinutes())}`
  return now.getTime() - at.getTime() < DAY
    ? `${time}:${two(at.getUTCSeconds())} UTC`
    : `${at.getUTCDate()} ${MONTHS[at.getUTCMonth()]} ${time} UTC`
}

/** A duration as people read it: `85 ms`, `1.2 s`. */
export const duration = (ms: number): string => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`)

const shorten = (text: string) => {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length <= MAX_ERROR ? line : `${line.slice(0, MAX_ERROR - 1)}…`
}

/**
 * The text of one result's mark: what it found, when, from where, then how long it took (an `error` result measured
 * nothing) and why it failed.
 */
export const label = (beat: Beat, now: Date, withRegion: boolean): string => {
  const where = withRegion ? ` from ${beat.region}` : ""
  const details = [
    ...(beat.status === "error" ? [] : [duration(beat.durationMs)]),
    ...(beat.error === null ? [] : [shorten(beat.error)])
  ]
  return `${statusWords[beat.status]} at ${when(beat.at, now)}${where}${details.length === 0 ? "" : `: ${details.join(", ")}`}`
}

/** The bar of `beats` (oldest first). */
export const bar = (beats: ReadonlyArray<Beat>, now: Date): Bar => {
  if (beats.length === 0) return { marks: [], summary: "No recent results" }
  const withRegion = new Set(beats.map((b) => b.region)).size > 1
  const counts = new Map<CheckStatus, number>()
  for (const beat of beats) counts.set(beat.status, (counts.get(beat.status) ?? 0) + 1)
  const parts = (["up", "degraded", "down", "error"] as const).flatMap((status) => {
    const n = counts.get(status)
    return n === undefined ? [] : [`${n} ${statusWords[status].toLowerCase()}`]
  })
  const latest = beats[beats.length - 1]
  const noun = beats.length === 1 ? "result" : "results"
  return {
    marks: beats.map((beat) => ({ status: beat.status, label: label(beat, now, withRegion) })),
    summary: `Last ${beats.length} ${noun}, oldest first: ${parts.join(", ")}${
      latest === undefined ? "" : `; latest ${statusWords[latest.status].toLowerCase()} at ${when(latest.at, now)}`
    }`
  }
}
