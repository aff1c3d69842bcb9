/**
 * Reading what the engine stored: result pages, a monitor's state now, latency series, flow step series,
 * screenshots, uptime and the dashboard summary (docs/engine.md has the shapes and the choice of source for each
 * range), and the batched reads of the monitors overview: many monitors' states and figures in a few statements,
 * and which monitors of some orgs changed since a moment (the dashboard's live stream).
 */
import { CheckResult, type CheckStatus } from "@signalman/core/CheckResult"
import * as LatencyHistogram from "@signalman/core/LatencyHistogram"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import { EvidenceRepo } from "./EvidenceRepo.js"
import * as MonitorFigures from "./MonitorFigures.js"
import * as MonitorState from "./MonitorState.js"
import { EngineRepo, type FlowStepRow, type LatencyRow, type StateRow } from "./Repo.js"
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

/** How far ahead of this clock a result's time may be (another machine's clock) and still count as changed. */
const FUTURE_MS = 300_000

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

/** Flow step rows (ordered by index, action, bucket) as one series per step. */
export const flowStepSeries = (rows: ReadonlyArray<FlowStepRow>) => {
  const steps: Array<{
    index: number
    action: string
    series: Array<{
      at: DateTime.Utc
      count: number
      failures: number
      mean_ms: number | null
      p95_ms: number | null
    }>
  }> = []
  for (const row of rows) {
    let step = steps[steps.length - 1]
    if (step === undefined || step.index !== row.index || step.action !== row.action) {
      step = { index: row.index, action: row.action, series: [] }
      steps.push(step)
    }
    step.series.push({
      at: DateTime.unsafeFromDate(row.at),
      count: row.count,
      failures: row.failures,
      mean_ms: row.mean_ms,
      p95_ms: row.p95_ms
    })
  }
  return steps
}

export class Readings extends Effect.Service<Readings>()("Signalman/Readings", {
  effect: Effect.gen(function* () {
    const repo = yield* EngineRepo
    const evidence = yield* EvidenceRepo
    const exclusions = yield* UptimeExclusions

    const of = (targetId: string, range: Range) => ({
      target_id: targetId,
      from: range.from,
      to: range.to,
      region: range.region
    })

    /** A page of results in the range, newest first; only those of `status` when it is given. */
    const results = (targetId: string, range: Range, limit: number, offset: number, status?: CheckStatus) =>
      Effect.gen(function* () {
        const total = yield* repo.resultCount(of(targetId, range), status)
        const rows = yield* repo.resultPage(of(targetId, range), limit, offset, status)
        return { total, data: rows.map((r) => new CheckResult(r)) }
      })

    /** The monitor's state now (`MonitorState`), judged from its results since `from`; undefined with none. */
    const state = (targetId: string, from: Date) => Effect.map(repo.regionStates(targetId, from), MonitorState.fold)

    /**
     * Latency rows per (region, bucket): from raw results for buckets under an hour (quantiles from a histogram
     * of the raw durations, the same sketch as the rollups, so a series does not change character with its
     * range), from the hourly or daily rollups otherwise.
     */
    const latencyRows = (targetId: string, range: Range, width: number) => {
      if (width < 3600) {
        return Effect.map(repo.rawLatency(of(targetId, range), width), (rows) =>
          rows.map(({ durations, ...row }): LatencyRow => ({ ...row, histogram: LatencyHistogram.of(durations) }))
        )
      }
      return repo.rollupLatency(
        of(targetId, range),
        width,
        width === 3600 ? "result_rollups_hourly" : "result_rollups_daily"
      )
    }

    const latency = (targetId: string, range: Range) =>
      Effect.gen(function* () {
        const width = bucketSecs(range.from, range.to)
        const rows = yield* latencyRows(targetId, range, width)
        return { bucket_secs: width, buckets: series(rows, () => "all").get("all") ?? [] }
      })

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
      })

    /** Per-step series of a flow monitor over the range, from raw results, in buckets chosen as for latency. */
    const flowSteps = (targetId: string, range: Range) =>
      Effect.gen(function* () {
        const width = bucketSecs(range.from, range.to)
        const rows = yield* repo.flowSteps(of(targetId, range), width)
        return { bucket_secs: width, steps: flowStepSeries(rows) }
      })

    /** A monitor's screenshot while it is kept, or undefined. */
    const screenshot = (targetId: string, id: string) => evidence.screenshot(targetId, id)

    /**
     * Time-based uptime. Within the raw window the raw results are summed, each standing for its weight (the
     * interval it ran at) and left out when it falls in an excluded period; beyond it, the hourly rollups from the
     * hour of `from` (exclusions cannot be applied there: docs/engine.md).
     */
    const uptime = (targetId: string, range: Range, rawFrom: Date) =>
      Effect.gen(function* () {
        const periods = (yield* exclusions.periods(targetId, range.from, range.to)).map((p) => ({
          from_ts: p.from,
          until_ts: p.until
        }))
        const raw = range.from.getTime() >= rawFrom.getTime()
        const row = raw
          ? yield* repo.rawUptime(of(targetId, range), periods)
          : yield* repo.rollupUptime(of(targetId, range))
        const judged = row.up_secs + row.down_secs
        return { ...row, uptime_pct: judged === 0 ? null : (100 * row.up_secs) / judged }
      })

    const summary = (orgId: string) =>
      Effect.gen(function* () {
        const targets = yield* repo.targetCounts(orgId)
        const statuses = yield* repo.statusCounts(orgId)
        const day = yield* repo.lastDay(orgId)
        const count = (status: CheckStatus | null) => statuses.find((s) => s.status === status)?.n ?? 0
        const judged = day.up_secs + day.down_secs
        const { total, enabled, held } = targets
        return {
          targets: { total, enabled, paused: total - enabled, held },
          status: {
            up: count("up"),
            degraded: count("degraded"),
            down: count("down"),
            error: count("error"),
            unknown: count(null)
          },
          last_24h: {
            checks: day.checks,
            uptime_pct: judged === 0 ? null : (100 * day.up_secs) / judged
          },
          generated_at: yield* DateTime.now
        }
      })

    const byId = (rows: ReadonlyArray<StateRow>) => new Map<string, StateRow>(rows.map((row) => [row.id, row]))

    /** The state of each of these monitors (ids of one org the caller may read), by id; unknown ids are absent. */
    const states = (ids: ReadonlyArray<string>) => Effect.map(repo.states(ids), byId)

    /** The state of every monitor of the org, by id. */
    const statesOfOrg = (orgId: string) => Effect.map(repo.statesOfOrg(orgId), byId)

    /**
     * The overview's figures of each of these monitors, by id, in two statements whatever their number (one row per
     * monitor each): the latest results, and the rollups' hourly means and uptime sums (`MonitorFigures`).
     */
    const figures = (ids: ReadonlyArray<string>, now: Date) =>
      Effect.gen(function* () {
        const w = MonitorFigures.windows(now)
        const [recent, rollups] = yield* Effect.all(
          [repo.recent(ids, MonitorFigures.RECENT), repo.rollups(ids, { ...w, to: now })],
          { concurrency: 2 }
        )
        return MonitorFigures.shape(ids, { recent, rollups }, w)
      })

    /**
     * The monitors of these orgs with a result newer than `floor`, or a row changed after it (live updates). Results
     * stamped more than `FUTURE_MS` ahead are left out: the partitions made ahead of time need not be probed.
     */
    const changes = (orgIds: ReadonlyArray<string>, floor: Date) =>
      repo.changes(orgIds, floor, new Date(Date.now() + FUTURE_MS))

    return {
      results,
      state,
      latency,
      latencyByRegion,
      flowSteps,
      screenshot,
      uptime,
      summary,
      states,
      statesOfOrg,
      figures,
      changes
    }
  }),
  dependencies: [EngineRepo.Default, EvidenceRepo.Default]
}) {}
