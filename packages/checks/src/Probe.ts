/**
 * Runs any check kind: the dispatcher from a `CheckSpec` to its probe. Heartbeat and manual monitors have no
 * probe (the monitored system, or a person, reports); asking for those is an `Unprobeable` failure the caller turns
 * into its answer. Browser flows run on the process's {@link Flow.Flows}, which answers an `error` result where the
 * process has no browser.
 *
 * @since 0.1.0
 */
import type { ProbeOutcome } from "@signalman/core/CheckResult"
import type { CheckSpec } from "@signalman/core/CheckSpec"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Dns from "./Dns.js"
import * as DomainExpiry from "./DomainExpiry.js"
import * as Flow from "./Flow.js"
import * as Http from "./Http.js"
import * as Ping from "./Ping.js"
import type { ProbeSettings } from "./ProbeSettings.js"
import type { Resolver } from "./Resolver.js"
import * as Tcp from "./Tcp.js"
import * as TlsCert from "./TlsCert.js"

/**
 * @since 0.1.0
 * @category errors
 */
export class Unprobeable extends Data.TaggedError("Unprobeable")<{
  readonly kind: "heartbeat" | "manual"
  readonly message: string
}> {}

/**
 * Everything a probe may need: flows need the process's {@link Flow.Flows} (its browser, the guard's proxy and the
 * cap on concurrent runs).
 *
 * @since 0.1.0
 * @category models
 */
export type Environment = Resolver | ProbeSettings | Ping.Pinger | DomainExpiry.Rdap | Flow.Flows

/**
 * @since 0.1.0
 * @category running
 */
export const run = (spec: CheckSpec): Effect.Effect<ProbeOutcome, Unprobeable, Environment> => {
  switch (spec.type) {
    case "http":
      return Http.probe(spec)
    case "tcp":
      return Tcp.probe(spec)
    case "ping":
      return Ping.probe(spec)
    case "dns":
      return Dns.probe(spec)
    case "tls_cert":
      return TlsCert.probe(spec)
    case "domain_expiry":
      return DomainExpiry.probe(spec)
    case "heartbeat":
    case "manual":
      return Effect.fail(
        new Unprobeable({
          kind: spec.type,
          message: `A ${spec.type} monitor has no probe: it is reported to, not checked`
        })
      )
    case "flow":
      return Flow.probe(spec)
  }
}
