/**
 * Ping ingest: a ping URL's token to its monitor, the per-token rate limit, and the ping through the heartbeat
 * machine, at thousands of pings a second on one process.
 *
 * - Tokens resolve through an in-process cache of `ping_tokens` (unknown tokens are remembered briefly too),
 *   dropped on `ping_token:<token>` invalidations, which rotation publishes to every process (see `Invalidation`).
 *   A cache miss (a token or a monitor's hint not in memory) is looked up with the other misses of the moment in
 *   one statement (`GroupLoad`). A monitor found gone by a write (deleted by any path) loses its cached tokens and
 *   hint, so its pings answer 404 from the next write on (within about a second).
 * - The rate limit is a token bucket per token in memory (`core/heartbeat/PingRateLimit`). With several API
 *   processes each keeps its own buckets, so a token spread over n processes by a load balancer gets up to n times
 *   the rate; the limit protects each process, not a global budget (docs/decisions.md).
 * - Each process keeps a hint of every pinged monitor's state. A ping the hint says is routine (no verdict change)
 *   is acknowledged from memory and queued; the queue is written once a second, in one transaction that replays the
 *   queued pings through the machine on the stored state under a row lock. A ping the hint says changes the verdict
 *   is written before it is answered, with the others that arrived while the previous such write ran (a group
 *   commit: one transaction, a fixed number of statements whatever the group's size, verdict changes and their
 *   results included). A hint that was wrong costs nothing: the replay finds the real outcome, and a verdict change
 *   it finds is written with that batch.
 * - The queue is written on graceful shutdown, after the HTTP drain, so an acknowledged ping is never lost; a write
 *   under way when the shutdown begins is finished, not cut. A crash (SIGKILL, power loss) loses the routine pings
 *   acknowledged in the last second or so, never a verdict change (docs/heartbeats.md).
 */
import { randomUUID } from "node:crypto"
import * as HeartbeatMachine from "@signalman/core/heartbeat/HeartbeatMachine"
import * as PingRateLimit from "@signalman/core/heartbeat/PingRateLimit"
import type { PingSignal } from "@signalman/core/heartbeat/PingSignal"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Runtime from "effect/Runtime"
import * as Schedule from "effect/Schedule"
import { uuidv7 } from "../infra/Ids.js"
import { Invalidation } from "../infra/Invalidation.js"
import * as GroupLoad from "./GroupLoad.js"
import { type Change, HeartbeatVerdicts } from "./HeartbeatVerdicts.js"
import { type PingLog, PingsRepo, type ResolvedRow, type StateRecord } from "./PingsRepo.js"
import * as StateRows from "./StateRows.js"

/** What became of a ping. */
export type Outcome =
  | { readonly _tag: "Unknown" }
  | { readonly _tag: "Limited"; readonly retry_after_secs: number }
  | { readonly _tag: "Counted"; readonly ping_id: string }

interface TokenEntry {
  readonly target_id: string
  /** Epoch ms; null for the current token. */
  readonly expires_at: number | null
}

interface CachedToken {
  readonly entry: TokenEntry | undefined
  readonly cached_until: number
}

/** A ping counted and not yet written. */
interface Queued {
  readonly id: string
  readonly target_id: string
  readonly token: string
  readonly signal: PingSignal
  readonly at: DateTime.Utc
}

interface OutputPatch {
  readonly ping_id: string
  readonly output: string
}

const TOKEN_TTL_MS = 5 * 60_000
const UNKNOWN_TTL_MS = 30_000
const MAX_CACHED_TOKENS = 200_000

const signalName = (signal: PingSignal): "success" | "start" | "fail" =>
  signal._tag === "Success" ? "success" : signal._tag === "Start" ? "start" : "fail"

const exitCode = (signal: PingSignal): number | null => (signal._tag === "Start" ? null : signal.exit_code)

const changesVerdict = (step: HeartbeatMachine.Step): boolean =>
  step.effects.some((effect) => effect._tag === "VerdictChanged")

export class Pings extends Effect.Service<Pings>()("Signalman/Pings", {
  scoped: Effect.gen(function* () {
    const repo = yield* PingsRepo
    const verdicts = yield* HeartbeatVerdicts
    const invalidation = yield* Invalidation
    const runtime = yield* Effect.runtime<never>()
    const run = <A>(effect: Effect.Effect<A>): Promise<A> => Runtime.runPromise(runtime)(effect)

    const tokens = new Map<string, CachedToken>()
    const buckets = new Map<string, PingRateLimit.Bucket>()
    const hints = new Map<string, HeartbeatMachine.HeartbeatState>()
    let queue: Array<Queued> = []
    let outputs: Array<OutputPatch> = []

    // This process's own `heartbeat:` invalidations name it (`heartbeat:<id>@<origin>`), so their echo through
    // LISTEN is recognised: the hint it set from what it had just written is right, and dropping it would cost the
    // monitor's next ping a lookup.
    const origin = randomUUID()
    invalidation.subscribe((tag) => {
      if (tag === "*") {
        tokens.clear()
        hints.clear()
      } else if (tag.startsWith("ping_token:")) tokens.delete(tag.slice("ping_token:".length))
      else if (tag.startsWith("heartbeat:")) {
        const [id = "", from] = tag.slice("heartbeat:".length).split("@")
        if (from !== origin) hints.delete(id)
      }
    })

    // A token unknown here, or a monitor without a hint: looked up with the other misses of the moment, in one
    // statement per group, so first pings cost a share of a round trip rather than two each.
    const misses = GroupLoad.make((keys: ReadonlyArray<string>) => run(repo.resolve(keys)))

    const rememberToken = (token: string, entry: TokenEntry | undefined, nowMs: number) => {
      if (tokens.size >= MAX_CACHED_TOKENS) tokens.clear()
      tokens.set(token, { entry, cached_until: nowMs + (entry === undefined ? UNKNOWN_TTL_MS : TOKEN_TTL_MS) })
    }

    // How many pings of each monitor wait in `queue`, so a hint loaded for a monitor replays only its own pings
    // instead of scanning the queue (thousands of pings) once per miss.
    const queued = new Map<string, number>()
    const enqueue = (ping: Queued) => {
      queue.push(ping)
      queued.set(ping.target_id, (queued.get(ping.target_id) ?? 0) + 1)
    }
    const recount = () => {
      queued.clear()
      for (const ping of queue) queued.set(ping.target_id, (queued.get(ping.target_id) ?? 0) + 1)
    }
    const queuedOf = (targetId: string): ReadonlyArray<Queued> =>
      queued.has(targetId) ? queue.filter((ping) => ping.target_id === targetId) : []

    const fold = (
      state: HeartbeatMachine.HeartbeatState,
      pings: ReadonlyArray<Queued>
    ): HeartbeatMachine.HeartbeatState =>
      pings.reduce(
        (s, ping) =>
          HeartbeatMachine.step(s, HeartbeatMachine.HeartbeatEvent.Ping({ signal: ping.signal }), ping.at).state,
        state
      )

    /** A monitor's state as stored, brought in line with `enabled`: the hint of a monitor seen for the first time. */
    const storedState = (row: ResolvedRow, now: DateTime.Utc): HeartbeatMachine.HeartbeatState => {
      const stored =
        row.verdict === null
          ? HeartbeatMachine.initial({ enabled: row.enabled })
          : StateRows.toState({ ...row, verdict: row.verdict, paused: row.paused ?? !row.enabled })
      return StateRows.reconcile(stored, row.enabled, now).state
    }

    /**
     * Writes pings (and outputs) in one transaction: each monitor's stored state, brought in line with `enabled`,
     * then its pings in order through the machine. Answers the new states; a monitor gone since is absent.
     */
    const commit = (batch: ReadonlyArray<Queued>, patches: ReadonlyArray<OutputPatch>) =>
      repo.transaction(
        Effect.gen(function* () {
          const now = DateTime.unsafeMake(Date.now())
          const ids = [...new Set(batch.map((ping) => ping.target_id))]
          const states = new Map<string, HeartbeatMachine.HeartbeatState>()
          if (ids.length > 0) {
            yield* repo.ensureStates(ids)
            const rows = yield* repo.lockStates(ids)
            const byTarget = new Map<string, Array<Queued>>()
            for (const ping of batch) {
              const list = byTarget.get(ping.target_id)
              if (list === undefined) byTarget.set(ping.target_id, [ping])
              else list.push(ping)
            }
            const records: Array<StateRecord> = []
            const logs: Array<PingLog> = []
            const changes: Array<Change> = []
            const used = new Map<string, string>()
            for (const row of rows) {
              const reconciled = StateRows.reconcile(StateRows.toState(row), row.enabled, now)
              let state = reconciled.state
              const emit = (step: HeartbeatMachine.Step) => {
                const result = step.effects.find((effect) => effect._tag === "WriteResult")
                for (const effect of step.effects) {
                  if (effect._tag !== "VerdictChanged") continue
                  changes.push({
                    target_id: row.target_id,
                    from: effect.from,
                    to: effect.to,
                    cause: effect.cause,
                    at_once: effect.at_once,
                    at: result?._tag === "WriteResult" ? result.checked_at : now,
                    outcome: result?._tag === "WriteResult" ? result.outcome : undefined
                  })
                }
              }
              emit(reconciled)
              let failed = false
              for (const ping of byTarget.get(row.target_id) ?? []) {
                const step = HeartbeatMachine.step(
                  state,
                  HeartbeatMachine.HeartbeatEvent.Ping({ signal: ping.signal }),
                  ping.at
                )
                emit(step)
                state = step.state
                if (ping.signal._tag === "Fail") failed = true
                const recorded = step.effects.find((effect) => effect._tag === "PingRecorded")
                logs.push({
                  id: ping.id,
                  target_id: ping.target_id,
                  at: DateTime.formatIso(ping.at),
                  signal: signalName(ping.signal),
                  exit_code: exitCode(ping.signal),
                  run_duration_ms: recorded?._tag === "PingRecorded" ? recorded.run_duration_ms : null
                })
                used.set(ping.token, DateTime.formatIso(ping.at))
              }
              states.set(row.target_id, state)
              records.push({ ...StateRows.toRecord(row.target_id, state), failed })
            }
            if (records.length > 0) yield* repo.saveStates(records)
            if (logs.length > 0) {
              yield* repo.insertPings(logs)
              yield* repo.markTokensUsed([...used].map(([token, at]) => ({ token, at })))
            }
            yield* verdicts.changedMany(changes)
          }
          if (patches.length > 0) {
            yield* repo.saveOutputs(patches.map((patch) => ({ id: patch.ping_id, output: patch.output })))
          }
          return states
        })
      )

    /** After a write: a monitor with no pings queued since has its hint set to what was stored. */
    // A monitor absent from what a write stored is gone (deleted by any path: the API, a bulk action, its org's
    // deletion): its tokens and hint are forgotten, so its next ping looks the token up again and answers 404.
    const refreshHints = (
      batch: ReadonlyArray<Queued>,
      states: ReadonlyMap<string, HeartbeatMachine.HeartbeatState>
    ) => {
      for (const [id, state] of states) if (!queued.has(id)) hints.set(id, state)
      for (const ping of batch) {
        if (states.has(ping.target_id)) continue
        tokens.delete(ping.token)
        hints.delete(ping.target_id)
      }
    }

    /** Writes what is queued; on failure it goes back to the head of the queue for the next try. */
    // One flush at a time: a flush asked for while another writes waits for it, so a caller that flushes (the record,
    // the evaluation) sees every ping acknowledged before it asked.
    const flushLock = yield* Effect.makeSemaphore(1)
    // Uninterruptible: the batch has left the queue, so a flush cut short (the shutdown interrupting the flusher)
    // would lose it; the interruption waits for the write to end instead, and the finalizer writes the rest.
    const flushOnce: Effect.Effect<number> = Effect.suspend(() => {
      if (queue.length === 0 && outputs.length === 0) return Effect.succeed(0)
      const batch = queue
      const patches = outputs
      queue = []
      queued.clear()
      outputs = []
      return commit(batch, patches).pipe(
        Effect.map((states) => {
          refreshHints(batch, states)
          return batch.length
        }),
        Effect.catchAllCause((cause) =>
          Effect.sync(() => {
            queue = [...batch, ...queue]
            recount()
            outputs = [...patches, ...outputs]
            return 0
          }).pipe(Effect.zipLeft(Effect.logWarning("Heartbeat pings not written; retrying", cause)))
        )
      )
    }).pipe(Effect.uninterruptible)

    // Verdict-changing pings waiting for their write. Pings arriving while one write runs go together in the
    // next (a group commit): each is still written before it is answered, at far more than one transaction each.
    let urgent: Array<{
      readonly ping: Queued
      readonly done: (written: boolean) => void
      readonly failed: (error: unknown) => void
    }> = []
    let writing = false

    const writeUrgent = async (): Promise<void> => {
      writing = true
      try {
        while (urgent.length > 0) {
          const group = urgent
          urgent = []
          const targets = new Set(group.map((u) => u.ping.target_id))
          const earlier = queue.filter((ping) => targets.has(ping.target_id))
          if (earlier.length > 0) {
            queue = queue.filter((ping) => !targets.has(ping.target_id))
            for (const id of targets) queued.delete(id)
          }
          try {
            const states = await run(
              // Behind the flush lock too: a monitor's pings are written in the order they came.
              flushLock
                .withPermits(1)(commit([...earlier, ...group.map((u) => u.ping)], []))
                .pipe(Effect.orDie)
            )
            // Other processes' hints of these monitors are stale now; ours is set from what was stored.
            await run(invalidation.publishMany([...targets].map((id) => `heartbeat:${id}@${origin}`)))
            refreshHints([...earlier, ...group.map((u) => u.ping)], states)
            for (const u of group) u.done(states.has(u.ping.target_id))
          } catch (error) {
            // Not written: the earlier routine pings go back to the queue, these are answered 500 (and retried by
            // the job's curl --retry).
            queue = [...earlier, ...queue]
            recount()
            for (const u of group) u.failed(error)
          }
        }
      } finally {
        writing = false
      }
    }

    const flush = flushLock.withPermits(1)(flushOnce)

    /** A verdict-changing ping: its monitor's queued pings and this one, written before it is answered. */
    const writeNow = (ping: Queued): Promise<boolean> =>
      new Promise((resolve, reject) => {
        urgent.push({ ping, done: resolve, failed: reject })
        if (!writing) void writeUrgent()
      })

    const sweepBuckets = Effect.sync(() => {
      const now = DateTime.unsafeMake(Date.now())
      for (const [token, bucket] of buckets) if (PingRateLimit.isFull(bucket, now)) buckets.delete(token)
    })

    const flusher = yield* Effect.forkDaemon(
      Effect.all(
        [
          flush.pipe(Effect.repeat(Schedule.spaced("1 second"))),
          sweepBuckets.pipe(Effect.repeat(Schedule.spaced("1 minute")))
        ],
        { concurrency: 2, discard: true }
      )
    )
    // Runs after the HTTP drain (this service outlives the server that uses it): nothing acknowledged is left behind.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        yield* Effect.logInfo("Shutting down: writing the acknowledged pings").pipe(
          Effect.annotateLogs("queued", queue.length)
        )
        // Stopped between two flushes, never during one: a flush interrupted mid-write had taken its batch off the
        // queue and did not put it back (recovery does not run on interruption), so the pings it held, acknowledged
        // within the last second, were lost without a word.
        yield* flushLock.withPermits(1)(Fiber.interrupt(flusher))
        let rounds = 0
        while ((queue.length > 0 || outputs.length > 0) && rounds < 5) {
          yield* flush
          rounds++
        }
        if (queue.length > 0)
          yield* Effect.logError("Heartbeat pings lost at shutdown").pipe(Effect.annotateLogs("pings", queue.length))
      })
    )

    /**
     * Counts a ping: the token resolves (or 404), the bucket allows it (or 429), the machine takes it. The answer
     * comes once the ping is queued, or written when it changes the verdict.
     */
    const ping = async (token: string, signal: PingSignal, nowMs: number): Promise<Outcome> => {
      const now = DateTime.unsafeMake(nowMs)
      const cached = tokens.get(token)
      let entry: TokenEntry | undefined
      let hint: HeartbeatMachine.HeartbeatState | undefined
      if (cached !== undefined && cached.cached_until > nowMs) {
        if (cached.entry === undefined) return { _tag: "Unknown" }
        entry = cached.entry
        hint = hints.get(entry.target_id)
      }
      if (entry === undefined || hint === undefined) {
        const row = await misses.get(token)
        if (row === undefined) {
          rememberToken(token, undefined, nowMs)
          return { _tag: "Unknown" }
        }
        entry = { target_id: row.target_id, expires_at: row.expires_at === null ? null : row.expires_at.getTime() }
        rememberToken(token, entry, nowMs)
        // Another ping of the monitor may have set a hint while this one waited: it is the newer.
        hint = hints.get(row.target_id) ?? fold(storedState(row, now), queuedOf(row.target_id))
      }
      if (entry.expires_at !== null && nowMs >= entry.expires_at) return { _tag: "Unknown" }
      const taken = PingRateLimit.take(buckets.get(token), now)
      buckets.set(token, taken.bucket)
      if (taken.decision._tag === "Limited") {
        return { _tag: "Limited", retry_after_secs: taken.decision.retry_after_secs }
      }
      const ping: Queued = { id: uuidv7(nowMs), target_id: entry.target_id, token, signal, at: now }
      const step = HeartbeatMachine.step(hint, HeartbeatMachine.HeartbeatEvent.Ping({ signal }), now)
      if (changesVerdict(step)) {
        hints.delete(entry.target_id)
        const written = await writeNow(ping)
        return written ? { _tag: "Counted", ping_id: ping.id } : { _tag: "Unknown" }
      }
      hints.set(entry.target_id, step.state)
      enqueue(ping)
      return { _tag: "Counted", ping_id: ping.id }
    }

    return {
      ping,
      /** Keeps a counted ping's body as its output (written with the next batch). */
      output: (pingId: string, output: string): void => {
        outputs.push({ ping_id: pingId, output })
      },
      /** Writes everything queued now (tests, and the record's read-your-writes). */
      flush: Effect.asVoid(flush),
      /** Pings queued and not yet written. */
      pending: (): number => queue.length
    }
  }),
  dependencies: [HeartbeatVerdicts.Default, Invalidation.Default, PingsRepo.Default]
}) {}
