/**
 * What every connection probe shares: timing with Effect's clock, phase bookkeeping, and the one outer timeout
 * that bounds a whole check (the only way time turns a result into `error`).
 *
 * @internal
 */
import type { CheckStatus, Phases, ProbeOutcome } from "@signalman/core/CheckResult"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"

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
 * A resource made and freed by plain synchronous calls (a socket, an undici client), freed when the scope closes.
 * Unlike `Effect.acquireRelease`, the release does not run with the acquiring fiber's FiberRefs restored: that
 * restoring diffs and patches every FiberRef twice, and profiling the probe benchmark showed it costing a check more
 * than closing its socket. A release that is one synchronous call has no use for it.
 *
 * @internal
 */
export const owned = <A>(acquire: () => A, release: (resource: A) => void): Effect.Effect<A, never, Scope.Scope> =>
  Effect.flatMap(Effect.scope, (scope) =>
    Effect.uninterruptible(
      Effect.suspend(() => {
        const resource = acquire()
        return Effect.as(
          Scope.addFinalizer(
            scope,
            Effect.sync(() => release(resource))
          ),
          resource
        )
      })
    )
  )

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
 * `self` with a deadline: some value if it ends within `ms`, none once it has been cut off (interrupted, its
 * finalizers run). It does what `Effect.timeoutOption` does with one fiber instead of two and a race: the
 * benchmark (docs/probes.md) showed the race costing a check about as much as the rest of its bookkeeping. The
 * deadline is a real timer, not Effect's Clock: it bounds real I/O, which a TestClock could not move either.
 * Interrupting the caller interrupts `self` too.
 */
const within = <A, R>(self: Effect.Effect<A, never, R>, ms: number): Effect.Effect<Option.Option<A>, never, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(Effect.fork(restore(self)), (fiber) =>
      restore(
        Effect.async<Option.Option<A>>((resume) => {
          let settled = false
          const timer = setTimeout(() => {
            if (settled) return
            settled = true
            resume(Effect.as(Fiber.interrupt(fiber), Option.none()))
          }, ms)
          fiber.addObserver((exit) => {
            if (settled) return
            settled = true
            clearTimeout(timer)
            resume(Exit.isSuccess(exit) ? Effect.succeed(Option.some(exit.value)) : Effect.failCause(exit.cause))
          })
          return Effect.sync(() => {
            settled = true
            clearTimeout(timer)
          })
        })
      ).pipe(Effect.onInterrupt(() => Fiber.interrupt(fiber)))
    )
  )

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
    const finished = yield* within(Effect.scoped(options.body(log)), options.timeoutSeconds * 1000)
    const verdict = yield* Option.match(finished, {
      onNone: () => options.onTimeout(`timed out after ${options.timeoutSeconds} s`),
      onSome: Effect.succeed
    })
    const total = yield* since(start)
    const phases: Phases = { ...(yield* Ref.get(times)), total_ms: total }
    return { status: verdict.status, duration_ms: total, error: verdict.error, details: verdict.details, phases }
  })
