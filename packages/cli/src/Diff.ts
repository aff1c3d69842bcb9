/**
 * The diff: the desired state (a valid config) against what the service holds (`Current`), as a {@link Plan.Plan}.
 * Pure: no clock, no network; the same inputs give the same plan.
 *
 * Only resources managed by the file's project take part: one made in the UI, through the API or by another
 * project never appears. A resource is matched to its item by `managed_by.key`. Each side is seen as the service
 * would store it, so the comparison is fair: the file's omitted fields take the API's defaults (a field left out
 * that equals the default is not a change), except `interval` and `regions`, whose defaults depend on the plan and
 * the instance and which are compared only when the file names them. References are compared by id (a channel or
 * monitor that is replaced gets a new id, so whatever names it changes too) and shown by key. A secret is never
 * shown, and since the service never answers one, a secret's value is compared only as present or absent.
 *
 * @since 0.1.0
 */

import * as PublicLocale from "@signalman/core/PublicLocale"
import * as Target from "@signalman/core/Target"
import * as DateTime from "effect/DateTime"
import type * as Current from "./Current.js"
import type * as Desired from "./Desired.js"
import * as FieldChanges from "./internal/fieldChanges.js"
import * as Plan from "./Plan.js"

type View = FieldChanges.View

// What the service shows for a populated secret.
const REDACTED = Target.REDACTED

const secretize = (u: unknown): unknown => {
  if (u === REDACTED) return Plan.SECRET
  if (Array.isArray(u)) return u.map(secretize)
  if (typeof u === "object" && u !== null) {
    return Object.fromEntries(Object.entries(u).map(([k, v]) => [k, secretize(v)]))
  }
  return u
}

const sorted = (values: ReadonlyArray<string>): ReadonlyArray<string> => [...new Set(values)].sort()

type Managed = { readonly managed_by: { readonly project: string; readonly key: string } }

const mine = <C extends { readonly managed_by: { readonly project: string; readonly key: string } | null }>(
  project: string,
  resources: ReadonlyArray<C>
): ReadonlyArray<C & Managed> =>
  resources.filter((resource): resource is C & Managed => resource.managed_by?.project === project)

interface Matching<D, C> {
  /** Each item of the file with the resource it manages now, if any. */
  readonly pairs: ReadonlyArray<{ readonly desired: D; readonly current: C | undefined }>
  /** Managed resources no item claims: gone from the file, or a second resource under a key already matched. */
  readonly orphans: ReadonlyArray<C>
}

// The first resource under a key is the item's; any other under the same key is an orphan.
const match = <D extends { readonly key: string }, C>(
  desired: ReadonlyArray<D>,
  current: ReadonlyArray<C>,
  keyOf: (resource: C) => string
): Matching<D, C> => {
  const byKey = new Map<string, C>()
  const orphans: Array<C> = []
  for (const resource of current) {
    if (byKey.has(keyOf(resource))) orphans.push(resource)
    else byKey.set(keyOf(resource), resource)
  }
  const wanted = new Set(desired.map((d) => d.key))
  for (const [key, resource] of byKey) if (!wanted.has(key)) orphans.push(resource)
  return { pairs: desired.map((d) => ({ desired: d, current: byKey.get(d.key) })), orphans }
}

/**
 * How references read: a resource that stays is named by its key; one being replaced or deleted by its key and what
 * happens to it (its id is going away, so a reference to it is a change); one the project does not manage by id.
 */
interface References {
  readonly ids: ReadonlyMap<string, string>
  readonly token: (id: string) => string
}

const references = (
  kept: ReadonlyArray<readonly [key: string, id: string]>,
  replaced: ReadonlyArray<readonly [key: string, id: string]>,
  deleted: ReadonlyArray<readonly [key: string, id: string]>
): References => {
  const names = new Map<string, string>([
    ...kept.map(([key, id]) => [id.toLowerCase(), key] as const),
    ...replaced.map(([key, id]) => [id.toLowerCase(), `${key} (replaced)`] as const),
    ...deleted.map(([key, id]) => [id.toLowerCase(), `${key} (deleted)`] as const)
  ])
  return { ids: new Map(kept), token: (id) => names.get(id.toLowerCase()) ?? id }
}

// ---------------------------------------------------------------------------------------------------------------
// Views: each resource as plain JSON of one shape on both sides.

const variableView = (secret: boolean, value: string | null): View => ({
  is_secret: secret,
  value: secret ? Plan.SECRET : value
})

const channelView = (
  name: string,
  kind: string,
  enabled: boolean,
  config: Readonly<Record<string, unknown>>
): View => ({ name, kind, enabled, config: secretize(config) })

const desiredMonitorView = (d: Desired.DesiredMonitor): View => {
  const r = d.resolved
  return {
    name: r.name,
    check: secretize(Target.redact(r.check)),
    interval: d.item.interval,
    enabled: r.enabled,
    tags: sorted(r.tags),
    group: r.group,
    alerts: sorted(d.item.alerts ?? []),
    alert_confirmations: r.alert_confirmations,
    notify_recovery: r.notify_recovery,
    renotify_interval_secs: r.renotify_interval_secs,
    recovery_period_secs: r.recovery_period_secs,
    region_policy: r.region_policy,
    regions: d.item.regions === undefined ? undefined : sorted(r.regions)
  }
}

const currentMonitorView = (t: Current.ManagedTarget, d: Desired.DesiredMonitor, channels: References): View => ({
  name: t.name,
  check: secretize(t.check),
  interval: d.item.interval === undefined ? undefined : t.interval,
  enabled: t.enabled,
  tags: sorted(t.tags),
  group: t.group,
  alerts: sorted(t.alerts.map((a) => channels.token(a.channel_id))),
  alert_confirmations: t.alert_confirmations,
  notify_recovery: t.notify_recovery,
  renotify_interval_secs: t.renotify_interval_secs,
  recovery_period_secs: t.recovery_period_secs,
  region_policy: t.region_policy,
  regions: d.item.regions === undefined ? undefined : sorted(t.regions)
})

const desiredPageView = (d: Desired.DesiredPage): View => ({
  slug: d.item.slug,
  name: d.item.name,
  published: d.item.published ?? false,
  public_locale: d.item.public_locale ?? PublicLocale.defaultLocale,
  custom_domain: d.item.custom_domain ?? null,
  branding: d.branding,
  access: d.access === null ? null : d.access.access,
  components: d.item.components.map((c) => ({
    monitor: c.monitor,
    public_name: c.public_name ?? null,
    public_description: c.public_description ?? null,
    public_group: c.public_group ?? null
  }))
})

const currentPageView = (p: Current.ManagedPage, monitors: References): View => ({
  slug: p.page.slug,
  name: p.page.name,
  published: p.page.published,
  public_locale: p.page.public_locale,
  custom_domain: p.page.custom_domain,
  branding: p.page.branding,
  access: p.page.access,
  components: [...p.components]
    .sort((a, b) => a.sort_order - b.sort_order)
    .map((c) => ({
      monitor: monitors.token(c.target_id),
      public_name: c.public_name,
      public_description: c.public_description,
      public_group: c.public_group
    }))
})

const windowView = (
  w: {
    readonly title: string
    readonly description: string
    readonly starts_at: DateTime.Utc
    readonly ends_at: DateTime.Utc
    readonly suppress_alerts: boolean
  },
  components: ReadonlyArray<string>
): View => ({
  title: w.title,
  description: w.description,
  starts_at: DateTime.formatIso(w.starts_at),
  ends_at: DateTime.formatIso(w.ends_at),
  components: sorted(components),
  suppress_alerts: w.suppress_alerts
})

// ---------------------------------------------------------------------------------------------------------------
// Changes

interface Outcome {
  readonly changes: ReadonlyArray<Plan.Change>
  readonly unchanged: number
}

// How the service's resource is seen: its id, its view, and the field that forces a replace, if any.
interface Seen {
  readonly id: string
  readonly view: View
  readonly reason?: string | undefined
}

const outcome = <C>(
  write: Plan.Write,
  name: string,
  resource: C | undefined,
  see: (resource: C) => Seen,
  desired: View
): Outcome => {
  const key = write.desired.key
  if (resource === undefined) {
    return { changes: [{ ...write, action: "create", key, name, fields: FieldChanges.created(desired) }], unchanged: 0 }
  }
  const current = see(resource)
  const fields = FieldChanges.changed(current.view, desired)
  if (current.reason !== undefined) {
    // The field that forces the replacement leads, then what else changes.
    const ordered = [
      ...fields.filter((f) => f.field === current.reason),
      ...fields.filter((f) => f.field !== current.reason)
    ]
    return {
      changes: [{ ...write, action: "replace", key, id: current.id, name, reason: current.reason, fields: ordered }],
      unchanged: 0
    }
  }
  if (fields.length === 0) return { changes: [], unchanged: 1 }
  return { changes: [{ ...write, action: "update", key, id: current.id, name, fields }], unchanged: 0 }
}

const deletion = (type: Plan.ResourceType, key: string, id: string, name: string): Plan.Delete => ({
  action: "delete",
  type,
  key,
  id,
  name
})

const keyOf = (resource: { readonly managed_by: { readonly key: string } }) => resource.managed_by.key

/**
 * The plan that brings the service to the desired state.
 *
 * @since 0.1.0
 * @category diffing
 */
export const diff = (desired: Desired.Desired, current: Current.Current): Plan.Plan => {
  const project = desired.project

  const variables = match(desired.variables, mine(project, current.variables), keyOf)
  const channels = match(desired.channels, mine(project, current.channels), keyOf)
  const monitors = match(desired.monitors, mine(project, current.targets), keyOf)
  const pages = match(
    desired.status_pages,
    mine(
      project,
      current.status_pages.map((p) => ({ ...p, managed_by: p.page.managed_by }))
    ),
    keyOf
  )
  // A cancelled window is history: it is not the file's window any more (the file's item is created again) and
  // cannot be deleted. An ended one is matched (the file may still list it) but never deleted: it cannot be.
  const windows = match(
    desired.maintenance,
    mine(project, current.maintenance).filter((w) => w.status !== "cancelled"),
    keyOf
  )

  const channelReason = (pair: (typeof channels.pairs)[number]) =>
    pair.current !== undefined && pair.current.kind !== pair.desired.item.kind ? "kind" : undefined
  const monitorReason = (pair: (typeof monitors.pairs)[number]) =>
    pair.current !== undefined && pair.current.check["type"] !== pair.desired.resolved.check.type
      ? "check.type"
      : undefined
  const variableReason = (pair: (typeof variables.pairs)[number]) =>
    pair.current !== undefined && pair.current.is_secret !== pair.desired.item.is_secret ? "is_secret" : undefined

  const referencesOf = <D extends { readonly key: string }, C extends { readonly id: string } & Managed>(
    matching: Matching<D, C>,
    reason: (pair: { readonly desired: D; readonly current: C | undefined }) => string | undefined
  ) => {
    const withId = (pair: { readonly desired: D; readonly current: C | undefined }) =>
      pair.current === undefined ? [] : [[pair.desired.key, pair.current.id] as const]
    return references(
      matching.pairs.filter((pair) => reason(pair) === undefined).flatMap(withId),
      matching.pairs.filter((pair) => reason(pair) !== undefined).flatMap(withId),
      matching.orphans.map((orphan) => [orphan.managed_by.key, orphan.id] as const)
    )
  }
  const channelRefs = referencesOf(channels, channelReason)
  const monitorRefs = referencesOf(monitors, monitorReason)

  const outcomes: Array<Outcome> = [
    ...variables.pairs.map((pair) =>
      outcome(
        { type: "variable", desired: pair.desired },
        pair.desired.key,
        pair.current,
        (v) => ({ id: v.id, view: variableView(v.is_secret, v.value), reason: variableReason(pair) }),
        variableView(pair.desired.item.is_secret, pair.desired.item.value)
      )
    ),
    ...channels.pairs.map((pair) => {
      const d = pair.desired
      // A webhook config without `secret` keeps the stored signing secret (`Channel.split`): not a change.
      const kept = (config: Readonly<Record<string, unknown>>) =>
        d.item.kind === "webhook" && !("secret" in d.shown)
          ? Object.fromEntries(Object.entries(config).filter(([k]) => k !== "secret"))
          : config
      return outcome(
        { type: "channel", desired: d },
        d.item.name,
        pair.current,
        (c) => ({
          id: c.id,
          view: channelView(c.name, c.kind, c.enabled, kept(c.config)),
          reason: channelReason(pair)
        }),
        channelView(d.item.name, d.item.kind, d.item.enabled ?? true, d.shown)
      )
    }),
    ...monitors.pairs.map((pair) =>
      outcome(
        { type: "monitor", desired: pair.desired },
        pair.desired.item.name,
        pair.current,
        (t) => ({ id: t.id, view: currentMonitorView(t, pair.desired, channelRefs), reason: monitorReason(pair) }),
        desiredMonitorView(pair.desired)
      )
    ),
    ...pages.pairs.map((pair) =>
      outcome(
        { type: "status_page", desired: pair.desired },
        pair.desired.item.name,
        pair.current,
        (p) => ({ id: p.page.id, view: currentPageView(p, monitorRefs) }),
        desiredPageView(pair.desired)
      )
    ),
    ...windows.pairs.map((pair) =>
      outcome(
        { type: "maintenance", desired: pair.desired },
        pair.desired.item.title,
        pair.current,
        (w) => ({ id: w.id, view: windowView(w, w.components.map(monitorRefs.token)) }),
        windowView(pair.desired.item, pair.desired.item.components)
      )
    )
  ]

  // Deletes last, dependents first: a window or page before the monitors it shows, a monitor before the channels
  // and variables it uses (by then every kept monitor no longer names them).
  const deletes: ReadonlyArray<Plan.Delete> = [
    ...windows.orphans
      .filter((w) => w.status === "upcoming" || w.status === "running")
      .map((w) => deletion("maintenance", w.managed_by.key, w.id, w.title)),
    ...pages.orphans.map((p) => deletion("status_page", p.managed_by.key, p.page.id, p.page.name)),
    ...monitors.orphans.map((t) => deletion("monitor", t.managed_by.key, t.id, t.name)),
    ...channels.orphans.map((c) => deletion("channel", c.managed_by.key, c.id, c.name)),
    ...variables.orphans.map((v) => deletion("variable", v.managed_by.key, v.id, v.key))
  ]

  return {
    project,
    changes: [...outcomes.flatMap((o) => o.changes), ...deletes],
    unchanged: outcomes.reduce((n, o) => n + o.unchanged, 0),
    ids: { channels: channelRefs.ids, monitors: monitorRefs.ids }
  }
}
