/**
 * The engine's SQL outside the hot path: the readings of stored results (pages, latency rows, flow step rows,
 * uptime sums, the dashboard's counts, and the overview's batched reads of many monitors at once: states, latest
 * results, hourly rollups, uptime sums, what changed since a moment), the org of a probe-less monitor's results, and
 * the upkeep statements (holds, partitions, retention). docs/engine.md has the shapes and which source serves which
 * range.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type * as Statement from "@effect/sql/Statement"
import { CheckResult, CheckStatus } from "@signalman/core/CheckResult"
import { CheckKind } from "@signalman/core/CheckSpec"
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

/** One flow step's figures in one bucket, from the steps recorded in raw results' `details.steps`. */
export const FlowStepRow = Schema.Struct({
  index: Schema.Number,
  action: Schema.String,
  at: date,
  count: Schema.Number,
  failures: Schema.Number,
  mean_ms: Schema.NullOr(Schema.Number),
  p95_ms: Schema.NullOr(Schema.Number)
})
export type FlowStepRow = typeof FlowStepRow.Type

/** A region's latest status, when it came (`last_at`), and the first result of the run it belongs to (`since`). */
export const RegionStateRow = Schema.Struct({ region: Schema.String, status: CheckStatus, last_at: date, since: date })
export type RegionStateRow = typeof RegionStateRow.Type

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
const TargetOrg = Schema.Struct({ id: Schema.String, org_id: Schema.String, kind: CheckKind })
const Count = Schema.Struct({ n: Schema.Number })
/** How many monitors and status pages a refresh of the holds held or released. */
const HoldChanges = Schema.Struct({ monitors: Schema.Number, pages: Schema.Number })
const Days = Schema.Struct({ days: Schema.Number })
const Rollups = Schema.Literal("result_rollups_hourly", "result_rollups_daily")

/** What a monitor is doing now, as the overview shows it (see `states`). */
export const MonitorState = Schema.Literal("up", "degraded", "down", "error", "pending", "paused")
export type MonitorState = typeof MonitorState.Type

/** A monitor's kind and state, and whether the plan holds its schedule. */
export const StateRow = Schema.Struct({
  id: Schema.String,
  kind: Schema.String,
  state: MonitorState,
  held: Schema.Boolean
})
export type StateRow = typeof StateRow.Type

// Arrays of numbers arrive as numbers from the driver; one answering strings is read as well.
const Numbers = Schema.Array(Schema.Union(Schema.Number, Schema.NumberFromString))
const MaybeNumbers = Schema.Array(Schema.NullOr(Schema.Union(Schema.Number, Schema.NumberFromString)))

/**
 * A monitor's latest results, oldest first, as parallel arrays (one row per monitor: on the embedded database a row
 * costs more than its columns, and a page of 200 monitors has 6,000 results). `at` is epoch milliseconds.
 */
export const RecentRow = Schema.Struct({
  target_id: Schema.String,
  at: Numbers,
  regions: Schema.Array(Schema.String),
  statuses: Schema.Array(CheckStatus),
  durations: Numbers,
  errors: Schema.Array(Schema.NullOr(Schema.String))
})
export type RecentRow = typeof RecentRow.Type

/**
 * A monitor's rollup figures: each hour of the day window that has a rollup (`starts` in epoch milliseconds, with
 * the mean duration of its measured results, null when none measured), and the up and down seconds over the day and
 * over the month window.
 */
export const RollupRow = Schema.Struct({
  target_id: Schema.String,
  starts: Numbers,
  means: MaybeNumbers,
  day_up: Schema.Number,
  day_down: Schema.Number,
  month_up: Schema.Number,
  month_down: Schema.Number
})
export type RollupRow = typeof RollupRow.Type

/** A monitor of a watched org with its newest result since the floor and when its row last changed. */
export const ChangeRow = Schema.Struct({
  id: Schema.String,
  org_id: Schema.String,
  latest: Schema.NullOr(date),
  updated_at: date
})
export type ChangeRow = typeof ChangeRow.Type

export class EngineRepo extends Effect.Service<EngineRepo>()("Signalman/EngineRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const regionFilter = (region: string | undefined) => (region === undefined ? sql`` : sql`AND region = ${region}`)
    const inRange = (r: typeof Range.Encoded) =>
      sql`target_id = ${r.target_id} AND checked_at >= ${r.from} AND checked_at < ${r.to} ${regionFilter(r.region)}`

    const statusFilter = (status: CheckStatus | undefined) =>
      status === undefined ? sql`` : sql`AND status = ${status}`

    const resultCount = SqlSchema.single({
      Request: Schema.Struct({ range: Range, status: Schema.UndefinedOr(CheckStatus) }),
      Result: Count,
      execute: ({ range, status }) =>
        sql`SELECT count(*)::int AS n FROM check_results WHERE ${inRange(range)} ${statusFilter(status)}`
    })

    const resultPage = SqlSchema.findAll({
      Request: Schema.Struct({
        range: Range,
        status: Schema.UndefinedOr(CheckStatus),
        limit: Schema.Number,
        offset: Schema.Number
      }),
      Result: ResultRow,
      execute: ({ range, status, limit, offset }) => sql`
        SELECT region, checked_at, status, duration_ms, error, details, phases FROM check_results
        WHERE ${inRange(range)} ${statusFilter(status)} ORDER BY checked_at DESC LIMIT ${limit} OFFSET ${offset}
      `
    })

    // Per region: the latest result, and the oldest result after the newest one of another status (the start of the
    // run the latest belongs to), both within the window read.
    const regionStates = SqlSchema.findAll({
      Request: Schema.Struct({ target_id: Schema.String, from: date }),
      Result: RegionStateRow,
      execute: ({ target_id, from }) => sql`
        SELECT l.region, l.status, l.checked_at AS last_at, (
          SELECT min(c.checked_at) FROM check_results c
          WHERE c.target_id = ${target_id} AND c.region = l.region AND c.checked_at >= ${from}
            AND c.checked_at > COALESCE((
              SELECT max(d.checked_at) FROM check_results d
              WHERE d.target_id = ${target_id} AND d.region = l.region AND d.checked_at >= ${from}
                AND d.status <> l.status
            ), '-infinity'::timestamptz)
        ) AS since
        FROM (
          SELECT DISTINCT ON (region) region, status, checked_at FROM check_results
          WHERE target_id = ${target_id} AND checked_at >= ${from}
          ORDER BY region, checked_at DESC
        ) l
        ORDER BY l.region
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

    // A step counts where it ran (passed or failed; skipped steps were not run) in a result that judged (not
    // `error`). The details come from probes and agents: a step whose index or action is not of its shape is left
    // out rather than failing the whole read, and a duration that is not a number counts without one. Only the
    // monitor's rows in the range are read (check_results_target, partitions outside the range skipped).
    const flowSteps = SqlSchema.findAll({
      Request: Schema.Struct({ range: Range, width: Schema.Number }),
      Result: FlowStepRow,
      execute: ({ range, width }) => sql`
        SELECT s.index, s.action, date_bin(make_interval(secs => ${width}), checked_at, 'epoch'::timestamptz) AS at,
          count(*)::int AS count, count(*) FILTER (WHERE s.failed)::int AS failures, avg(s.ms)::float8 AS mean_ms,
          (percentile_cont(0.95) WITHIN GROUP (ORDER BY s.ms))::float8 AS p95_ms
        FROM check_results
        CROSS JOIN LATERAL (
          SELECT (e.step->>'index')::int AS index, e.step->>'action' AS action, e.step->>'status' = 'failed' AS failed,
            CASE WHEN jsonb_typeof(e.step->'duration_ms') = 'number' THEN (e.step->>'duration_ms')::float8 END AS ms
          FROM jsonb_array_elements(
            CASE WHEN jsonb_typeof(details->'steps') = 'array' THEN details->'steps' ELSE '[]'::jsonb END
          ) AS e(step)
          WHERE e.step->>'status' IN ('passed', 'failed') AND jsonb_typeof(e.step->'action') = 'string'
            AND (e.step->'index')::text ~ '^[0-9]{1,4}$'
        ) AS s
        WHERE ${inRange(range)} AND status <> 'error'
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
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

    // The worst latest scheduled verdict over a monitor's regions stands for it (as the summary counts it); a monitor
    // with none yet (new, or run only by check-now) takes its latest result, else it is pending. Heartbeat and manual
    // monitors have no schedule: their own state rows say it (a manual monitor starts up, a heartbeat pending).
    // COALESCE reads the latest result only for the monitors that need it. Correlated lookups by primary key: on the
    // embedded database they beat a join of the org's schedules several times over.
    const stateOf = (where: Statement.Fragment) => sql`
      SELECT t.id::text AS id, t.kind,
        CASE
          WHEN NOT t.enabled THEN 'paused'
          WHEN t.kind = 'heartbeat' THEN
            COALESCE((SELECT h.verdict FROM heartbeat_states h WHERE h.target_id = t.id), 'pending')
          WHEN t.kind = 'manual' THEN
            COALESCE((SELECT m.status FROM manual_states m WHERE m.target_id = t.id), 'up')
          ELSE COALESCE(
            (SELECT s.last_status FROM schedules s WHERE s.target_id = t.id AND s.last_status IS NOT NULL
              ORDER BY array_position(ARRAY['down', 'error', 'degraded', 'up'], s.last_status) LIMIT 1),
            (SELECT r.status FROM check_results r WHERE r.target_id = t.id ORDER BY r.checked_at DESC LIMIT 1),
            'pending')
        END AS state,
        EXISTS (SELECT 1 FROM schedules s WHERE s.target_id = t.id AND s.held) AS held
      FROM targets t WHERE ${where}
    `

    const states = SqlSchema.findAll({
      Request: Schema.Array(Schema.String),
      Result: StateRow,
      execute: (ids) => stateOf(sql`t.id = ANY(${ids}::uuid[])`)
    })

    const statesOfOrg = SqlSchema.findAll({
      Request: Schema.String,
      Result: StateRow,
      execute: (orgId) => stateOf(sql`t.org_id = ${orgId}`)
    })

    // Each monitor's newest results: one walk of check_results_target per monitor, over the stretch its last 32
    // intervals per region cover (at least a day), so only the partitions of that stretch are probed.
    const recent = SqlSchema.findAll({
      Request: Schema.Struct({ ids: Schema.Array(Schema.String), limit: Schema.Number }),
      Result: RecentRow,
      execute: ({ ids, limit }) => sql`
        SELECT t.id::text AS target_id, r.at, r.regions, r.statuses, r.durations, r.errors
        FROM targets t
        CROSS JOIN LATERAL (
          SELECT array_agg(extract(epoch FROM checked_at)::float8 * 1000 ORDER BY checked_at) AS at,
            array_agg(region ORDER BY checked_at) AS regions, array_agg(status ORDER BY checked_at) AS statuses,
            array_agg(duration_ms ORDER BY checked_at) AS durations, array_agg(error ORDER BY checked_at) AS errors
          FROM (
            SELECT region, checked_at, status, duration_ms, error FROM check_results
            WHERE target_id = t.id AND checked_at > now() - GREATEST(interval '1 day',
              make_interval(secs => t.interval_secs * 32 * GREATEST(cardinality(t.regions), 1)))
            ORDER BY checked_at DESC LIMIT ${limit}
          ) x
        ) r
        WHERE t.id = ANY(${ids}::uuid[]) AND r.at IS NOT NULL
      `
    })

    // Per monitor, its own primary-key ranges (a page of monitors costs the same however many the instance has):
    // the day's hours, and the month as whole days from the daily rollups and the hours before the first whole day
    // from the hourly ones.
    const rollups = SqlSchema.findAll({
      Request: Schema.Struct({
        ids: Schema.Array(Schema.String),
        day_from: date,
        month_from: date,
        month_day: date,
        to: date
      }),
      Result: RollupRow,
      execute: ({ ids, day_from, month_from, month_day, to }) => sql`
        SELECT t.id::text AS target_id, COALESCE(d.starts, '{}') AS starts, COALESCE(d.means, '{}') AS means,
          d.up_secs AS day_up, d.down_secs AS day_down, m.up_secs AS month_up, m.down_secs AS month_down
        FROM unnest(${ids}::uuid[]) AS t(id)
        CROSS JOIN LATERAL (
          SELECT array_agg(extract(epoch FROM bucket)::float8 * 1000 ORDER BY bucket) AS starts,
            array_agg(CASE WHEN checks > errors THEN duration_sum / (checks - errors) END ORDER BY bucket) AS means,
            COALESCE(sum(up_secs), 0)::float8 AS up_secs, COALESCE(sum(down_secs), 0)::float8 AS down_secs
          FROM (
            SELECT bucket, sum(checks) AS checks, sum(errors) AS errors, sum(duration_sum)::float8 AS duration_sum,
              sum(up_secs) AS up_secs, sum(down_secs) AS down_secs
            FROM result_rollups_hourly
            WHERE target_id = t.id AND bucket >= ${day_from} AND bucket < ${to}
            GROUP BY bucket
          ) b
        ) d
        CROSS JOIN LATERAL (
          SELECT COALESCE(sum(up_secs), 0)::float8 AS up_secs, COALESCE(sum(down_secs), 0)::float8 AS down_secs
          FROM (
            SELECT up_secs, down_secs FROM result_rollups_daily
            WHERE target_id = t.id AND bucket >= ${month_day} AND bucket < ${to}
            UNION ALL
            SELECT up_secs, down_secs FROM result_rollups_hourly
            WHERE target_id = t.id AND bucket >= ${month_from} AND bucket < ${month_day}
          ) x
        ) m
        WHERE d.starts IS NOT NULL OR m.up_secs + m.down_secs > 0
      `
    })

    // For each monitor of the orgs: its newest result in (floor, until) (an index probe per monitor, on the
    // partitions that range leaves) and when its row changed. Monitors with neither after the floor are left out.
    const changes = SqlSchema.findAll({
      Request: Schema.Struct({ org_ids: Schema.Array(Schema.String), floor: date, until: date }),
      Result: ChangeRow,
      execute: ({ org_ids, floor, until }) => sql`
        SELECT id, org_id, latest, updated_at FROM (
          SELECT t.id::text AS id, t.org_id::text AS org_id, t.updated_at, (
            SELECT max(r.checked_at) FROM check_results r
            WHERE r.target_id = t.id AND r.checked_at > ${floor} AND r.checked_at < ${until}
          ) AS latest
          FROM targets t WHERE t.org_id = ANY(${org_ids}::uuid[])
        ) x
        WHERE latest IS NOT NULL OR updated_at > ${floor}
      `
    })

    const orgsOf = SqlSchema.findAll({
      Request: Schema.Array(Schema.String),
      Result: TargetOrg,
      execute: (ids) =>
        sql`SELECT id::text AS id, org_id::text AS org_id, kind FROM targets WHERE id = ANY(${ids}::uuid[])`
    })

    // Per target: the account's effective plan figures (an override only raises them, as in core/Plan.effective).
    const effective = sql`
      SELECT t.id, t.account_id, t.created_at, t.hold_kept, o.deleted_at AS org_deleted_at, a.deleted_at AS account_deleted_at,
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
    // The holding rule of core `Holds.held` (kept first, then oldest, beyond the plan's limit held), for every
    // account at once: monitors through their schedules (also held while their org or account is deleted), status
    // pages of live orgs through `status_pages.held`. `PUT /api/v1/account/holds` applies the same rule in
    // TypeScript to the one account it changes; both must order alike: kept first, then creation time to the
    // millisecond (what a JavaScript Date holds), then id.
    const refreshHolds = SqlSchema.single({
      Request: Schema.Void,
      Result: HoldChanges,
      execute: () => sql`
        WITH monitors AS (
          UPDATE schedules s SET held = h.held
          FROM (
            SELECT e.id,
              e.org_deleted_at IS NOT NULL OR e.account_deleted_at IS NOT NULL
                OR row_number() OVER (
                  PARTITION BY e.account_id, e.org_deleted_at IS NULL
                  ORDER BY e.hold_kept DESC, date_trunc('milliseconds', e.created_at), e.id
                ) > e.max_targets AS held
            FROM (${effective}) e
          ) h
          WHERE s.target_id = h.id AND s.held IS DISTINCT FROM h.held
          RETURNING s.target_id
        ),
        pages AS (
          UPDATE status_pages sp SET held = h.held
          FROM (
            SELECT p.id,
              o.deleted_at IS NULL AND a.deleted_at IS NULL
                AND row_number() OVER (
                  PARTITION BY p.account_id, o.deleted_at IS NULL
                  ORDER BY p.hold_kept DESC, date_trunc('milliseconds', p.created_at), p.id
                ) > GREATEST(pl.max_status_pages, COALESCE((ov.limits->>'max_status_pages')::int, 0)) AS held
            FROM status_pages p
            JOIN orgs o ON o.id = p.org_id
            JOIN accounts a ON a.id = p.account_id
            JOIN plans pl ON pl.id = a.plan_id
            LEFT JOIN account_overrides ov ON ov.account_id = a.id
          ) h
          WHERE sp.id = h.id AND sp.held IS DISTINCT FROM h.held
          RETURNING sp.id
        )
        SELECT (SELECT count(*) FROM monitors)::int AS monitors, (SELECT count(*) FROM pages)::int AS pages
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
      /** How many results in the range (of one status, when given). */
      resultCount: (range: Range, status?: CheckStatus) =>
        Effect.map(Effect.orDie(resultCount({ range, status })), (row) => row.n),
      /** A page of results, newest first (of one status, when given). */
      resultPage: (range: Range, limit: number, offset: number, status?: CheckStatus) =>
        Effect.orDie(resultPage({ range, status, limit, offset })),
      /** Each region's latest status, when it came and since when it has held, over results since `from`. */
      regionStates: (targetId: string, from: Date) => Effect.orDie(regionStates({ target_id: targetId, from })),
      /** Latency rows per (region, bucket of `width` seconds) from raw results, ordered by bucket. */
      rawLatency: (range: Range, width: number) => Effect.orDie(rawLatency({ range, width })),
      /** Flow step rows per (step index, action, bucket of `width` seconds) from raw results, in that order. */
      flowSteps: (range: Range, width: number) => Effect.orDie(flowSteps({ range, width })),
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
      /** The state of each of these monitors that exists (any order). */
      states: (ids: ReadonlyArray<string>) =>
        ids.length === 0 ? Effect.succeed<ReadonlyArray<StateRow>>([]) : Effect.orDie(states(ids)),
      /** The state of every monitor of the org (any order). */
      statesOfOrg: (orgId: string) => Effect.orDie(statesOfOrg(orgId)),
      /** Up to `limit` newest results of each monitor within its last 32 intervals per region (at least a day). */
      recent: (ids: ReadonlyArray<string>, limit: number) =>
        ids.length === 0 ? Effect.succeed<ReadonlyArray<RecentRow>>([]) : Effect.orDie(recent({ ids, limit })),
      /** Each monitor's hours of `[dayFrom, to)` and its up and down seconds over that and over `[monthFrom, to)`. */
      rollups: (ids: ReadonlyArray<string>, w: { dayFrom: Date; monthFrom: Date; monthDay: Date; to: Date }) =>
        ids.length === 0
          ? Effect.succeed<ReadonlyArray<RollupRow>>([])
          : Effect.orDie(
              rollups({ ids, day_from: w.dayFrom, month_from: w.monthFrom, month_day: w.monthDay, to: w.to })
            ),
      /**
       * The monitors of these orgs with a result in `(floor, until)` (the newest one's time) or a row changed after
       * `floor`.
       */
      changes: (orgIds: ReadonlyArray<string>, floor: Date, until: Date) =>
        orgIds.length === 0
          ? Effect.succeed<ReadonlyArray<ChangeRow>>([])
          : Effect.orDie(changes({ org_ids: orgIds, floor, until })),
      /** The org and kind of each of these monitors that still exists, by id. */
      orgsOf: (ids: ReadonlyArray<string>) =>
        Effect.map(Effect.orDie(orgsOf(ids)), (rows) => new Map(rows.map((row) => [row.id, row]))),
      /** Holds and lifts holds per the plans; answers how many schedules changed. */
      /** Holds and releases per the plans (`Holds.held`); answers how many monitors and pages changed. */
      refreshHolds: Effect.orDie(refreshHolds()),
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
