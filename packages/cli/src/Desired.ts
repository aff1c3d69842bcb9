/**
 * The config once validated: every item decoded with the API's defaults, beside what the diff compares it by (the
 * monitor as the service would store it, the channel's config as the service would show it, the page's access as
 * the API reads it).
 *
 * @since 0.1.0
 */
import type * as StatusPage from "@signalman/core/StatusPage"
import type * as TargetRules from "@signalman/core/TargetRules"
import type * as ConfigFile from "./ConfigFile.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface DesiredVariable {
  readonly key: string
  readonly item: ConfigFile.OrgVariable
}

/**
 * @since 0.1.0
 * @category models
 */
export interface DesiredChannel {
  readonly key: string
  readonly item: ConfigFile.NotificationChannel
  /** The config as the service shows it: every populated secret read `***` (`Channel.split`). */
  readonly shown: Readonly<Record<string, unknown>>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface DesiredMonitor {
  readonly key: string
  readonly item: ConfigFile.Monitor
  /**
   * The monitor as a create would store it (`TargetRules.resolveCreate`), every default filled. Its `interval` and
   * `regions` are the service's defaults only when the file names them: the plan's floor and the instance's regions
   * are not known from the file. Its `alerts` are empty: they go by key, in `item.alerts`.
   */
  readonly resolved: TargetRules.ResolvedTarget
}

/**
 * @since 0.1.0
 * @category models
 */
export interface DesiredPage {
  readonly key: string
  readonly item: ConfigFile.Page
  /** `access` as the API decodes it; null when the file has none (a public page). */
  readonly access: StatusPage.AccessInput | null
  /** The branding a create stores: the file's keys over the defaults. */
  readonly branding: StatusPage.Branding
}

/**
 * @since 0.1.0
 * @category models
 */
export interface DesiredWindow {
  readonly key: string
  readonly item: ConfigFile.MaintenanceWindow
}

/**
 * A valid config.
 *
 * @since 0.1.0
 * @category models
 */
export interface Desired {
  readonly project: string
  readonly variables: ReadonlyArray<DesiredVariable>
  readonly channels: ReadonlyArray<DesiredChannel>
  readonly monitors: ReadonlyArray<DesiredMonitor>
  readonly status_pages: ReadonlyArray<DesiredPage>
  readonly maintenance: ReadonlyArray<DesiredWindow>
}
