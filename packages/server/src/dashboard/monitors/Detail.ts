/**
 * `GET /monitors/<id>`: one monitor. Its name, kind and state since when, uptime over 24 hours to 90 days, response
 * times (quantiles, phases, regions), the results with filters and pages, its incidents, its share links, and what
 * its kind adds: a heartbeat's ping URL, snippets, rotation and last pings; a manual monitor's state control; a
 * flow's steps and last failure's screenshot. Every figure is read through the service the API's handler for it
 * calls (`Targets`, `Readings`, `Heartbeats`, `ManualStates`, `Incidents`, `Shares`), with the session's caller, so
 * a monitor of another org is the same 404 the API answers; every change is made by the browser through the API.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { type Target, TargetId } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as ReadableRange from "../../engine/ReadableRange.js"
import { Readings } from "../../engine/Readings.js"
import { Heartbeats } from "../../heartbeats/Heartbeats.js"
import type { Route } from "../../http/RouteTable.js"
import { Incidents } from "../../incidents/Incidents.js"
import * as IncidentTargetAdvisories from "../../incidents/TargetAdvisories.js"
import { Plans } from "../../limits/Plans.js"
import { ManualStates } from "../../manual/ManualStates.js"
import { Shares } from "../../shares/Shares.js"
import * as Advisories from "../../targets/Advisories.js"
import { toTarget } from "../../targets/Stored.js"
import { notFound, Targets } from "../../targets/Targets.js"
import { Pages, type PageViewer } from "../Page.js"
import { type Html, html } from "../Template.js"
import * as DetailHead from "./DetailHead.js"
import * as DetailQuery from "./DetailQuery.js"
import * as FlowPanel from "./FlowPanel.js"
import * as HeartbeatPanel from "./HeartbeatPanel.js"
import * as IncidentList from "./IncidentList.js"
import * as LatencyChart from "./LatencyChart.js"
import * as ManualPanel from "./ManualPanel.js"
import * as ResultsTable from "./ResultsTable.js"
import * as SharesPanel from "./SharesPanel.js"
import * as UptimeCards from "./UptimeCards.js"

export const routes: ReadonlyArray<Route> = [{ method: "GET", path: "/monitors/:id", body: "none" }]

const DAY = 86_400_000
const RECENT_INCIDENTS = 10
const RECENT_PINGS = 20

const UPTIME_WINDOWS = [
  { label: "Last 24 hours", ms: DAY },
  { label: "Last 7 days", ms: 7 * DAY },
  { label: "Last 30 days", ms: 30 * DAY },
  { label: "Last 90 days", ms: 90 * DAY }
] as const

const isTargetId = Schema.is(TargetId)

/** The heartbeat's grace, read from its stored check (the API's redacted one, which keeps it). */
const graceOf = (target: Target): number => {
  const grace = target.check["grace"]
  return typeof grace === "number" ? grace : 0
}

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const { page } = yield* Pages
    const targets = yield* Targets
    const readings = yield* Readings
    const plans = yield* Plans
    const heartbeats = yield* Heartbeats
    const manualStates = yield* ManualStates
    const shares = yield* Shares
    const incidents = yield* Incidents
    const advisories = yield* Advisories.Advisories

    /** Everything the page shows of the monitor, read as the API reads it. */
    const render = (viewer: PageViewer, id: string, query: DetailQuery.DetailQuery) =>
      Effect.gen(function* () {
        // Not an id at all (a mistyped path): the same 404 as an id of another org's monitor.
        if (!isTargetId(id)) return yield* Effect.fail(notFound)
        const row = yield* targets.one(viewer.active, id)
        if (row === undefined) return yield* Effect.fail(notFound)
        const target = yield* Advisories.attachOne(toTarget(row)).pipe(
          Effect.provideService(Advisories.Advisories, advisories)
        )
        const kind = row.kind
        const plan = yield* plans.forAccount(viewer.active.accountId)
        const now = Date.now()
        const over = (ms: number) => ReadableRange.clamp(plan.quotas, now, { from: new Date(now - ms) })
        const kept = ReadableRange.clamp(plan.quotas, now, { from: new Date(0) })
        if (Either.isLeft(kept)) return yield* Effect.fail(kept.left)
        const history = kept.right

        const uptimes = yield* Effect.forEach(UPTIME_WINDOWS, (w) =>
          Effect.gen(function* () {
            const range = yield* over(w.ms)
            const u = yield* readings.uptime(id, { from: range.from, to: range.to, region: undefined }, range.rawFrom)
            return {
              label: w.label,
              uptime_pct: u.uptime_pct,
              down_secs: u.down_secs,
              checks: u.checks,
              cutAt: range.from.getTime() > now - w.ms ? range.from : undefined
            } satisfies UptimeCards.Window
          })
        )

        const resultsState = kind === "manual" ? undefined : yield* readings.state(id, history.rawFrom)
        const heartbeat =
          kind === "heartbeat"
            ? {
                record: yield* heartbeats.record(viewer.active, id),
                pings: yield* heartbeats.recentPings(viewer.active, id, RECENT_PINGS)
              }
            : undefined
        const manual = kind === "manual" ? yield* manualStates.get(viewer.active, id) : undefined
        const state = DetailHead.stateOf({
          target,
          now,
          results: resultsState,
          heartbeatPending: heartbeat?.record.pending ?? false,
          manual:
            manual === undefined ? undefined : { status: manual.status, since: new Date(manual.set_at.epochMillis) }
        })

        const chartRange = yield* over(DetailQuery.ranges[query.range].ms)
        const range = { from: chartRange.from, to: chartRange.to, region: undefined }
        const probed = kind !== "heartbeat" && kind !== "manual"
        const latency = probed ? yield* readings.latency(id, range) : undefined
        const regionsSeen = resultsState?.regions.map((r) => r.region) ?? []
        const regions = [...new Set([...target.regions, ...regionsSeen])].sort()
        const byRegion = probed && regions.length > 1 ? yield* readings.latencyByRegion(id, range) : undefined

        const flow =
          kind === "flow"
            ? yield* Effect.gen(function* () {
                // Steps are read from raw results, as the API's /flow-steps reads them.
                const from = new Date(Math.max(chartRange.from.getTime(), chartRange.rawFrom.getTime()))
                const steps = yield* readings.flowSteps(id, { from, to: chartRange.to, region: undefined })
                const failed = yield* readings.results(
                  id,
                  { from: history.from, to: history.to, region: undefined },
                  10,
                  0,
                  "down"
                )
                const shot = failed.data.flatMap((result) => {
                  const url = FlowPanel.screenshotOf(result)
                  return url === undefined ? [] : [{ result, screenshotUrl: url }]
                })[0]
                return { from, steps, failure: shot }
              })
            : undefined

        const results = yield* readings.results(
          id,
          { from: history.from, to: history.to, region: query.region },
          DetailQuery.PAGE_SIZE,
          (query.page - 1) * DetailQuery.PAGE_SIZE,
          query.status
        )
        const incidentPage = yield* incidents.list(viewer.active.id, {
          limit: RECENT_INCIDENTS,
          offset: 0,
          status: "all",
          target_id: id
        })
        const links = yield* shares.list(viewer.active, id)

        const sections: ReadonlyArray<Html | string> = [
          DetailHead.head(target, state, now),
          heartbeat === undefined
            ? ""
            : HeartbeatPanel.section({ id, record: heartbeat.record, pings: heartbeat.pings, grace: graceOf(target) }),
          manual === undefined ? "" : ManualPanel.section({ id, state: manual, viewerId: viewer.user.id }),
          UptimeCards.section(uptimes),
          latency === undefined
            ? ""
            : LatencyChart.section({
                id,
                query,
                from: chartRange.from,
                to: chartRange.to,
                cut: chartRange.from.getTime() > now - DetailQuery.ranges[query.range].ms,
                latency,
                byRegion: byRegion !== undefined && byRegion.regions.length > 1 ? byRegion : undefined
              }),
          flow === undefined
            ? ""
            : FlowPanel.section({
                query,
                from: flow.from,
                to: chartRange.to,
                bucket_secs: flow.steps.bucket_secs,
                steps: flow.steps.steps,
                failure: flow.failure
              }),
          ResultsTable.section({ id, query, regions, results: results.data, total: results.total, from: history.from }),
          IncidentList.section(incidentPage.rows, incidentPage.total, now),
          SharesPanel.section(id, links)
        ]
        return { title: target.name, body: html`${sections}` }
      })

    yield* router.get(
      "/monitors/:id",
      page("monitors", (viewer) =>
        Effect.gen(function* () {
          const params = yield* HttpRouter.params
          const request = yield* HttpServerRequest.HttpServerRequest
          const query = DetailQuery.parse(new URL(request.url, "http://dashboard.invalid").searchParams)
          return yield* render(viewer, params["id"] ?? "", query)
        })
      )
    )
  })
).pipe(
  Layer.provide([
    Targets.Default,
    Plans.Default,
    Heartbeats.Default,
    ManualStates.Default,
    Shares.Default,
    Incidents.Default,
    IncidentTargetAdvisories.layer
  ]),
  // Manual states read the monitor they restate, as the API's heartbeats group provides it.
  Layer.provide(Targets.Default)
)
