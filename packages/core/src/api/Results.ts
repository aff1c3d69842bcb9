/**
 * Running a stored monitor now and reading what the engine stored (`/api/v1/targets/{id}/check-now`,
 * `/results`, a failed flow's `/results/{result_id}/screenshot`, `/latency`, `/latency/by-region`, `/uptime`,
 * `/flow-steps`) and the dashboard summary.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import * as ApiError from "../ApiError.js"
import { CheckResult } from "../CheckResult.js"
import * as Pagination from "../Pagination.js"
import { TargetId } from "../Target.js"
import { Authentication } from "./Authentication.js"
import { requires } from "./RequiredScope.js"

const targetPath = Schema.Struct({ id: TargetId })

/**
 * The path of a result's screenshot. Results have no id of their own: `result_id` is the id of the evidence kept
 * beside the result, as its `details.screenshot_url` names it.
 *
 * @since 0.1.0
 * @category requests
 */
export const ScreenshotPath = Schema.Struct({ id: TargetId, result_id: Schema.UUID })

const range = {
  /** Start of the range (ISO 8601); defaults to 24 hours before `to`, and is held within the plan's retention. */
  from: Schema.optionalWith(Schema.DateTimeUtc, { exact: true }),
  /** End of the range (ISO 8601); defaults to now. */
  to: Schema.optionalWith(Schema.DateTimeUtc, { exact: true })
}

const region = { region: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(32)), { exact: true }) }

/**
 * The query of `GET /targets/{id}/results`.
 *
 * @since 0.1.0
 * @category requests
 */
export const ResultsQuery = Schema.Struct({ ...Pagination.query, ...range, ...region })

/**
 * @since 0.1.0
 * @category requests
 */
export const RangeQuery = Schema.Struct({ ...range, ...region })

/**
 * @since 0.1.0
 * @category requests
 */
export const RangeOnlyQuery = Schema.Struct(range)

/**
 * A page of results, newest first.
 *
 * @since 0.1.0
 * @category models
 */
export const ResultPage = Pagination.page(CheckResult, "ResultPage")

/**
 * Mean milliseconds of each connection phase over a bucket; null when no result in it had the phase.
 *
 * @since 0.1.0
 * @category models
 */
export const PhaseMeans = Schema.Struct({
  dns_ms: Schema.NullOr(Schema.Number),
  connect_ms: Schema.NullOr(Schema.Number),
  tls_ms: Schema.NullOr(Schema.Number),
  first_byte_ms: Schema.NullOr(Schema.Number)
}).annotations({ identifier: "PhaseMeans" })

/**
 * One time bucket of a latency series: how many results, the mean and the quantiles of their durations (computed
 * by the server), and the per-phase means. Results with status `error` are left out: they measured nothing.
 *
 * @since 0.1.0
 * @category models
 */
export const LatencyBucket = Schema.Struct({
  start: Schema.DateTimeUtc,
  checks: Schema.Int,
  mean_ms: Schema.NullOr(Schema.Number),
  p50_ms: Schema.NullOr(Schema.Number),
  p90_ms: Schema.NullOr(Schema.Number),
  p95_ms: Schema.NullOr(Schema.Number),
  p99_ms: Schema.NullOr(Schema.Number),
  phases: PhaseMeans
}).annotations({ identifier: "LatencyBucket" })

/**
 * `GET /targets/{id}/latency`: buckets of `bucket_secs` over the range (empty buckets omitted).
 *
 * @since 0.1.0
 * @category models
 */
export const LatencySeries = Schema.Struct({
  from: Schema.DateTimeUtc,
  to: Schema.DateTimeUtc,
  region: Schema.NullOr(Schema.String),
  bucket_secs: Schema.Int,
  buckets: Schema.Array(LatencyBucket)
}).annotations({ identifier: "LatencySeries" })

/**
 * `GET /targets/{id}/latency/by-region`: one series per region that has results in the range.
 *
 * @since 0.1.0
 * @category models
 */
export const LatencyByRegion = Schema.Struct({
  from: Schema.DateTimeUtc,
  to: Schema.DateTimeUtc,
  bucket_secs: Schema.Int,
  regions: Schema.Array(Schema.Struct({ region: Schema.String, buckets: Schema.Array(LatencyBucket) }))
}).annotations({ identifier: "LatencyByRegion" })

/**
 * `GET /targets/{id}/uptime`: time based. Each result stands for the interval it was run at; up and degraded
 * count as up, down as down, error (the check could not judge, e.g. blocked) counts as neither. Time inside a
 * maintenance window or an incident's recovery stretch is left out (`excluded_secs`). `uptime_pct` is null until
 * something was judged.
 *
 * @since 0.1.0
 * @category models
 */
export const Uptime = Schema.Struct({
  from: Schema.DateTimeUtc,
  to: Schema.DateTimeUtc,
  region: Schema.NullOr(Schema.String),
  uptime_pct: Schema.NullOr(Schema.Number),
  up_secs: Schema.Int,
  down_secs: Schema.Int,
  excluded_secs: Schema.Int,
  checks: Schema.Int,
  up: Schema.Int,
  degraded: Schema.Int,
  down: Schema.Int,
  errors: Schema.Int
}).annotations({ identifier: "Uptime" })

/**
 * One time bucket of a flow step's series: how many runs of the flow ran the step (`count`: passed or failed; a
 * skipped step was not run and is no sample), how many of them failed it, and the mean and 95th percentile of
 * their durations (exact, from the raw results). Results with status `error` are left out: the check could not
 * judge. Buckets where the step never ran are omitted.
 *
 * @since 0.1.0
 * @category models
 */
export const FlowStepPoint = Schema.Struct({
  at: Schema.DateTimeUtc,
  count: Schema.Int,
  failures: Schema.Int,
  mean_ms: Schema.NullOr(Schema.Number),
  p95_ms: Schema.NullOr(Schema.Number)
}).annotations({ identifier: "FlowStepPoint" })

/**
 * One step of a flow (by its index and action) and its series. A flow edited within the range may show one index
 * twice, once per action it had.
 *
 * @since 0.1.0
 * @category models
 */
export const FlowStepSeries = Schema.Struct({
  index: Schema.Int,
  action: Schema.String,
  series: Schema.Array(FlowStepPoint)
}).annotations({ identifier: "FlowStepSeries" })

/**
 * `GET /targets/{id}/flow-steps`: per-step series over the range, in buckets of `bucket_secs` (chosen as for
 * `/latency`), steps by index. Read from raw results, so `from` is also held within the plan's `raw_days`. A monitor
 * of another kind has no steps: `steps` is empty.
 *
 * @since 0.1.0
 * @category models
 */
export const FlowSteps = Schema.Struct({
  from: Schema.DateTimeUtc,
  to: Schema.DateTimeUtc,
  region: Schema.NullOr(Schema.String),
  bucket_secs: Schema.Int,
  steps: Schema.Array(FlowStepSeries)
}).annotations({ identifier: "FlowSteps" })

/**
 * A failed flow's screenshot: the PNG bytes.
 *
 * @since 0.1.0
 * @category models
 */
export const Screenshot = HttpApiSchema.Uint8Array({ contentType: "image/png" })

/**
 * `GET /dashboard/summary`: the org at a glance, cached 5 s per org.
 *
 * @since 0.1.0
 * @category models
 */
export const DashboardSummary = Schema.Struct({
  targets: Schema.Struct({ total: Schema.Int, enabled: Schema.Int, paused: Schema.Int, held: Schema.Int }),
  /** Enabled monitors by their latest result's status; `unknown` has none yet. */
  status: Schema.Struct({
    up: Schema.Int,
    degraded: Schema.Int,
    down: Schema.Int,
    error: Schema.Int,
    unknown: Schema.Int
  }),
  last_24h: Schema.Struct({ checks: Schema.Int, uptime_pct: Schema.NullOr(Schema.Number) }),
  generated_at: Schema.DateTimeUtc
}).annotations({ identifier: "DashboardSummary" })

/**
 * @since 0.1.0
 * @category groups
 */
export class ResultsApi extends HttpApiGroup.make("results")
  .add(
    HttpApiEndpoint.post("checkNow", "/targets/:id/check-now")
      .annotateContext(requires("targets:execute"))
      .setPath(targetPath)
      .addSuccess(CheckResult)
      .addError(ApiError.Wire.Forbidden)
      .addError(ApiError.Wire.NotFound)
      .addError(ApiError.Wire.UnprocessableEntity)
      .addError(ApiError.Wire.TooManyRequests)
      .addError(ApiError.Wire.ServiceUnavailable)
      .annotate(
        OpenApi.Description,
        "Runs the stored monitor once in every region of the monitor that can run it now, with its stored " +
          "credentials, stores each result (with its region) and answers the result of the monitor's first region " +
          "(the shape of POST /targets/test). The first region unable to run it is 422 REGION_INVALID (disabled, or " +
          "no agent connected) or NO_FLOW_CAPABLE_AGENT (a flow, no agent with a browser); its agent not answering " +
          "within the check's timeout and a margin is 503 NOT_READY. Scope targets:execute, rate budget check_now. " +
          "Heartbeat and manual monitors have no probe: 422 HEARTBEAT_NOT_PROBEABLE."
      )
  )
  .add(
    HttpApiEndpoint.get("results", "/targets/:id/results")
      .annotateContext(requires("targets:read"))
      .setPath(targetPath)
      .setUrlParams(ResultsQuery)
      .addSuccess(ResultPage)
      .addError(ApiError.Wire.NotFound)
      .annotate(OpenApi.Description, "Stored results, newest first; filter by region. Scope targets:read.")
  )
  .add(
    HttpApiEndpoint.get("screenshot", "/targets/:id/results/:result_id/screenshot")
      .annotateContext(requires("targets:read"))
      .setPath(ScreenshotPath)
      .addSuccess(Screenshot)
      .addError(ApiError.Wire.NotFound)
      .annotate(
        OpenApi.Description,
        "The PNG screenshot a failed flow kept of the page at its failing step, as the result's " +
          "details.screenshot_url names it. Kept for the plan's evidence_days, then 404. Scope targets:read."
      )
  )
  .add(
    HttpApiEndpoint.get("latency", "/targets/:id/latency")
      .annotateContext(requires("targets:read"))
      .setPath(targetPath)
      .setUrlParams(RangeQuery)
      .addSuccess(LatencySeries)
      .addError(ApiError.Wire.NotFound)
      .annotate(OpenApi.Description, "Latency buckets with quantiles and per-phase means. Scope targets:read.")
  )
  .add(
    HttpApiEndpoint.get("latencyByRegion", "/targets/:id/latency/by-region")
      .annotateContext(requires("targets:read"))
      .setPath(targetPath)
      .setUrlParams(RangeOnlyQuery)
      .addSuccess(LatencyByRegion)
      .addError(ApiError.Wire.NotFound)
      .annotate(OpenApi.Description, "One latency series per region. Scope targets:read.")
  )
  .add(
    HttpApiEndpoint.get("uptime", "/targets/:id/uptime")
      .annotateContext(requires("targets:read"))
      .setPath(targetPath)
      .setUrlParams(RangeQuery)
      .addSuccess(Uptime)
      .addError(ApiError.Wire.NotFound)
      .annotate(OpenApi.Description, "Time-based uptime over the range. Scope targets:read.")
  )
  .add(
    HttpApiEndpoint.get("flowSteps", "/targets/:id/flow-steps")
      .annotateContext(requires("targets:read"))
      .setPath(targetPath)
      .setUrlParams(RangeQuery)
      .addSuccess(FlowSteps)
      .addError(ApiError.Wire.NotFound)
      .annotate(
        OpenApi.Description,
        "Per-step series of a flow monitor: runs, failures, mean and p95 duration of each step per bucket. Another " +
          "kind of monitor answers no steps. Scope targets:read."
      )
  )
  .add(
    HttpApiEndpoint.get("summary", "/dashboard/summary")
      .annotateContext(requires("targets:read"))
      .addSuccess(DashboardSummary)
      .annotate(OpenApi.Description, "The org's monitors at a glance; cached 5 s per org. Scope targets:read.")
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Results") {}
