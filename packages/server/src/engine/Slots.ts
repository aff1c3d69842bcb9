/**
 * When a scheduled check runs: each target has a phase within its interval (from its id, so it is the same in
 * every process and the SQL functions of migration 0008 compute the same), and runs on the grid
 * `phase + k * interval`. Spreading phases over the interval is what keeps a thousand monitors on one interval from
 * firing in one instant; keeping the grid (the next run is the previous due time plus the interval, not the end of
 * the run plus the interval) is what keeps them from drifting together again.
 */
import * as DateTime from "effect/DateTime"

/**
 * The target's offset within its interval, in milliseconds: the id's last 32 bits (random in a v7 or v4 UUID)
 * modulo the interval. Mirrors `engine_phase_ms` in SQL.
 */
export const phaseMs = (id: string, intervalSecs: number): number =>
  Number.parseInt(id.replace(/-/g, "").slice(-8), 16) % (intervalSecs * 1000)

/** The first slot at or after `fromMs` on the target's grid. Mirrors `engine_first_run` in SQL. */
export const firstRunMs = (id: string, intervalSecs: number, fromMs: number): number => {
  const period = intervalSecs * 1000
  const phase = phaseMs(id, intervalSecs)
  return phase + Math.ceil((Math.floor(fromMs) - phase) / period) * period
}

/**
 * The slot after a run that was due at `dueMs`: the next one on the grid, skipping the slots already past at
 * `nowMs` (a worker that was down or behind does not fire a burst of catch-up runs).
 */
export const nextRunMs = (dueMs: number, intervalSecs: number, nowMs: number): number => {
  const period = intervalSecs * 1000
  const next = dueMs + period
  if (next > nowMs) return next
  return next + Math.ceil((nowMs - next + 1) / period) * period
}

/**
 * How late a run started after its slot, in milliseconds: a result is stamped when its check ends, so the start is
 * the stamp less the check's duration (the scheduler-lag series; negative within a timer's rounding).
 */
export const lateStartMs = (
  result: { readonly checked_at: DateTime.Utc; readonly duration_ms: number },
  dueMs: number
) => DateTime.toEpochMillis(result.checked_at) - result.duration_ms - dueMs
