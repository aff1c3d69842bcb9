/**
 * Runs any check kind: the dispatcher from a `CheckSpec` to its probe. Heartbeat and manual monitors have no
 * probe (the monitored system, or a person, reports), and browser flows need a browser engine this package does
 * not carry yet; asking for those is an `Unprobeable` failure the caller turns into its answer.
 *
 * @since 0.1.0
 */
import type { ProbeOutcome } from "@signalman/core/CheckResult"
import type { CheckSpec } from "@signalman/core/CheckSpec"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Dns from "./Dns.js"
import * as DomainExpiry from "./DomainExpiry.js"
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
  readonly kind: "heartbeat" | "manual" | "flow"
  readonly message: string
}> {}

/**
 * Everything a probe may need.
 *
 * @since 0.1.0
 * @category models
 */
export type Environment = Resolver | ProbeSettings | Ping.Pinger | DomainExpiry.Rdap

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
      return Effect.fail(
        new Unprobeable({ kind: "flow", message: "Browser flows need a region with a browser engine" })
      )
  }
}
