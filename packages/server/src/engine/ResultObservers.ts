/**
 * The port between the engine and what reacts to results: after a batch of results is stored (committed), the
 * engine hands it to `ResultObservers.observe`; `Monitoring.ts` binds it to the incident writer. `observe` runs after the commit and outside the
 * scheduler's critical path: a failure is logged and does not undo the stored results, so an observer that must not
 * miss a result reads what it needs from `check_results` (it is the record) and uses the batch as a wake-up.
 */
import type { CheckResult } from "@signalman/core/CheckResult"
import type { CheckKind } from "@signalman/core/CheckSpec"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** One stored result and whose it is. */
export interface StoredResult {
  readonly targetId: string
  readonly orgId: string
  /** The monitor's kind (the checks series count by it). */
  readonly kind: CheckKind
  readonly result: CheckResult
  /** `scheduled` by the engine, or `check_now` by a person. */
  readonly source: "scheduled" | "check_now"
  /** An error whose text starts `blocked:` (an internal address refused at probe time): stored, never downtime. */
  readonly blocked: boolean
  /** The job reported it itself (a heartbeat's failure, a manual set): incidents confirm it at once. */
  readonly atOnce?: boolean | undefined
}

export interface Observer {
  readonly observe: (batch: ReadonlyArray<StoredResult>) => Effect.Effect<void>
}

export class ResultObservers extends Context.Tag("Signalman/ResultObservers")<ResultObservers, Observer>() {}

/** Whether a result is a blocked check (decisions.md: the text starts `blocked:`), which is not downtime. */
export const isBlocked = (result: CheckResult): boolean =>
  result.status === "error" && result.error !== null && result.error.startsWith("blocked:")
