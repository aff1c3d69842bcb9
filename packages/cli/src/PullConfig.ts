/**
 * What `signalman pull` writes: the org's resources as a config file, pure. Each item gets a key derived from its
 * name (lower case, `a-z 0-9 - _`, unique in its list; a resource the project already manages keeps its key), and
 * references go by key. A secret is never written: every value the service shows as `***` becomes a
 * `${env:NAME}` placeholder (a secret variable's value too), and the names are listed so the user can set them.
 * A webhook's signing secret is left out (the service keeps the stored one). Resources another project manages are
 * left to it, and a reference to one of them is dropped and said. Maintenance that ended or was cancelled is
 * history and is not pulled. Every field is written as the service stores it, so the pulled file, applied by its
 * project, plans no change.
 *
 * @since 0.1.0
 */
import * as ManagedBy from "@signalman/core/ManagedBy"
import * as DateTime from "effect/DateTime"
import type * as Current from "./Current.js"
import type * as Plan from "./Plan.js"

const REDACTED = "***"
const MAX_KEY = 63

/**
 * A key from a name: lower case, accents dropped, every run of other characters one `-`, starting with a letter or
 * digit, at most 63 characters; `fallback` when nothing is left.
 *
 * @since 0.1.0
 * @category keys
 */
export const slug = (name: string, fallback: string): string => {
  const base = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, "-")
    .replace(/^[-_]+/, "")
    .slice(0, MAX_KEY)
    .replace(/[-_]+$/, "")
  return base === "" ? fallback : base
}

/**
 * Keys for a list, in its order: each entry's `keep` when it has one (a key the project already uses) and it is
 * free, else its name's {@link slug}, made unique with `-2`, `-3`, ... (shortened to fit).
 *
 * @since 0.1.0
 * @category keys
 */
export const keys = (
  entries: ReadonlyArray<{ readonly name: string; readonly keep?: string | undefined }>,
  fallback: string
): ReadonlyArray<string> => {
  const taken = new Set<string>()
  const kept = entries.map((entry) => {
    if (entry.keep === undefined || taken.has(entry.keep) || !ManagedBy.KEY_PATTERN.test(entry.keep)) return undefined
    taken.add(entry.keep)
    return entry.keep
  })
  return entries.map((entry, i) => {
    const own = kept[i]
    if (own !== undefined) return own
    const base = slug(entry.name, fallback)
    let key = base
    // Bounded: each turn tries a new suffix and at most `entries.length` keys are taken.
    for (let n = 2; taken.has(key); n++) {
      const suffix = `-${n}`
      key = `${base.slice(0, MAX_KEY - suffix.length).replace(/[-_]+$/, "")}${suffix}`
    }
    taken.add(key)
    return key
  })
}

/**
 * An environment variable's name for a secret: upper case, `A-Z 0-9 _`.
 *
 * @since 0.1.0
 * @category secrets
 */
export const envName = (...parts: ReadonlyArray<string | number>): string =>
  parts
    .map((part) => String(part))
    .join("_")
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")

/**
 * The org's resources, as the lists answer them (unfiltered), and each page's components.
 *
 * @since 0.1.0
 * @category models
 */
export type Org = Current.Current

/**
 * A pulled resource and its key, for adopting it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Pulled {
  readonly type: Plan.ResourceType
  readonly id: string
  readonly key: string
}

/**
 * The file's content, what was pulled, the environment variables its secrets read, and what was left out and why.
 *
 * @since 0.1.0
 * @category models
 */
export interface Result {
  readonly config: Record<string, unknown>
  readonly pulled: ReadonlyArray<Pulled>
  readonly env: ReadonlyArray<string>
  readonly notes: ReadonlyArray<string>
}

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The org's resources as a config for `project`.
 *
 * @since 0.1.0
 * @category pulling
 */
export const build = (project: string, org: Org): Result => {
  const env: Array<string> = []
  const notes: Array<string> = []
  const pulled: Array<Pulled> = []
  const ours = <R extends { readonly managed_by: ManagedBy.ManagedBy | null }>(r: R) =>
    r.managed_by === null || r.managed_by.project === project
  const keep = (r: { readonly managed_by: ManagedBy.ManagedBy | null }) => r.managed_by?.key

  // Every `***` under `value` becomes a placeholder named after where it sits.
  const unredact = (value: unknown, path: ReadonlyArray<string | number>): unknown => {
    if (value === REDACTED) {
      const name = envName(...path)
      env.push(name)
      return `\${env:${name}}`
    }
    if (Array.isArray(value)) return value.map((v, i) => unredact(v, [...path, i]))
    if (isRecord(value))
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unredact(v, [...path, k])]))
    return value
  }

  const variables = org.variables.filter(ours).map((v) => {
    pulled.push({ type: "variable", id: v.id, key: v.key })
    if (!v.is_secret) return { key: v.key, value: v.value ?? "" }
    env.push(envName(v.key))
    return { key: v.key, is_secret: true, value: `\${env:${envName(v.key)}}` }
  })

  const channelList = org.channels.filter(ours)
  const channelKeys = keys(
    channelList.map((c) => ({ name: c.name, keep: keep(c) })),
    "channel"
  )
  const channelKey = new Map(channelList.map((c, i) => [c.id.toLowerCase(), channelKeys[i]!] as const))
  const channels = channelList.map((c, i) => {
    const key = channelKeys[i]!
    pulled.push({ type: "channel", id: c.id, key })
    const config = Object.fromEntries(
      Object.entries(c.config).filter(
        ([field, value]) => !(c.kind === "webhook" && field === "secret" && value === REDACTED)
      )
    )
    return {
      key,
      name: c.name,
      kind: c.kind,
      config: unredact(config, ["channel", key]),
      ...(c.enabled ? {} : { enabled: false })
    }
  })

  const targetList = org.targets.filter(ours)
  const targetKeys = keys(
    targetList.map((t) => ({ name: t.name, keep: keep(t) })),
    "monitor"
  )
  const monitorKey = new Map(targetList.map((t, i) => [t.id.toLowerCase(), targetKeys[i]!] as const))
  const monitors = targetList.map((t, i) => {
    const key = targetKeys[i]!
    pulled.push({ type: "monitor", id: t.id, key })
    const alerts = t.alerts.flatMap((a) => {
      const found = channelKey.get(a.channel_id.toLowerCase())
      if (found === undefined) notes.push(`monitor ${key}: alert channel ${a.channel_id} belongs to another project`)
      return found === undefined ? [] : [found]
    })
    return {
      key,
      name: t.name,
      check: unredact(t.check, ["monitor", key]),
      interval: t.interval,
      ...(t.enabled ? {} : { enabled: false }),
      ...(t.tags.length === 0 ? {} : { tags: t.tags }),
      ...(t.group === null ? {} : { group: t.group }),
      ...(alerts.length === 0 ? {} : { alerts }),
      alert_confirmations: t.alert_confirmations,
      notify_recovery: t.notify_recovery,
      renotify_interval_secs: t.renotify_interval_secs,
      recovery_period_secs: t.recovery_period_secs,
      region_policy: t.region_policy,
      regions: t.regions
    }
  })

  const monitorsOf = (ids: ReadonlyArray<string>, where: string) =>
    ids.flatMap((id) => {
      const found = monitorKey.get(id.toLowerCase())
      if (found === undefined) notes.push(`${where}: monitor ${id} belongs to another project`)
      return found === undefined ? [] : [found]
    })

  const pageList = org.status_pages.filter((p) => ours(p.page))
  const pageKeys = keys(
    pageList.map((p) => ({ name: p.page.slug, keep: keep(p.page) })),
    "page"
  )
  const status_pages = pageList.map(({ page, components }, i) => {
    const key = pageKeys[i]!
    pulled.push({ type: "status_page", id: page.id, key })
    const access: Json | undefined =
      page.access === null
        ? undefined
        : {
            protected: page.access.protected,
            email_code: { enabled: page.access.email_code.enabled, allow: page.access.email_code.allow },
            session_days: page.access.session_days,
            recheck_days: page.access.recheck_days,
            password: page.access.password.enabled
              ? { enabled: true, value: String(unredact(REDACTED, ["page", key, "password"])) }
              : { enabled: false }
          }
    return {
      key,
      slug: page.slug,
      name: page.name,
      published: page.published,
      public_locale: page.public_locale,
      ...(page.custom_domain === null ? {} : { custom_domain: page.custom_domain }),
      branding: page.branding,
      ...(access === undefined ? {} : { access }),
      components: [...components]
        .sort((a, b) => a.sort_order - b.sort_order)
        .flatMap((c) =>
          monitorsOf([c.target_id], `status page ${key}`).map((monitor) => ({
            monitor,
            ...(c.public_name === null ? {} : { public_name: c.public_name }),
            ...(c.public_description === null ? {} : { public_description: c.public_description }),
            ...(c.public_group === null ? {} : { public_group: c.public_group })
          }))
        )
    }
  })

  const windowList = org.maintenance.filter((w) => ours(w) && (w.status === "upcoming" || w.status === "running"))
  const windowKeys = keys(
    windowList.map((w) => ({ name: w.title, keep: keep(w) })),
    "window"
  )
  const maintenance = windowList.map((w, i) => {
    const key = windowKeys[i]!
    pulled.push({ type: "maintenance", id: w.id, key })
    return {
      key,
      title: w.title,
      ...(w.description === "" ? {} : { description: w.description }),
      starts_at: DateTime.formatIso(w.starts_at),
      ends_at: DateTime.formatIso(w.ends_at),
      components: monitorsOf(w.components, `maintenance ${key}`),
      suppress_alerts: w.suppress_alerts
    }
  })

  const config: Record<string, unknown> = { project }
  if (variables.length > 0) config["variables"] = variables
  if (channels.length > 0) config["channels"] = channels
  if (monitors.length > 0) config["monitors"] = monitors
  if (status_pages.length > 0) config["status_pages"] = status_pages
  if (maintenance.length > 0) config["maintenance"] = maintenance
  return { config, pulled, env: [...new Set(env)], notes }
}
