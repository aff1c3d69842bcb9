/**
 * What the agent's checks run under, built in one place: the probes' settings (the same internal-address guard as
 * the service, `AGENT__ALLOW_PRIVATE_TARGETS` turning it off for this agent alone; the region; the User-Agent), the
 * system resolver, ping and RDAP, browser flows (one browser, `AGENT__FLOW_CONCURRENCY` runs at once), and the
 * `Runner` with its per-host `Throttle`, one of each per process.
 *
 * @since 0.1.0
 */
import * as Browser from "@signalman/checks/Browser"
import * as DomainExpiry from "@signalman/checks/DomainExpiry"
import * as Flow from "@signalman/checks/Flow"
import * as Ping from "@signalman/checks/Ping"
import type * as Probe from "@signalman/checks/Probe"
import { ProbeSettings, type Settings as ProbeSettingsValue } from "@signalman/checks/ProbeSettings"
import * as Resolver from "@signalman/checks/Resolver"
import * as Runner from "@signalman/checks/Runner"
import * as Throttle from "@signalman/checks/Throttle"
import * as Layer from "effect/Layer"
import type { Settings } from "./Settings.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly settings: Settings
  /** The region the service's welcome named. */
  readonly region: string
  readonly version: string
}

/**
 * The probes' User-Agent: `Signalman/<version> (+<SIGNALMAN_URL>)`, so a monitored service can tell probe traffic
 * apart and find whose it is.
 *
 * @since 0.1.0
 * @category constructors
 */
export const userAgent = (version: string, serviceUrl: string): string => `Signalman/${version} (+${serviceUrl})`

/**
 * The probes' settings: the region is the one the service's welcome named, sent by every HTTP request a probe
 * makes as `X-Signalman-Region` (decisions.md).
 *
 * @since 0.1.0
 * @category constructors
 */
export const probeSettings = (options: Options): ProbeSettingsValue => {
  const settings = {
    allowPrivateTargets: options.settings.allowPrivateTargets,
    perHostMaxInflight: options.settings.perHostMaxInflight,
    rdapBootstrapUrl: options.settings.rdapBootstrapUrl,
    rdapMaxInflight: options.settings.rdapMaxInflight,
    userAgent: userAgent(options.version, options.settings.url),
    region: options.region
  }
  return settings
}

/**
 * Browser flows for `AGENT__BROWSER_PATH`: nothing is located or launched until a flow asks. With flows off
 * (`none`) every flow is an `error` result saying so (the service leases flows only to regions whose agents
 * reported a browser, so this is reached only by a monitor created before the agent turned them off).
 *
 * @since 0.1.0
 * @category layers
 */
export const flows = (settings: Settings): Layer.Layer<Flow.Flows> => {
  const runs = Flow.layer({ maxConcurrency: settings.flowConcurrency })
  switch (settings.browser._tag) {
    case "off":
      return Flow.layerWithoutBrowser("flows are off on this agent: AGENT__BROWSER_PATH=none")
    case "auto":
      return runs.pipe(Layer.provide(Browser.layer({ setting: "AGENT__BROWSER_PATH" })))
    case "path":
      return runs.pipe(
        Layer.provide(Browser.layer({ executablePath: settings.browser.path, setting: settings.browser.setting }))
      )
  }
}

/**
 * Everything a probe may need.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<Probe.Environment> => {
  const settings = Layer.succeed(ProbeSettings, probeSettings(options))
  return Layer.mergeAll(Resolver.layer, Ping.layer, DomainExpiry.layer, flows(options.settings)).pipe(
    Layer.provideMerge(settings)
  )
}

/**
 * The process's runner: `AGENT__CONCURRENCY` checks in flight at once, each under the per-host throttle.
 *
 * @since 0.1.0
 * @category layers
 */
export const runner = (options: Options): Layer.Layer<Runner.Runner> =>
  Runner.layer({ maxConcurrency: options.settings.concurrency }).pipe(
    Layer.provide(Throttle.Throttle.Default),
    Layer.provide(Layer.succeed(ProbeSettings, probeSettings(options)))
  )
