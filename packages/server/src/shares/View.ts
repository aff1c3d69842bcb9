/**
 * What the share page shows of the monitor a link opens: its name, kind and status now, uptime over 24 hours, 7 and
 * 30 days, response times over the last day, its latest results and incidents, each window cut at the plan's
 * retention. Never the check itself; the page (`Page.ts`) only renders this.
 */
import type { CheckResult } from "@signalman/core/CheckResult"
import * as Effect from "effect/Effect"
import { Readings } from "../engine/Readings.js"
import { Plans } from "../limits/Plans.js"
import { type IncidentRow, SharesRepo } from "./Repo.js"
import type { SharedMonitor } from "./Shares.js"

export type { IncidentRow } from "./Repo.js"

const HOUR = 3_600_000
const DAY = 24 * HOUR
const RECENT_RESULTS = 20
const RECENT_INCIDENTS = 10

/** The page's figures for one monitor. */
export interface SharedView {
  readonly name: string
  readonly kind: string
  /** `paused`, the worst scheduled status, the latest result's, or `unknown`. */
  readonly status: string
  readonly uptime: { readonly day: number | null; readonly week: number | null; readonly month: number | null }
  readonly latency: {
    readonly bucketSecs: number
    readonly mean: number | null
    /** The worst p95 of a bucket. */
    readonly p95: number | null
    /** The mean of each measured bucket, oldest first. */
    readonly series: ReadonlyArray<number>
  }
  readonly recent: ReadonlyArray<CheckResult>
  readonly incidents: ReadonlyArray<IncidentRow>
  readonly now: number
}

export class ShareView extends Effect.Service<ShareView>()("Signalman/ShareView", {
  effect: Effect.gen(function* () {
    const repo = yield* SharesRepo
    const readings = yield* Readings
    const plans = yield* Plans

    /** The figures of the shared monitor, or undefined when it is gone. */
    const of = (shared: SharedMonitor): Effect.Effect<SharedView | undefined> =>
      Effect.gen(function* () {
        const monitor = yield* repo.monitor(shared.targetId)
        if (monitor === undefined) return undefined
        const plan = yield* plans.forAccount(shared.accountId)
        const now = Date.now()
        const to = new Date(now)
        const rawFrom = new Date(now - plan.quotas.raw_days * DAY)
        const readable = (span: number) => new Date(Math.max(now - span, now - plan.quotas.retention_days * DAY))
        const uptimeOver = (span: number) =>
          Effect.map(
            readings.uptime(shared.targetId, { from: readable(span), to, region: undefined }, rawFrom),
            (u) => u.uptime_pct
          )
        const [day, week, month] = yield* Effect.all([uptimeOver(DAY), uptimeOver(7 * DAY), uptimeOver(30 * DAY)])
        const latency = yield* readings.latency(shared.targetId, { from: readable(DAY), to, region: undefined })
        const recent = yield* readings.results(
          shared.targetId,
          { from: readable(30 * DAY), to, region: undefined },
          RECENT_RESULTS,
          0
        )
        const incidents = yield* repo.incidents(shared.targetId, new Date(now - 90 * DAY), RECENT_INCIDENTS)

        const measured = latency.buckets.filter((b) => b.mean_ms !== null)
        const checks = measured.reduce((n, b) => n + b.checks, 0)
        return {
          name: monitor.name,
          kind: monitor.kind,
          status: !monitor.enabled ? "paused" : (monitor.scheduled_status ?? recent.data[0]?.status ?? "unknown"),
          uptime: { day, week, month },
          latency: {
            bucketSecs: latency.bucket_secs,
            mean: checks === 0 ? null : measured.reduce((sum, b) => sum + (b.mean_ms ?? 0) * b.checks, 0) / checks,
            p95: measured.reduce<number | null>(
              (max, b) => (b.p95_ms === null ? max : Math.max(max ?? 0, b.p95_ms)),
              null
            ),
            series: measured.map((b) => b.mean_ms ?? 0)
          },
          recent: recent.data,
          incidents,
          now
        }
      }).pipe(Effect.orDie)

    return { of }
  }),
  dependencies: [SharesRepo.Default, Plans.Default]
}) {}
