/**
 * Results of the monitors that have no probe (heartbeat and manual), written like the probes' own: into
 * `check_results` and the rollups through the `ResultStore`, then folded by the incident writer. Region `local`:
 * these monitors are judged by the service itself. `weightSecs` is the stretch of time the result stands for
 * (an evaluation or a restatement stands for its interval; a verdict change between them for none, as a
 * check-now does), so time-based uptime counts each moment once.
 */
import { CheckResult, type ProbeOutcome } from "@signalman/core/CheckResult"
import type * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import { EngineRepo } from "./Repo.js"
import { isBlocked } from "./ResultObservers.js"
import { ResultStore } from "./ResultStore.js"

export interface MonitorResult {
  readonly targetId: string
  readonly outcome: ProbeOutcome
  readonly at: DateTime.Utc
  readonly weightSecs: number
  /** The job or a person reported it: incidents confirm it at once. */
  readonly atOnce: boolean
}

export class MonitorResults extends Effect.Service<MonitorResults>()("Signalman/MonitorResults", {
  effect: Effect.gen(function* () {
    const repo = yield* EngineRepo
    const store = yield* ResultStore

    const write = (results: ReadonlyArray<MonitorResult>) =>
      Effect.gen(function* () {
        if (results.length === 0) return
        const ids = [...new Set(results.map((r) => r.targetId))]
        const owners = yield* repo.orgsOf(ids)
        yield* store.write(
          results.flatMap((r) => {
            const owner = owners.get(r.targetId)
            // A monitor deleted meanwhile has nothing left to record against.
            if (owner === undefined) return []
            const result = new CheckResult({ ...r.outcome, checked_at: r.at, region: "local" })
            return [
              {
                targetId: r.targetId,
                orgId: owner.org_id,
                kind: owner.kind,
                result,
                source: "scheduled" as const,
                blocked: isBlocked(result),
                weightSecs: r.weightSecs,
                atOnce: r.atOnce
              }
            ]
          })
        )
      })

    return { write }
  }),
  dependencies: [EngineRepo.Default]
}) {}
