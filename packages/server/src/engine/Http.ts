/**
 * The `results` group: check-now, and reading results, screenshots, latency, flow step series, uptime and the
 * dashboard summary.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as ApiError from "@signalman/core/ApiError"
import { SignalmanApi } from "@signalman/core/api/Api"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Authentication from "../auth/Authentication.js"
import { requireOrg } from "../auth/Policy.js"
import { CallerMonitors } from "./CallerMonitors.js"
import { bucketSecs, Readings } from "./Readings.js"

const SUMMARY_TTL_MS = 5_000

const noScreenshot = ApiError.make("NOT_FOUND", "No such screenshot")

export const layer = HttpApiBuilder.group(SignalmanApi, "results", (handlers) =>
  Effect.gen(function* () {
    const monitors = yield* CallerMonitors
    const readings = yield* Readings
    const summaries = new Map<
      string,
      { readonly until: number; readonly value: Effect.Effect.Success<ReturnType<typeof readings.summary>> }
    >()

    return handlers
      .handle("checkNow", ({ path }) => monitors.checkNow(path.id))
      .handle("results", ({ path, urlParams }) => monitors.results(path.id, urlParams))
      .handle("screenshot", ({ path }) =>
        Effect.gen(function* () {
          const row = yield* monitors.owned(path.id)
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
      .handle("latency", ({ path, urlParams }) => monitors.latency(path.id, urlParams))
      .handle("latencyByRegion", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const { range } = yield* monitors.readable(path.id, urlParams)
          return { ...monitors.stamp(range), ...(yield* readings.latencyByRegion(path.id, range)) }
        })
      )
      .handle("flowSteps", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const { row, range, rawFrom } = yield* monitors.readable(path.id, urlParams)
          // Steps are read from raw results only, so the range starts no earlier than they are kept.
          const from = new Date(Math.max(range.from.getTime(), rawFrom.getTime()))
          const raw = { from, to: new Date(Math.max(range.to.getTime(), from.getTime())), region: range.region }
          const head = { ...monitors.stamp(raw), region: raw.region ?? null }
          // Only a flow has steps; another kind answers none rather than an error, as a flow with no runs would.
          if (row.kind !== "flow") return { ...head, bucket_secs: bucketSecs(raw.from, raw.to), steps: [] }
          return { ...head, ...(yield* readings.flowSteps(row.id, raw)) }
        })
      )
      .handle("uptime", ({ path, urlParams }) => monitors.uptime(path.id, urlParams))
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
).pipe(Layer.provide([CallerMonitors.Default, Authentication.layer]))
