/**
 * Status pages: an org's pages (under the account's `max_status_pages`), their logo, and their access object with
 * the page password. Quotas are counted under the account's lock, so concurrent writes settle exactly at the limit;
 * every change of a page runs in one transaction holding the page's row lock, access and password included, and
 * `managed_by` when the request carries it (`ManagedClaim`). The curated monitors are `PageComponents`.
 */
import * as ApiError from "@signalman/core/ApiError"
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import type * as ManagedBy from "@signalman/core/ManagedBy"
import type * as Plan from "@signalman/core/Plan"
import * as PlanLimits from "@signalman/core/PlanLimits"
import * as StatusPage from "@signalman/core/StatusPage"
import type { WriteSource } from "@signalman/core/Target"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { AuditLog } from "../audit/AuditLog.js"
import { publicBaseUrl } from "../config/Config.js"
import { claiming } from "../database/ManagedClaim.js"
import * as ManagedColumns from "../database/ManagedColumns.js"
import type { UniqueViolation } from "../database/UniqueViolation.js"
import { uuidv7 } from "../infra/Ids.js"
import { Invalidation } from "../infra/Invalidation.js"
import { QuotaEvents } from "../limits/Quota.js"
import * as PageAccess from "./PageAccess.js"
import * as PageChanges from "./PageChanges.js"
import { type ListQuery, type PageRow, StatusPagesRepo } from "./Repo.js"
import { SubscriptionEnds } from "./SubscriptionEnds.js"

export const notFound = ApiError.make("NOT_FOUND", "No such status page")

const utc = (date: Date) => DateTime.unsafeFromDate(date)

const KIND = "status page"

const slugTaken = (slug: string) => ApiError.make("SLUG_TAKEN", `The slug ${slug} is taken`, { field: "slug" })
const domainTaken = (domain: string) =>
  ApiError.make("CUSTOM_DOMAIN_TAKEN", `${domain} is already the domain of a status page`, { field: "custom_domain" })

/** What a change of access did to the password, for the caller to act on (audit, sessions). */
interface PasswordChange {
  readonly event: "status_page.password_set" | "status_page.password_changed" | undefined
  readonly endSessions: boolean
}

export class StatusPages extends Effect.Service<StatusPages>()("Signalman/StatusPages", {
  effect: Effect.gen(function* () {
    const repo = yield* StatusPagesRepo
    const quotaEvents = yield* QuotaEvents
    const audit = yield* AuditLog
    const ends = yield* SubscriptionEnds
    const base = yield* publicBaseUrl
    const invalidation = yield* Invalidation
    /** After a change is committed: the public caches of every process drop the page. */
    const changed =
      (id: string) =>
      <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
        Effect.tap(self, () => invalidation.publish(PageChanges.tag(id)))

    const liveUrl = (row: PageRow) =>
      row.custom_domain !== null ? `https://${row.custom_domain}/` : `${base}/p/${row.slug}`
    const logoUrl = (row: PageRow) =>
      row.logo_sha256 === null ? null : `${base}/api/public/v1/logos/${row.id}/${row.logo_sha256}`

    const toResource = (row: PageRow) =>
      new StatusPage.StatusPage({
        id: row.id,
        slug: row.slug,
        name: row.name,
        published: row.published,
        public_locale: row.public_locale,
        custom_domain: row.custom_domain,
        branding: row.branding,
        access: row.access,
        live_url: liveUrl(row),
        logo_url: logoUrl(row),
        write_source: row.write_source,
        managed_by: ManagedColumns.managedBy(row),
        created_at: utc(row.created_at),
        updated_at: utc(row.updated_at)
      })

    /**
     * The org's page, or 404. With `lock`, the page's row lock is held to the end of the transaction: the lock is
     * taken first, then the page read afresh, so the read sees what the previous holder wrote.
     */
    const found = (org: ActiveOrg, id: string, lock = false) =>
      Effect.gen(function* () {
        if (lock && !(yield* repo.lock(org.id, id))) return yield* Effect.fail(notFound)
        const page = yield* repo.one(org.id, id)
        return page ?? (yield* Effect.fail(notFound))
      })

    const one = (org: ActiveOrg, id: string) => Effect.map(found(org, id), toResource)

    const list = (org: ActiveOrg, query: ListQuery) =>
      Effect.map(repo.list(org.id, query), ({ total, rows }) => ({
        data: rows.map(toResource),
        total,
        limit: query.limit,
        offset: query.offset
      }))

    const checkFlags = (
      plan: Plan.Plan,
      stored: PageRow | undefined,
      customDomain: string | null | undefined,
      branding: StatusPage.Branding
    ) =>
      Effect.gen(function* () {
        // A page keeps what it already has after its plan loses the feature: only a new value is gated.
        if (customDomain !== undefined && customDomain !== null && customDomain !== stored?.custom_domain) {
          const gated = PlanLimits.gate(plan, "custom_domain", "custom_domain")
          if (Option.isSome(gated)) return yield* Effect.fail(gated.value)
        }
        if (branding.hide_powered_by && stored?.branding.hide_powered_by !== true) {
          const gated = PlanLimits.gate(plan, "white_label", "branding.hide_powered_by")
          if (Option.isSome(gated)) return yield* Effect.fail(gated.value)
        }
      })

    /** Writes a judged access object; answers what it did to the password. */
    const writeAccess = (pageId: string, userId: string, judged: PageAccess.Judged, stored: PageRow | undefined) =>
      Effect.gen(function* () {
        const hadPassword = stored?.password_hash != null
        yield* repo.setAccess(pageId, judged.access)
        if (judged.hash !== undefined) yield* repo.setPassword(pageId, judged.hash, userId)
        const wasOn = stored?.access?.password.enabled === true
        const endSessions = (judged.hash !== undefined && hadPassword) || (wasOn && !judged.access.password.enabled)
        if (endSessions) {
          yield* repo.endPasswordSessions(pageId)
          // What was subscribed on those devices ends with them: the password record counted it beforehand.
          yield* ends.endPassword(pageId)
        }
        const change: PasswordChange = {
          event:
            judged.hash === undefined
              ? undefined
              : hadPassword
                ? "status_page.password_changed"
                : "status_page.password_set",
          endSessions
        }
        return change
      })

    const auditPassword = (org: ActiveOrg, pageId: string, change: PasswordChange | undefined) =>
      change?.event === undefined
        ? Effect.void
        : audit.append({ event: change.event, orgId: org.id, details: { status_page_id: pageId } })

    /** Two writes racing for one slug or domain: the unique index decides, the loser hears the conflict. */
    const refuseTaken = (error: UniqueViolation, slug: string | undefined, domain: string | null | undefined) => {
      if (error.constraint.includes("custom_domain") && domain != null) return Effect.fail(domainTaken(domain))
      return slug === undefined ? Effect.die(error) : Effect.fail(slugTaken(slug))
    }

    const create = (
      org: ActiveOrg,
      userId: string,
      plan: Plan.Plan,
      input: StatusPage.CreateStatusPage,
      writeSource: WriteSource,
      managedBy?: ManagedBy.ManagedBy | undefined
    ) =>
      Effect.gen(function* () {
        const branding = StatusPage.patchBranding(StatusPage.defaultBranding, input.branding ?? {})
        yield* checkFlags(plan, undefined, input.custom_domain, branding)
        const judged = yield* PageAccess.judge(yield* PageAccess.prepare(input.access), undefined, plan)
        const id = uuidv7()
        const outcome = yield* repo
          .transaction(
            Effect.gen(function* () {
              yield* repo.lockAccount(org.accountId)
              const current = yield* repo.countOfAccount(org.accountId)
              if (!PlanLimits.fits(plan, "max_status_pages", current)) return { _tag: "Full", current } as const
              if (yield* repo.slugTaken(input.slug, null)) return yield* Effect.fail(slugTaken(input.slug))
              const domain = input.custom_domain ?? null
              if (domain !== null && (yield* repo.domainTaken(domain, null))) {
                return yield* Effect.fail(domainTaken(domain))
              }
              yield* claiming(
                KIND,
                managedBy,
                (claim) => repo.holder(org.id, claim),
                repo.insert({
                  id,
                  org_id: org.id,
                  account_id: org.accountId,
                  slug: input.slug,
                  name: input.name,
                  published: input.published ?? false,
                  public_locale: input.public_locale ?? "en",
                  custom_domain: domain,
                  branding,
                  write_source: writeSource,
                  created_by: userId,
                  ...ManagedColumns.columns(managedBy)
                })
              )
              const change = judged === undefined ? undefined : yield* writeAccess(id, userId, judged, undefined)
              return { _tag: "Created", change } as const
            })
          )
          .pipe(Effect.catchTag("UniqueViolation", (error) => refuseTaken(error, input.slug, input.custom_domain)))
        if (outcome._tag === "Full") {
          return yield* quotaEvents.refuse({
            plan,
            accountId: org.accountId,
            userId,
            quota: "max_status_pages",
            current: outcome.current
          })
        }
        yield* auditPassword(org, id, outcome.change)
        yield* invalidation.publish(PageChanges.tag(id))
        return yield* one(org, id)
      })

    const update = (
      org: ActiveOrg,
      id: string,
      userId: string,
      plan: Plan.Plan,
      patch: StatusPage.PatchStatusPage,
      writeSource: WriteSource,
      managedBy?: ManagedBy.ManagedBy | undefined
    ) =>
      Effect.gen(function* () {
        const prepared = yield* PageAccess.prepare(patch.access)
        const change = yield* repo
          .transaction(
            Effect.gen(function* () {
              const stored = yield* found(org, id, true)
              const branding = StatusPage.patchBranding(stored.branding, patch.branding ?? {})
              yield* checkFlags(plan, stored, patch.custom_domain, branding)
              const judged = yield* PageAccess.judge(prepared, stored, plan)
              if (patch.slug !== undefined && patch.slug !== stored.slug && (yield* repo.slugTaken(patch.slug, id))) {
                return yield* Effect.fail(slugTaken(patch.slug))
              }
              const domain = patch.custom_domain === undefined ? stored.custom_domain : patch.custom_domain
              if (domain !== null && domain !== stored.custom_domain && (yield* repo.domainTaken(domain, id))) {
                return yield* Effect.fail(domainTaken(domain))
              }
              yield* claiming(
                KIND,
                managedBy,
                (claim) => repo.holder(org.id, claim, id),
                repo.update({
                  id,
                  slug: patch.slug ?? stored.slug,
                  name: patch.name ?? stored.name,
                  published: patch.published ?? stored.published,
                  public_locale: patch.public_locale ?? stored.public_locale,
                  custom_domain: domain,
                  branding,
                  write_source: writeSource,
                  managed_by: managedBy
                })
              )
              return judged === undefined ? undefined : yield* writeAccess(id, userId, judged, stored)
            })
          )
          .pipe(Effect.catchTag("UniqueViolation", (error) => refuseTaken(error, patch.slug, patch.custom_domain)))
        yield* invalidation.publish(PageChanges.tag(id))
        yield* auditPassword(org, id, change)
        return yield* one(org, id)
      })

    const remove = (org: ActiveOrg, id: string) =>
      Effect.gen(function* () {
        if (!(yield* repo.remove(org.id, id))) return yield* Effect.fail(notFound)
      }).pipe(changed(id))

    // -- logo

    const setLogo = (
      org: ActiveOrg,
      id: string,
      logo: { readonly contentType: string; readonly bytes: Uint8Array; readonly sha256: string }
    ) =>
      Effect.gen(function* () {
        yield* repo.transaction(
          Effect.gen(function* () {
            yield* found(org, id, true)
            yield* repo.putLogo(id, logo)
            yield* repo.touch(id)
          })
        )
        return yield* one(org, id)
      }).pipe(changed(id))

    const removeLogo = (org: ActiveOrg, id: string) =>
      Effect.gen(function* () {
        yield* found(org, id)
        if (yield* repo.removeLogo(id)) yield* repo.touch(id)
        return yield* one(org, id)
      }).pipe(changed(id))

    return {
      list,
      one,
      create,
      update,
      remove,
      /** A page by slug, any live org (the viewer sign-in; an org pending deletion has no public pages). */
      bySlug: repo.bySlug,
      byId: repo.byId,
      found,
      setLogo,
      removeLogo,
      /** A logo by page and version, for the public route. */
      logo: repo.logo
    }
  }),
  dependencies: [StatusPagesRepo.Default, QuotaEvents.Default, AuditLog.Default, Invalidation.Default]
}) {}
