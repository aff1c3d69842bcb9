/**
 * Runs batches of due checks for the engine: the server's scheduler runs every claimed batch of the `local` region
 * through it, and a remote probe agent is to run its leased jobs the same way. Each job starts no earlier than its
 * due time, runs through {@link Probe.run} (under the probe's own deadline, its timeout), at most
 * `checker.max_concurrency` in flight in the whole process, and under the per-host {@link Throttle}, so a job whose
 * (org, host, port) is already at `checker.per_host_max_inflight` is dropped, not queued (the spec's over-cap tick).
 * A job that cannot start by its deadline (its lease's end: past it another worker may hold the job) is not run.
 * `run` answers the results in the order of the jobs, each with its job; `runEach` hands each result to the caller
 * as its job finishes and keeps none (the scheduler's way).
 *
 * The concurrency bound is one set of permits per runner (first come, first served), shared by every batch it
 * runs: two batches started at once (two scheduler ticks) still hold at most `maxConcurrency` checks in flight
 * between them. A job waits for its due time and then for a permit before it asks the throttle, so a job waiting
 * for either holds no host slot it is not using, and a job waiting for its due time holds no permit either.
 *
 * @since 0.1.0
 */
import type { ProbeOutcome } from "@signalman/core/CheckResult"
import type { CheckSpec } from "@signalman/core/CheckSpec"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Permits from "./internal/permits.js"
import * as Probe from "./Probe.js"
import * as Throttle from "./Throttle.js"

/**
 * One check to run: its spec, the org it runs for (the throttle counts per org) and, optionally, when it is due.
 * Callers may extend it (a target id, a lease): each result carries its job back unchanged.
 *
 * @since 0.1.0
 * @category models
 */
export interface Job {
  readonly org: string
  readonly spec: CheckSpec
  /**
   * When the check is due, in epoch milliseconds of the `Clock`: it starts no earlier (a scheduler claims work
   * ahead of time so that each check can start on time). Absent or past: at once.
   */
  readonly dueMs?: number | undefined
  /**
   * The latest the check may start, in epoch milliseconds of the `Clock`: the end of the caller's lease on the
   * job, past which another worker may have taken it. A job still waiting for a permit then is not run
   * (`Expired`). Absent: no deadline.
   */
  readonly deadlineMs?: number | undefined
  /** The monitor this job is a run of, named on the run's trace span (`signalman.target_id`) when tracing is on. */
  readonly target?: string | undefined
}

/**
 * The span of one run, `signalman.check`, when Effect's tracing is on: the check's kind, its status once it ran, and
 * the job's target. The region is the caller's to add (`Effect.annotateSpans` around the batch), since a runner does
 * not know where it runs. With tracing off this costs one fiber-ref read per check and no span at all.
 *
 * @since 0.1.0
 * @category constants
 */
export const CHECK_SPAN = "signalman.check"

/**
 * Runs `spec`'s probe under a {@link CHECK_SPAN} span when tracing is on (`target`, when given, is named on it);
 * the runner runs every job through it, and so may a caller that runs a single check itself (check-now).
 *
 * @since 0.1.0
 * @category combinators
 */
export const traced = (
  spec: CheckSpec,
  target?: string | undefined
): Effect.Effect<ProbeOutcome, Probe.Unprobeable, Probe.Environment> =>
  Effect.withFiberRuntime((fiber) => {
    if (!fiber.getFiberRef(FiberRef.currentTracerEnabled)) return Probe.run(spec)
    const attributes: Record<string, string> = { "signalman.check.kind": spec.type }
    if (target !== undefined) attributes["signalman.target_id"] = target
    return Effect.useSpan(CHECK_SPAN, { attributes, captureStackTrace: false }, (span) =>
      Effect.tap(Probe.run(spec), (outcome) => span.attribute("signalman.check.status", outcome.status))
    )
  })

/**
 * What became of one job: `Ran` with the probe's outcome, `Dropped` by the per-host throttle (no result is written,
 * no alert fires), `Expired` (its deadline passed before it could start: not run), `Unprobeable` (a heartbeat
 * or manual spec, which has no probe), or `Died` (the probe had a defect, a bug: the cause is there
 * for the caller to log; the rest of the batch runs on).
 *
 * @since 0.1.0
 * @category models
 */
export type Result<J extends Job = Job> =
  | { readonly _tag: "Ran"; readonly job: J; readonly outcome: ProbeOutcome }
  | { readonly _tag: "Dropped"; readonly job: J; readonly key: Throttle.Key }
  | { readonly _tag: "Expired"; readonly job: J }
  | { readonly _tag: "Unprobeable"; readonly job: J; readonly error: Probe.Unprobeable }
  | { readonly _tag: "Died"; readonly job: J; readonly cause: Cause.Cause<never> }

/**
 * How many jobs of a batch ran, were dropped, expired, had no probe and died.
 *
 * @since 0.1.0
 * @category models
 */
export interface Tally {
  readonly ran: number
  readonly dropped: number
  readonly expired: number
  readonly unprobeable: number
  readonly died: number
}

/**
 * The default of `checker.max_concurrency`: enough checks in flight for a worker's 1,000 checks a second (issue 20)
 * when they are slow (1,000 a second that take a second each are 1,000 in flight; at 256 the runner itself was what
 * held a loaded worker back), few enough that their sockets and buffers stay small (about 1,024 file descriptors,
 * which Node raises its soft limit to cover, and some tens of MiB).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxConcurrency = 1024

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** `checker.max_concurrency`: checks in flight at once, across every batch of this runner. */
  readonly maxConcurrency: number
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Api {
  /**
   * Runs `jobs`, each from its due time, and answers one result per job, in the jobs' order. Never fails: every job
   * has a result (a probe's defect is `Died`); an interrupted batch gives back every permit and host slot.
   */
  readonly run: <J extends Job>(jobs: Iterable<J>) => Effect.Effect<ReadonlyArray<Result<J>>, never, Probe.Environment>
  /**
   * Runs `jobs` as `run` does, but hands each result to `onResult` as soon as its job ends (in the order the jobs
   * finish, after the job's permit and host slot are given back) and keeps none: a scheduler records each result as
   * it comes rather than when the batch's slowest check ends (a timeout may take a minute), and holds no results
   * for it meanwhile. A worker takes its next job once `onResult` is done. Ends when every job has been handed over.
   */
  readonly runEach: <J extends Job>(
    jobs: Iterable<J>,
    onResult: (result: Result<J>) => Effect.Effect<void>
  ) => Effect.Effect<void, never, Probe.Environment>
  /** How many checks hold a permit now. */
  readonly inflight: Effect.Effect<number>
}

/**
 * @since 0.1.0
 * @category services
 */
export class Runner extends Context.Tag("Signalman/Runner")<Runner, Api>() {}

/**
 * A runner over the process's throttle.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Api, never, Throttle.Throttle> =>
  Effect.gen(function* () {
    if (!Number.isInteger(options.maxConcurrency) || options.maxConcurrency < 1) {
      return yield* Effect.dieMessage(`maxConcurrency must be a positive integer, got ${options.maxConcurrency}`)
    }
    const throttle = yield* Throttle.Throttle
    // First come, first served, one waiter woken per release (internal/permits.ts says why not Effect's semaphore).
    const permits = Permits.make(options.maxConcurrency)
    // Counted beside the permits so tests and metrics can see the bound hold.
    let held = 0

    // A job's bookkeeping in one uninterruptible region with one finalizer: the permit, the count beside it and
    // the host slot are taken in order and given back together however the check ends. The probe benchmark
    // (docs/probes.md) showed nesting a combinator for each (permit, count, slot) costing a check as much as its
    // whole http exchange.
    const one = <J extends Job>(job: J): Effect.Effect<Result<J>, never, Probe.Environment> =>
      Effect.uninterruptibleMask((restore) => {
        // Runs with the permit taken; each way out gives back what it took.
        const admitted = (): Effect.Effect<Result<J>, never, Probe.Environment> => {
          held++
          const key = Throttle.keyOf(job.org, job.spec)
          const slotted = Option.isSome(key)
          if (slotted && !throttle.enter(key.value)) {
            held--
            permits.release()
            return Effect.succeed({ _tag: "Dropped", job, key: key.value } as const)
          }
          return Effect.onExit(
            Effect.matchCauseEffect(restore(traced(job.spec, job.target)), {
              onSuccess: (outcome) => Effect.succeed<Result<J>>({ _tag: "Ran", job, outcome }),
              onFailure: (cause) => failed(job, cause)
            }),
            () =>
              Effect.sync(() => {
                held--
                if (slotted) throttle.leave(key.value)
                permits.release()
              })
          )
        }
        const deadline = job.deadlineMs
        // The deadline is judged once the permit is held, since the wait for it is what can run past a lease.
        return Effect.flatMap(
          restore(permits.take),
          deadline === undefined
            ? admitted
            : () =>
                Effect.flatMap(Clock.currentTimeMillis, (now) => {
                  if (now <= deadline) return admitted()
                  permits.release()
                  return Effect.succeed({ _tag: "Expired", job } as const)
                })
        )
      })

    // A batch runs on at most maxConcurrency worker fibers, each taking the next job when its last one ends, as a
    // plain loop of workers would: a fiber per job (Effect.forEach's way) cost a check as much as its whole
    // bookkeeping on the probe benchmark. The permits are the bound across batches. Workers take the jobs in order
    // of their due times, so a worker waiting for a job's time never keeps an earlier job from starting: whenever a
    // job is due, every job a worker is waiting on is due too. Each result goes to `sink`: into the array at its
    // job's index (run), or to the caller's callback (runEach).
    const batch = <J extends Job>(
      list: ReadonlyArray<J>,
      sink: Array<Result<J>> | ((result: Result<J>) => Effect.Effect<void>)
    ): Effect.Effect<void, never, Probe.Environment> =>
      Effect.suspend(() => {
        const order = dueOrder(list)
        let next = 0
        const worker = Effect.whileLoop({
          while: () => next < list.length,
          body: () => {
            const at = next++
            const index = order === undefined ? at : (order[at] ?? at)
            const job = list[index]
            if (job === undefined) return Effect.void
            const ran = job.dueMs === undefined ? one(job) : Effect.zipRight(untilDue(job.dueMs), one(job))
            if (typeof sink === "function") return Effect.flatMap(ran, sink)
            return Effect.map(ran, (result) => {
              sink[index] = result
            })
          },
          step: () => {}
        })
        const workers = Array.from({ length: Math.min(options.maxConcurrency, list.length) }, () => worker)
        return Effect.all(workers, { concurrency: "unbounded", discard: true })
      })

    return {
      run: <J extends Job>(jobs: Iterable<J>) =>
        Effect.suspend(() => {
          const list = Array.from(jobs)
          const results = new Array<Result<J>>(list.length)
          return Effect.as(batch(list, results), results)
        }),
      runEach: <J extends Job>(jobs: Iterable<J>, onResult: (result: Result<J>) => Effect.Effect<void>) =>
        Effect.suspend(() => batch(Array.from(jobs), onResult)),
      inflight: Effect.sync(() => held)
    }
  })

// A probe fails only with Unprobeable; anything else is a defect (Died), except an interruption, which goes on
// interrupting (the batch was interrupted, so no result is wanted).
const failed = <J extends Job>(job: J, cause: Cause.Cause<Probe.Unprobeable>): Effect.Effect<Result<J>> => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) return Effect.succeed({ _tag: "Unprobeable", job, error: failure.value })
  if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
  return Effect.succeed({ _tag: "Died", job, cause: Cause.stripFailures(cause) })
}

// The order workers take the jobs in, by due time (stable, so equal times keep the jobs' order); undefined when
// that is the jobs' own order, which is the common case and costs no array.
const dueOrder = (jobs: ReadonlyArray<Job>): ReadonlyArray<number> | undefined => {
  let last = Number.NEGATIVE_INFINITY
  let sorted = true
  for (const job of jobs) {
    const due = job.dueMs ?? Number.NEGATIVE_INFINITY
    if (due < last) {
      sorted = false
      break
    }
    last = due
  }
  if (sorted) return undefined
  const dueOf = (index: number) => jobs[index]?.dueMs ?? Number.NEGATIVE_INFINITY
  return Array.from(jobs.keys()).sort((a, b) => {
    const x = dueOf(a)
    const y = dueOf(b)
    return x < y ? -1 : x > y ? 1 : 0
  })
}

/**
 * Waits until the `Clock` reaches `dueMs` (epoch milliseconds); at once when it has. A timer may fire a little
 * early, so it looks again after each wait: whatever follows never starts before its due time.
 *
 * @since 0.1.0
 * @category combinators
 */
export const untilDue = (dueMs: number): Effect.Effect<void> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) =>
    now >= dueMs ? Effect.void : Effect.zipRight(Effect.sleep(Duration.millis(dueMs - now)), untilDue(dueMs))
  )

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<Runner, never, Throttle.Throttle> =>
  Layer.effect(Runner, make(options))

/**
 * Counts a batch's results by what became of them.
 *
 * @since 0.1.0
 * @category combinators
 */
export const tally = (results: ReadonlyArray<Result<Job>>): Tally => {
  let ran = 0
  let dropped = 0
  let expired = 0
  let unprobeable = 0
  let died = 0
  for (const result of results) {
    switch (result._tag) {
      case "Ran":
        ran++
        break
      case "Dropped":
        dropped++
        break
      case "Expired":
        expired++
        break
      case "Unprobeable":
        unprobeable++
        break
      case "Died":
        died++
        break
    }
  }
  return { ran, dropped, expired, unprobeable, died }
}
