/**
 * The `results` group: check-now, and reading results, screenshots, latency, flow step series, uptime and the
 * dashboard summary.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as ApiError from "@signalman/core/ApiError"
import { SignalmanApi } from "@signalman/core/api/Api"
import { Caller } from "@signalman/core/api/Authentication"
import * as TargetRules from "@signalman/core/TargetRules"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Authentication from "../auth/Authentication.js"
import { requireOrg } from "../auth/Policy.js"
import { Plans } from "../limits/Plans.js"
import { notFound, Targets } from "../targets/Targets.js"
import { CheckNow } from "./CheckNow.js"
import * as ReadableRange from "./ReadableRange.js"
import { bucketSecs, Readings } from "./Readings.js"

const SUMMARY_TTL_MS = 5_000

const noScreenshot = ApiError.make("NOT_FOUND", "No such screenshot")

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
    const checkNow = yield* CheckNow
    const summaries = new Map<
      string,
      { readonly until: number; readonly value: Effect.Effect.Success<ReturnType<typeof readings.summary>> }
    >()

    /**
     * The caller's target and the range asked for, held within what the plan keeps (`ReadableRange`). `rawFrom` is
     * where raw results begin.
     */
    const readable = (id: string, params: RangeParams) =>
      Effect.gen(function* () {
        const org = yield* requireOrg
        const row = yield* targets.one(org, id)
        if (row === undefined) return yield* Effect.fail(notFound)
        const plan = yield* plans.forAccount(org.accountId)
        const { from, to, rawFrom } = yield* ReadableRange.clamp(plan.quotas, Date.now(), {
          from: params.from === undefined ? undefined : DateTime.toDate(params.from),
          to: params.to === undefined ? undefined : DateTime.toDate(params.to)
        })
        return { row, range: { from, to, region: params.region }, rawFrom }
      })

    const stamp = (range: { readonly from: Date; readonly to: Date }) => ({
      from: DateTime.unsafeFromDate(range.from),
      to: DateTime.unsafeFromDate(range.to)
    })

    return handlers
      .handle("checkNow", ({ path }) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          const org = yield* requireOrg
          const row = yield* targets.one(org, path.id)
          if (row === undefined) return yield* Effect.fail(notFound)
          const unprobeable = TargetRules.probeable(row.kind)
          if (Option.isSome(unprobeable)) return yield* Effect.fail(unprobeable.value)
          return yield* checkNow.run(row, caller.user.id)
        })
      )
      .handle("results", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const { range } = yield* readable(path.id, urlParams)
          const page = yield* readings.results(path.id, range, urlParams.limit, urlParams.offset)
          return { data: page.data, total: page.total, limit: urlParams.limit, offset: urlParams.offset }
        })
      )
      .handle("screenshot", ({ path }) =>
        Effect.gen(function* () {
          const org = yield* requireOrg
          const row = yield* targets.one(org, path.id)
          if (row === undefined) return yield* Effect.fail(notFound)
          const shot = yield* readings.screenshot(row.id, path.result_id)
          if (shot === undefined) return yield* Effect.fail(noScreenshot)
          // The bytes behind an id never change, so a browser may keep them, privately, until they would be pruned.
          const keepSecs = Math.max(0, Math.floor((shot.expires_at.getTime() - Date.now()) / 1000))
          return HttpServerResponse.uint8Array(shot.png, {
            contentType: "image/png",
            headers: {
              "cache-control": `private, max-age=${keepSecs}, immutable`,
              "x-content-type-options": "nosniff",
              "content-disposition": `inline; filename="${path.result_id}.png"`
            }
          })
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
      .handle("flowSteps", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const { row, range, rawFrom } = yield* readable(path.id, urlParams)
          // Steps are read from raw results only, so the range starts no earlier than they are kept.
          const from = new Date(Math.max(range.from.getTime(), rawFrom.getTime()))
          const raw = { from, to: new Date(Math.max(range.to.getTime(), from.getTime())), region: range.region }
          const head = { ...stamp(raw), region: raw.region ?? null }
          // Only a flow has steps; another kind answers none rather than an error, as a flow with no runs would.
          if (row.kind !== "flow") return { ...head, bucket_secs: bucketSecs(raw.from, raw.to), steps: [] }
          return { ...head, ...(yield* readings.flowSteps(row.id, raw)) }
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
).pipe(Layer.provide([Targets.Default, Plans.Default, Authentication.layer, CheckNow.Default]))
