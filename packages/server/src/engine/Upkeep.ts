/**
 * The engine's upkeep in every worker process (all of it idempotent, so several workers may run it):
 *
 * - holds, every `scheduler.refresh_secs`: a monitor the plan no longer covers is held (its schedule rows are
 *   skipped by the claim): every monitor of a soft-deleted org or account, and, past the account's `max_targets`
 *   (after a downgrade), the newest ones beyond the quota, oldest kept. Lifting the cause lifts the hold on the next
 *   refresh.
 * - partitions, hourly: the daily `check_results` partitions for yesterday to three days ahead exist.
 * - retention, hourly: raw results are kept `raw_days` of the account's plan. Partitions are shared by every tenant,
 *   so a partition is dropped only when it is older than the longest `raw_days` of any plan or override; an account
 *   whose plan keeps less has its older rows deleted. Rollups are kept `retention_days` of the plan (the readable
 *   history window); the rollups of deleted monitors go too.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { AppConfig } from "../config/Config.js"

// Per target: the account's effective plan figures (an override only raises them, as in core/Plan.effective).
const effective = (sql: SqlClient.SqlClient) => sql`
  SELECT t.id, t.account_id, t.created_at, o.deleted_at AS org_deleted_at, a.deleted_at AS account_deleted_at,
    GREATEST(p.max_targets, COALESCE((ov.limits->>'max_targets')::int, 0)) AS max_targets,
    GREATEST(p.raw_days, COALESCE((ov.limits->>'raw_days')::int, 0)) AS raw_days,
    GREATEST(p.retention_days, COALESCE((ov.limits->>'retention_days')::int, 0)) AS retention_days
  FROM targets t
  JOIN orgs o ON o.id = t.org_id
  JOIN accounts a ON a.id = t.account_id
  JOIN plans p ON p.id = a.plan_id
  LEFT JOIN account_overrides ov ON ov.account_id = a.id
`

export const refreshHolds = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const changed = yield* sql`
    UPDATE schedules s SET held = h.held
    FROM (
      SELECT e.id,
        e.org_deleted_at IS NOT NULL OR e.account_deleted_at IS NOT NULL
          OR row_number() OVER (PARTITION BY e.account_id, e.org_deleted_at IS NULL ORDER BY e.created_at, e.id)
            > e.max_targets AS held
      FROM (${effective(sql)}) e
    ) h
    WHERE s.target_id = h.id AND s.held IS DISTINCT FROM h.held
    RETURNING s.target_id
  `
  return changed.length
})

export const keepPartitions = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`SELECT engine_ensure_partitions(3)`
  const [longest] = yield* sql<{ days: number }>`
    SELECT GREATEST(
      (SELECT max(raw_days) FROM plans),
      (SELECT COALESCE(max((limits->>'raw_days')::int), 0) FROM account_overrides)
    )::int AS days
  `
  const days = longest?.days ?? 30
  const [dropped] = yield* sql<{ n: number }>`
    SELECT engine_drop_partitions(now() - make_interval(days => ${days})) AS n
  `
  const deleted = yield* sql`
    DELETE FROM check_results r USING (${effective(sql)}) e
    WHERE r.target_id = e.id AND e.raw_days < ${days}
      AND r.checked_at < now() - make_interval(days => e.raw_days)
      AND r.checked_at >= now() - make_interval(days => ${days + 1})
    RETURNING r.target_id
  `
  for (const table of ["result_rollups_hourly", "result_rollups_daily"] as const) {
    yield* sql`
      DELETE FROM ${sql(table)} r USING (${effective(sql)}) e
      WHERE r.target_id = e.id AND r.bucket < now() - make_interval(days => e.retention_days + 1)
    `
    yield* sql`DELETE FROM ${sql(table)} r WHERE NOT EXISTS (SELECT 1 FROM targets t WHERE t.id = r.target_id)`
  }
  return (dropped?.n ?? 0) + deleted.length
})

const forever = <A>(
  name: string,
  every: Duration.DurationInput,
  work: Effect.Effect<A, unknown, SqlClient.SqlClient>
) =>
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
  })
)
