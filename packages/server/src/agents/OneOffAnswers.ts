/**
 * Taking an agent's answers to one-off runs (`one_off_results` on the stream), once each. A run is answered by the
 * agent it was handed to, while its request still waits: one conditional update per batch records the answers
 * (`answered_at`, the result the request reads), and for check-now's runs (those with a monitor) the results are
 * stored in the same transaction, as check-now stores its own: `check_now`, weight 0 (an extra check stands for no
 * stretch of the timeline), with the agent's region. An answer sent twice (a lost ack, a reconnect), or racing
 * another delivery of itself, meets the condition already spent: it is acknowledged and nothing is stored again.
 * An answer after the request stopped waiting (the run closed or deleted) is acknowledged and dropped.
 *
 * The result's time is when the check ended on the agent; one more than `MAX_SKEW_MS` off the server's clock (ahead
 * of now, or before the run was asked) is a clock gone wrong: the person waiting still gets the outcome, stamped with
 * the server's time instead, and it is logged.
 */
import type { AuthenticatedAgent, OneOffResult, Outcome } from "@signalman/core/api/Agent"
import { CheckResult } from "@signalman/core/CheckResult"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { isBlocked } from "../engine/ResultObservers.js"
import { type Pending, ResultStore } from "../engine/ResultStore.js"
import { type Finished, OneOffsRepo, type Open } from "../oneoffs/Repo.js"
import { Wakeups } from "../oneoffs/Wakeups.js"
import { absurdity } from "./Ingest.js"

/** How often a batch is judged again after a concurrent delivery answered one of its runs first. */
const CONFLICT_RETRIES = 3

const encodeResult = Schema.encodeSync(CheckResult)

/** The result of a run as the agent reported it, in the agent's region; `skewed` when its time was replaced. */
export const resultOf = (
  agent: AuthenticatedAgent,
  run: Pick<Open, "created_at">,
  outcome: Outcome,
  nowMs: number
): { readonly result: CheckResult; readonly skewed: string | undefined } => {
  const skewed = absurdity(outcome, run.created_at.getTime(), nowMs)
  return {
    result: new CheckResult({
      status: outcome.status,
      duration_ms: Number.isFinite(outcome.duration_ms) ? Math.max(0, outcome.duration_ms) : 0,
      error: outcome.error,
      details: outcome.details,
      phases: outcome.phases,
      checked_at: skewed === undefined ? outcome.checked_at : DateTime.unsafeMake(nowMs),
      region: agent.region
    }),
    skewed
  }
}

export class OneOffAnswers extends Effect.Service<OneOffAnswers>()("Signalman/AgentOneOffAnswers", {
  effect: Effect.gen(function* () {
    const repo = yield* OneOffsRepo
    const store = yield* ResultStore
    const wakeups = yield* Wakeups

    // One pass: the runs still open to this agent are answered, and check-now's results stored, in one transaction.
    // Fails with AnswerConflict (all rolled back) when a concurrent delivery answered one of them first.
    const write = (agent: AuthenticatedAgent, answers: ReadonlyMap<string, OneOffResult>) =>
      Effect.gen(function* () {
        const open = yield* repo.open([...answers.keys()], agent.id)
        const now = Date.now()
        const finished: Array<Finished> = []
        const pending: Array<Pending> = []
        const skews: Array<string> = []
        for (const run of open) {
          const answer = answers.get(run.id.toLowerCase())
          if (answer === undefined) continue
          const { result, skewed } = resultOf(agent, run, answer.outcome, now)
          if (skewed !== undefined) skews.push(skewed)
          finished.push({ id: run.id, result: encodeResult(result) })
          if (run.target_id !== null && run.kind !== null) {
            pending.push({
              targetId: run.target_id,
              orgId: run.org_id,
              kind: run.kind,
              result,
              source: "check_now",
              blocked: isBlocked(result),
              weightSecs: 0,
              evidence: answer.outcome.evidence
            })
          }
        }
        if (skews.length > 0) {
          yield* Effect.logWarning("One-off answers restamped: the agent's clock looks wrong").pipe(
            Effect.annotateLogs({ agent_id: agent.id, region: agent.region, answers: skews.length, reason: skews[0] })
          )
        }
        yield* store.write(pending, repo.finish(finished, agent.id))
        return finished.map((answer) => answer.id)
      })

    /** Takes what is new of the batch, once; answers the ids acknowledged (every one of the batch). */
    const answer = (
      agent: AuthenticatedAgent,
      batch: ReadonlyArray<OneOffResult>
    ): Effect.Effect<ReadonlyArray<string>> =>
      Effect.gen(function* () {
        if (batch.length === 0) return []
        const answers = new Map(batch.map((result) => [result.id.toLowerCase(), result]))
        const taken = yield* write(agent, answers).pipe(
          Effect.retry({ times: CONFLICT_RETRIES, while: (e) => e._tag === "AnswerConflict" }),
          Effect.orDie
        )
        yield* wakeups.answered(taken)
        return batch.map((result) => result.id)
      })

    return { answer }
  }),
  dependencies: [OneOffsRepo.Default, Wakeups.Default]
}) {}
