/**
 * The `results` group: check-now, and reading results, latency, uptime and the dashboard summary.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as ApiError from "@signalman/core/ApiError"
import { SignalmanApi } from "@signalman/core/api/Api"
import * as Region from "@signalman/core/Region"
import * as TargetRules from "@signalman/core/TargetRules"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Authentication from "../auth/Authentication.js"
import { requireOrg } from "../auth/Policy.js"
import { Plans } from "../limits/Plans.js"
import { notFound, Targets } from "../targets/Targets.js"
import { Readings } from "./Readings.js"
import { isBlocked } from "./ResultObservers.js"
import { ResultStore } from "./ResultStore.js"
import { StoredChecks } from "./StoredChecks.js"

const DAY = 86_400_000
const SUMMARY_TTL_MS = 5_000

interface RangeParams {
  readonly from?: DateTime.Utc | undefined
  readonly to?: DateTime.Utc | undefined
  readonly region?: string | undefined
}

export const layer = HttpApiBuilder.group(SignalmanApi, "results", (handlers) =>
  Effect.gen(function* () {
    const targets = yield* Targets
    const plans = yield* Plans
    const readings = yield* Readings
    const store = yield* ResultStore
    const storedChecks = yield* StoredChecks
    const summaries = new Map<
      string,
      { readonly until: number; readonly value: Effect.Effect.Success<ReturnType<typeof readings.summary>> }
    >()

    /**
     * The caller's target and the range asked for: `to` defaults to now, `from` to a day before `to`, and `from` is
     * held within the plan's `retention_days` (the readable history). `rawFrom` is where raw results begin.
     */
    const readable = (id: string, params: RangeParams) =>
      Effect.gen(function* () {
        const org = yield* requireOrg
        const row = yield* targets.one(org, id)
        if (row === undefined) return yield* Effect.fail(notFound)
        const plan = yield* plans.forAccount(org.accountId)
        const now = Date.now()
        const to = params.to === undefined ? new Date(now) : DateTime.toDate(params.to)
        const asked = params.from === undefined ? new Date(to.getTime() - DAY) : DateTime.toDate(params.from)
        if (asked.getTime() >= to.getTime()) {
          return yield* Effect.fail(ApiError.make("VALIDATION_FAILED", "from must be before to", { field: "from" }))
        }
        const from = new Date(Math.max(asked.getTime(), now - plan.quotas.retention_days * DAY))
        const rawFrom = new Date(now - plan.quotas.raw_days * DAY)
        return {
          row,
          range: { from, to: new Date(Math.max(to.getTime(), from.getTime())), region: params.region },
          rawFrom
        }
      })

    const stamp = (range: { readonly from: Date; readonly to: Date }) => ({
      from: DateTime.unsafeFromDate(range.from),
      to: DateTime.unsafeFromDate(range.to)
    })

    return handlers
      .handle("checkNow", ({ path }) =>
        Effect.gen(function* () {
          const org = yield* requireOrg
          const row = yield* targets.one(org, path.id)
          if (row === undefined) return yield* Effect.fail(notFound)
          const unprobeable = TargetRules.probeable(row.kind)
          if (Option.isSome(unprobeable)) return yield* Effect.fail(unprobeable.value)
          // As POST /targets/test answers: a check run now runs in this process, the local region, with no browser.
          const unplaced = TargetRules.placement(row.kind, [Region.LOCAL], () => false)
          if (Option.isSome(unplaced)) return yield* Effect.fail(unplaced.value)
          const result = yield* storedChecks.runNow({
            id: row.id,
            orgId: row.org_id,
            checkSpec: row.check_spec,
            credentials: row.credentials
          })
          // An extra check stands for no stretch of the timeline: the scheduled runs already cover it (weight 0).
          yield* store.write([
            {
              targetId: row.id,
              orgId: row.org_id,
              result,
              source: "check_now",
              blocked: isBlocked(result),
              weightSecs: 0
            }
          ])
          return result
        })
      )
      .handle("results", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const { range } = yield* readable(path.id, urlParams)
          const page = yield* readings.results(path.id, range, urlParams.limit, urlParams.offset)
          return { data: page.data, total: page.total, limit: urlParams.limit, offset: urlParams.offset }
        })
      )
      .handle("latency", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const { range } = yield* readable(path.id, urlParams)
          const series = yield* readings.latency(path.id, range)
          return { ...stamp(range), region: range.region ?? null, ...series }
        })
      )
      .handle("latencyByRegion", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const { range } = yield* readable(path.id, urlParams)
          return { ...stamp(range), ...(yield* readings.latencyByRegion(path.id, range)) }
        })
      )
      .handle("uptime", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const { range, rawFrom } = yield* readable(path.id, urlParams)
          const uptime = yield* readings.uptime(path.id, range, rawFrom)
          return { ...stamp(range), region: range.region ?? null, ...uptime }
        })
      )
      .handle("summary", () =>
        Effect.gen(function* () {
          const org = yield* requireOrg
          const hit = summaries.get(org.id)
          if (hit !== undefined && hit.until > Date.now()) return hit.value
          const value = yield* readings.summary(org.id)
          // Entries of orgs not asked again are dropped when the map grows, so it stays as large as the active orgs.
          if (summaries.size > 10_000) summaries.clear()
          summaries.set(org.id, { until: Date.now() + SUMMARY_TTL_MS, value })
          return value
        })
      )
  })
).pipe(Layer.provide([Targets.Default, Plans.Default, Authentication.layer]))
