/**
 * The MCP tools over monitors: list and search them, a monitor's status now, its results, uptime and latency, and
 * the writes (pause, resume, run a check now). Each runs what the REST endpoint it names runs (`targets/Listing`,
 * `engine/CallerMonitors`, `targets/Changes`), so its answer, refusals and scope are that endpoint's.
 */

import { Caller } from "@signalman/core/api/Authentication"
import { LatencySeries, RangeQuery, ResultPage, Uptime } from "@signalman/core/api/Results"
import { ListTargets, TargetPage } from "@signalman/core/api/Targets"
import { CheckResult } from "@signalman/core/CheckResult"
import * as Pagination from "@signalman/core/Pagination"
import { Target, TargetId } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Authenticator } from "../auth/Authentication.js"
import { CallerMonitors } from "../engine/CallerMonitors.js"
import { writeSource } from "../http/WriteSource.js"
import * as Advisories from "../targets/Advisories.js"
import { Changes } from "../targets/Changes.js"
import { currentWriter } from "../targets/CurrentWriter.js"
import * as Listing from "../targets/Listing.js"
import * as MonitorStatus from "./MonitorStatus.js"
import * as Tool from "./Tool.js"

const monitorId = Schema.propertySignature(TargetId).annotations({
  description: "The monitor's id (list_monitors answers it)"
})

const range = {
  from: RangeQuery.fields.from.annotations({ description: "Start (RFC 3339); default a day before `to`" }),
  to: RangeQuery.fields.to.annotations({ description: "End (RFC 3339); default now" }),
  region: RangeQuery.fields.region.annotations({ description: "Only this probe region's results" })
}

const OneMonitor = Tool.Arguments({ monitor_id: monitorId })

export const listMonitors = Tool.make({
  name: "list_monitors",
  title: "List monitors",
  description:
    "List and search the org's monitors, newest first. Filter by `q` (name starts with), `tag`, or `enabled` " +
    "(false: paused monitors); page with `limit` and `offset` (the answer's `total` counts every match).",
  endpoint: { method: "GET", path: "/api/v1/targets" },
  input: Tool.Arguments({
    q: ListTargets.fields.q.annotations({ description: "Name prefix, case-insensitive" }),
    tag: ListTargets.fields.tag.annotations({ description: "Only monitors carrying this tag" }),
    enabled: Schema.optionalWith(Schema.Boolean, { exact: true }).annotations({
      description: "true: running monitors only; false: paused ones only"
    }),
    ...Pagination.json
  }),
  output: TargetPage,
  run: (query) => Listing.page({ ...query, ...Pagination.settle(query) })
})

export const monitorStatus = Tool.make({
  name: "get_monitor_status",
  title: "Monitor status",
  description:
    "A monitor and its state now: up, degraded, down, error (the check could not judge), unknown (no result " +
    "yet) or paused; since when, its latest check, and each probe region's own state.",
  endpoint: { method: "GET", path: "/api/v1/targets/:id" },
  input: OneMonitor,
  output: MonitorStatus.MonitorStatus,
  run: ({ monitor_id }) =>
    Effect.gen(function* () {
      const monitors = yield* CallerMonitors
      const monitor = yield* Listing.one(monitor_id)
      const { state } = yield* monitors.state(monitor_id)
      return MonitorStatus.of(monitor, state)
    })
})

export const monitorResults = Tool.make({
  name: "get_monitor_results",
  title: "Monitor results",
  description:
    "A monitor's stored check results, newest first, over a range (default the last 24 hours), optionally of " +
    "one region; each with its status, duration, region and error.",
  endpoint: { method: "GET", path: "/api/v1/targets/:id/results" },
  input: Tool.Arguments({ monitor_id: monitorId, ...range, ...Pagination.json }),
  output: ResultPage,
  run: ({ monitor_id, ...params }) =>
    Effect.flatMap(CallerMonitors, (monitors) =>
      monitors.results(monitor_id, { ...params, ...Pagination.settle(params) })
    )
})

export const monitorUptime = Tool.make({
  name: "get_monitor_uptime",
  title: "Monitor uptime",
  description:
    "A monitor's time-based uptime over a range (default the last 24 hours): the percentage (null until something " +
    "was judged), seconds up and down, time left out for maintenance, and counts of checks by status.",
  endpoint: { method: "GET", path: "/api/v1/targets/:id/uptime" },
  input: Tool.Arguments({ monitor_id: monitorId, ...range }),
  output: Uptime,
  run: ({ monitor_id, ...params }) => Effect.flatMap(CallerMonitors, (monitors) => monitors.uptime(monitor_id, params))
})

export const monitorLatency = Tool.make({
  name: "get_monitor_latency",
  title: "Monitor latency",
  description:
    "A monitor's response times over a range (default the last 24 hours) in time buckets: checks, mean, p50, " +
    "p90, p95, p99 in milliseconds, and per-phase means (DNS, connect, TLS, first byte).",
  endpoint: { method: "GET", path: "/api/v1/targets/:id/latency" },
  input: Tool.Arguments({ monitor_id: monitorId, ...range }),
  output: LatencySeries,
  run: ({ monitor_id, ...params }) => Effect.flatMap(CallerMonitors, (monitors) => monitors.latency(monitor_id, params))
})

/** Pause or resume: the monitor's `enabled`, changed as a PATCH changes it. */
const setEnabled = (id: string, enabled: boolean) =>
  Effect.gen(function* () {
    const changes = yield* Changes
    const updated = yield* changes.update(yield* currentWriter, id, { enabled }, yield* writeSource, undefined)
    return yield* Advisories.attachOne(updated)
  })

export const pauseMonitor = Tool.make({
  name: "pause_monitor",
  title: "Pause a monitor",
  description: "Pause a monitor: it stops running until resumed (as PATCH enabled false). Answers the monitor.",
  endpoint: { method: "PATCH", path: "/api/v1/targets/:id" },
  writes: true,
  input: OneMonitor,
  output: Target,
  run: ({ monitor_id }) => setEnabled(monitor_id, false)
})

export const resumeMonitor = Tool.make({
  name: "resume_monitor",
  title: "Resume a monitor",
  description: "Resume a paused monitor: it runs again on its interval (as PATCH enabled true). Answers the monitor.",
  endpoint: { method: "PATCH", path: "/api/v1/targets/:id" },
  writes: true,
  input: OneMonitor,
  output: Target,
  run: ({ monitor_id }) => setEnabled(monitor_id, true)
})

export const runCheckNow = Tool.make({
  name: "run_check_now",
  title: "Run a check now",
  description:
    "Run a monitor's check now in each of its regions that can run it, store the results, and answer the first " +
    "region's result. Heartbeat and manual monitors have no probe (HEARTBEAT_NOT_PROBEABLE). Spends the plan's " +
    "check-now budget (RATE_LIMITED when spent).",
  endpoint: { method: "POST", path: "/api/v1/targets/:id/check-now" },
  writes: true,
  input: OneMonitor,
  output: CheckResult,
  run: ({ monitor_id }) =>
    Effect.gen(function* () {
      // The /mcp request spent from api_reads; a run also spends what POST .../check-now spends, so the MCP server
      // is no way around the check_now budget that keeps probes of other people's hosts in bounds.
      yield* (yield* Authenticator).spend(yield* Caller, "check_now")
      return yield* (yield* CallerMonitors).checkNow(monitor_id)
    })
})
