/**
 * The series the service keeps in Effect's metric registry, with their labels and bucket boundaries
 * (docs/operations.md lists each with its meaning). Labels are bounded sets only: kinds, statuses, regions,
 * route templates, channel kinds; never an id, a URL or an address.
 *
 * Updates go through `Labelled.update`, which keeps one label array per label combination: Effect caches a series'
 * hook by the identity of that array, so a repeated combination costs a map lookup and the update, not a new key.
 */
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as MetricLabel from "effect/MetricLabel"
import type * as Exposition from "./Exposition.js"

/** A metric updated under a fixed list of label names, each combination's label array made once. */
export interface Labelled<In> {
  readonly update: (input: In, ...values: ReadonlyArray<string>) => void
}

const labelled = <Type, In, Out>(metric: Metric.Metric<Type, In, Out>, names: ReadonlyArray<string>): Labelled<In> => {
  const cache = new Map<string, ReadonlyArray<MetricLabel.MetricLabel>>()
  return {
    update: (input, ...values) => {
      const key = values.length === 1 ? (values[0] ?? "") : values.join("\u0000")
      let tags = cache.get(key)
      if (tags === undefined) {
        tags = names.map((name, i) => MetricLabel.make(name, values[i] ?? ""))
        cache.set(key, tags)
      }
      metric.unsafeUpdate(input, tags)
    }
  }
}

/** Seconds, from a millisecond up to two minutes: checks and HTTP requests. */
const DURATION_SECONDS = MetricBoundaries.fromIterable([
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120
])
const REQUEST_SECONDS = MetricBoundaries.fromIterable([
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10
])
/** How late a check starts: on time is within a few milliseconds; minutes late is an outage of the workers. */
const LAG_SECONDS = MetricBoundaries.fromIterable([0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300])

const CHECKS = "signalman_checks_total"
const CHECKS_HELP = "Check results stored, by monitor kind, status and region (agents' results included)"
const CHECK_DURATION = "signalman_check_duration_seconds"
const CHECK_DURATION_HELP = "How long checks took, as their results report it, by monitor kind and region"
const LAG = "signalman_scheduler_lag_seconds"
const LAG_HELP = "How late scheduled checks started after their due slot, by region"
const NOT_RUN = "signalman_checks_not_run_total"
const NOT_RUN_HELP =
  "Scheduled checks of the local region not run: dropped by the per-host throttle or expired waiting for a permit"
const REQUESTS = "signalman_http_requests_total"
const REQUESTS_HELP = "HTTP requests answered, by route template, method and status"
const REQUEST_DURATION = "signalman_http_request_duration_seconds"
const REQUEST_DURATION_HELP = "How long HTTP requests took to answer, by route template and method"
const NOTIFICATIONS = "signalman_notifications_total"
const NOTIFICATIONS_HELP =
  "Notification delivery attempts by channel kind and outcome (delivered, retried, dead: dead-lettered)"
const INCIDENTS = "signalman_incidents_opened_total"
const INCIDENTS_HELP = "Incidents opened, by impact"

export const checks = labelled(Metric.counter(CHECKS, { description: CHECKS_HELP, incremental: true }), [
  "kind",
  "status",
  "region"
])

export const checkDuration = labelled(Metric.histogram(CHECK_DURATION, DURATION_SECONDS, CHECK_DURATION_HELP), [
  "kind",
  "region"
])

export const schedulerLag = labelled(Metric.histogram(LAG, LAG_SECONDS, LAG_HELP), ["region"])

export const checksNotRun = labelled(Metric.counter(NOT_RUN, { description: NOT_RUN_HELP, incremental: true }), [
  "region",
  "reason"
])

export const requests = labelled(Metric.counter(REQUESTS, { description: REQUESTS_HELP, incremental: true }), [
  "route",
  "method",
  "status"
])

export const requestDuration = labelled(Metric.histogram(REQUEST_DURATION, REQUEST_SECONDS, REQUEST_DURATION_HELP), [
  "route",
  "method"
])

export const notifications = labelled(
  Metric.counter(NOTIFICATIONS, { description: NOTIFICATIONS_HELP, incremental: true }),
  ["channel_kind", "outcome"]
)

export const incidentsOpened = labelled(Metric.counter(INCIDENTS, { description: INCIDENTS_HELP, incremental: true }), [
  "impact"
])

const elsewhere: Array<Exposition.Declared> = []

/**
 * A counter kept where its events happen rather than through the recorder (rare events, such as a passkey's
 * stalled counter, counted whether or not metrics are enabled), declared here so every scrape lists it.
 */
export const counter = (name: string, description: string): Metric.Metric.Counter<number> => {
  elsewhere.push({ name, help: description, type: "counter" })
  return Metric.counter(name, { description, incremental: true })
}

const recorded: ReadonlyArray<Exposition.Declared> = [
  { name: CHECKS, help: CHECKS_HELP, type: "counter" },
  { name: CHECK_DURATION, help: CHECK_DURATION_HELP, type: "histogram" },
  { name: LAG, help: LAG_HELP, type: "histogram" },
  { name: NOT_RUN, help: NOT_RUN_HELP, type: "counter" },
  { name: REQUESTS, help: REQUESTS_HELP, type: "counter" },
  { name: REQUEST_DURATION, help: REQUEST_DURATION_HELP, type: "histogram" },
  { name: NOTIFICATIONS, help: NOTIFICATIONS_HELP, type: "counter" },
  { name: INCIDENTS, help: INCIDENTS_HELP, type: "counter" }
]

/** The families every scrape writes, even before their first observation. */
export const declared = (): ReadonlyArray<Exposition.Declared> => [...recorded, ...elsewhere]
