/**
 * Running checks from this process (the built-in `local` region): the probes' environment built from the
 * configuration, once per process (so the RDAP bootstrap cache and the DNS settings are shared).
 */

import * as DomainExpiry from "@signalman/checks/DomainExpiry"
import * as Ping from "@signalman/checks/Ping"
import * as Probe from "@signalman/checks/Probe"
import { ProbeSettings } from "@signalman/checks/ProbeSettings"
import * as Resolver from "@signalman/checks/Resolver"
import { CheckResult } from "@signalman/core/CheckResult"
import type { CheckSpec } from "@signalman/core/CheckSpec"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppConfig } from "../Config.js"

export const LOCAL_REGION = "local"

/** The probes' settings from the configuration (the scheduler's throttle reads them too). */
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

export class Probes extends Effect.Service<Probes>()("Signalman/Probes", {
  effect: Effect.gen(function* () {
    const context = yield* Effect.context<Probe.Environment>()
    return {
      /** One run of a check here, stamped with when and where it ran. */
      runOnce: (spec: CheckSpec): Effect.Effect<CheckResult, Probe.Unprobeable> =>
        Effect.gen(function* () {
          const outcome = yield* Probe.run(spec)
          const checked_at = yield* DateTime.now
          return new CheckResult({ ...outcome, checked_at, region: LOCAL_REGION })
        }).pipe(Effect.provide(context))
    }
  }),
  dependencies: [environment]
}) {}
