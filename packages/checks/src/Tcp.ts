/**
 * The tcp probe: a connection to host and port that must open within the timeout, dialed through {@link Dial}
 * (resolver, guard, `ip_version`, IPv6/IPv4 race).
 *
 * Status: `up` once connected; `down` when no address answers (refused, unreachable, reset) or the name has no
 * address; `error` when the check could not judge: the outer timeout, an address the guard refuses, or an IP
 * literal pinned to the other family.
 *
 * @since 0.1.0
 */
import type { ProbeOutcome } from "@signalman/core/CheckResult"
import type { TcpCheck } from "@signalman/core/CheckSpec"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Dial from "./Dial.js"
import * as Probe from "./internal/probe.js"
import type { ProbeSettings } from "./ProbeSettings.js"
import type { Resolver } from "./Resolver.js"

/**
 * Runs a tcp check. Never fails: every outcome is a result. Details name the address connected to.
 *
 * @since 0.1.0
 * @category probes
 */
export const probe = (check: TcpCheck): Effect.Effect<ProbeOutcome, never, Resolver | ProbeSettings> =>
  Probe.run<Resolver | ProbeSettings>({
    timeoutSeconds: check.timeout,
    body: (log) =>
      Effect.gen(function* () {
        const dialed = yield* Effect.either(
          Dial.tcp({ host: check.host, port: check.port, ipVersion: check.ip_version }, log.add)
        )
        if (Either.isLeft(dialed)) {
          const failure = dialed.left
          const status = failure.reason === "blocked" || failure.reason === "family" ? "error" : "down"
          return { status, error: failure.message, details: null }
        }
        return { status: "up", error: null, details: { address: dialed.right.address.address } }
      }),
    onTimeout: (message) => Effect.succeed({ status: "error", error: message, details: null })
  })
