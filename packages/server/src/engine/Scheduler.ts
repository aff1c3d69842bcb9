/**
 * The scheduler of the `local` region, one per worker process: it claims and records, and the checks package's
 * `Runner` runs. Every `scheduler.poll_interval_ms` it claims the schedule rows due within the next second (as many
 * as it has room for under `scheduler.max_concurrency`), leasing them with `FOR UPDATE SKIP LOCKED` so workers
 * sharing the database never claim the same row, prepares each claimed run (StoredChecks: opened, variables
 * filled, address rules applied) and hands the batch to the runner, which starts each check on its due time with
 * at most `checker.max_concurrency` in flight and under the per-host throttle. Each result is queued as its check
 * ends, and the queue is written in batches: the results (ResultStore, with the evidence a run kept beside its
 * result, such as a failed flow's screenshot) and, in the same transaction, each row's release with its next due
 * time on its grid (Slots.nextRunMs). A release only applies while this worker still holds the lease, so a worker
 * that lost its lease (it stalled past `scheduler.lease_secs` and another took the row) cannot move the row back.
 *
 * Scheduled checks spend no rate budget. A check over the per-host cap (`checker.per_host_max_inflight`) is
 * dropped by the runner: no result, the row simply moves to its next slot.
 *
 * A remote region's rows are never claimed here: the same claim, filtered on that region, is the agent hand-off
 * (an agent is to prepare nothing itself: it gets ready checks and runs them on the same Runner).
 */
import { randomUUID } from "node:crypto"
import * as Runner from "@signalman/checks/Runner"
import type { CheckResult } from "@signalman/core/CheckResult"
import type * as Cause from "effect/Cause"
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import { AppConfig } from "../config/Config.js"
import { Metrics } from "../metrics/Metrics.js"
import * as Probes from "../probes/Probes.js"
import * as Spans from "../tracing/Spans.js"
import { type Claimed, EngineClaimsRepo, type Release } from "./ClaimsRepo.js"
import * as DatabaseClock from "./DatabaseClock.js"
import { isBlocked } from "./ResultObservers.js"
import { type Pending, ResultStore } from "./ResultStore.js"
import * as Slots from "./Slots.js"
import { StoredChecks } from "./StoredChecks.js"

interface Finished {
  readonly claimed: Claimed
  /**
   * The result and the evidence its run kept; none when the throttle dropped the tick, the run expired, or it
   * failed with a defect (logged).
   */
  readonly result: Option.Option<Probes.Stamped>
  /** The run could not start before its lease ran out (the worker is behind). */
  readonly expired: boolean
}

/** An error result made here, not by a probe: it kept no evidence. */
const measuredNothing = (result: CheckResult): Option.Option<Probes.Stamped> =>
  Option.some({ result, evidence: undefined })

/** A claimed run as the runner's job: the row rides along, to be released with the result. */
interface Scheduled extends Runner.Job {
  readonly claimed: Claimed
}

const run = Effect.gen(function* () {
  const repo = yield* EngineClaimsRepo
  const config = yield* AppConfig
  const store = yield* ResultStore
  const checks = yield* StoredChecks
  const probes = yield* Probes.Probes
  const runner = yield* Runner.Runner
  const metrics = yield* Metrics
  const token = randomUUID()
  const max = config["scheduler.max_concurrency"]
  const poll = config["scheduler.poll_interval_ms"]
  const lease = config["scheduler.lease_secs"]
  // Claiming a second ahead (at least four polls) lets each check start on its due time even when a claim comes
  // late (a busy database, a pause of the event loop); the lease covers the wait.
  const lookahead = Math.max(1000, poll * 4)
  // Preparing a claimed run may read its org's variables (one query): more at once than the pool has connections
  // would only queue for one.
  const preparing = config["database.max_connections"]
  // Claimed runs not yet finished (waiting for their time, queued for a permit, or running): the room a claim has.
  const inflight = yield* Ref.make(0)
  const finished = yield* Queue.unbounded<Finished>()
  // The claimed runs' fibers. Made before the shutdown finalizer below, so they are interrupted after it has let
  // them finish (a scope's finalizers run in reverse order; a fiber forked into the scope later would be
  // interrupted first).
  const runs = yield* FiberSet.make()
  // Where the database's clock less this process's lies, as the claims so far read it (DatabaseClock), and the offset
  // taken from that: due times, leases and the results' stamps are on the database's clock, whatever this machine's
  // says.
  const bounds = yield* Ref.make<DatabaseClock.Bounds | undefined>(undefined)
  const offset = yield* Ref.make<DatabaseClock.Offset>(0)

  const claimRows = (room: number) =>
    repo.claim({
      region: Probes.LOCAL_REGION,
      // The local region's flows run here whether or not this process has a browser: without one each run is an
      // error result that says so, and a flow monitor cannot be placed in local then (NO_FLOW_CAPABLE_AGENT).
      without_flows: false,
      lookahead_secs: lookahead / 1000,
      limit: room,
      lease_secs: lease,
      token
    })

  /** The claimed rows, and the offset of the database's clock their claim shows. */
  const claim = (room: number) =>
    Effect.gen(function* () {
      const sentMs = Date.now()
      const rows = yield* claimRows(room)
      const receivedMs = Date.now()
      const first = rows[0]
      if (first === undefined) return { rows, offset: yield* Ref.get(offset) }
      // The latest reading the rows carry is the tightest bound on the database's side.
      let dbEndMs = first.db_read.getTime()
      for (const row of rows) dbEndMs = Math.max(dbEndMs, row.db_read.getTime())
      const seen = DatabaseClock.boundsOf({ dbStartMs: first.db_now.getTime(), dbEndMs, sentMs, receivedMs })
      const narrowed = DatabaseClock.narrow(yield* Ref.get(bounds), seen)
      const measured = DatabaseClock.offsetOf(narrowed)
      yield* Ref.set(bounds, narrowed)
      yield* Ref.set(offset, measured)
      return { rows, offset: measured }
    })

  // A run is over: its row goes to the next batch write, and its room under scheduler.max_concurrency is free.
  const finish = (claimed: Claimed, result: Option.Option<Probes.Stamped>, expired = false) =>
    Effect.zipRight(
      Queue.offer(finished, { claimed, result, expired }),
      Ref.update(inflight, (n) => n - 1)
    )

  const failedToRun = (claimed: Claimed, cause: Cause.Cause<unknown>) =>
    Effect.zipRight(
      Effect.logError("A scheduled check failed to run", cause).pipe(
        Effect.annotateLogs("target_id", claimed.target_id)
      ),
      finish(claimed, Option.none())
    )

  // Each result as the runner hands it over, so a batch's quick checks are written without waiting for its slow
  // ones (a timeout may take a minute).
  const record = (result: Runner.Result<Scheduled>): Effect.Effect<void> => {
    const claimed = result.job.claimed
    switch (result._tag) {
      case "Ran":
        return Effect.flatMap(Probes.stamped(result.outcome), (stored) => finish(claimed, Option.some(stored)))
      case "Unprobeable":
        return Effect.flatMap(Probes.failed(result.error.message), (stored) => finish(claimed, measuredNothing(stored)))
      case "Dropped":
        return Effect.zipRight(metrics.notRun(claimed.region, "dropped", 1), finish(claimed, Option.none()))
      case "Expired":
        // Not run: its lease ran out while it waited for a permit, so another worker may be running it. The
        // release below applies only if nobody took the row meanwhile, and then moves it on like any late slot.
        return finish(claimed, Option.none(), true)
      case "Died":
        return failedToRun(claimed, result.cause)
    }
  }

  // A claimed run made ready: a check joins the batch; a run that cannot be made (a missing variable, a blocked
  // address) gets its error result at its due time, as a check would, never before it. The check's deadline is
  // its lease's end as the database set it (due time plus scheduler.lease_secs, or the claim plus that for a slot
  // overdue by more than the lease, after an outage): one still waiting for a permit then is not run, since
  // another worker may have claimed the row. Both run on the database's clock (`clock`: DatabaseClock).
  const prepare = (claimed: Claimed, clock: Clock.Clock, batch: Array<Scheduled>) =>
    checks
      .prepare({
        id: claimed.target_id,
        orgId: claimed.org_id,
        checkSpec: claimed.check_spec,
        credentials: claimed.credentials
      })
      .pipe(
        Effect.matchCauseEffect({
          onSuccess: Either.match({
            onRight: (spec) =>
              Effect.sync(() => {
                const dueMs = claimed.due.getTime()
                const deadlineMs = claimed.leased_until.getTime()
                batch.push({ org: claimed.org_id, spec, dueMs, deadlineMs, claimed, target: claimed.target_id })
              }),
            onLeft: (error) =>
              FiberSet.run(
                runs,
                Runner.untilDue(claimed.due.getTime()).pipe(
                  Effect.zipRight(Probes.failed(error)),
                  Effect.flatMap((stored) => finish(claimed, measuredNothing(stored))),
                  Effect.withClock(clock)
                )
              ).pipe(Effect.asVoid)
          }),
          onFailure: (cause) => failedToRun(claimed, cause)
        })
      )

  // Finished runs whose write failed (the database unreachable): they go with the next batch while their leases
  // hold. Dropping them lost results of checks that ran, and left their rows leased until the lease lapsed (two
  // minutes by default) after the database was back; a run whose lease lapsed meanwhile is dropped, since another
  // worker may have claimed its row and be running the same slot again.
  let unwritten: Array<Finished> = []

  // Shutting down: no more claims once `stopping`; nothing more written once `closed` (the rows still held were
  // given back, so another worker may be running their slots). One write at a time: the loop's and the last one.
  let stopping = false
  let closed = false
  const writing = yield* Effect.makeSemaphore(1)

  const writeFinished = Effect.gen(function* () {
    const fresh = yield* Queue.takeAll(finished)
    // Leases and the slots already past are reckoned on the database's clock.
    const now = Date.now() + (yield* Ref.get(offset))
    const retried = unwritten.filter((run) => run.claimed.leased_until.getTime() > now)
    const lapsed = unwritten.length - retried.length
    unwritten = []
    if (lapsed > 0) {
      yield* Effect.logWarning("Scheduled results not written: their leases lapsed while the database was away").pipe(
        Effect.annotateLogs("checks", lapsed)
      )
    }
    const batch = [...retried, ...fresh]
    if (batch.length === 0) return
    const pending: Array<Pending> = []
    const releases: Array<Release> = []
    const lags: Array<number> = []
    let expired = 0
    const again = new Set(retried)
    for (const run of batch) {
      const { claimed, result, expired: late } = run
      if (late) expired++
      const due = claimed.due.getTime()
      releases.push({
        target_id: claimed.target_id,
        region: claimed.region,
        due: claimed.due_text,
        next: new Date(Slots.nextRunMs(due, claimed.interval_secs, now)).toISOString(),
        interval_secs: claimed.interval_secs,
        status: Option.match(result, { onNone: () => null, onSome: (r) => r.result.status })
      })
      if (Option.isSome(result)) {
        const { result: stored, evidence } = result.value
        // A retried run's lag was recorded with its first try.
        if (metrics.enabled && !again.has(run)) lags.push(Slots.lateStartMs(stored, due))
        pending.push({
          targetId: claimed.target_id,
          orgId: claimed.org_id,
          kind: claimed.kind,
          result: stored,
          source: "scheduled",
          blocked: isBlocked(stored),
          weightSecs: claimed.interval_secs,
          evidence
        })
      }
    }
    // The runs started when they started, whatever the write does: their lag is recorded before it, so a scrape
    // that sees a run's result counted sees its lag too.
    yield* metrics.started(Probes.LOCAL_REGION, lags)
    // The releases go in the results' transaction: a row moves on only with its result stored. Its span is what
    // the write's queries hang from in a trace (a query outside any span is not traced: TraceSampler).
    yield* store.write(pending, repo.release(releases, token)).pipe(
      Spans.withBackgroundSpan(Spans.RESULTS_WRITE, { [Spans.RESULTS_COUNT]: pending.length }),
      Effect.tapErrorCause(() =>
        Effect.sync(() => {
          unwritten = [...batch, ...unwritten]
        })
      )
    )
    if (expired > 0) {
      yield* metrics.notRun(Probes.LOCAL_REGION, "expired", expired)
      yield* Effect.logWarning(
        "Scheduled checks not run: their leases ran out while they waited for checker.max_concurrency"
      ).pipe(Effect.annotateLogs("checks", expired))
    }
  }).pipe(Effect.catchAllCause((cause) => Effect.logError("Writing scheduled results failed", cause)))

  const flush = writing.withPermits(1)(Effect.suspend(() => (closed ? Effect.void : writeFinished)))

  const tick = Effect.gen(function* () {
    if (stopping) return
    const room = max - (yield* Ref.get(inflight))
    if (room <= 0) return
    const { rows: claimed, offset: measured } = yield* claim(room)
    if (claimed.length === 0) return
    yield* Ref.update(inflight, (n) => n + claimed.length)
    const batch: Array<Scheduled> = []
    const clock = DatabaseClock.shifted(measured)
    yield* Effect.forEach(claimed, (row) => prepare(row, clock, batch), { concurrency: preparing, discard: true })
    if (batch.length === 0) return
    yield* FiberSet.run(
      runs,
      runner.runEach(batch, record).pipe(
        Effect.provide(probes.environment),
        // Each check waits for its due time, is judged against its lease and is stamped on the database's clock.
        Effect.withClock(clock),
        // The runner's check spans say where they ran (a no-op with tracing off).
        Effect.annotateSpans(Spans.CHECK_REGION, Probes.LOCAL_REGION)
      )
    )
  }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("Claiming due checks failed", cause)))

  yield* Effect.forkScoped(Effect.repeat(flush, Schedule.spaced(Duration.millis(200))))
  yield* Effect.forkScoped(Effect.repeat(tick, Schedule.spaced(Duration.millis(poll))))
  // On shutdown (SIGTERM), a drain: no more claims; the runs already claimed (waiting for their due time, or
  // running) get up to server.shutdown_grace_secs to finish, and what finished is written; then the rows still held
  // (runs cut short past the grace) are given back with their due times, so their slots run once on another worker
  // or after a restart. Before, runs under way were cut short and every claimed row (a second's worth of slots)
  // kept its lease until it lapsed: a restart cost those monitors scheduler.lease_secs (2 minutes) of checks.
  // This finalizer runs before the loops above and the runs (FiberSet `runs`) are interrupted.
  const grace = config["server.shutdown_grace_secs"] * 1000
  yield* Effect.addFinalizer(() =>
    Effect.gen(function* () {
      stopping = true
      const until = Date.now() + grace
      while ((yield* Ref.get(inflight)) > 0 && Date.now() < until) yield* Effect.sleep(Duration.millis(50))
      yield* writing.withPermits(1)(
        Effect.zipRight(
          writeFinished,
          Effect.sync(() => {
            closed = true
          })
        )
      )
      const cut = yield* Ref.get(inflight)
      yield* repo.giveBack(token)
      if (cut > 0) {
        yield* Effect.logWarning(
          "Scheduled checks cut short at shutdown (past server.shutdown_grace_secs): their slots run again elsewhere"
        ).pipe(Effect.annotateLogs("checks", cut))
      }
    }).pipe(Effect.catchAllCause((cause) => Effect.logError("Giving back scheduled checks at shutdown failed", cause)))
  )
})

/** The scheduler for the life of the process (worker and all roles), on this process's runner. */
export const layer = Layer.scopedDiscard(run).pipe(Layer.provide([Probes.runner, EngineClaimsRepo.Default]))
