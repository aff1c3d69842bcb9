/**
 * Running checks from this process (the built-in `local` region): the probes' environment built from the
 * configuration, once per process (so the RDAP bootstrap cache, the DNS settings and the browser are shared), the
 * checks package's `Runner` the scheduler runs its claimed work through, and the stamping of an outcome as a result
 * of this region (with the evidence the run kept, which travels beside the result, never in it).
 *
 * Browser flows run here when this process has a browser: `checker.browser_path` (or `CHROMIUM_PATH`), else a
 * system Chromium or Chrome, else the packaged one; `none` turns them off. Nothing is located or launched at boot:
 * the browser is found when a flow first needs it.
 */

import * as Browser from "@signalman/checks/Browser"
import * as DomainExpiry from "@signalman/checks/DomainExpiry"
import * as Flow from "@signalman/checks/Flow"
import * as Ping from "@signalman/checks/Ping"
import type * as Probe from "@signalman/checks/Probe"
import { ProbeSettings } from "@signalman/checks/ProbeSettings"
import * as Resolver from "@signalman/checks/Resolver"
import * as Runner from "@signalman/checks/Runner"
import * as Throttle from "@signalman/checks/Throttle"
import { CheckResult, type Evidence, type ProbeOutcome } from "@signalman/core/CheckResult"
import type { CheckSpec } from "@signalman/core/CheckSpec"
import * as Context from "effect/Context"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { AppConfig, type Values } from "../config/Config.js"
import { version } from "../config/Version.js"
import { CHECK_REGION } from "../tracing/Spans.js"

export const LOCAL_REGION = "local"

/**
 * What the probes say they are (decisions.md): `Signalman/<version> (+<public base URL>)`, the URL being
 * `auth.public_base_url`, else this server on localhost at its configured port.
 */
export const userAgent = (config: Values): string => {
  const base = (config["auth.public_base_url"] ?? `http://localhost:${config["server.port"]}`).replace(/\/+$/, "")
  return `Signalman/${version} (+${base})`
}

/** The probes' settings from the configuration (the runner's throttle reads them too). */
export const settings = Layer.effect(
  ProbeSettings,
  Effect.map(AppConfig, (config) => ({
    allowPrivateTargets: config["checker.allow_private_targets"],
    perHostMaxInflight: config["checker.per_host_max_inflight"],
    rdapBootstrapUrl: config["checker.rdap_bootstrap_url"] ?? "https://data.iana.org/rdap/dns.json",
    rdapMaxInflight: config["checker.rdap_max_inflight"],
    userAgent: userAgent(config),
    region: LOCAL_REGION
  }))
)

/** `checker.browser_path` is `none`: this process runs no flows. */
const browserOff = "checker.browser_path is none"

/**
 * This process's browser, unless `checker.browser_path` is `none`: one per process, located and launched when the
 * first flow asks for it, closed with the layer.
 */
export class LocalBrowser extends Context.Tag("Signalman/LocalBrowser")<
  LocalBrowser,
  Option.Option<Context.Tag.Service<Browser.Browser>>
>() {}

export const localBrowser: Layer.Layer<LocalBrowser, never, AppConfig> = Layer.scoped(
  LocalBrowser,
  Effect.gen(function* () {
    const path = (yield* AppConfig)["checker.browser_path"]
    if (path?.trim() === "none") return Option.none()
    const browser = yield* Browser.make({ executablePath: path, setting: "checker.browser_path" }).pipe(
      Effect.provide(Browser.layerMachine)
    )
    return Option.some(browser)
  })
)

/** Flows on this process's browser, at most `checker.flow_max_concurrency` at once; without one, an error each. */
const flows: Layer.Layer<Flow.Flows, never, AppConfig | LocalBrowser> = Layer.unwrapEffect(
  Effect.gen(function* () {
    const config = yield* AppConfig
    return Option.match(yield* LocalBrowser, {
      onNone: () => Flow.layerWithoutBrowser(browserOff),
      onSome: (browser) =>
        Flow.layer({ maxConcurrency: config["checker.flow_max_concurrency"] }).pipe(
          Layer.provide(Layer.succeed(Browser.Browser, browser))
        )
    })
  })
)

/** The probes' environment for this process. */
export const environment: Layer.Layer<Probe.Environment, never, AppConfig> = Layer.mergeAll(
  Resolver.layer,
  Ping.layer,
  DomainExpiry.layer,
  flows
).pipe(Layer.provideMerge(settings), Layer.provide(localBrowser))

/**
 * This process's runner of scheduled checks: `checker.max_concurrency` in flight at once across every batch, each
 * under the process's per-host throttle (`checker.per_host_max_inflight`).
 */
export const runner: Layer.Layer<Runner.Runner, never, AppConfig> = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => Runner.layer({ maxConcurrency: config["checker.max_concurrency"] }))
).pipe(Layer.provide(Throttle.Throttle.Default), Layer.provide(settings))

/** A result of this region and what its run kept beside it (a failed flow's screenshot), for the store. */
export interface Stamped {
  readonly result: CheckResult
  readonly evidence: Evidence | undefined
}

/**
 * An outcome as a result of this region, stamped with the time it is recorded (its check has just ended). Built
 * without the class's validation: the outcome is our own probe's, typed, and the stamp and region are ours, so a
 * worker's 1,000 results a second need not each be checked field by field again (the constructor's validation was
 * 2.4% of a loaded worker's CPU, issue 20).
 */
export const stamped = (outcome: ProbeOutcome): Effect.Effect<Stamped> =>
  Effect.map(DateTime.now, (checked_at) => {
    const { evidence, ...measured } = outcome
    return {
      result: new CheckResult({ ...measured, checked_at, region: LOCAL_REGION }, { disableValidation: true }),
      evidence
    }
  })

/** The `error` result that stands for a run that could not measure anything: `error` says why. */
export const failed = (error: string): Effect.Effect<CheckResult> =>
  Effect.map(stamped({ status: "error", duration_ms: 0, error, details: null, phases: null }), (run) => run.result)

export class Probes extends Effect.Service<Probes>()("Signalman/Probes", {
  effect: Effect.gen(function* () {
    const context = yield* Effect.context<Probe.Environment>()
    const browser = yield* LocalBrowser
    // Found once: where the browser is does not change while the process runs (a failed search is kept too, so a
    // machine without one is not searched again on every flow test).
    const flowCapable = yield* Effect.cached(
      Option.match(browser, {
        onNone: () => Effect.succeed(false),
        onSome: (found) => Effect.as(found.located, true).pipe(Effect.orElseSucceed(() => false))
      })
    )
    return {
      /**
       * Whether this process can run browser flows (the `local` region is flow-capable): it has a browser path
       * setting other than `none` and a browser is found. Asking locates the browser; nothing is launched.
       */
      flowCapable,
      /** What the probes run under, for a caller that runs them itself (the scheduler's batches on the runner). */
      environment: context,
      /**
       * One run of a check here, stamped with when and where it ran. Its evidence is not kept: the runs made here
       * at once (check-now, a test) are never flows, which need a browser region.
       */
      runOnce: (spec: CheckSpec): Effect.Effect<CheckResult, Probe.Unprobeable> =>
        Effect.flatMap(Runner.traced(spec), stamped).pipe(
          Effect.map((run) => run.result),
          Effect.provide(context),
          Effect.annotateSpans(CHECK_REGION, LOCAL_REGION)
        )
    }
  }),
  dependencies: [environment, localBrowser]
}) {}
