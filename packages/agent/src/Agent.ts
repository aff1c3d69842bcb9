/**
 * The agent's life: say hello, open the stream, take jobs while there is room, run them on the checks package's
 * `Runner`, deliver each result as it is made, and do it again after any break; on a drain, finish and deliver.
 *
 * - **Connecting.** `POST /hello` (version, browser, concurrency), then the stream with the same bearer. A refused
 *   token (401, or the stream closed with 4401) stops the agent at once. Anything else (the service down, a 5xx, a
 *   dropped connection) is retried after an exponential delay with full jitter (`Backoff`), logged each time, its
 *   attempt count reset once a connection has carried a message. Every reconnection says hello again.
 * - **Work.** Every `poll_ms` of the welcome (jittered by a fifth either way, so that siblings of a region take turns
 *   at being first to a slot rather than one always pulling just ahead of the other and taking nearly all of it),
 *   with no pull unanswered and room left (`HELD_PER_SLOT` times
 *   `AGENT__CONCURRENCY`, minus the jobs taken and not yet finished), the agent pulls for that room. Jobs are taken
 *   ahead of their due time (the service's lookahead) and most of a check's life is waiting for it, so the jobs held
 *   are several times the checks running; `AGENT__CONCURRENCY` bounds the checks running, through the `Runner`. Each job runs at its due time and not after
 *   its lease's end, both translated to the agent's clock (`Skew`), through the `Runner` (the same probes, the same
 *   internal-address guard, the same per-host throttle as the service's own region). A job whose check the service
 *   could not make ready (`check: null`), or that this agent cannot read, is answered with its error at its due time.
 *   Jobs run on whatever the stream does meanwhile: a break does not cut a check short.
 * - **One-off checks** (`one_off`: a test or check-now in this region, with a person waiting) run at once, through
 *   the same `Runner` (its concurrency bound and per-host throttle), not after their deadline; they are not counted
 *   against the room pulls ask for, so a burst of them never shrinks the scheduled work taken, and each is answered
 *   with an outcome (`one_off_results`), an `error` one when it could not run (`OneOffs`). Their answers are held
 *   and resent like results, in a buffer of their own (`ONE_OFF_BUFFER`), but only on the stream: the person is
 *   waiting for seconds, not for a reconnection's backoff.
 * - **Results.** Each gets a fresh UUID and the time it ended (on the service's clock) and goes into the bounded
 *   `ResultBuffer`, and out on the stream at once in batches of what has accumulated (at most `batchSize`); the
 *   service's `ack` removes them. A break puts what was sent back to unsent, and the next connection sends it again
 *   unchanged, before its first pull; so does an ack that does not come within `ackTimeoutMs`. The service stores each id once.
 * - **Drain** (the first SIGTERM or SIGINT): `draining` on the stream, no more pulls, the jobs already taken run to
 *   their end (each bounded by its check's timeout), then everything held is delivered, on the stream or, when it
 *   is down or slow, over `POST /results`; all within `AGENT__DRAIN_TIMEOUT_SECS`.
 *
 * @since 0.1.0
 */
import { randomUUID } from "node:crypto"
import type * as Probe from "@signalman/checks/Probe"
import * as Runner from "@signalman/checks/Runner"
import * as Protocol from "@signalman/core/api/Agent"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Backoff from "./Backoff.js"
import { DeliveryLag } from "./DeliveryLag.js"
import { TokenRefused, Unreachable } from "./Failures.js"
import * as HttpCalls from "./HttpCalls.js"
import * as Jobs from "./Jobs.js"
import * as Log from "./Log.js"
import * as OneOffs from "./OneOffs.js"
import * as ProbeEnvironment from "./ProbeEnvironment.js"
import { ResultBuffer } from "./ResultBuffer.js"
import type { Settings } from "./Settings.js"
import * as Skew from "./Skew.js"
import * as StreamLink from "./StreamLink.js"

/**
 * Jobs held (taken and waiting for their due time, or running) per check the agent runs at once. A job is taken up
 * to the service's lookahead (2 s by default) before it is due and runs for milliseconds: were the jobs held bounded
 * by `AGENT__CONCURRENCY` itself, the waiting ones would take the room and an agent would run far fewer checks a
 * second than its concurrency allows (measured: about 90 a second against 333 due at 200).
 *
 * @since 0.1.0
 * @category constants
 */
export const HELD_PER_SLOT = 4

/**
 * The agent's inner timings; the defaults serve production, tests may shorten them.
 *
 * @since 0.1.0
 * @category models
 */
export interface Timing {
  /** Most results in one `results` message: small, so a batch goes out as soon as its results are made. */
  readonly batchSize: number
  /**
   * How long results gather after the first one is made before they go out. The service stores each message in one
   * transaction of several statements, so results sent one by one as checks end (most messages would then hold one
   * or two) cost the service several times what a batch does; a tenth of a second gathers tens of them at a few
   * hundred checks a second and keeps delivery well under the second it may take.
   */
  readonly batchDelayMs: number
  /** A result sent and not acknowledged within this goes out again. */
  readonly ackTimeoutMs: number
  /** The stream's ping period; a ping unanswered by the next one ends the stream. */
  readonly heartbeatMs: number
  /** How often the count of results dropped from a full buffer is logged (when it grew). */
  readonly dropReportMs: number
  /** How often the delivery figures (`Results delivered`: how long results waited for their ack) are logged. */
  readonly lagReportMs: number
  /** In a drain, how long the stream may take to acknowledge what is held before delivery moves to HTTP. */
  readonly drainStreamGraceMs: number
  /**
   * A pull unanswered this long is given up and made again (a message lost by a bug would otherwise stop the
   * connection's pulling for good); undefined: 20 polls, at least 10 s.
   */
  readonly pullTimeoutMs: number | undefined
}

/**
 * @since 0.1.0
 * @category constants
 */
export const defaultTiming: Timing = {
  batchSize: 100,
  batchDelayMs: 100,
  ackTimeoutMs: 15_000,
  heartbeatMs: 15_000,
  dropReportMs: 1_000,
  lagReportMs: 30_000,
  drainStreamGraceMs: 5_000,
  pullTimeoutMs: undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly settings: Settings
  readonly version: string
  /** The browser reported in hello (`Chromium 153.0.8010.0`), none without flows. */
  readonly browser: Option.Option<string>
  /** Completes when a drain is asked for (the first SIGTERM or SIGINT). */
  readonly drain: Effect.Effect<void>
  readonly timing?: Partial<Timing> | undefined
}

/**
 * How a run ended without a refused token: drained, with how many results could not be delivered.
 *
 * @since 0.1.0
 * @category models
 */
export interface Drained {
  readonly undelivered: number
}

/**
 * The most one-off answers held undelivered: each is wanted for seconds, so this only bounds a misbehaving stream.
 *
 * @since 0.2.0
 * @category constants
 */
export const ONE_OFF_BUFFER = 1000

interface State {
  /** Jobs taken and not yet answered (waiting for their time, running, or waiting for their error's time). */
  inflight: number
  /** One-off jobs taken and not yet answered; not counted against the room of pulls. */
  oneOffs: number
  draining: boolean
  /** The service's clock minus the agent's, from the last welcome. */
  offset: Skew.Offset
  link: Option.Option<StreamLink.Link>
  /** The room of the pull not yet answered, 0 when none is. */
  pending: number
  /** When that pull went out (epoch ms). */
  pendingSince: number
}

type Environment = Probe.Environment

const pollMsOf = (welcome: Protocol.Welcome): number => Math.min(60_000, Math.max(10, Math.round(welcome.poll_ms)))

/**
 * Runs the agent until a drain completes; fails only with a refused token.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (options: Options): Effect.Effect<Drained, TokenRefused> =>
  Effect.scoped(
    Effect.gen(function* () {
      const { settings, version } = options
      const timing: Timing = { ...defaultTiming, ...options.timing }
      const target: HttpCalls.Target = {
        url: settings.url,
        token: settings.token,
        userAgent: `signalman-agent/${version}`
      }
      const hello = new Protocol.Hello({
        version,
        browser: Option.getOrNull(options.browser),
        concurrency: settings.concurrency
      })
      const policy: Backoff.Policy = { minMs: settings.reconnectMinMs, maxMs: settings.reconnectMaxMs }
      const buffer = new ResultBuffer<Protocol.Result>(settings.bufferSize)
      const lag = new DeliveryLag()
      const onDelivered = (madeAt: number) => lag.record(Date.now() - madeAt)
      const oneOffBuffer = new ResultBuffer<Protocol.OneOffResult>(ONE_OFF_BUFFER)
      const state: State = {
        inflight: 0,
        oneOffs: 0,
        draining: false,
        offset: 0,
        link: Option.none(),
        pending: 0,
        pendingSince: 0
      }
      // A refused token, from whichever fiber meets it, ends the run at once; so does a defect (a bug) in any of the
      // agent's own fibers, which would otherwise leave a process that looks alive and does nothing.
      const stop = yield* Deferred.make<never, TokenRefused>()
      const guarded = <A>(effect: Effect.Effect<A, TokenRefused>): Effect.Effect<void> =>
        Effect.catchAllCause(Effect.asVoid(effect), (cause) =>
          Cause.isInterruptedOnly(cause) ? Effect.void : Deferred.failCause(stop, cause)
        )
      // Rung when results wait to go out; one pending ring is as good as many.
      const wake = yield* Queue.sliding<void>(1)
      const ring = Queue.offer(wake, undefined)
      const workScope = yield* Effect.scope
      let attempt = 0

      const retryAfter = (error: Unreachable) =>
        Effect.gen(function* () {
          const delayMs = yield* Backoff.next(policy, attempt)
          yield* Effect.logWarning("Cannot reach the service; retrying").pipe(
            Effect.annotateLogs({ error: error.message, attempt: attempt + 1, retry_in_ms: delayMs })
          )
          attempt++
          yield* Effect.sleep(Duration.millis(delayMs))
        })

      const welcomeOf = (welcomed: HttpCalls.Welcomed, region: string | undefined) =>
        Effect.gen(function* () {
          const offset = Option.getOrElse(welcomed.offset, () => 0)
          if (Math.abs(offset) > 2000 && Math.abs(offset - state.offset) > 1000) {
            yield* Effect.logWarning("The service's clock and this machine's differ; due times are translated").pipe(
              Effect.annotateLogs({ offset_ms: offset })
            )
          }
          state.offset = offset
          const welcome = welcomed.welcome
          if (region !== undefined && welcome.region !== region) {
            yield* Effect.logWarning(
              "The service names another region for this agent; restart it to probe as that"
            ).pipe(Effect.annotateLogs({ probing_as: region, named: welcome.region }))
          }
          yield* Effect.logInfo("Connected").pipe(
            Effect.annotateLogs({
              agent: welcome.name,
              agent_id: welcome.agent_id,
              region: welcome.region,
              server_version: welcome.server_version,
              poll_ms: welcome.poll_ms
            })
          )
          return welcome
        })

      // Hello until the service answers; a refused token stops everything.
      const helloUntilWelcomed: Effect.Effect<HttpCalls.Welcomed, TokenRefused> = Effect.gen(function* () {
        for (;;) {
          const answered = yield* Effect.either(HttpCalls.hello(target, hello))
          if (answered._tag === "Right") return answered.right
          if (answered.left._tag === "TokenRefused") return yield* answered.left
          yield* retryAfter(answered.left)
        }
      })

      // A drain asked for before the service ever answered has nothing to finish or deliver.
      const started = yield* Effect.raceFirst(
        Effect.map(helloUntilWelcomed, Option.some),
        Effect.as(options.drain, Option.none<HttpCalls.Welcomed>())
      )
      if (Option.isNone(started)) {
        yield* Effect.logInfo("Stopped before the service answered")
        return { undelivered: 0 }
      }
      const first = started.value
      const region = first.welcome.region
      const environmentOptions: ProbeEnvironment.Options = { settings, region, version }
      const context = yield* Layer.build(
        Layer.merge(ProbeEnvironment.layer(environmentOptions), ProbeEnvironment.runner(environmentOptions))
      )
      const runner = Context.get(context, Runner.Runner)
      const environment: Context.Context<Environment> = context

      // A result made: held until acknowledged (a full buffer drops its oldest, counted and reported by
      // dropReports), and sent as soon as the stream can take it.
      const record = (result: Protocol.Result) =>
        Effect.suspend(() => {
          state.inflight--
          buffer.add(result)
          return ring
        })

      const stampNow = () => Skew.toService(Date.now(), state.offset)

      // A one-off answer made: held until acknowledged, sent at once.
      const recordOneOff = (result: Protocol.OneOffResult) =>
        Effect.suspend(() => {
          state.oneOffs--
          oneOffBuffer.add(result)
          return ring
        })

      const logDied = (spec: Protocol.Job["check"], annotations: Record<string, unknown>, cause: Cause.Cause<never>) =>
        Effect.logError("A check failed to run (a bug in its probe)").pipe(
          Effect.annotateLogs({
            ...annotations,
            cause: Log.scrub(Cause.pretty(cause), spec === null ? [] : Jobs.secretsOf(spec))
          })
        )

      const onOneOff = (ran: Runner.Result<OneOffs.Taken>) =>
        Effect.gen(function* () {
          if (ran._tag === "Died") yield* logDied(ran.job.spec, { one_off_id: ran.job.oneOff.id }, ran.cause)
          yield* recordOneOff(OneOffs.resultOf(ran, stampNow()))
        })

      // One-off jobs run at once, beside whatever the agent has leased; each is answered, an unreadable one at once.
      const takeOneOffs = (jobs: ReadonlyArray<Either.Either<Protocol.OneOffJob, StreamLink.UnreadableOneOff>>) =>
        Effect.gen(function* () {
          const runnable: Array<OneOffs.Taken> = []
          for (const decoded of jobs) {
            if (decoded._tag === "Right") {
              state.oneOffs++
              runnable.push(OneOffs.taken(decoded.right, state.offset))
              continue
            }
            const unreadable = decoded.left
            yield* Effect.logError("A one-off check from the service could not be read").pipe(
              Effect.annotateLogs({ one_off_id: Option.getOrUndefined(unreadable.id), error: unreadable.message })
            )
            if (Option.isNone(unreadable.id)) continue
            state.oneOffs++
            yield* recordOneOff(OneOffs.failed(unreadable.id.value, unreadable.message, stampNow()))
          }
          yield* Effect.logDebug("One-off checks taken").pipe(
            Effect.annotateLogs({ jobs: jobs.length, one_offs: state.oneOffs })
          )
          if (runnable.length === 0) return
          yield* runner.runEach(runnable, onOneOff).pipe(Effect.provide(environment), guarded, Effect.forkIn(workScope))
        })

      const onResult = (ran: Runner.Result<Jobs.Leased>) =>
        Effect.gen(function* () {
          if (ran._tag === "Died") {
            yield* logDied(ran.job.spec, { target_id: ran.job.job.target_id, due: ran.job.job.due }, ran.cause)
          }
          yield* record(Jobs.resultOf(ran, randomUUID(), stampNow()))
        })

      // An error answered at the job's due time, as the service's own scheduler does.
      const failAtDue = (slot: Jobs.Slot, dueMs: number | undefined, error: string) =>
        (dueMs === undefined ? Effect.void : Runner.untilDue(Skew.toLocal(dueMs, state.offset))).pipe(
          Effect.zipRight(Effect.suspend(() => record(Jobs.failed(slot, error, randomUUID(), stampNow())))),
          guarded,
          Effect.forkIn(workScope)
        )

      const take = (jobs: ReadonlyArray<Either.Either<Protocol.Job, StreamLink.Unreadable>>) =>
        Effect.gen(function* () {
          const runnable: Array<Jobs.Leased> = []
          for (const decoded of jobs) {
            if (decoded._tag === "Left") {
              const unreadable = decoded.left
              if (Option.isNone(unreadable.slot)) {
                yield* Effect.logError("A job from the service could not be read, not even its slot").pipe(
                  Effect.annotateLogs("error", unreadable.message)
                )
                continue
              }
              state.inflight++
              yield* Effect.logError("A job from the service could not be read; answering it with an error").pipe(
                Effect.annotateLogs({ target_id: unreadable.slot.value.target_id, error: unreadable.message })
              )
              yield* failAtDue(unreadable.slot.value, unreadable.slot.value.due_ms, unreadable.message)
              continue
            }
            const job = decoded.right
            state.inflight++
            if (job.check === null) {
              yield* failAtDue(job, job.due_ms, job.error ?? "The service could not prepare this check")
              continue
            }
            runnable.push(Jobs.leased(job, job.check, state.offset))
          }
          if (jobs.length > 0) {
            yield* Effect.logDebug("Jobs taken").pipe(
              Effect.annotateLogs({ jobs: jobs.length, inflight: state.inflight })
            )
          }
          if (runnable.length === 0) return
          yield* runner.runEach(runnable, onResult).pipe(Effect.provide(environment), guarded, Effect.forkIn(workScope))
        })

      const handle = (message: StreamLink.Incoming, productive: () => void) =>
        Effect.gen(function* () {
          switch (message._tag) {
            case "jobs":
              state.pending = 0
              productive()
              return yield* take(message.jobs)
            case "one_off":
              productive()
              return yield* takeOneOffs(message.jobs)
            case "ack":
              productive()
              buffer.ack(message.acknowledged, onDelivered)
              oneOffBuffer.ack(message.acknowledged, onDelivered)
              return
            case "refused":
              return yield* Effect.logWarning("The service refused a message").pipe(
                Effect.annotateLogs({ code: message.code, error: message.message })
              )
            case "garbled":
              return yield* Effect.logWarning("The service sent a message this agent cannot read").pipe(
                Effect.annotateLogs("error", message.message)
              )
          }
        })

      // Sends what is unsent, in batches, while the stream takes it: one-off answers first (someone is waiting).
      const sendUnsent = (link: StreamLink.Link) =>
        Effect.gen(function* () {
          while (oneOffBuffer.unsentCount > 0) {
            const batch = oneOffBuffer.takeUnsent(timing.batchSize, Date.now())
            const sent = yield* link.send({ _tag: "one_off_results", results: batch })
            if (!sent) {
              oneOffBuffer.requeueAll()
              buffer.requeueAll()
              return
            }
          }
          while (buffer.unsentCount > 0) {
            const batch = buffer.takeUnsent(timing.batchSize, Date.now())
            const sent = yield* link.send({ _tag: "results", results: batch })
            if (!sent) {
              buffer.requeueAll()
              return
            }
          }
        })

      const pullTimeoutMs = (welcome: Protocol.Welcome) =>
        timing.pullTimeoutMs ?? Math.max(10_000, pollMsOf(welcome) * 20)

      const pull = (link: StreamLink.Link, welcome: Protocol.Welcome) =>
        Effect.gen(function* () {
          if (state.draining) return
          if (state.pending > 0) {
            if (Date.now() - state.pendingSince < pullTimeoutMs(welcome)) return
            yield* Effect.logWarning("A pull went unanswered; pulling again").pipe(
              Effect.annotateLogs("room", state.pending)
            )
          }
          const room = Math.min(Protocol.MAX_PULL, settings.concurrency * HELD_PER_SLOT - state.inflight)
          state.pending = 0
          if (room <= 0) return
          if (yield* link.send({ _tag: "pull", room })) {
            state.pending = room
            state.pendingSince = Date.now()
          }
        })

      // One connection's life: answers how its stream ended, and whether it carried anything.
      const session = (welcome: Protocol.Welcome, link: StreamLink.Link) =>
        Effect.gen(function* () {
          let carried = false
          const productive = () => {
            if (!carried) attempt = 0
            carried = true
          }
          state.link = Option.some(link)
          state.pending = 0
          yield* Effect.addFinalizer(() =>
            Effect.sync(() => {
              state.link = Option.none()
              state.pending = 0
              // Whatever went out on this stream and was not acknowledged goes out again on the next.
              buffer.requeueAll()
              oneOffBuffer.requeueAll()
            })
          )
          if (state.draining) yield* link.send({ _tag: "draining" })
          // What is held from before the break goes out before the first pull: the service answers a pull only once
          // the results sent before it are stored, so a slot this agent ran while the service was away is not leased
          // again (its lease may have lapsed meanwhile) and run twice.
          yield* sendUnsent(link)
          const pollMs = pollMsOf(welcome)
          yield* Effect.forkScoped(
            guarded(Effect.forever(Effect.flatMap(Queue.take(link.incoming), (message) => handle(message, productive))))
          )
          yield* Effect.forkScoped(
            guarded(Effect.repeat(pull(link, welcome), Schedule.jittered(Schedule.spaced(Duration.millis(pollMs)))))
          )
          const gather = timing.batchDelayMs > 0 ? Effect.sleep(Duration.millis(timing.batchDelayMs)) : Effect.void
          yield* Effect.forkScoped(
            guarded(Effect.forever(Queue.take(wake).pipe(Effect.zipRight(gather), Effect.zipRight(sendUnsent(link)))))
          )
          yield* Effect.forkScoped(
            guarded(
              Effect.repeat(
                Effect.suspend(() => {
                  const before = Date.now() - timing.ackTimeoutMs
                  const again = buffer.requeueSentBefore(before) + oneOffBuffer.requeueSentBefore(before)
                  return again > 0 ? ring : Effect.void
                }),
                Schedule.spaced(Duration.millis(Math.max(100, Math.floor(timing.ackTimeoutMs / 2))))
              )
            )
          )
          yield* ring
          const closed = yield* Deferred.await(link.closed)
          return { closed, carried }
        })

      // Hello, stream, session, and again, until a drain begins (a drain delivers over HTTP if the stream is down).
      const connections = (first: HttpCalls.Welcomed): Effect.Effect<void, TokenRefused> =>
        Effect.gen(function* () {
          let welcomed: Option.Option<HttpCalls.Welcomed> = Option.some(first)
          while (!state.draining) {
            const next = Option.isSome(welcomed) ? welcomed.value : yield* helloUntilWelcomed
            welcomed = Option.none()
            const welcome = yield* welcomeOf(next, region)
            const opened = yield* Effect.scoped(
              Effect.flatMap(StreamLink.open(target, { heartbeatMs: timing.heartbeatMs }), (link) =>
                session(welcome, link)
              )
            ).pipe(Effect.either)
            if (opened._tag === "Left") {
              if (opened.left._tag === "TokenRefused") return yield* opened.left
              yield* retryAfter(opened.left)
              continue
            }
            const { closed } = opened.right
            if (closed.code === Protocol.CLOSE_UNAUTHENTICATED) {
              return yield* new TokenRefused({
                message: closed.reason === "" ? "the token was revoked (the stream closed with 4401)" : closed.reason
              })
            }
            if (state.draining) return
            yield* retryAfter(
              new Unreachable({
                message: `the stream closed (${closed.code}${closed.reason === "" ? "" : `: ${closed.reason}`})`
              })
            )
          }
        })

      const dropReports = Effect.gen(function* () {
        let reported = 0
        yield* Effect.repeat(
          Effect.suspend(() => {
            const total = buffer.dropped
            if (total === reported) return Effect.void
            const since = total - reported
            reported = total
            return Effect.logWarning("Results dropped: the buffer was full").pipe(
              Effect.annotateLogs({ dropped: since, dropped_total: total, buffer_size: settings.bufferSize })
            )
          }),
          Schedule.spaced(Duration.millis(timing.dropReportMs))
        )
      })

      // How long results waited for their acknowledgement, once per window with any.
      const lagReports = Effect.repeat(
        Effect.suspend(() => {
          const summary = lag.take()
          return summary === undefined
            ? Effect.void
            : Effect.logInfo("Results delivered").pipe(Effect.annotateLogs({ ...summary }))
        }),
        Schedule.spaced(Duration.millis(timing.lagReportMs))
      )

      yield* Effect.forkScoped(guarded(dropReports))
      yield* Effect.forkScoped(guarded(lagReports))
      yield* Effect.forkScoped(guarded(connections(first)))

      const drainAndDeliver = Effect.gen(function* () {
        yield* options.drain
        const deadline = Date.now() + settings.drainTimeoutSecs * 1000
        state.draining = true
        yield* Effect.logInfo("Draining: taking no more checks, finishing those taken").pipe(
          Effect.annotateLogs({ inflight: state.inflight + state.oneOffs, undelivered: buffer.size })
        )
        if (Option.isSome(state.link)) yield* state.link.value.send({ _tag: "draining" })
        yield* waitUntil(() => state.inflight === 0 && state.oneOffs === 0, deadline)
        if (state.inflight + state.oneOffs > 0) {
          yield* Effect.logWarning("Drain timeout: checks still running are abandoned").pipe(
            Effect.annotateLogs("checks", state.inflight + state.oneOffs)
          )
        }
        yield* ring
        const streamDeadline = Math.min(deadline, Date.now() + timing.drainStreamGraceMs)
        yield* waitUntil(
          () => (buffer.size === 0 && oneOffBuffer.size === 0) || Option.isNone(state.link),
          streamDeadline
        )
        if (oneOffBuffer.size > 0) {
          // Only the stream carries them; their requests stop waiting within seconds anyway.
          yield* Effect.logWarning("One-off answers not delivered before the drain ended").pipe(
            Effect.annotateLogs("answers", oneOffBuffer.size)
          )
        }
        yield* deliverOverHttp(deadline)
        if (buffer.size > 0) {
          yield* Effect.logError("Drained with results that could not be delivered").pipe(
            Effect.annotateLogs("undelivered", buffer.size)
          )
        } else {
          yield* Effect.logInfo("Drained: every result delivered")
        }
        return { undelivered: buffer.size }
      })

      // What the stream did not take in time goes over HTTP, with backoff between failures, until the deadline.
      const deliverOverHttp = (deadline: number): Effect.Effect<void, TokenRefused> =>
        Effect.gen(function* () {
          let failures = 0
          while (buffer.size > 0 && Date.now() < deadline) {
            const batch = buffer.all().slice(0, Protocol.MAX_RESULTS_PER_BATCH)
            const delivered = yield* HttpCalls.deliver(target, batch).pipe(Effect.either)
            if (delivered._tag === "Right") {
              failures = 0
              const acknowledged = new Set(delivered.right)
              buffer.ack(acknowledged, onDelivered)
              if (batch.every((result) => !acknowledged.has(result.id))) {
                yield* Effect.logError("The service acknowledged none of a batch of results").pipe(
                  Effect.annotateLogs("results", batch.length)
                )
                return
              }
              continue
            }
            const error = delivered.left
            if (error._tag === "TokenRefused") return yield* Effect.fail(error)
            const delayMs = Math.min(yield* Backoff.next(policy, failures), Math.max(0, deadline - Date.now()))
            failures++
            yield* Effect.logWarning("Cannot deliver results over HTTP; retrying").pipe(
              Effect.annotateLogs({ error: error.message, retry_in_ms: delayMs })
            )
            yield* Effect.sleep(Duration.millis(delayMs))
          }
        })

      return yield* Effect.raceFirst(drainAndDeliver, Deferred.await(stop))
    })
  )

const waitUntil = (done: () => boolean, deadline: number): Effect.Effect<void> =>
  Effect.suspend(function loop(): Effect.Effect<void> {
    if (done() || Date.now() >= deadline) return Effect.void
    return Effect.zipRight(Effect.sleep(Duration.millis(Math.min(50, deadline - Date.now()))), Effect.suspend(loop))
  })
