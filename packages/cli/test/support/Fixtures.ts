/**
 * Configs and service states for the diff's tests. `desired` validates a config written as the file would be;
 * `stored` answers what the service holds after that config was applied, built the way the service stores a write
 * (core's `resolveCreate`, `redact` and `Channel.split`, a generated webhook secret, the defaults of the instance),
 * decoded from JSON as the API answers it.
 */
import type { HttpCheck } from "@signalman/core/CheckSpec"
import * as Target from "@signalman/core/Target"
import * as DateTime from "effect/DateTime"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Current from "../../src/Current.js"
import type * as Desired from "../../src/Desired.js"
import * as KeyPath from "../../src/KeyPath.js"
import * as Validation from "../../src/Validation.js"

export const desired = (config: Record<string, unknown>, env: Record<string, string> = {}): Desired.Desired => {
  const validated = Validation.validate(config, env)
  if (Either.isLeft(validated)) {
    throw new Error(validated.left.map((p) => `${KeyPath.format(p.path)}: ${p.message}`).join("\n"))
  }
  return validated.right
}

/** An http check as the service stores and answers it: every default of the kind written out. */
export const storedHttpCheck = (url: string): HttpCheck => ({
  type: "http",
  url,
  method: "GET",
  headers: {},
  expected_status: "2xx",
  follow_redirects: true,
  verify_tls: true,
  basic_auth: null,
  bearer_token: null,
  timeout: 10,
  ip_version: "any"
})

export const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString().padStart(12, "0")}`

const at = "2026-01-01T00:00:00.000Z"

export type Json = Record<string, unknown>

export interface State {
  variables: Array<Json>
  channels: Array<Json>
  targets: Array<Json>
  status_pages: Array<{ page: Json; components: Array<Json> }>
  maintenance: Array<Json>
}

export const empty = (): State => ({ variables: [], channels: [], targets: [], status_pages: [], maintenance: [] })

export const decode = (state: State): Current.Current => Schema.decodeUnknownSync(Current.Current)(state)

export interface StoreOptions {
  /** The interval a monitor created without one gets (the plan's default). */
  readonly interval?: number
  /** The instance's default regions. */
  readonly regions?: ReadonlyArray<string>
  /** The status of each window, by key (default upcoming). */
  readonly windowStatus?: Readonly<Record<string, "upcoming" | "running" | "completed" | "cancelled">>
  /** Where ids start. */
  readonly firstId?: number
}

/** The service's state after `config` was applied by its project: every resource stamped with its key. */
export const stored = (config: Desired.Desired, options: StoreOptions = {}): State => {
  let next = options.firstId ?? 1
  const id = () => uuid(next++)
  const managed = (key: string) => ({ project: config.project, key })
  const state = empty()
  for (const v of config.variables) {
    state.variables.push({
      id: id(),
      key: v.item.key,
      is_secret: v.item.is_secret,
      value: v.item.is_secret ? null : v.item.value,
      used_by: 0,
      managed_by: managed(v.key)
    })
  }
  const channelIds = new Map<string, string>()
  for (const c of config.channels) {
    const channelId = id()
    channelIds.set(c.key, channelId)
    // A webhook created without a signing secret gets one.
    const config = c.item.kind === "webhook" && !("secret" in c.shown) ? { ...c.shown, secret: "***" } : c.shown
    state.channels.push({
      id: channelId,
      name: c.item.name,
      kind: c.item.kind,
      config,
      enabled: c.item.enabled ?? true,
      write_source: "iac",
      created_at: at,
      updated_at: at,
      managed_by: managed(c.key)
    })
  }
  const monitorIds = new Map<string, string>()
  for (const m of config.monitors) {
    const monitorId = id()
    monitorIds.set(m.key, monitorId)
    const r = m.resolved
    const localOnly = r.check.type === "heartbeat" || r.check.type === "manual"
    state.targets.push({
      id: monitorId,
      org_id: uuid(999),
      created_at: at,
      updated_at: at,
      write_source: "iac",
      name: r.name,
      check: Target.redact(r.check),
      interval: m.item.interval ?? (localOnly ? r.interval : (options.interval ?? r.interval)),
      enabled: r.enabled,
      tags: r.tags,
      group: r.group,
      alerts: (m.item.alerts ?? []).map((key) => ({ channel_id: channelIds.get(key) })),
      alert_confirmations: r.alert_confirmations,
      notify_recovery: r.notify_recovery,
      renotify_interval_secs: r.renotify_interval_secs,
      recovery_period_secs: r.recovery_period_secs,
      region_policy: r.region_policy,
      regions: m.item.regions ?? (localOnly ? ["local"] : (options.regions ?? ["local"])),
      advisories: [],
      managed_by: managed(m.key)
    })
  }
  for (const p of config.status_pages) {
    state.status_pages.push({
      page: {
        id: id(),
        slug: p.item.slug,
        name: p.item.name,
        published: p.item.published ?? false,
        public_locale: p.item.public_locale ?? "en",
        custom_domain: p.item.custom_domain ?? null,
        branding: p.branding,
        access: p.access === null ? null : p.access.access,
        live_url: `https://status.example/p/${p.item.slug}`,
        logo_url: null,
        write_source: "iac",
        created_at: at,
        updated_at: at,
        managed_by: managed(p.key)
      },
      components: p.item.components.map((c, i) => ({
        target_id: monitorIds.get(c.monitor),
        public_name: c.public_name ?? null,
        public_description: c.public_description ?? null,
        public_group: c.public_group ?? null,
        sort_order: i
      }))
    })
  }
  for (const w of config.maintenance) {
    const status = options.windowStatus?.[w.key] ?? "upcoming"
    state.maintenance.push({
      id: id(),
      title: w.item.title,
      description: w.item.description,
      starts_at: DateTime.formatIso(w.item.starts_at),
      ends_at: DateTime.formatIso(w.item.ends_at),
      components: [...new Set(w.item.components.map((key) => monitorIds.get(key)))],
      suppress_alerts: w.item.suppress_alerts,
      status,
      deleted_at: status === "cancelled" ? at : null,
      deleted_by: status === "cancelled" ? "someone" : null,
      write_source: "iac",
      created_by: null,
      created_at: at,
      updated_at: at,
      updates: [],
      managed_by: managed(w.key)
    })
  }
  return state
}
