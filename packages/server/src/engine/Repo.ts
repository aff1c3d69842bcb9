/**
 * The engine's SQL outside the hot path: the readings of stored results (pages, latency rows, uptime sums, the
 * dashboard's counts), the org of a probe-less monitor's results, and the upkeep statements (holds, partitions,
 * retention). docs/engine.md has the shapes and which source serves which range.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { CheckResult, CheckStatus } from "@signalman/core/CheckResult"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

const date = Schema.DateFromSelf

/** Which results: a monitor's, in `[from, to)`, in one region or all. */
export const Range = Schema.Struct({
  target_id: Schema.String,
  from: date,
  to: date,
  region: Schema.UndefinedOr(Schema.String)
})
export type Range = typeof Range.Type

/** A stored result as the API answers it. */
export const ResultRow = Schema.Struct({ ...CheckResult.fields, checked_at: Schema.DateTimeUtcFromDate })

const latencySums = {
  region: Schema.String,
  start: date,
  checks: Schema.Number,
  errors: Schema.Number,
  duration_sum: Schema.Number,
  dns_sum: Schema.Number,
  dns_n: Schema.Number,
  connect_sum: Schema.Number,
  connect_n: Schema.Number,
  tls_sum: Schema.Number,
  tls_n: Schema.Number,
  first_byte_sum: Schema.Number,
  first_byte_n: Schema.Number
}

/** A monitor's latency figures for one region and bucket, summed; quantiles come from `histogram`. */
export const LatencyRow = Schema.Struct({ ...latencySums, histogram: Schema.Array(Schema.Number) })
export type LatencyRow = typeof LatencyRow.Type

/** A latency row summed from raw results: the measured durations themselves instead of their histogram. */
export const RawLatencyRow = Schema.Struct({
  ...latencySums,
  // float8[] arrives as numbers; a driver answering strings is read as well.
  durations: Schema.Array(Schema.Union(Schema.Number, Schema.NumberFromString))
})

/** Result counts and the seconds they stand for. */
export const UptimeRow = Schema.Struct({
  checks: Schema.Number,
  up: Schema.Number,
  degraded: Schema.Number,
  down: Schema.Number,
  errors: Schema.Number,
  up_secs: Schema.Number,
  down_secs: Schema.Number,
  excluded_secs: Schema.Number
})
export type UptimeRow = typeof UptimeRow.Type

const Period = Schema.Struct({ from_ts: Schema.DateFromString, until_ts: Schema.DateFromString })

const TargetCounts = Schema.Struct({ total: Schema.Number, enabled: Schema.Number, held: Schema.Number })
const StatusCount = Schema.Struct({ status: Schema.NullOr(CheckStatus), n: Schema.Number })
const DayFigures = Schema.Struct({ checks: Schema.Number, up_secs: Schema.Number, down_secs: Schema.Number })
const TargetOrg = Schema.Struct({ id: Schema.String, org_id: Schema.String })
const Count = Schema.Struct({ n: Schema.Number })
const Days = Schema.Struct({ days: Schema.Number })
const Rollups = Schema.Literal("result_rollups_hourly", "result_rollups_daily")

export class EngineRepo extends Effect.Service<EngineRepo>()("Signalman/EngineRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const regionFilter = (region: string | undefined) => (region === undefined ? sql`` : sql`AND region = ${region}`)
    const inRange = (r: typeof Range.Encoded) =>
      sql`target_id = ${r.target_id} AND checked_at >= ${r.from} AND checked_at < ${r.to} ${regionFilter(r.region)}`

    const resultCount = SqlSchema.single({
      Request: Range,
      Result: Count,
      execute: (r) => sql`SELECT count(*)::int AS n FROM check_results WHERE ${inRange(r)}`
    })

    const resultPage = SqlSchema.findAll({
      Request: Schema.Struct({ range: Range, limit: Schema.Number, offset: Schema.Number }),
      Result: ResultRow,
      execute: ({ range, limit, offset }) => sql`
        SELECT region, checked_at, status, duration_ms, error, details, phases FROM check_results
        WHERE ${inRange(range)} ORDER BY checked_at DESC LIMIT ${limit} OFFSET ${offset}
      `
    })

    const rawLatency = SqlSchema.findAll({
      Request: Schema.Struct({ range: Range, width: Schema.Number }),
      Result: RawLatencyRow,
      execute: ({ range, width }) => sql`
        SELECT region, date_bin(make_interval(secs => ${width}), checked_at, 'epoch'::timestamptz) AS start,
          count(*)::int AS checks, count(*) FILTER (WHERE status = 'error')::int AS errors,
          COALESCE(sum(duration_ms) FILTER (WHERE status <> 'error'), 0)::float8 AS duration_sum,
          COALESCE(sum((phases->>'dns_ms')::float8) FILTER (WHERE status <> 'error'), 0)::float8 AS dns_sum,
          count(phases->>'dns_ms') FILTER (WHERE status <> 'error')::int AS dns_n,
          COALESCE(sum((phases->>'connect_ms')::float8) FILTER (WHERE status <> 'error'), 0)::float8 AS connect_sum,
          count(phases->>'connect_ms') FILTER (WHERE status <> 'error')::int AS connect_n,
          COALESCE(sum((phases->>'tls_ms')::float8) FILTER (WHERE status <> 'error'), 0)::float8 AS tls_sum,
          count(phases->>'tls_ms') FILTER (WHERE status <> 'error')::int AS tls_n,
          COALESCE(sum((phases->>'first_byte_ms')::float8) FILTER (WHERE status <> 'error'), 0)::float8 AS first_byte_sum,
          count(phases->>'first_byte_ms') FILTER (WHERE status <> 'error')::int AS first_byte_n,
          COALESCE(array_agg(duration_ms) FILTER (WHERE status <> 'error'), '{}') AS durations
        FROM check_results
        WHERE ${inRange(range)}
        GROUP BY 1, 2 ORDER BY 2
      `
    })

    const rollupLatency = SqlSchema.findAll({
      Request: Schema.Struct({ range: Range, width: Schema.Number, table: Rollups }),
      Result: LatencyRow,
      execute: ({ range, width, table }) => sql`
        SELECT region, bucket AS start, checks, errors, duration_sum, dns_sum, dns_n, connect_sum, connect_n,
          tls_sum, tls_n, first_byte_sum, first_byte_n, histogram
        FROM ${sql(table)}
        WHERE target_id = ${range.target_id}
          AND bucket >= date_bin(make_interval(secs => ${width}), ${range.from}::timestamptz, 'epoch'::timestamptz)
          AND bucket < ${range.to} ${regionFilter(range.region)}
        ORDER BY bucket
      `
    })

    const rawUptime = SqlSchema.single({
      Request: Schema.Struct({ range: Range, excluded: Schema.parseJson(Schema.Array(Period)) }),
      Result: UptimeRow,
      execute: ({ range, excluded }) => sql`
        WITH r AS (
          SELECT status, weight_secs, EXISTS (
            SELECT 1 FROM jsonb_to_recordset(${excluded}::jsonb) AS p(from_ts timestamptz, until_ts timestamptz)
            WHERE check_results.checked_at >= p.from_ts AND check_results.checked_at < p.until_ts
          ) AS excluded
          FROM check_results
          WHERE ${inRange(range)}
        )
        SELECT count(*)::int AS checks, count(*) FILTER (WHERE status = 'up')::int AS up,
          count(*) FILTER (WHERE status = 'degraded')::int AS degraded,
          count(*) FILTER (WHERE status = 'down')::int AS down,
          count(*) FILTER (WHERE status = 'error')::int AS errors,
          COALESCE(sum(weight_secs) FILTER (WHERE status IN ('up', 'degraded') AND NOT excluded), 0)::int AS up_secs,
          COALESCE(sum(weight_secs) FILTER (WHERE status = 'down' AND NOT excluded), 0)::int AS down_secs,
          COALESCE(sum(weight_secs) FILTER (WHERE excluded AND status <> 'error'), 0)::int AS excluded_secs
        FROM r
      `
    })

    const rollupUptime = SqlSchema.single({
      Request: Range,
      Result: UptimeRow,
      execute: (range) => sql`
        SELECT COALESCE(sum(checks), 0)::int AS checks, COALESCE(sum(up), 0)::int AS up,
          COALESCE(sum(degraded), 0)::int AS degraded, COALESCE(sum(down), 0)::int AS down,
          COALESCE(sum(errors), 0)::int AS errors, COALESCE(sum(up_secs), 0)::int AS up_secs,
          COALESCE(sum(down_secs), 0)::int AS down_secs, 0 AS excluded_secs
        FROM result_rollups_hourly
        WHERE target_id = ${range.target_id} AND bucket >= date_trunc('hour', ${range.from}::timestamptz)
          AND bucket < ${range.to} ${regionFilter(range.region)}
      `
    })

    const targetCounts = SqlSchema.single({
      Request: Schema.String,
      Result: TargetCounts,
      execute: (orgId) => sql`
        SELECT count(*)::int AS total, count(*) FILTER (WHERE enabled)::int AS enabled,
          count(*) FILTER (WHERE EXISTS (SELECT 1 FROM schedules s WHERE s.target_id = t.id AND s.held))::int AS held
        FROM targets t WHERE org_id = ${orgId}
      `
    })

    // The worst latest verdict over a monitor's regions stands for it.
    const statusCounts = SqlSchema.findAll({
      Request: Schema.String,
      Result: StatusCount,
      execute: (orgId) => sql`
        SELECT status, count(*)::int AS n FROM (
          SELECT t.id, (
            SELECT s.last_status FROM schedules s WHERE s.target_id = t.id AND s.last_status IS NOT NULL
            ORDER BY array_position(ARRAY['down', 'error', 'degraded', 'up'], s.last_status) LIMIT 1
          ) AS status
          FROM targets t WHERE t.org_id = ${orgId} AND t.enabled AND t.kind NOT IN ('heartbeat', 'manual')
        ) x GROUP BY status
      `
    })

    const lastDay = SqlSchema.single({
      Request: Schema.String,
      Result: DayFigures,
      execute: (orgId) => sql`
        SELECT COALESCE(sum(r.checks), 0)::int AS checks, COALESCE(sum(r.up_secs), 0)::int AS up_secs,
          COALESCE(sum(r.down_secs), 0)::int AS down_secs
        FROM result_rollups_hourly r JOIN targets t ON t.id = r.target_id
        WHERE t.org_id = ${orgId} AND r.bucket >= date_trunc('hour', now() - interval '24 hours')
      `
    })

    const orgsOf = SqlSchema.findAll({
      Request: Schema.Array(Schema.String),
      Result: TargetOrg,
      execute: (ids) => sql`SELECT id::text AS id, org_id::text AS org_id FROM targets WHERE id = ANY(${ids}::uuid[])`
    })

    // Per target: the account's effective plan figures (an override only raises them, as in core/Plan.effective).
    const effective = sql`
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

    // Counted in the database: only how many changed matters, and retention may delete many rows.
    const refreshHolds = SqlSchema.single({
      Request: Schema.Void,
      Result: Count,
      execute: () => sql`
        WITH changed AS (
          UPDATE schedules s SET held = h.held
          FROM (
            SELECT e.id,
              e.org_deleted_at IS NOT NULL OR e.account_deleted_at IS NOT NULL
                OR row_number() OVER (PARTITION BY e.account_id, e.org_deleted_at IS NULL ORDER BY e.created_at, e.id)
                  > e.max_targets AS held
            FROM (${effective}) e
          ) h
          WHERE s.target_id = h.id AND s.held IS DISTINCT FROM h.held
          RETURNING s.target_id
        )
        SELECT count(*)::int AS n FROM changed
      `
    })

    const ensurePartitions = SqlSchema.void({
      Request: Schema.Void,
      execute: () => sql`SELECT engine_ensure_partitions(3)`
    })

    const longestRawDays = SqlSchema.findOne({
      Request: Schema.Void,
      Result: Days,
      execute: () => sql`
        SELECT GREATEST(
          (SELECT max(raw_days) FROM plans),
          (SELECT COALESCE(max((limits->>'raw_days')::int), 0) FROM account_overrides)
        )::int AS days
      `
    })

    const dropPartitions = SqlSchema.single({
      Request: Schema.Number,
      Result: Count,
      execute: (days) => sql`SELECT engine_drop_partitions(now() - make_interval(days => ${days})) AS n`
    })

    const deleteExpiredResults = SqlSchema.single({
      Request: Schema.Number,
      Result: Count,
      execute: (days) => sql`
        WITH deleted AS (
          DELETE FROM check_results r USING (${effective}) e
          WHERE r.target_id = e.id AND e.raw_days < ${days}
            AND r.checked_at < now() - make_interval(days => e.raw_days)
            AND r.checked_at >= now() - make_interval(days => ${days + 1})
          RETURNING r.target_id
        )
        SELECT count(*)::int AS n FROM deleted
      `
    })

    const deleteExpiredRollups = SqlSchema.void({
      Request: Rollups,
      execute: (table) => sql`
        DELETE FROM ${sql(table)} r USING (${effective}) e
        WHERE r.target_id = e.id AND r.bucket < now() - make_interval(days => e.retention_days + 1)
      `
    })

    const deleteOrphanRollups = SqlSchema.void({
      Request: Rollups,
      execute: (table) =>
        sql`DELETE FROM ${sql(table)} r WHERE NOT EXISTS (SELECT 1 FROM targets t WHERE t.id = r.target_id)`
    })

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      resultCount: (range: Range) => Effect.map(Effect.orDie(resultCount(range)), (row) => row.n),
      /** A page of results, newest first. */
      resultPage: (range: Range, limit: number, offset: number) => Effect.orDie(resultPage({ range, limit, offset })),
      /** Latency rows per (region, bucket of `width` seconds) from raw results, ordered by bucket. */
      rawLatency: (range: Range, width: number) => Effect.orDie(rawLatency({ range, width })),
      /** Latency rows per (region, bucket) from a rollup table, ordered by bucket. */
      rollupLatency: (range: Range, width: number, table: typeof Rollups.Type) =>
        Effect.orDie(rollupLatency({ range, width, table })),
      /** Uptime sums from raw results, those in an excluded period counted apart. */
      rawUptime: (range: Range, excluded: ReadonlyArray<typeof Period.Type>) =>
        Effect.orDie(rawUptime({ range, excluded })),
      /** Uptime sums from the hourly rollups, from the hour of `from` (exclusions cannot apply there). */
      rollupUptime: (range: Range) => Effect.orDie(rollupUptime(range)),
      targetCounts: (orgId: string) => Effect.orDie(targetCounts(orgId)),
      /** Enabled probed monitors per worst latest status (null: none yet). */
      statusCounts: (orgId: string) => Effect.orDie(statusCounts(orgId)),
      /** The org's rollup sums over the last 24 hours. */
      lastDay: (orgId: string) => Effect.orDie(lastDay(orgId)),
      /** The org of each of these monitors that still exists, by id. */
      orgsOf: (ids: ReadonlyArray<string>) =>
        Effect.map(Effect.orDie(orgsOf(ids)), (rows) => new Map(rows.map((row) => [row.id, row.org_id]))),
      /** Holds and lifts holds per the plans; answers how many schedules changed. */
      refreshHolds: Effect.map(Effect.orDie(refreshHolds()), (row) => row.n),
      ensurePartitions: Effect.orDie(ensurePartitions()),
      /** The longest `raw_days` of any plan or override, `fallback` should the database answer no row. */
      longestRawDays: (fallback: number) =>
        Effect.map(Effect.orDie(longestRawDays()), (row) =>
          Option.getOrElse(
            Option.map(row, (r) => r.days),
            () => fallback
          )
        ),
      /** Drops the partitions older than `days`; answers how many. */
      dropPartitions: (days: number) => Effect.map(Effect.orDie(dropPartitions(days)), (row) => row.n),
      /** Deletes raw results past their account's `raw_days` but within `days`; answers how many. */
      deleteExpiredResults: (days: number) => Effect.map(Effect.orDie(deleteExpiredResults(days)), (row) => row.n),
      /** Deletes rollups past their account's `retention_days`. */
      deleteExpiredRollups: (table: typeof Rollups.Type) => Effect.orDie(deleteExpiredRollups(table)),
      /** Deletes the rollups of monitors that are gone. */
      deleteOrphanRollups: (table: typeof Rollups.Type) => Effect.orDie(deleteOrphanRollups(table))
    }
  })
}) {}
