/**
 * Reading what the engine stored: result pages, latency series, uptime and the dashboard summary (docs/engine.md
 * has the shapes and the choice of source for each range).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { CheckResult, type CheckStatus, Phases } from "@signalman/core/CheckResult"
import * as LatencyHistogram from "@signalman/core/LatencyHistogram"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { UptimeExclusions } from "./UptimeExclusions.js"

export interface Range {
  readonly from: Date
  readonly to: Date
  readonly region: string | undefined
}

/** Bucket widths a latency series may use, finest first; the finest giving at most 720 buckets is taken. */
const WIDTHS = [60, 300, 900, 3600, 86400] as const
const MAX_BUCKETS = 720

export const bucketSecs = (from: Date, to: Date): number => {
  const span = (to.getTime() - from.getTime()) / 1000
  return WIDTHS.find((w) => span / w <= MAX_BUCKETS) ?? 86400
}

const ResultRow = Schema.Struct({
  region: Schema.String,
  checked_at: Schema.DateFromSelf,
  status: Schema.Literal("up", "degraded", "down", "error"),
  duration_ms: Schema.Number,
  error: Schema.NullOr(Schema.String),
  details: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  phases: Schema.NullOr(Phases)
})
const decodeResults = Schema.decodeUnknown(Schema.Array(ResultRow))

const LatencyRow = Schema.Struct({
  region: Schema.String,
  start: Schema.DateFromSelf,
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
  first_byte_n: Schema.Number,
  histogram: Schema.Array(Schema.Number)
})
type LatencyRow = typeof LatencyRow.Type
const decodeLatency = Schema.decodeUnknown(Schema.Array(LatencyRow))

const mean = (sum: number, n: number): number | null => (n === 0 ? null : sum / n)

/** Rows of one bucket (several regions, when not filtered) folded into one point. */
const point = (rows: ReadonlyArray<LatencyRow>) => {
  let histogram: ReadonlyArray<number> = LatencyHistogram.empty()
  const t = {
    checks: 0,
    errors: 0,
    duration: 0,
    dns: 0,
    dnsN: 0,
    connect: 0,
    connectN: 0,
    tls: 0,
    tlsN: 0,
    fb: 0,
    fbN: 0
  }
  for (const r of rows) {
    t.checks += r.checks
    t.errors += r.errors
    t.duration += r.duration_sum
    t.dns += r.dns_sum
    t.dnsN += r.dns_n
    t.connect += r.connect_sum
    t.connectN += r.connect_n
    t.tls += r.tls_sum
    t.tlsN += r.tls_n
    t.fb += r.first_byte_sum
    t.fbN += r.first_byte_n
    histogram = LatencyHistogram.merge(histogram, r.histogram)
  }
  const measured = t.checks - t.errors
  return {
    start: DateTime.unsafeFromDate(rows[0]?.start ?? new Date(0)),
    checks: t.checks,
    mean_ms: mean(t.duration, measured),
    p50_ms: LatencyHistogram.quantile(histogram, 0.5),
    p90_ms: LatencyHistogram.quantile(histogram, 0.9),
    p95_ms: LatencyHistogram.quantile(histogram, 0.95),
    p99_ms: LatencyHistogram.quantile(histogram, 0.99),
    phases: {
      dns_ms: mean(t.dns, t.dnsN),
      connect_ms: mean(t.connect, t.connectN),
      tls_ms: mean(t.tls, t.tlsN),
      first_byte_ms: mean(t.fb, t.fbN)
    }
  }
}

export type Point = ReturnType<typeof point>

/** Groups rows (ordered by start) into points, per key. */
const series = (rows: ReadonlyArray<LatencyRow>, keyOf: (row: LatencyRow) => string) => {
  const groups = new Map<string, Map<number, Array<LatencyRow>>>()
  for (const row of rows) {
    const key = keyOf(row)
    const byStart = groups.get(key) ?? new Map<number, Array<LatencyRow>>()
    groups.set(key, byStart)
    const at = row.start.getTime()
    byStart.set(at, [...(byStart.get(at) ?? []), row])
  }
  return new Map(
    [...groups].map(([key, byStart]) => [
      key,
      [...byStart.entries()].sort(([a], [b]) => a - b).map(([, bucket]) => point(bucket))
    ])
  )
}

const UptimeRow = Schema.Struct({
  checks: Schema.Number,
  up: Schema.Number,
  degraded: Schema.Number,
  down: Schema.Number,
  errors: Schema.Number,
  up_secs: Schema.Number,
  down_secs: Schema.Number,
  excluded_secs: Schema.Number
})
const decodeUptime = Schema.decodeUnknown(Schema.Array(UptimeRow))

export class Readings extends Effect.Service<Readings>()("Signalman/Readings", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const exclusions = yield* UptimeExclusions

    const regionFilter = (region: string | undefined) => (region === undefined ? sql`` : sql`AND region = ${region}`)

    const results = (targetId: string, range: Range, limit: number, offset: number) =>
      Effect.gen(function* () {
        const where = sql`target_id = ${targetId} AND checked_at >= ${range.from} AND checked_at < ${range.to} ${regionFilter(range.region)}`
        const [count] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM check_results WHERE ${where}`
        const rows = yield* sql`
          SELECT region, checked_at, status, duration_ms, error, details, phases FROM check_results
          WHERE ${where} ORDER BY checked_at DESC LIMIT ${limit} OFFSET ${offset}
        `.pipe(Effect.flatMap(decodeResults))
        return {
          total: count?.n ?? 0,
          data: rows.map(
            (r) => new CheckResult({ ...r, status: r.status, checked_at: DateTime.unsafeFromDate(r.checked_at) })
          )
        }
      }).pipe(Effect.orDie)

    /**
     * Latency rows per (region, bucket): from raw results for buckets under an hour (quantiles from a histogram
     * of the raw durations, the same sketch as the rollups, so a series does not change character with its
     * range), from the hourly or daily rollups otherwise.
     */
    const latencyRows = (targetId: string, range: Range, width: number) => {
      if (width < 3600) {
        return sql`
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
          WHERE target_id = ${targetId} AND checked_at >= ${range.from} AND checked_at < ${range.to}
            ${regionFilter(range.region)}
          GROUP BY 1, 2 ORDER BY 2
        `.pipe(
          Effect.map((rows) =>
            rows.map((row) => ({
              ...row,
              histogram: LatencyHistogram.of(Array.isArray(row["durations"]) ? row["durations"].map(Number) : [])
            }))
          ),
          Effect.flatMap(decodeLatency)
        )
      }
      const table = width === 3600 ? "result_rollups_hourly" : "result_rollups_daily"
      return sql`
        SELECT region, bucket AS start, checks, errors, duration_sum, dns_sum, dns_n, connect_sum, connect_n,
          tls_sum, tls_n, first_byte_sum, first_byte_n, histogram
        FROM ${sql(table)}
        WHERE target_id = ${targetId} AND bucket >= date_bin(make_interval(secs => ${width}), ${range.from}::timestamptz, 'epoch'::timestamptz)
          AND bucket < ${range.to} ${regionFilter(range.region)}
        ORDER BY bucket
      `.pipe(Effect.flatMap(decodeLatency))
    }

    const latency = (targetId: string, range: Range) =>
      Effect.gen(function* () {
        const width = bucketSecs(range.from, range.to)
        const rows = yield* latencyRows(targetId, range, width)
        return { bucket_secs: width, buckets: series(rows, () => "all").get("all") ?? [] }
      }).pipe(Effect.orDie)

    const latencyByRegion = (targetId: string, range: Range) =>
      Effect.gen(function* () {
        const width = bucketSecs(range.from, range.to)
        const rows = yield* latencyRows(targetId, { ...range, region: undefined }, width)
        const byRegion = series(rows, (row) => row.region)
        return {
          bucket_secs: width,
          regions: [...byRegion.entries()]
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
            .map(([region, buckets]) => ({ region, buckets }))
        }
      }).pipe(Effect.orDie)

    /**
     * Time-based uptime. Within the raw window the raw results are summed, each standing for its weight (the
     * interval it ran at) and left out when it falls in an excluded period; beyond it, the hourly rollups from the
     * hour of `from` (exclusions cannot be applied there: docs/engine.md).
     */
    const uptime = (targetId: string, range: Range, rawFrom: Date) =>
      Effect.gen(function* () {
        const periods = (yield* exclusions.periods(targetId, range.from, range.to)).map((p) => ({
          from_ts: p.from.toISOString(),
          until_ts: p.until.toISOString()
        }))
        const raw = range.from.getTime() >= rawFrom.getTime()
        const rows = raw
          ? yield* sql`
              WITH r AS (
                SELECT status, weight_secs, EXISTS (
                  SELECT 1 FROM jsonb_to_recordset(${JSON.stringify(periods)}::jsonb) AS p(from_ts timestamptz, until_ts timestamptz)
                  WHERE check_results.checked_at >= p.from_ts AND check_results.checked_at < p.until_ts
                ) AS excluded
                FROM check_results
                WHERE target_id = ${targetId} AND checked_at >= ${range.from} AND checked_at < ${range.to}
                  ${regionFilter(range.region)}
              )
              SELECT count(*)::int AS checks, count(*) FILTER (WHERE status = 'up')::int AS up,
                count(*) FILTER (WHERE status = 'degraded')::int AS degraded,
                count(*) FILTER (WHERE status = 'down')::int AS down,
                count(*) FILTER (WHERE status = 'error')::int AS errors,
                COALESCE(sum(weight_secs) FILTER (WHERE status IN ('up', 'degraded') AND NOT excluded), 0)::int AS up_secs,
                COALESCE(sum(weight_secs) FILTER (WHERE status = 'down' AND NOT excluded), 0)::int AS down_secs,
                COALESCE(sum(weight_secs) FILTER (WHERE excluded AND status <> 'error'), 0)::int AS excluded_secs
              FROM r
            `.pipe(Effect.flatMap(decodeUptime))
          : yield* sql`
              SELECT COALESCE(sum(checks), 0)::int AS checks, COALESCE(sum(up), 0)::int AS up,
                COALESCE(sum(degraded), 0)::int AS degraded, COALESCE(sum(down), 0)::int AS down,
                COALESCE(sum(errors), 0)::int AS errors, COALESCE(sum(up_secs), 0)::int AS up_secs,
                COALESCE(sum(down_secs), 0)::int AS down_secs, 0 AS excluded_secs
              FROM result_rollups_hourly
              WHERE target_id = ${targetId} AND bucket >= date_trunc('hour', ${range.from}::timestamptz)
                AND bucket < ${range.to} ${regionFilter(range.region)}
            `.pipe(Effect.flatMap(decodeUptime))
        const row = rows[0] ?? {
          checks: 0,
          up: 0,
          degraded: 0,
          down: 0,
          errors: 0,
          up_secs: 0,
          down_secs: 0,
          excluded_secs: 0
        }
        const judged = row.up_secs + row.down_secs
        return { ...row, uptime_pct: judged === 0 ? null : (100 * row.up_secs) / judged }
      }).pipe(Effect.orDie)

    const summary = (orgId: string) =>
      Effect.gen(function* () {
        const [targets] = yield* sql<{ total: number; enabled: number; held: number }>`
          SELECT count(*)::int AS total, count(*) FILTER (WHERE enabled)::int AS enabled,
            count(*) FILTER (WHERE EXISTS (SELECT 1 FROM schedules s WHERE s.target_id = t.id AND s.held))::int AS held
          FROM targets t WHERE org_id = ${orgId}
        `
        // The worst latest verdict over a monitor's regions stands for it.
        const statuses = yield* sql<{ status: CheckStatus | null; n: number }>`
          SELECT status, count(*)::int AS n FROM (
            SELECT t.id, (
              SELECT s.last_status FROM schedules s WHERE s.target_id = t.id AND s.last_status IS NOT NULL
              ORDER BY array_position(ARRAY['down', 'error', 'degraded', 'up'], s.last_status) LIMIT 1
            ) AS status
            FROM targets t WHERE t.org_id = ${orgId} AND t.enabled AND t.kind NOT IN ('heartbeat', 'manual')
          ) x GROUP BY status
        `
        const [day] = yield* sql<{ checks: number; up_secs: number; down_secs: number }>`
          SELECT COALESCE(sum(r.checks), 0)::int AS checks, COALESCE(sum(r.up_secs), 0)::int AS up_secs,
            COALESCE(sum(r.down_secs), 0)::int AS down_secs
          FROM result_rollups_hourly r JOIN targets t ON t.id = r.target_id
          WHERE t.org_id = ${orgId} AND r.bucket >= date_trunc('hour', now() - interval '24 hours')
        `
        const count = (status: CheckStatus | null) => statuses.find((s) => s.status === status)?.n ?? 0
        const judged = (day?.up_secs ?? 0) + (day?.down_secs ?? 0)
        const total = targets?.total ?? 0
        const enabled = targets?.enabled ?? 0
        return {
          targets: { total, enabled, paused: total - enabled, held: targets?.held ?? 0 },
          status: {
            up: count("up"),
            degraded: count("degraded"),
            down: count("down"),
            error: count("error"),
            unknown: count(null)
          },
          last_24h: {
            checks: day?.checks ?? 0,
            uptime_pct: judged === 0 ? null : (100 * (day?.up_secs ?? 0)) / judged
          },
          generated_at: yield* DateTime.now
        }
      }).pipe(Effect.orDie)

    return { results, latency, latencyByRegion, uptime, summary }
  })
}) {}
