/**
 * The database's clock as a worker reads it. Due times and leases are the database's (`now()` in the claim), while
 * a worker starts each check when its own clock reaches the due time and stamps the result with its own clock: a
 * worker whose clock is 30 s behind would hold every claimed run for 30 s (and could start it past its lease, when
 * another worker may run it too); one 30 s ahead would run each check as soon as it is claimed, stamp its result
 * 30 s in the future and move its row 30 s on, skipping slots (docs/faults.md, "One worker's clock 30 s off").
 *
 * So the scheduler runs each claimed batch on the database's clock: the claim answers two readings of it (`now()`,
 * the statement's start, and `clock_timestamp()`, as its rows were made), which with the worker's clock before and
 * after the round trip bound the offset between the two clocks, as an agent bounds its own from a `Date` header
 * (packages/agent/src/Skew.ts). Each claim's bounds narrow those of the claims before (the offset lies in all of
 * them), so the estimate tightens to the quickest round trip seen; bounds that no longer meet (a clock was stepped)
 * start again from the latest claim. Clocks in step (the bounds hold zero) get no correction at all; otherwise the
 * lower bound is taken, so a check never starts before its due time on the database's clock, and is late (and its
 * result stamped early) by at most the width of the bounds.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

/** The database's clock less this process's, in milliseconds. */
export type Offset = number

/** The readings of one claim: the database's two, and this process's on sending it and on its answer. */
export interface Readings {
  /** `now()`: when the statement began, on the database's clock. */
  readonly dbStartMs: number
  /** `clock_timestamp()`: as the statement made its rows, on the database's clock. */
  readonly dbEndMs: number
  readonly sentMs: number
  readonly receivedMs: number
}

/** Where the offset lies: at least `low`, at most `high`. */
export interface Bounds {
  readonly low: number
  readonly high: number
}

/**
 * The bounds one claim shows: the database read `dbStartMs` after the claim was sent and `dbEndMs` before its
 * answer came, so the offset lies in `[dbEndMs - receivedMs, dbStartMs - sentMs]`.
 */
export const boundsOf = ({ dbEndMs, dbStartMs, receivedMs, sentMs }: Readings): Bounds => ({
  low: dbEndMs - receivedMs,
  high: dbStartMs - sentMs
})

/** The bounds so far narrowed by a claim's: where they meet; the claim's alone when they do not (a clock stepped). */
export const narrow = (previous: Bounds | undefined, latest: Bounds): Bounds => {
  if (previous === undefined) return latest
  const low = Math.max(previous.low, latest.low)
  const high = Math.min(previous.high, latest.high)
  return low <= high ? { low, high } : latest
}

/** The offset to run on: zero when the bounds hold zero, otherwise their lower end, which never runs a check early. */
export const offsetOf = ({ high, low }: Bounds): Offset => (low <= 0 && high >= 0 ? 0 : Math.round(low))

/** This process's clock moved by `offset`: the database's time, for the runs of one claim. Timers are unchanged. */
export const shifted = (offset: Offset): Clock.Clock => {
  const local = Clock.make()
  if (offset === 0) return local
  const nanos = BigInt(offset) * 1_000_000n
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => local.unsafeCurrentTimeMillis() + offset,
    currentTimeMillis: Effect.sync(() => local.unsafeCurrentTimeMillis() + offset),
    unsafeCurrentTimeNanos: () => local.unsafeCurrentTimeNanos() + nanos,
    currentTimeNanos: Effect.sync(() => local.unsafeCurrentTimeNanos() + nanos),
    sleep: (duration) => local.sleep(duration)
  }
}
