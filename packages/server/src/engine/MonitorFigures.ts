/**
 * The figures the monitors overview shows for each of many monitors, shaped from the batched reads
 * (`EngineRepo.recent`, `rollups`: one row per monitor each): the latest results oldest first, the mean response time
 * of each hour of the last day, and uptime over 24 hours and 30 days. Uptime here is read from the rollups, as the dashboard
 * summary's `last_24h` is (time based: up and degraded seconds over judged seconds; errors count as neither), so a
 * page of monitors costs a few index range scans rather than a scan of every raw result; the monitor's own
 * `/uptime` also leaves out maintenance windows and recovery stretches (docs/dashboard.md, "The monitors overview").
 */
import type { CheckStatus } from "@signalman/core/CheckResult"
import type { RecentRow, RollupRow } from "./Repo.js"

const HOUR = 3_600_000
const DAY = 24 * HOUR

/** How many latest results the recent-results bar shows. */
export const RECENT = 30

/** One result of the bar. */
export interface Beat {
  readonly at: Date
  readonly region: string
  readonly status: CheckStatus
  readonly durationMs: number
  readonly error: string | null
}

/** One hour of the response-time series: the mean of its measured results, null when none measured. */
export interface HourPoint {
  readonly start: Date
  readonly meanMs: number | null
}

export interface Figures {
  /** The latest results, oldest first (at most `RECENT`). */
  readonly recent: ReadonlyArray<Beat>
  /** Every hour from `Windows.dayFrom` to the current one, oldest first. */
  readonly hours: ReadonlyArray<HourPoint>
  readonly uptimeDay: number | null
  readonly uptimeMonth: number | null
}

/** The windows the figures cover, from the hour (and, for 30 days, the UTC day) boundaries the rollups use. */
export interface Windows {
  readonly now: Date
  /** The hour 24 hours ago: the day's figures are the hourly rollups from here. */
  readonly dayFrom: Date
  /** The hour 30 days ago. */
  readonly monthFrom: Date
  /** The first UTC midnight at or after `monthFrom`: whole days from the daily rollups, the hours before from the hourly. */
  readonly monthDay: Date
}

const floorTo = (ms: number, unit: number) => Math.floor(ms / unit) * unit

export const windows = (now: Date): Windows => {
  const monthFrom = floorTo(now.getTime() - 30 * DAY, HOUR)
  return {
    now,
    dayFrom: new Date(floorTo(now.getTime() - DAY, HOUR)),
    monthFrom: new Date(monthFrom),
    monthDay: new Date(Math.ceil(monthFrom / DAY) * DAY)
  }
}

/** Up over judged time, as a percentage; null until something was judged. */
export const uptimePct = (upSecs: number, downSecs: number): number | null => {
  const judged = upSecs + downSecs
  return judged <= 0 ? null : (100 * upSecs) / judged
}

/** The hours of the day window, each with its mean (null for an hour without a rollup or a measured result). */
export const hourSeries = (
  starts: ReadonlyArray<number>,
  means: ReadonlyArray<number | null>,
  w: Windows
): ReadonlyArray<HourPoint> => {
  const byStart = new Map(starts.map((start, i) => [start, means[i] ?? null]))
  const points: Array<HourPoint> = []
  for (let at = w.dayFrom.getTime(); at <= w.now.getTime(); at += HOUR) {
    points.push({ start: new Date(at), meanMs: byStart.get(at) ?? null })
  }
  return points
}

/** A monitor's latest results (at most `RECENT`, oldest first) from its row of parallel arrays. */
export const beats = (row: RecentRow): ReadonlyArray<Beat> =>
  row.at
    .map((at, i) => ({
      at: new Date(at),
      region: row.regions[i] ?? "",
      status: row.statuses[i] ?? "error",
      durationMs: row.durations[i] ?? 0,
      error: row.errors[i] ?? null
    }))
    .slice(-RECENT)

/** Each monitor's figures from the batched rows (a monitor without rows gets empty figures). */
export const shape = (
  ids: ReadonlyArray<string>,
  rows: { readonly recent: ReadonlyArray<RecentRow>; readonly rollups: ReadonlyArray<RollupRow> },
  w: Windows
): ReadonlyMap<string, Figures> => {
  const recent = new Map(rows.recent.map((row) => [row.target_id, row]))
  const rollups = new Map(rows.rollups.map((row) => [row.target_id, row]))
  return new Map(
    ids.map((id) => {
      const own = recent.get(id)
      const sums = rollups.get(id)
      const figures: Figures = {
        recent: own === undefined ? [] : beats(own),
        hours: hourSeries(sums?.starts ?? [], sums?.means ?? [], w),
        uptimeDay: sums === undefined ? null : uptimePct(sums.day_up, sums.day_down),
        uptimeMonth: sums === undefined ? null : uptimePct(sums.month_up, sums.month_down)
      }
      return [id, figures] as const
    })
  )
}
