/**
 * Runs batches of checks the way the engine does (the scheduler's `local` region, an agent): each job through
 * {@link Probe.run}, at most `checker.max_concurrency` in flight in the whole process, and each under the per-host
 * {@link Throttle}, so a job whose (org, host, port) is already at `checker.per_host_max_inflight` is dropped, not
 * queued (the spec's over-cap tick). Results come back in the order of the jobs, each with its job.
 *
 * The concurrency bound is one semaphore per runner, shared by every batch it runs: two batches started at once
 * (two scheduler ticks) still hold at most `maxConcurrency` checks in flight between them. A job waits for a permit
 * before it asks the throttle, so a job queued behind the bound never holds a host slot it is not using.
 *
 * @since 0.1.0
 */
import type { ProbeOutcome } from "@signalman/core/CheckResult"
import type { CheckSpec } from "@signalman/core/CheckSpec"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Probe from "./Probe.js"
import * as Throttle from "./Throttle.js"

/**
 * One check to run: its spec and the org it runs for (the throttle counts per org). Callers may extend it (a
 * target id, a scheduled time): each result carries its job back unchanged.
 *
 * @since 0.1.0
 * @category models
 */
export interface Job {
  readonly org: string
  readonly spec: CheckSpec
}

/**
 * What became of one job: `Ran` with the probe's outcome, `Dropped` by the per-host throttle (no result is written,
 * no alert fires), or `Unprobeable` (a heartbeat, manual or flow spec this runner has no probe for).
 *
 * @since 0.1.0
 * @category models
 */
export type Result<J extends Job = Job> =
  | { readonly _tag: "Ran"; readonly job: J; readonly outcome: ProbeOutcome }
  | { readonly _tag: "Dropped"; readonly job: J; readonly key: Throttle.Key }
  | { readonly _tag: "Unprobeable"; readonly job: J; readonly error: Probe.Unprobeable }

/**
 * How many jobs of a batch ran, were dropped and had no probe.
 *
 * @since 0.1.0
 * @category models
 */
export interface Tally {
  readonly ran: number
  readonly dropped: number
  readonly unprobeable: number
}

/**
 * The default of `checker.max_concurrency`: enough checks in flight to keep a worker's network busy, few enough
 * that their sockets and buffers stay small (about 256 file descriptors and a few MiB).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxConcurrency = 256

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
  /** Runs `jobs` and answers one result per job, in the jobs' order. Never fails: every job has a result. */
  readonly run: <J extends Job>(jobs: Iterable<J>) => Effect.Effect<ReadonlyArray<Result<J>>, never, Probe.Environment>
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
    const permits = yield* Effect.makeSemaphore(options.maxConcurrency)
    // Counted beside the semaphore (which does not expose its count) so tests and metrics can see the bound hold.
    let held = 0

    // A job's bookkeeping in one uninterruptible region with one finalizer: the permit, the count beside it and
    // the host slot are taken in order and given back together however the check ends. The probe benchmark
    // (docs/probes.md) showed nesting a combinator for each (permit, count, slot) costing a check as much as its
    // whole http exchange.
    const one = <J extends Job>(job: J): Effect.Effect<Result<J>, never, Probe.Environment> => {
      const key = Throttle.keyOf(job.org, job.spec)
      return Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(restore(permits.take(1)), () => {
          held++
          const slotted = Option.isSome(key)
          if (slotted && !throttle.enter(key.value)) {
            held--
            return Effect.as(permits.release(1), { _tag: "Dropped", job, key: key.value } as const)
          }
          return Effect.onExit(
            Effect.map(Effect.either(restore(Probe.run(job.spec))), (ran) => settled(job, ran)),
            () => {
              held--
              if (slotted) throttle.leave(key.value)
              return permits.release(1)
            }
          )
        })
      )
    }

    return {
      // A batch runs on at most maxConcurrency worker fibers, each taking the next job when its last one ends, as
      // a plain loop of workers would: a fiber per job (Effect.forEach's way) cost a check as much as its whole
      // bookkeeping on the probe benchmark. The semaphore is the bound across batches.
      run: <J extends Job>(jobs: Iterable<J>) =>
        Effect.suspend(() => {
          const list = Array.from(jobs)
          const results = new Array<Result<J>>(list.length)
          let next = 0
          const worker = Effect.whileLoop({
            while: () => next < list.length,
            body: () => {
              const index = next++
              const job = list[index]
              if (job === undefined) return Effect.void
              return Effect.map(one(job), (result) => {
                results[index] = result
              })
            },
            step: () => {}
          })
          const workers = Array.from({ length: Math.min(options.maxConcurrency, list.length) }, () => worker)
          return Effect.as(Effect.all(workers, { concurrency: "unbounded", discard: true }), results)
        }),
      inflight: Effect.sync(() => held)
    }
  })

const settled = <J extends Job>(job: J, ran: Either.Either<ProbeOutcome, Probe.Unprobeable>): Result<J> =>
  Either.isRight(ran) ? { _tag: "Ran", job, outcome: ran.right } : { _tag: "Unprobeable", job, error: ran.left }

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
  let unprobeable = 0
  for (const result of results) {
    if (result._tag === "Ran") ran++
    else if (result._tag === "Dropped") dropped++
    else unprobeable++
  }
  return { ran, dropped, unprobeable }
}
