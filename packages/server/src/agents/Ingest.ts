/**
 * Taking an agent's results in, exactly once, whether they come over the stream or HTTP, once or many times.
 *
 * Each result is for one slot, `(target, the agent's region, due)`, and carries an id the agent assigned. A receipt
 * per stored result (`agent_receipts`) is written in the same transaction as the result itself and the release of
 * its schedule row, so:
 * - a result delivered again (its ack was lost, the agent reconnected, it went over the stream and then HTTP) is
 *   acknowledged and not stored again: its id has a receipt;
 * - a slot run twice (the agent's lease lapsed while it ran, and a sibling took the row and ran it too) is stored
 *   once, whichever result comes first: the slot has a receipt;
 * - two deliveries racing each other meet on the receipts' keys: the later transaction finds its receipt taken,
 *   rolls back (its results with it) and is judged again, finding the other's receipts.
 *
 * A result is acknowledged once the server holds it or never will: stored now or before, or dropped for good (its
 * monitor deleted or no longer in the region, its slot already stored, its times absurd). Its row is released for
 * every result whose slot the row still waits on, the dropped ones included: the release applies only while the
 * agent holds the lease (`leased_by`), and moves the row to its next slot, so a result without an outcome (the job
 * was not run) only moves the slot on. A result for a slot the row has left (a late resend, while the agent may
 * already hold the row's next slot) releases nothing. Results without an outcome leave no receipt, so they never
 * stand in the way of a sibling's real result for the same slot.
 *
 * The stored result's region is the agent's; its `checked_at` is when it ended on the agent. A time more than
 * `MAX_SKEW_MS` ahead of the server's clock, or before the slot was due by as much, is a clock gone wrong: the
 * result is dropped (and logged) rather than written into the wrong hour.
 */
import type { Result as AgentResult, AuthenticatedAgent, Outcome } from "@signalman/core/api/Agent"
import { CheckResult } from "@signalman/core/CheckResult"
import type { CheckKind } from "@signalman/core/CheckSpec"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import { EngineClaimsRepo, type Release } from "../engine/ClaimsRepo.js"
import { isBlocked } from "../engine/ResultObservers.js"
import { type Pending, ResultStore } from "../engine/ResultStore.js"
import * as Slots from "../engine/Slots.js"
import { Metrics } from "../metrics/Metrics.js"
import * as Spans from "../tracing/Spans.js"
import { leaseToken } from "./Leases.js"
import { AgentsRepo, type Slot } from "./Repo.js"

/** A batch taken in: the ids the server now holds, and what is left to do once the agent has been told. */
export interface Ingested {
  readonly acknowledged: ReadonlyArray<string>
  readonly afterwards: Effect.Effect<void>
}

/** How far an agent's clock may be off the server's before its results are refused as absurd. */
export const MAX_SKEW_MS = 5 * 60_000

/** How often a batch is judged again after a concurrent delivery took one of its receipts first. */
const CONFLICT_RETRIES = 3

// A due time exactly as PostgreSQL writes a timestamptz as text (the claim's `due_text`).
const DUE = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(\.\d{1,6})?([+-]\d{2})(?::(\d{2}))?(?::\d{2})?$/

/** The epoch milliseconds of a job's `due`, or undefined when it is not a due time the server wrote. */
export const dueMillis = (due: string): number | undefined => {
  const m = DUE.exec(due)
  if (m === null) return undefined
  const [, date, time, fraction, hours, minutes] = m
  const ms = Date.parse(`${date}T${time}${(fraction ?? "").slice(0, 4)}${hours}:${minutes ?? "00"}`)
  return Number.isFinite(ms) ? ms : undefined
}

/** Why a result with an outcome is not stored although its monitor is there. */
export const absurdity = (outcome: Outcome, dueMs: number, nowMs: number): string | undefined => {
  const at = DateTime.toEpochMillis(outcome.checked_at)
  if (at > nowMs + MAX_SKEW_MS) return "checked_at is in the future"
  if (at < dueMs - MAX_SKEW_MS) return "checked_at is before the slot was due"
  if (!Number.isFinite(outcome.duration_ms) || outcome.duration_ms < 0) return "duration_ms is negative"
  return undefined
}

/** The monitor a result is for, as storing the result needs it. */
interface ResultTarget {
  readonly id: string
  readonly org_id: string
  readonly interval_secs: number
  readonly kind: CheckKind
}

/** A judged result: its slot, its monitor, and what is kept of it. */
interface Judged {
  readonly result: AgentResult
  readonly dueMs: number
  readonly target: ResultTarget
}

/**
 * The result as the store takes it, with the evidence the run kept (a failed flow's screenshot), which the store
 * keeps beside the result for the plan's `evidence_days` and names in its `details.screenshot_url`.
 */
const toPending = (agent: AuthenticatedAgent, judged: Judged, outcome: Outcome): Pending => {
  const result = new CheckResult({
    status: outcome.status,
    duration_ms: outcome.duration_ms,
    error: outcome.error,
    details: outcome.details,
    phases: outcome.phases,
    checked_at: outcome.checked_at,
    region: agent.region
  })
  return {
    targetId: judged.target.id,
    orgId: judged.target.org_id,
    kind: judged.target.kind,
    result,
    source: "scheduled",
    blocked: isBlocked(result),
    weightSecs: judged.target.interval_secs,
    evidence: outcome.evidence
  }
}

export class Ingest extends Effect.Service<Ingest>()("Signalman/AgentIngest", {
  effect: Effect.gen(function* () {
    const repo = yield* AgentsRepo
    const claims = yield* EngineClaimsRepo
    const store = yield* ResultStore
    const metrics = yield* Metrics

    // One pass over the well-formed results: each judged (its monitor, its receipts, its row), what is new stored
    // with its receipt, the rows still on their slot released. Fails with ReceiptConflict (all rolled back) when a
    // concurrent delivery took a receipt first; the pass is then made again from the judgement.
    const write = (agent: AuthenticatedAgent, wellFormed: ReadonlyArray<{ result: AgentResult; dueMs: number }>) =>
      Effect.gen(function* () {
        const slotOf = (result: AgentResult): Slot => ({
          result_id: result.id.toLowerCase(),
          target_id: result.target_id,
          due: result.due
        })
        const judged = new Map(
          (yield* repo.judge(
            wellFormed.map((w) => slotOf(w.result)),
            agent.region
          )).map((j) => [j.result_id, j])
        )
        const now = Date.now()
        const pending: Array<Pending> = []
        const lags: Array<number> = []
        const receipts: Array<Slot> = []
        const releases: Array<Release> = []
        const absurd: Array<string> = []
        // Slots stored by this batch: a second result for one of them (the agent ran it twice) is a duplicate too.
        const storing = new Set<string>()
        for (const { result, dueMs } of wellFormed) {
          const held = judged.get(result.id.toLowerCase())
          // Deleted meanwhile, or no longer probed from this region: acknowledged, nothing to keep.
          if (
            held === undefined ||
            held.target_id === null ||
            held.org_id === null ||
            held.interval_secs === null ||
            held.kind === null
          ) {
            continue
          }
          if (!held.in_region) continue
          const target: ResultTarget = {
            id: held.target_id,
            org_id: held.org_id,
            interval_secs: held.interval_secs,
            kind: held.kind
          }
          const outcome = result.outcome
          let status: string | null = null
          const slot = `${target.id}|${dueMs}`
          if (outcome !== null && !held.known && !held.slot_taken && !storing.has(slot)) {
            const why = absurdity(outcome, dueMs, now)
            if (why === undefined) {
              pending.push(toPending(agent, { result, dueMs, target }, outcome))
              if (metrics.enabled) lags.push(Slots.lateStartMs(outcome, dueMs))
              receipts.push(slotOf(result))
              storing.add(slot)
              status = outcome.status
            } else {
              absurd.push(why)
            }
          }
          // A result for a slot the row has left (resent late, while the agent may hold the row's next slot) must not
          // end that lease.
          if (held.current) {
            releases.push({
              target_id: target.id,
              region: agent.region,
              due: result.due,
              next: new Date(Slots.nextRunMs(dueMs, target.interval_secs, now)).toISOString(),
              interval_secs: target.interval_secs,
              status
            })
          }
        }
        if (absurd.length > 0) {
          yield* Effect.logWarning("Agent results dropped: the agent's clock looks wrong").pipe(
            Effect.annotateLogs({ agent_id: agent.id, region: agent.region, dropped: absurd.length, reason: absurd[0] })
          )
        }
        const stored = yield* store.store(
          pending,
          Effect.zipRight(
            repo.insertReceipts(receipts, agent.region, agent.id),
            claims.release(releases, leaseToken(agent.id))
          )
        )
        yield* metrics.started(agent.region, lags)
        return stored
      })

    /**
     * Stores what is new of the batch, once; answers the ids the server now holds (every well-formed one) as soon as
     * they are committed, with what is left to do afterwards (the incident writer's fold of the stored results), so
     * the agent's acknowledgement need not wait for it.
     */
    const ingestThen = (agent: AuthenticatedAgent, batch: ReadonlyArray<AgentResult>): Effect.Effect<Ingested> =>
      Effect.gen(function* () {
        // The same id twice in a batch is one result.
        const unique = [...new Map(batch.map((r) => [r.id.toLowerCase(), r])).values()]
        const wellFormed: Array<{ result: AgentResult; dueMs: number }> = []
        let malformed = 0
        for (const result of unique) {
          const dueMs = dueMillis(result.due)
          if (dueMs === undefined) malformed++
          else wellFormed.push({ result, dueMs })
        }
        if (malformed > 0) {
          yield* Effect.logWarning("Agent results dropped: their due is not a slot this server handed out").pipe(
            Effect.annotateLogs({ agent_id: agent.id, dropped: malformed })
          )
        }
        const afterwards =
          wellFormed.length === 0
            ? Effect.void
            : yield* write(agent, wellFormed).pipe(
                Effect.retry({ times: CONFLICT_RETRIES, while: (e) => e._tag === "ReceiptConflict" }),
                Effect.orDie,
                // The runs happened on the agent; what the server's trace shows is their results being stored (under
                // the request span over HTTP, a trace of its own over the stream).
                Spans.withSpan(Spans.AGENT_RESULTS, {
                  [Spans.CHECK_REGION]: agent.region,
                  "signalman.agent_id": agent.id,
                  [Spans.RESULTS_COUNT]: wellFormed.length
                })
              )
        return { acknowledged: unique.map((r) => r.id), afterwards }
      })

    /** `ingestThen` with its afterwards done: answers the ids once the results are stored and folded. */
    const ingest = (agent: AuthenticatedAgent, batch: ReadonlyArray<AgentResult>) =>
      Effect.flatMap(ingestThen(agent, batch), ({ acknowledged, afterwards }) => Effect.as(afterwards, acknowledged))

    return { ingest, ingestThen }
  }),
  dependencies: [AgentsRepo.Default, EngineClaimsRepo.Default]
}) {}
