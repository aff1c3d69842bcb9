/**
 * A status page's public data, assembled once and reused: every public answer (JSON, HTML, feed, badge) is read
 * from the page's snapshot, rebuilt at most once per `status_page.cache_secs` (10 s by default, the public
 * answers' max-age), however many requests arrive. The rendered bytes of each answer are kept beside it, so a
 * busy page is rendered once per window, not once per request. Concurrent requests for a page whose snapshot is
 * being built wait for that one build.
 *
 * Pages are found by slug (`?page=`, `/p/<slug>`) or by the Host header matching a page's custom domain; only
 * published pages are found. Lookups are cached for the same window, misses included.
 */
import * as ApiError from "@signalman/core/ApiError"
import type { AccountId, OrgId } from "@signalman/core/Identity"
import * as PublicLocale from "@signalman/core/PublicLocale"
import * as PublicStatus from "@signalman/core/PublicStatus"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { AppConfig } from "../config/Config.js"
import { Readings } from "../engine/Readings.js"
import { Invalidation } from "../infra/Invalidation.js"
import { Plans } from "../limits/Plans.js"
import { Maintenance } from "../maintenance/Maintenance.js"
import * as PageChanges from "../statuspages/PageChanges.js"
import type { Encoded } from "./PublicBytes.js"
import { type IncidentRow, type PageRow, PublicPagesRepo } from "./Repo.js"
import * as WindowCache from "./WindowCache.js"

const DAY = 86_400_000
const UPTIME_DAYS = 90
const RECENT_INCIDENT_DAYS = 7
const RECENT_MAINTENANCE_DAYS = 30
const PAST_MAINTENANCE_DAYS = 90
const UPCOMING_DAYS = 30

export const notFound = ApiError.make("NOT_FOUND", "No such status page")

const Branding = Schema.Struct({
  primary_color: Schema.optional(Schema.Unknown),
  theme: Schema.optional(Schema.Unknown),
  hide_powered_by: Schema.optional(Schema.Unknown)
})

/** A published page as the public surface needs it. */
export interface Page {
  readonly id: string
  readonly orgId: OrgId
  readonly accountId: AccountId
  readonly slug: string
  readonly customDomain: string | null
  readonly isProtected: boolean
  readonly row: PageRow
  /** The invalidation epoch when the lookup that made it began (see `snapshot`). */
  readonly epoch: number
}

/** Everything public about a page at one moment. */
export interface Snapshot {
  readonly page: Page
  readonly status: PublicStatus.PublicStatus
  /** Every incident touching the page in the last 365 days, newest first. */
  readonly incidents: ReadonlyArray<PublicStatus.PublicIncident>
  readonly updates: ReadonlyMap<string, ReadonlyArray<PublicStatus.PublicIncidentUpdate>>
  /** 365 day bars per component, oldest first. */
  readonly bars: ReadonlyMap<string, ReadonlyArray<PublicStatus.DayBar>>
  readonly upcoming: ReadonlyArray<PublicStatus.PublicMaintenance>
  /** Windows that ended in the last 90 days, newest first. */
  readonly pastMaintenance: ReadonlyArray<PublicStatus.PublicMaintenance>
  readonly generatedAt: number
  /** Encoded answers of this snapshot (HTML, JSON, feed, badges), by a key of the renderer's choosing. */
  readonly renders: Map<string, Encoded>
}

const themeOf = (value: unknown): "light" | "dark" | "auto" =>
  value === "light" || value === "dark" || value === "auto" ? value : "auto"

const isLocale = Schema.is(PublicLocale.PublicLocale)

const localeOf = (value: string): PublicLocale.PublicLocale => (isLocale(value) ? value : PublicLocale.defaultLocale)

const isProtected = (access: unknown): boolean =>
  typeof access === "object" && access !== null && "protected" in access && access.protected === true

/** The host of a Host header, lower case, without its port. */
export const hostOf = (header: string | undefined): string | undefined => {
  if (header === undefined) return undefined
  const host = header.trim().toLowerCase()
  if (host.startsWith("[")) return host.slice(0, host.indexOf("]") + 1)
  const colon = host.indexOf(":")
  return colon === -1 ? host : host.slice(0, colon)
}

export class PublicSnapshot extends Effect.Service<PublicSnapshot>()("Signalman/PublicSnapshot", {
  effect: Effect.gen(function* () {
    const repo = yield* PublicPagesRepo
    const invalidation = yield* Invalidation
    const maintenance = yield* Maintenance
    const readings = yield* Readings
    const plans = yield* Plans
    const config = yield* AppConfig
    const ttl = config["status_page.cache_secs"] * 1000
    const baseHost = hostOf(
      config["auth.public_base_url"] === undefined ? undefined : new URL(config["auth.public_base_url"]).host
    )

    const lookups = yield* WindowCache.make<Page | undefined>(ttl)
    const snapshots = yield* WindowCache.make<Snapshot>(ttl)
    // Bumped by every invalidation of a page. A request can hold a `Page` read before an owner's change and ask for
    // its snapshot after the change dropped the cached one: built from that old page, the snapshot would be cached
    // and served with the old name or branding for a whole window. Such a page's snapshot is built for its request
    // only.
    let epoch = 0
    // Lookups are all dropped, not just the page's: a changed slug or domain also makes the negative entries of the
    // new ones stale, and rebuilding a lookup is one indexed query.
    invalidation.subscribe((tag) => {
      if (tag === "*") {
        epoch++
        lookups.clear()
        snapshots.clear()
        return
      }
      const pageId = PageChanges.pageOf(tag)
      if (pageId !== undefined) {
        epoch++
        lookups.clear()
        if (pageId === "*") snapshots.clear()
        else snapshots.drop(pageId)
      }
    })

    const toPage = (row: PageRow, lookupEpoch: number): Page => ({
      id: row.id,
      orgId: row.org_id,
      accountId: row.account_id,
      slug: row.slug,
      customDomain: row.custom_domain,
      isProtected: isProtected(row.access),
      row,
      epoch: lookupEpoch
    })

    const findPage = (lookup: Effect.Effect<PageRow | undefined>) =>
      Effect.suspend(() => {
        const lookupEpoch = epoch
        return Effect.map(lookup, (row) => (row === undefined ? undefined : toPage(row, lookupEpoch)))
      })

    /** A published page by slug, any case. */
    const bySlug = (slug: string) =>
      lookups.get(`slug:${slug.toLowerCase()}`, findPage(repo.bySlug(slug.toLowerCase())))

    /** The published page whose custom domain is `host`, unless `host` is the service's own. */
    const byHost = (host: string | undefined) =>
      host === undefined || host === "" || host === baseHost
        ? Effect.succeed(undefined)
        : lookups.get(`host:${host}`, findPage(repo.byDomain(host)))

    /** The page `/status` serves: the configured slug, else the only published page of the instance. */
    const defaultPage = Effect.suspend(() => {
      const slug = config["status_page.default_slug"]
      if (slug !== undefined) return bySlug(slug)
      return lookups.get(
        "default",
        repo.publishedSlugs.pipe(
          Effect.flatMap((rows) =>
            rows.length === 1 && rows[0] !== undefined ? bySlug(rows[0].slug) : Effect.succeed(undefined)
          )
        )
      )
    })

    const publicIncident = (row: IncidentRow): PublicStatus.PublicIncident => ({
      id: row.id,
      title: row.public_title,
      description: row.public_description,
      impact: row.impact,
      severity: row.severity,
      status: row.ended_at === null ? "open" : "resolved",
      started_at: row.started_at,
      ended_at: row.ended_at,
      components: row.components
    })

    const build = (page: Page): Effect.Effect<Snapshot> =>
      Effect.gen(function* () {
        const nowMs = Date.now()
        const now = new Date(nowMs)
        const plan = yield* plans.forAccount(page.accountId)
        const components = yield* repo.components(page.id, page.orgId)
        const ids = components.map((c) => c.target_id)
        const since = new Date(nowMs - 365 * DAY)
        const incidentRows = yield* repo.incidents(page.orgId, ids, since)
        const updateRows = yield* repo.updates(incidentRows.map((row) => row.id))
        const updates = new Map<string, Array<PublicStatus.PublicIncidentUpdate>>()
        for (const u of updateRows) {
          const list = updates.get(u.incident_id) ?? []
          list.push({ id: u.id, phase: u.phase, message: u.message, created_at: u.created_at })
          updates.set(u.incident_id, list)
        }
        const windows = yield* maintenance.forTargets(ids, { from: DateTime.unsafeFromDate(since) })
        const rollups = yield* repo.rollups(ids, new Date(Math.floor(nowMs / DAY) * DAY - 364 * DAY))

        const idSet = new Set(ids)
        const publicWindow = (w: (typeof windows)[number]): PublicStatus.PublicMaintenance => ({
          id: w.id,
          title: w.title,
          description: w.description,
          status: w.status === "running" ? "running" : w.status === "upcoming" ? "upcoming" : "completed",
          starts_at: w.starts_at,
          ends_at: w.ends_at,
          components: w.components.filter((id) => idSet.has(id)),
          updates: w.updates.map((u) => ({ id: u.id, message: u.message, status: u.status, created_at: u.created_at }))
        })
        const live = windows.filter((w) => w.status !== "cancelled")
        const active = live.filter((w) => w.status === "running").map(publicWindow)
        const upcoming = live
          .filter((w) => w.status === "upcoming" && DateTime.toEpochMillis(w.starts_at) < nowMs + UPCOMING_DAYS * DAY)
          .map(publicWindow)
        const completed = live
          .filter((w) => w.status === "completed")
          .sort((a, b) => DateTime.toEpochMillis(b.ends_at) - DateTime.toEpochMillis(a.ends_at))
        const recent = completed
          .filter((w) => DateTime.toEpochMillis(w.starts_at) >= nowMs - RECENT_MAINTENANCE_DAYS * DAY)
          .sort((a, b) => DateTime.toEpochMillis(b.starts_at) - DateTime.toEpochMillis(a.starts_at))
          .map(publicWindow)
        const past = completed
          .filter((w) => DateTime.toEpochMillis(w.ends_at) >= nowMs - PAST_MAINTENANCE_DAYS * DAY)
          .map(publicWindow)

        // Uptime over 90 days through the engine's own reading (maintenance and recovered stretches left out).
        const from = new Date(Math.max(nowMs - UPTIME_DAYS * DAY, nowMs - plan.quotas.retention_days * DAY))
        const rawFrom = new Date(nowMs - plan.quotas.raw_days * DAY)
        const uptimes = yield* Effect.forEach(
          ids,
          (id) => Effect.map(readings.uptime(id, { from, to: now, region: undefined }, rawFrom), (u) => u.uptime_pct),
          { concurrency: 4 }
        )

        const byDay = new Map<string, Map<string, { up_secs: number; down_secs: number }>>()
        for (const r of rollups) {
          const days = byDay.get(r.target_id) ?? new Map()
          days.set(r.day, { up_secs: r.up_secs, down_secs: r.down_secs })
          byDay.set(r.target_id, days)
        }
        const span = (from: DateTime.Utc, until: DateTime.Utc | null) => ({
          from: DateTime.toEpochMillis(from),
          until: until === null ? null : DateTime.toEpochMillis(until)
        })
        const bars = new Map<string, ReadonlyArray<PublicStatus.DayBar>>()
        const publicComponents = components.map((c, i): PublicStatus.PublicComponent => {
          const touching = incidentRows.filter((row) => row.components.includes(c.target_id))
          bars.set(
            c.target_id,
            PublicStatus.dayBars({
              days: PublicStatus.MAX_HISTORY_DAYS,
              now: nowMs,
              rollups: byDay.get(c.target_id) ?? new Map(),
              incidents: touching.map((row) => ({
                ...span(row.started_at, row.ended_at),
                impact: row.impact
              })),
              maintenance: live
                .filter((w) => w.components.some((id) => id === c.target_id))
                .map((w) => span(w.starts_at, w.ends_at))
            })
          )
          return {
            id: c.target_id,
            name: c.public_name ?? c.name,
            description: c.public_description,
            group: c.public_group,
            status: PublicStatus.componentStatus({
              openImpacts: touching
                .filter((row) => row.ended_at === null && row.recovering_since === null)
                .map((row) => row.impact),
              inMaintenance: active.some((w) => w.components.includes(c.target_id)),
              latest: c.latest
            }),
            uptime_pct: uptimes[i] ?? null
          }
        })

        const incidents = incidentRows.map(publicIncident)
        const branding = Schema.decodeUnknownOption(Branding)(page.row.branding)
        const brand = branding._tag === "Some" ? branding.value : {}
        const status: PublicStatus.PublicStatus = {
          page: {
            id: page.id,
            slug: page.slug,
            name: page.row.name,
            locale: localeOf(page.row.public_locale),
            logo_url: page.row.logo_sha256 === null ? null : `/api/public/v1/logos/${page.id}/${page.row.logo_sha256}`,
            primary_color: PublicStatus.safeColor(brand.primary_color),
            theme: themeOf(brand.theme),
            powered_by: !(plan.flags.white_label_enabled && brand.hide_powered_by === true)
          },
          status: PublicStatus.overallStatus(publicComponents.map((c) => c.status)),
          components: publicComponents,
          incidents: incidents.filter(
            (i) => i.ended_at === null || DateTime.toEpochMillis(i.ended_at) >= nowMs - RECENT_INCIDENT_DAYS * DAY
          ),
          active_maintenance: active,
          upcoming_maintenance: upcoming,
          recent_maintenance: recent,
          generated_at: DateTime.unsafeFromDate(now)
        }
        return {
          page,
          status,
          incidents,
          updates,
          bars,
          upcoming,
          pastMaintenance: past,
          generatedAt: nowMs,
          renders: new Map()
        }
      })

    /** The page's snapshot, built at most once per window (a page read before the latest change: for itself). */
    const snapshot = (page: Page) =>
      Effect.suspend(() => (page.epoch === epoch ? snapshots.get(page.id, build(page)) : build(page)))

    /**
     * What is settled in memory right now, for the listener's fast path: the published page of a slug, whether a
     * host is some page's custom domain, a page's snapshot. Undefined when not known (not asked yet, still being
     * built, or past its window): the caller then goes the Effect way, which looks up or builds.
     */
    const settled = {
      bySlug: (slug: string, now: number): Page | undefined => lookups.peek(`slug:${slug.toLowerCase()}`, now)?.value,
      /** `{ page: undefined }` when the host is known to be no page's domain. */
      byHost: (host: string | undefined, now: number): { readonly page: Page | undefined } | undefined =>
        host === undefined || host === "" || host === baseHost
          ? { page: undefined }
          : (() => {
              const hit = lookups.peek(`host:${host}`, now)
              return hit === undefined ? undefined : { page: hit.value }
            })(),
      snapshot: (page: Page, now: number): Snapshot | undefined =>
        page.epoch === epoch ? snapshots.peek(page.id, now)?.value : undefined
    }

    return { bySlug, byHost, defaultPage, snapshot, baseHost, settled }
  }),
  dependencies: [PublicPagesRepo.Default, Invalidation.Default]
}) {}

/** Fails with the uniform 404 when there is no such page. */
export const orNotFound = <A>(value: A | undefined) =>
  value === undefined ? Effect.fail(notFound) : Effect.succeed(value)
