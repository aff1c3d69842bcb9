/**
 * What every connection probe shares: timing with Effect's clock, phase bookkeeping, and the one outer timeout
 * that bounds a whole check (the only way time turns a result into `error`). The timeout is a deadline with one
 * timer: a body whose waits are plain steps (the http probe's hops) is cut off by that timer without a second
 * fiber; a body written as one scoped Effect ({@link run}) runs in a fiber the deadline interrupts.
 *
 * @internal
 */
import type { CheckStatus, Phases, ProbeOutcome } from "@signalman/core/CheckResult"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
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
 * phases it finished. `record` is for plain callback code (a hop's socket events); `add` is the same as an Effect.
 *
 * @internal
 */
export interface PhaseLog {
  readonly record: (times: PhaseTimes) => void
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
 * The failure of a step cut off by the check's deadline.
 *
 * @internal
 */
export interface TimedOut {
  readonly _tag: "TimedOut"
}

const timedOut: TimedOut = { _tag: "TimedOut" }
const failTimedOut: Effect.Effect<never, TimedOut> = Effect.fail(timedOut)

/**
 * The check's deadline: one timer for the whole check. A body bounds each of its waits by it, so the check needs
 * no second fiber to race it against: a plain step ({@link Deadline.step}) is aborted by the timer itself, and only
 * an Effect that cannot be aborted that way ({@link Deadline.bound}, e.g. a resolver lookup) runs in a fiber of its
 * own. Once the deadline has passed, every step fails with {@link TimedOut} at once.
 *
 * @internal
 */
export interface Deadline {
  /**
   * One asynchronous step in plain code: `start` is given the callback to call once with its value and answers
   * how to abort it. At the deadline the step is aborted (it must then close whatever it opened and never call
   * back) and fails with `TimedOut`; a step the check's interruption leaves behind is aborted when the check's run
   * ends ({@link runBounded}), so a step needs no finalizer of its own.
   */
  readonly step: <A>(start: (done: (value: A) => void) => () => void) => Effect.Effect<A, TimedOut>
  /** `self` in a fiber of its own, interrupted (its finalizers run) at the deadline, which fails with `TimedOut`. */
  readonly bound: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E | TimedOut, R>
}

// The deadline's state: what to cut off when the timer fires or the run ends (steps run one after the other, so it
// holds one entry, two when a bounded Effect itself runs steps).
class Countdown implements Deadline {
  expired = false
  readonly inFlight = new Set<Flight>()
  readonly timer: ReturnType<typeof setTimeout>

  constructor(ms: number) {
    this.timer = setTimeout(() => this.expire(), ms)
  }

  expire(): void {
    this.expired = true
    for (const flight of [...this.inFlight]) flight.expire()
  }

  // The run is over (done, failed or interrupted): no timer left behind, no step left running.
  close(): void {
    clearTimeout(this.timer)
    for (const flight of [...this.inFlight]) flight.cut()
  }

  step<A>(start: (done: (value: A) => void) => () => void): Effect.Effect<A, TimedOut> {
    return Effect.async<A, TimedOut>((resume) => {
      if (this.expired) return resume(failTimedOut)
      const flight = new Step(this.inFlight, resume)
      flight.abort = start((value) => flight.settle(value))
    })
  }

  bound<A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | TimedOut, R> {
    return Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(Effect.fork(restore(self)), (fiber) =>
        restore(
          Effect.async<A, E | TimedOut>((resume) => {
            if (this.expired) return resume(Effect.zipRight(Fiber.interrupt(fiber), failTimedOut))
            let over = false
            const flight: Flight = {
              expire: () => {
                if (over) return
                over = true
                this.inFlight.delete(flight)
                resume(Effect.zipRight(Fiber.interrupt(fiber), failTimedOut))
              },
              cut: () => {
                over = true
                this.inFlight.delete(flight)
              }
            }
            this.inFlight.add(flight)
            fiber.addObserver((exit) => {
              if (over) return
              over = true
              this.inFlight.delete(flight)
              resume(exit)
            })
            return Effect.sync(flight.cut)
          })
        ).pipe(Effect.onInterrupt(() => Fiber.interrupt(fiber)))
      )
    )
  }
}

// Something in flight under the deadline: `expire` cuts it off and fails it, `cut` only stops it.
interface Flight {
  readonly expire: () => void
  readonly cut: () => void
}

// One plain step in flight: settled once, by its value, the deadline or the end of the run.
class Step<A> implements Flight {
  over = false
  abort: (() => void) | undefined = undefined

  constructor(
    readonly inFlight: Set<Flight>,
    readonly resume: (effect: Effect.Effect<A, TimedOut>) => void
  ) {
    inFlight.add(this)
  }

  settle(value: A): void {
    if (this.over) return
    this.over = true
    this.inFlight.delete(this)
    this.resume(Effect.succeed(value))
  }

  cut(): void {
    if (this.over) return
    this.over = true
    this.inFlight.delete(this)
    this.abort?.()
  }

  expire(): void {
    if (this.over) return
    this.cut()
    this.resume(failTimedOut)
  }
}

const timeoutMessage = (seconds: number): string => `timed out after ${seconds} s`

/**
 * Runs a probe body under the check's timeout (seconds), the body bounding its own waits by the deadline it is
 * given. On timeout `onTimeout` judges from what the body recorded so far. However the body ends (interrupted
 * too), the timer is cleared and whatever step it left in flight is aborted.
 *
 * @internal
 */
export const runBounded = <R>(options: {
  readonly timeoutSeconds: number
  readonly body: (log: PhaseLog, deadline: Deadline) => Effect.Effect<Verdict, TimedOut, R>
  readonly onTimeout: (message: string) => Effect.Effect<Verdict>
}): Effect.Effect<ProbeOutcome, never, R> =>
  Effect.flatMap(mark, (start) =>
    // Uninterruptible from the timer's start until the hook that clears it is in place; the body is interruptible.
    Effect.uninterruptibleMask((restore) => {
      let times: PhaseTimes = {}
      const record = (more: PhaseTimes): void => {
        times = addTimes(times, more)
      }
      const log: PhaseLog = { record, add: (more) => Effect.sync(() => record(more)) }
      const deadline = new Countdown(options.timeoutSeconds * 1000)
      const outcome = (verdict: Verdict): Effect.Effect<ProbeOutcome> =>
        Effect.map(since(start), (total): ProbeOutcome => {
          const phases: Phases = { ...times, total_ms: total }
          return { status: verdict.status, duration_ms: total, error: verdict.error, details: verdict.details, phases }
        })
      return Effect.onExit(
        restore(
          Effect.matchEffect(options.body(log, deadline), {
            onFailure: () => Effect.flatMap(options.onTimeout(timeoutMessage(options.timeoutSeconds)), outcome),
            onSuccess: outcome
          })
        ),
        () => Effect.sync(() => deadline.close())
      )
    })
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
  runBounded<Exclude<R, Scope.Scope>>({
    timeoutSeconds: options.timeoutSeconds,
    body: (log, deadline) => deadline.bound(Effect.scoped(options.body(log))),
    onTimeout: options.onTimeout
  })
