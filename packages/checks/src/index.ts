/**
 * The probes: one per check kind, the internal-address guard and the per-host throttle. Each probe is
 * `CheckSpec -> Effect<CheckResult>` with its dependencies (resolver, clock, browser) as services.
 *
 * Each probe module exports `probe` (http, tcp, ping, dns, tls_cert, domain_expiry, flow); `Dial` is the one place
 * a host becomes a connected socket, with the internal-address guard applied to the address actually dialed, and
 * `Throttle` caps concurrent checks per (org, host, port). `Browser` locates, launches and keeps the headless browser
 * that browser flows run in; `Flow` runs them, every request of the browser through a guarding proxy.
 *
 * @since 0.1.0
 */
import type { CheckKind } from "@signalman/core/CheckSpec"

/**
 * The kinds a probe runs: heartbeat and manual monitors have none (the monitored system, or a person, reports).
 *
 * @since 0.1.0
 * @category constants
 */
export const probedKinds: ReadonlyArray<CheckKind> = ["http", "tcp", "ping", "dns", "tls_cert", "domain_expiry", "flow"]

/**
 * @since 0.1.0
 */
export * as AddressGuard from "./AddressGuard.js"
/**
 * @since 0.1.0
 */
export * as Browser from "./Browser.js"
/**
 * @since 0.1.0
 */
export * as Dial from "./Dial.js"
/**
 * @since 0.1.0
 */
export * as Dns from "./Dns.js"
/**
 * @since 0.1.0
 */
export * as DnsParams from "./DnsParams.js"
/**
 * @since 0.1.0
 */
export * as DomainExpiry from "./DomainExpiry.js"
/**
 * @since 0.1.0
 */
export * as Flow from "./Flow.js"
/**
 * @since 0.1.0
 */
export * as Http from "./Http.js"
/**
 * @since 0.1.0
 */
export * as Ping from "./Ping.js"
/**
 * @since 0.1.0
 */
export * as Probe from "./Probe.js"
/**
 * @since 0.1.0
 */
export * as ProbeSettings from "./ProbeSettings.js"
/**
 * @since 0.1.0
 */
export * as Resolver from "./Resolver.js"
/**
 * @since 0.1.0
 */
export * as Runner from "./Runner.js"
/**
 * @since 0.1.0
 */
export * as TargetAddress from "./TargetAddress.js"
/**
 * @since 0.1.0
 */
export * as Tcp from "./Tcp.js"
/**
 * @since 0.1.0
 */
export * as Throttle from "./Throttle.js"
/**
 * @since 0.1.0
 */
export * as TlsCert from "./TlsCert.js"
