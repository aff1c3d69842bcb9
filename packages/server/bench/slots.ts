/**
 * Judging a monitor's runs against its grid (src/engine/Slots.ts), as the engine, agents and scheduler benches do:
 * the slots due in a window, and which of them the origin saw run once, not at all, or more than once.
 */

/** An arrival this much before a due time belongs to that slot (and is early), not to the slot before. */
export const EARLY_MS = 100

/** Counts over every monitor judged, with the start lag of every run that fell in a due slot. */
export interface SlotTally {
  due: number
  ran: number
  missed: number
  doubled: number
  early: number
  readonly lags: Array<number>
}

export const emptyTally = (): SlotTally => ({ due: 0, ran: 0, missed: 0, doubled: 0, early: 0, lags: [] })

/**
 * Adds one monitor to `tally`: its slots due in [from, until) (its grid is `phase` plus whole `period`s), and its
 * arrivals at the origin, each put in the last slot at or `EARLY_MS` before it; an arrival outside those slots
 * (before the window, or in its tail) is not counted.
 */
export const judgeMonitor = (
  tally: SlotTally,
  grid: { readonly phase: number; readonly period: number },
  from: number,
  until: number,
  arrivals: Iterable<number>
): void => {
  const { period, phase } = grid
  const slots = new Map<number, number>()
  for (let slot = phase + Math.ceil((from - phase) / period) * period; slot < until; slot += period) slots.set(slot, 0)
  tally.due += slots.size
  for (const at of arrivals) {
    const slot = phase + Math.floor((at + EARLY_MS - phase) / period) * period
    const seen = slots.get(slot)
    if (seen === undefined) continue
    if (at < slot) tally.early++
    slots.set(slot, seen + 1)
    tally.lags.push(at - slot)
    tally.ran++
  }
  for (const n of slots.values()) {
    if (n === 0) tally.missed++
    if (n > 1) tally.doubled += n - 1
  }
}
