/**
 * The settings probes run under, provided by whoever runs them (the server's worker, an agent, a test).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"

/**
 * @since 0.1.0
 * @category models
 */
export interface Settings {
  /** `checker.allow_private_targets`: let probes dial internal addresses (self-hosters, tests on loopback). */
  readonly allowPrivateTargets: boolean
  /** `checker.per_host_max_inflight`: concurrent checks per (org, host, port). */
  readonly perHostMaxInflight: number
  /** `checker.rdap_bootstrap_url`: where domain_expiry finds each TLD's RDAP server. */
  readonly rdapBootstrapUrl: string
  /** `checker.rdap_max_inflight`: concurrent RDAP queries per TLD. */
  readonly rdapMaxInflight: number
  /**
   * Sent as User-Agent by the HTTP-speaking probes unless a check sets its own: `Signalman/<version> (+<public base
   * URL>)` (decisions.md, "Regions, probe agents and browser flows").
   */
  readonly userAgent: string
  /**
   * The region these probes run in (`local` in the server), sent as `X-Signalman-Region` on every HTTP request a
   * probe makes (each redirect hop, every request of a browser flow), so a monitored service can tell regions apart.
   */
  readonly region: string
}

/**
 * The header that names the probing region on every HTTP request a probe makes; a check cannot replace it.
 *
 * @since 0.1.0
 * @category constants
 */
export const regionHeader = "x-signalman-region"

/**
 * @since 0.1.0
 * @category services
 */
export class ProbeSettings extends Context.Tag("Signalman/ProbeSettings")<ProbeSettings, Settings>() {}
