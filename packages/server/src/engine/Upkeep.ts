/**
 * The engine's upkeep in every worker process (all of it idempotent, so several workers may run it):
 *
 * - holds, every `scheduler.refresh_secs`: a monitor the plan no longer covers is held (its schedule rows are
 *   skipped by the claim): every monitor of a soft-deleted org or account, and, past the account's `max_targets`
 *   (after a downgrade), the ones beyond the quota by core `Holds.held`: those the owner picked to keep first
 *   (`PUT /api/v1/account/holds`), then the oldest, so without a pick the newest are held. Status pages past
 *   `max_status_pages` are held the same way (not published: the public surface answers 404), and every process
 *   drops its cached pages when any page's hold changed. Whatever changed the plan (the payment provider's
 *   webhook, an operator, SQL), the next refresh follows it; lifting the cause lifts the hold on the next refresh.
 * - partitions, hourly: the daily `check_results` partitions for yesterday to three days ahead exist.
 * - retention, hourly: raw results are kept `raw_days` of the account's plan. Partitions are shared by every tenant,
 *   so a partition is dropped only when it is older than the longest `raw_days` of any plan or override; an account
 *   whose plan keeps less has its older rows deleted. Rollups are kept `retention_days` of the plan (the readable
 *   history window); the rollups of deleted monitors go too.
 * - evidence, hourly: screenshots past their `expires_at` (the account's `evidence_days` when the result was
 *   written) and those of deleted monitors are deleted. The screenshot route already answers 404 from `expires_at`
 *   on, so the hour between them is only storage.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { AppConfig } from "../config/Config.js"
import { Invalidation } from "../infra/Invalidation.js"
import * as PageChanges from "../statuspages/PageChanges.js"
import { EvidenceRepo } from "./EvidenceRepo.js"
import { EngineRepo } from "./Repo.js"

/** Holds and lifts holds per the plans; answers how many monitors and status pages changed. */
export const refreshHolds = Effect.gen(function* () {
  const changed = yield* Effect.flatMap(EngineRepo, (repo) => repo.refreshHolds)
  // A page held or released must not be served from any process's cache for the rest of its window.
  if (changed.pages > 0) yield* Effect.flatMap(Invalidation, (invalidation) => invalidation.publish(PageChanges.every))
  return changed
})

/** Keeps the partitions ahead and the retention behind; answers how many partitions and rows went. */
export const keepPartitions = Effect.gen(function* () {
  const repo = yield* EngineRepo
  yield* repo.ensurePartitions
  const days = yield* repo.longestRawDays(30)
  const dropped = yield* repo.dropPartitions(days)
  const deleted = yield* repo.deleteExpiredResults(days)
  for (const table of ["result_rollups_hourly", "result_rollups_daily"] as const) {
    yield* repo.deleteExpiredRollups(table)
    yield* repo.deleteOrphanRollups(table)
  }
  return dropped + deleted
})

/** Deletes the evidence no longer kept; answers how many screenshots went. */
export const pruneEvidence = Effect.flatMap(EvidenceRepo, (repo) => repo.prune)

const forever = <A, R>(name: string, every: Duration.DurationInput, work: Effect.Effect<A, unknown, R>) =>
  work.pipe(
    Effect.catchAllCause((cause) =>
      Effect.logWarning("Engine upkeep failed; retrying on the next tick", cause).pipe(
        Effect.annotateLogs("task", name)
      )
    ),
    Effect.repeat(Schedule.spaced(every)),
    Effect.asVoid
  )

/** The upkeep loops for the life of the process. */
export const layer = Layer.scopedDiscard(
  Effect.gen(function* () {
    const config = yield* AppConfig
    yield* Effect.forkScoped(forever("holds", Duration.seconds(config["scheduler.refresh_secs"]), refreshHolds))
    yield* Effect.forkScoped(forever("partitions", "1 hour", keepPartitions))
    yield* Effect.forkScoped(forever("evidence", "1 hour", pruneEvidence))
  })
).pipe(Layer.provide([EngineRepo.Default, EvidenceRepo.Default, Invalidation.Default]))
