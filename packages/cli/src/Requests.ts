/**
 * The bodies `apply` sends, from the file's items: each item encoded by its own schema (so the body is the API's
 * wire form), its `key` taken off and its references by key turned into ids. An update sends only the fields the
 * plan found changed, each as the file resolves it (a field the file leaves out takes the API's default, which is
 * what the plan compared), so a field nobody touched is never written. Pure.
 *
 * @since 0.1.0
 */
import type * as Maintenance from "@signalman/core/api/Maintenance"
import * as PublicLocale from "@signalman/core/PublicLocale"
import type * as StatusPage from "@signalman/core/StatusPage"
import type * as Target from "@signalman/core/Target"
import type * as Variable from "@signalman/core/Variable"
import * as Schema from "effect/Schema"
import * as ConfigFile from "./ConfigFile.js"
import type * as Desired from "./Desired.js"
import type * as Plan from "./Plan.js"

/**
 * Ids of the file's channels and monitors by key: those that stay and those created so far.
 *
 * @since 0.1.0
 * @category models
 */
export interface Ids {
  readonly channel: (key: string) => string
  readonly monitor: (key: string) => string
}

/**
 * The top-level fields an update changes (`check.url` is a change of `check`).
 *
 * @since 0.1.0
 * @category requests
 */
export const changedFields = (fields: ReadonlyArray<Plan.FieldChange>): ReadonlySet<string> =>
  new Set(fields.map((f) => f.field.split(".")[0]!))

const pick = <A extends Record<string, unknown>>(changed: ReadonlySet<string>, values: A): { [K in keyof A]?: A[K] } =>
  Object.fromEntries(Object.entries(values).filter(([k, v]) => changed.has(k) && v !== undefined)) as {
    [K in keyof A]?: A[K]
  }

const encodeMonitor = Schema.encodeSync(ConfigFile.Monitor)

/**
 * `POST /targets` (or one item of the bulk create).
 *
 * @since 0.1.0
 * @category monitors
 */
export const createMonitor = (d: Desired.DesiredMonitor, ids: Ids): typeof Target.CreateTarget.Encoded => {
  const { key: _key, alerts, ...body } = encodeMonitor(d.item)
  return alerts === undefined ? body : { ...body, alerts: alerts.map((key) => ({ channel_id: ids.channel(key) })) }
}

/**
 * `PATCH /targets/{id}`: the changed fields (regions go through their own endpoint, {@link monitorRegions}).
 *
 * @since 0.1.0
 * @category monitors
 */
export const updateMonitor = (
  d: Desired.DesiredMonitor,
  fields: ReadonlyArray<Plan.FieldChange>,
  ids: Ids
): typeof Target.PatchTarget.Encoded => {
  const item = encodeMonitor(d.item)
  const r = d.resolved
  return pick(changedFields(fields), {
    name: r.name,
    check: item.check,
    interval: item.interval,
    enabled: r.enabled,
    tags: r.tags,
    group: r.group,
    alerts: (item.alerts ?? []).map((key) => ({ channel_id: ids.channel(key) })),
    alert_confirmations: r.alert_confirmations,
    notify_recovery: r.notify_recovery,
    renotify_interval_secs: r.renotify_interval_secs,
    recovery_period_secs: r.recovery_period_secs,
    region_policy: r.region_policy
  })
}

/**
 * `PUT /targets/{id}/regions`, when the update changes them.
 *
 * @since 0.1.0
 * @category monitors
 */
export const monitorRegions = (
  d: Desired.DesiredMonitor,
  fields: ReadonlyArray<Plan.FieldChange>
): ReadonlyArray<string> | undefined =>
  changedFields(fields).has("regions") && d.item.regions !== undefined ? d.item.regions : undefined

const encodeChannel = Schema.encodeSync(ConfigFile.NotificationChannel)

/**
 * `POST /channels`.
 *
 * @since 0.1.0
 * @category channels
 */
export const createChannel = (d: Desired.DesiredChannel) => {
  const { key: _key, ...body } = encodeChannel(d.item)
  return body
}

/**
 * `PATCH /channels/{id}`: the changed fields (a changed kind is a replace, never an update).
 *
 * @since 0.1.0
 * @category channels
 */
export const updateChannel = (d: Desired.DesiredChannel, fields: ReadonlyArray<Plan.FieldChange>) => {
  const item = encodeChannel(d.item)
  return pick(changedFields(fields), {
    name: item.name,
    enabled: item.enabled ?? true,
    config: item.config
  })
}

/**
 * `POST /variables`.
 *
 * @since 0.1.0
 * @category variables
 */
export const createVariable = (d: Desired.DesiredVariable): typeof Variable.CreateVariable.Encoded => ({
  key: d.item.key,
  is_secret: d.item.is_secret,
  value: d.item.value
})

const encodePage = Schema.encodeSync(ConfigFile.Page)

/**
 * `POST /status-pages` (its components are added one by one after, {@link components}).
 *
 * @since 0.1.0
 * @category status pages
 */
export const createPage = (d: Desired.DesiredPage): typeof StatusPage.CreateStatusPage.Encoded => {
  const { key: _key, components: _components, ...body } = encodePage(d.item)
  return body
}

/**
 * `PATCH /status-pages/{id}`: the changed fields of the page itself. A page whose file has no `access` is public.
 *
 * @since 0.1.0
 * @category status pages
 */
export const updatePage = (
  d: Desired.DesiredPage,
  fields: ReadonlyArray<Plan.FieldChange>
): typeof StatusPage.PatchStatusPage.Encoded => {
  const item = encodePage(d.item)
  return pick(changedFields(fields), {
    slug: item.slug,
    name: item.name,
    published: item.published ?? false,
    public_locale: item.public_locale ?? PublicLocale.defaultLocale,
    custom_domain: item.custom_domain ?? null,
    branding: d.branding,
    access: item.access ?? { protected: false }
  })
}

/**
 * A page's components as the file wants them, in order, with their monitors' ids.
 *
 * @since 0.1.0
 * @category status pages
 */
export const components = (
  d: Desired.DesiredPage,
  ids: Ids
): ReadonlyArray<{
  readonly target_id: string
  readonly public_name: string | null
  readonly public_description: string | null
  readonly public_group: string | null
}> =>
  d.item.components.map((c) => ({
    target_id: ids.monitor(c.monitor),
    public_name: c.public_name ?? null,
    public_description: c.public_description ?? null,
    public_group: c.public_group ?? null
  }))

const encodeWindow = Schema.encodeSync(ConfigFile.MaintenanceWindow)

/**
 * `POST /maintenance`.
 *
 * @since 0.1.0
 * @category maintenance
 */
export const createWindow = (
  d: Desired.DesiredWindow,
  ids: Ids
): typeof Maintenance.CreateMaintenanceWindow.Encoded => {
  const { key: _key, components, ...body } = encodeWindow(d.item)
  return { ...body, components: (components ?? []).map(ids.monitor) }
}

/**
 * `PATCH /maintenance/{id}`: the changed fields.
 *
 * @since 0.1.0
 * @category maintenance
 */
export const updateWindow = (
  d: Desired.DesiredWindow,
  fields: ReadonlyArray<Plan.FieldChange>,
  ids: Ids
): typeof Maintenance.PatchMaintenanceWindow.Encoded => {
  const item = encodeWindow(d.item)
  return pick(changedFields(fields), {
    title: item.title,
    description: item.description ?? "",
    starts_at: item.starts_at,
    ends_at: item.ends_at,
    components: (item.components ?? []).map(ids.monitor),
    suppress_alerts: item.suppress_alerts ?? true
  })
}
