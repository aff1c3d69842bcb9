/**
 * What the service's features record for `GET /metrics`. Two implementations, chosen once when the process's layer
 * is built: with `metrics.enabled` each call updates a series (`Series.ts`); without, each call is a constant
 * `Effect.void` (or an empty function) and nothing is counted, so a process that does not expose metrics pays
 * nothing for them. The disabled one is the default value of the reference, so a service built on its own (in a
 * test, a tool) needs nothing provided.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppConfig } from "../config/Config.js"
import * as Series from "./Series.js"

/** A stored result as the checks series count it (the engine's stored results fit as they are). */
export interface StoredCheck {
  readonly kind: string
  readonly result: { readonly status: string; readonly region: string; readonly duration_ms: number }
}

/** Why a scheduled check was not run (`Runner`: dropped by the per-host throttle, expired waiting for a permit). */
export type NotRun = "dropped" | "expired"

/** What became of one delivery attempt: delivered, failed and to be retried, or failed for good (dead-lettered). */
export type DeliveryOutcome = "delivered" | "retried" | "dead"

export interface Recorder {
  /** Whether anything is recorded (the `/metrics` route and the request middleware are mounted only then). */
  readonly enabled: boolean
  /** A batch of results, once committed: counted by kind, status and region, their durations observed. */
  readonly stored: (batch: ReadonlyArray<StoredCheck>) => Effect.Effect<void>
  /**
   * Scheduled checks of `region` started these many milliseconds after their due slots (callers compute them only
   * when `enabled`).
   */
  readonly started: (region: string, lagsMs: ReadonlyArray<number>) => Effect.Effect<void>
  /** `count` scheduled checks of `region` were not run, for `reason`. */
  readonly notRun: (region: string, reason: NotRun, count: number) => Effect.Effect<void>
  /** A delivery attempt to a channel of `channelKind` ended with `outcome`. */
  readonly delivery: (channelKind: string, outcome: DeliveryOutcome) => Effect.Effect<void>
  /** An incident was opened with `impact`. */
  readonly incidentOpened: (impact: string) => Effect.Effect<void>
  /** An HTTP request answered: its route template, method, status and duration. Called from the listener's path. */
  readonly request: (route: string, method: string, status: number, seconds: number) => void
}

/** Records nothing: every call is a constant. */
export const disabled: Recorder = {
  enabled: false,
  stored: () => Effect.void,
  started: () => Effect.void,
  notRun: () => Effect.void,
  delivery: () => Effect.void,
  incidentOpened: () => Effect.void,
  request: () => {}
}

// The method label's values: the ones a route can have, anything else one value, so a client inventing methods
// cannot grow the label set.
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])

/** The method as labelled: a known method, else `other`. */
export const methodLabel = (method: string): string => (METHODS.has(method) ? method : "other")

/** Records into the series of `Series.ts`. */
export const enabled: Recorder = {
  enabled: true,
  stored: (batch) =>
    Effect.sync(() => {
      for (const { kind, result } of batch) {
        Series.checks.update(1, kind, result.status, result.region)
        Series.checkDuration.update(result.duration_ms / 1000, kind, result.region)
      }
    }),
  // A check started a little before its slot's millisecond (timer rounding) is on time, not early.
  started: (region, lagsMs) =>
    Effect.sync(() => {
      for (const lagMs of lagsMs) Series.schedulerLag.update(Math.max(0, lagMs) / 1000, region)
    }),
  notRun: (region, reason, count) => Effect.sync(() => Series.checksNotRun.update(count, region, reason)),
  delivery: (channelKind, outcome) => Effect.sync(() => Series.notifications.update(1, channelKind, outcome)),
  incidentOpened: (impact) => Effect.sync(() => Series.incidentsOpened.update(1, impact)),
  request: (route, method, status, seconds) => {
    const labelled = methodLabel(method)
    Series.requests.update(1, route, labelled, String(status))
    Series.requestDuration.update(seconds, route, labelled)
  }
}

/** The recorder of this process; recording nothing unless a layer provides the enabled one. */
export class Metrics extends Context.Reference<Metrics>()("Signalman/Metrics", {
  defaultValue: (): Recorder => disabled
}) {}

/** The recorder `metrics.enabled` asks for. */
export const layer: Layer.Layer<Metrics, never, AppConfig> = Layer.effect(
  Metrics,
  Effect.map(AppConfig, (config) => (config["metrics.enabled"] ? enabled : disabled))
)
