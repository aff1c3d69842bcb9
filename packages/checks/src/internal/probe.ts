/**
 * What every connection probe shares: timing with Effect's clock, phase bookkeeping, and the one outer timeout
 * that bounds a whole check (the only way time turns a result into `error`).
 *
 * @internal
 */
import type { CheckStatus, Phases, ProbeOutcome } from "@signalman/core/CheckResult"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"

/**
 * Milliseconds, to the microsecond: loopback and LAN phases are often under a millisecond, and whole
 * milliseconds would report them as 0.
 *
 * @internal
 */
export const roundMs = (ms: number): number => Math.round(ms * 1000) / 1000

/**
 * A start mark on the clock's monotonic-enough nanosecond reading.
 *
 * @internal
 */
export const mark: Effect.Effect<bigint> = Clock.currentTimeNanos

/**
 * Milliseconds since `start`.
 *
 * @internal
 */
export const since = (start: bigint): Effect.Effect<number> =>
  Effect.map(Clock.currentTimeNanos, (now) => roundMs(Number(now - start) / 1_000_000))

/**
 * The phases a probe measures before the total.
 *
 * @internal
 */
export type PhaseTimes = Omit<Phases, "total_ms">

/**
 * Sums phase times (an http check adds each redirect hop's), so a check that times out still reports the
 * phases it finished.
 *
 * @internal
 */
export interface PhaseLog {
  readonly add: (times: PhaseTimes) => Effect.Effect<void>
}

/**
 * A probe's judgement, before the timings are attached.
 *
 * @internal
 */
export interface Verdict {
  readonly status: CheckStatus
  readonly error: string | null
  readonly details: Record<string, unknown> | null
}

const addTimes = (sum: PhaseTimes, times: PhaseTimes): PhaseTimes => {
  const next = { ...sum }
  for (const key of ["dns_ms", "connect_ms", "tls_ms", "first_byte_ms"] as const) {
    const value = times[key]
    if (value !== undefined) next[key] = roundMs((next[key] ?? 0) + value)
  }
  return next
}

/**
 * Runs a probe body under the check's timeout (seconds). The body's scope (its sockets) closes when it ends or
 * is cut off; on timeout `onTimeout` judges from what the body recorded so far.
 *
 * @internal
 */
export const run = <R>(options: {
  readonly timeoutSeconds: number
  readonly body: (log: PhaseLog) => Effect.Effect<Verdict, never, R | Scope.Scope>
  readonly onTimeout: (message: string) => Effect.Effect<Verdict>
}): Effect.Effect<ProbeOutcome, never, Exclude<R, Scope.Scope>> =>
  Effect.gen(function* () {
    const start = yield* mark
    const times = yield* Ref.make<PhaseTimes>({})
    const log: PhaseLog = { add: (more) => Ref.update(times, (sum) => addTimes(sum, more)) }
    const finished = yield* Effect.scoped(options.body(log)).pipe(
      Effect.timeoutOption(Duration.seconds(options.timeoutSeconds))
    )
    const verdict = yield* Option.match(finished, {
      onNone: () => options.onTimeout(`timed out after ${options.timeoutSeconds} s`),
      onSome: Effect.succeed
    })
    const total = yield* since(start)
    const phases: Phases = { ...(yield* Ref.get(times)), total_ms: total }
    return { status: verdict.status, duration_ms: total, error: verdict.error, details: verdict.details, phases }
  })
