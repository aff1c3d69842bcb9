/**
 * Running checks from this process (the built-in `local` region): the probes' environment built from the
 * configuration, once per process (so the RDAP bootstrap cache and the DNS settings are shared), the checks
 * package's `Runner` the scheduler runs its claimed work through, and the stamping of an outcome as a result of
 * this region.
 */

import * as DomainExpiry from "@signalman/checks/DomainExpiry"
import * as Ping from "@signalman/checks/Ping"
import * as Probe from "@signalman/checks/Probe"
import { ProbeSettings } from "@signalman/checks/ProbeSettings"
import * as Resolver from "@signalman/checks/Resolver"
import * as Runner from "@signalman/checks/Runner"
import * as Throttle from "@signalman/checks/Throttle"
import { CheckResult, type ProbeOutcome } from "@signalman/core/CheckResult"
import type { CheckSpec } from "@signalman/core/CheckSpec"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppConfig } from "../config/Config.js"

export const LOCAL_REGION = "local"

/** The probes' settings from the configuration (the runner's throttle reads them too). */
export const settings = Layer.effect(
  ProbeSettings,
  Effect.map(AppConfig, (config) => ({
    allowPrivateTargets: config["checker.allow_private_targets"],
    perHostMaxInflight: config["checker.per_host_max_inflight"],
    rdapBootstrapUrl: config["checker.rdap_bootstrap_url"] ?? "https://data.iana.org/rdap/dns.json",
    rdapMaxInflight: config["checker.rdap_max_inflight"],
    userAgent: "Signalman/0.1 (+uptime monitoring)"
  }))
)

/** The probes' environment for this process. */
export const environment: Layer.Layer<Probe.Environment, never, AppConfig> = Layer.mergeAll(
  Resolver.layer,
  Ping.layer,
  DomainExpiry.layer
).pipe(Layer.provideMerge(settings))

/**
 * This process's runner of scheduled checks: `checker.max_concurrency` in flight at once across every batch, each
 * under the process's per-host throttle (`checker.per_host_max_inflight`).
 */
export const runner: Layer.Layer<Runner.Runner, never, AppConfig> = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => Runner.layer({ maxConcurrency: config["checker.max_concurrency"] }))
).pipe(Layer.provide(Throttle.Throttle.Default), Layer.provide(settings))

/** An outcome as a result of this region, stamped with the time it is recorded (its check has just ended). */
export const stamped = (outcome: ProbeOutcome): Effect.Effect<CheckResult> =>
  Effect.map(DateTime.now, (checked_at) => new CheckResult({ ...outcome, checked_at, region: LOCAL_REGION }))

/** The `error` result that stands for a run that could not measure anything: `error` says why. */
export const failed = (error: string): Effect.Effect<CheckResult> =>
  stamped({ status: "error", duration_ms: 0, error, details: null, phases: null })

export class Probes extends Effect.Service<Probes>()("Signalman/Probes", {
  effect: Effect.gen(function* () {
    const context = yield* Effect.context<Probe.Environment>()
    return {
      /** What the probes run under, for a caller that runs them itself (the scheduler's batches on the runner). */
      environment: context,
      /** One run of a check here, stamped with when and where it ran. */
      runOnce: (spec: CheckSpec): Effect.Effect<CheckResult, Probe.Unprobeable> =>
        Effect.flatMap(Probe.run(spec), stamped).pipe(Effect.provide(context))
    }
  }),
  dependencies: [environment]
}) {}
