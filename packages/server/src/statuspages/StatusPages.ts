/**
 * Status pages: an org's pages (under the account's `max_status_pages`), their curated monitors (under
 * `max_public_components`, distinct monitors across the account), their logo, and their access object with the
 * page password. Quotas are counted under the account's lock, so concurrent writes settle exactly at the limit;
 * every change of a page runs in one transaction holding the page's row lock, access and password included.
 */

import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as Argon2 from "@node-rs/argon2"
import * as ApiError from "@signalman/core/ApiError"
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import type * as Plan from "@signalman/core/Plan"
import * as PlanLimits from "@signalman/core/PlanLimits"
import { PublicLocale } from "@signalman/core/PublicLocale"
import * as StatusPage from "@signalman/core/StatusPage"
import { TargetId, WriteSource } from "@signalman/core/Target"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { AuditLog } from "../audit/AuditLog.js"
import { publicBaseUrl } from "../config/Config.js"
import { uuidv7 } from "../infra/Ids.js"
import { Invalidation } from "../infra/Invalidation.js"
import { QuotaEvents } from "../limits/Quota.js"
import * as PageChanges from "./PageChanges.js"
import { SubscriptionEnds } from "./SubscriptionEnds.js"

export const PageRow = Schema.Struct({
  id: StatusPage.StatusPageId,
  org_id: Schema.String,
  account_id: Schema.String,
  slug: Schema.String,
  name: Schema.String,
  published: Schema.Boolean,
  public_locale: PublicLocale,
  custom_domain: Schema.NullOr(Schema.String),
  branding: StatusPage.Branding,
  access: Schema.NullOr(StatusPage.Access),
  password_hash: Schema.NullOr(Schema.String),
  password_set_at: Schema.NullOr(Schema.DateFromSelf),
  password_set_by: Schema.NullOr(Schema.String),
  password_version: Schema.Int,
  password_last_sign_in_at: Schema.NullOr(Schema.DateFromSelf),
  write_source: WriteSource,
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf,
  logo_sha256: Schema.NullOr(Schema.String)
})
export type PageRow = typeof PageRow.Type

const ComponentRow = Schema.Struct({
  target_id: TargetId,
  public_name: Schema.NullOr(Schema.String),
  public_description: Schema.NullOr(Schema.String),
  public_group: Schema.NullOr(Schema.String),
  sort_order: Schema.Int
})

export const notFound = ApiError.make("NOT_FOUND", "No such status page")
const componentNotFound = ApiError.make("NOT_FOUND", "No such component on this page")

const utc = (date: Date) => DateTime.unsafeFromDate(date)

const fromEither = <A>(either: Either.Either<A, ApiError.ApiError>) =>
  Either.isLeft(either) ? Effect.fail(either.left) : Effect.succeed(either.right)

const isSqlError = (u: unknown): u is SqlError => u instanceof SqlError

/** The constraint a unique violation broke, if the error is one. */
const uniqueViolation = (error: SqlError): string | undefined => {
  const cause: unknown = error.cause
  if (typeof cause !== "object" || cause === null || !("code" in cause) || cause.code !== "23505") return undefined
  return "constraint_name" in cause && typeof cause.constraint_name === "string" ? cause.constraint_name : ""
}

const slugTaken = (slug: string) => ApiError.make("SLUG_TAKEN", `The slug ${slug} is taken`, { field: "slug" })
const domainTaken = (domain: string) =>
  ApiError.make("CUSTOM_DOMAIN_TAKEN", `${domain} is already the domain of a status page`, { field: "custom_domain" })

/** Runs the password hash off the request's transaction: argon2id is slow on purpose. */
export const hashPassword = (value: string) => Effect.promise(() => Argon2.hash(value))

export const verifyPassword = (hash: string, value: string) =>
  Effect.promise(() => Argon2.verify(hash, value).catch(() => false))

/** What a change of access did to the password, for the caller to act on (audit, sessions). */
interface PasswordChange {
  readonly event: "status_page.password_set" | "status_page.password_changed" | undefined
  readonly endSessions: boolean
}

export class StatusPages extends Effect.Service<StatusPages>()("Signalman/StatusPages", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
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
    const decodePages = Schema.decodeUnknown(Schema.Array(PageRow))
    const decodeComponents = Schema.decodeUnknown(Schema.Array(ComponentRow))

    const selectPages = sql`
      SELECT p.*, l.sha256 AS logo_sha256 FROM status_pages p LEFT JOIN status_page_logos l ON l.page_id = p.id
    `

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
        created_at: utc(row.created_at),
        updated_at: utc(row.updated_at)
      })

    /** The org's page, locked for the transaction when `lock` (the lock first, then a fresh read). */
    const row = (org: ActiveOrg, id: string, lock = false) =>
      Effect.gen(function* () {
        if (lock) {
          const held = yield* sql`SELECT id FROM status_pages WHERE id = ${id} AND org_id = ${org.id} FOR UPDATE`
          if (held.length === 0) return undefined
        }
        const rows = yield* sql`${selectPages} WHERE p.id = ${id} AND p.org_id = ${org.id}`.pipe(
          Effect.flatMap(decodePages)
        )
        return rows[0]
      })

    const found = (org: ActiveOrg, id: string, lock = false) =>
      Effect.flatMap(row(org, id, lock), (page) => (page === undefined ? Effect.fail(notFound) : Effect.succeed(page)))

    const one = (org: ActiveOrg, id: string) =>
      found(org, id).pipe(Effect.map(toResource), Effect.catchTag("SqlError", "ParseError", Effect.die))

    const list = (org: ActiveOrg, query: { readonly limit: number; readonly offset: number }) =>
      Effect.gen(function* () {
        const [count] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM status_pages WHERE org_id = ${org.id}`
        const rows = yield* sql`
          ${selectPages} WHERE p.org_id = ${org.id} ORDER BY p.created_at, p.id LIMIT ${query.limit} OFFSET ${query.offset}
        `.pipe(Effect.flatMap(decodePages))
        return { data: rows.map(toResource), total: count?.n ?? 0, limit: query.limit, offset: query.offset }
      }).pipe(Effect.catchTag("SqlError", "ParseError", Effect.die))

    /** A page by slug, any live org (the viewer sign-in; an org pending deletion has no public pages). */
    const bySlug = (slug: string) =>
      sql`
        ${selectPages} JOIN orgs o ON o.id = p.org_id AND o.deleted_at IS NULL WHERE lower(p.slug) = ${slug.toLowerCase()}
      `.pipe(
        Effect.flatMap(decodePages),
        Effect.map((rows) => rows[0]),
        Effect.orDie
      )

    const byId = (id: string) =>
      sql`${selectPages} WHERE p.id = ${id}`.pipe(
        Effect.flatMap(decodePages),
        Effect.map((rows) => rows[0]),
        Effect.orDie
      )

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

    /**
     * The access of a body checked for shape and hashed, before any lock: a malformed body waits for nothing and
     * the slow hash holds no row.
     */
    const prepareAccess = (raw: unknown) =>
      Effect.gen(function* () {
        if (raw === undefined || raw === null) return { raw, hash: undefined }
        const input = yield* fromEither(StatusPage.decodeAccess(raw))
        const hash = input.passwordValue === undefined ? undefined : yield* hashPassword(input.passwordValue)
        return { raw, hash }
      })

    /**
     * Judges an access write against the stored page and the plan. Answers what to store (undefined: leave the
     * column alone) with the new password hash, if a value was sent.
     */
    const judgeAccess = (
      prepared: { readonly raw: unknown; readonly hash: string | undefined },
      stored: PageRow | undefined,
      plan: Plan.Plan
    ) =>
      Effect.gen(function* () {
        const { raw } = prepared
        if (raw === undefined) return undefined
        if (raw === null) {
          if (stored === undefined || stored.access === null) return undefined
          return yield* Effect.fail(
            ApiError.make(
              "ACCESS_INVALID",
              "A page once private keeps its access: send { protected: false } to open it",
              {
                field: "access"
              }
            )
          )
        }
        const input = yield* fromEither(
          Either.flatMap(StatusPage.decodeAccess(raw), (decoded) =>
            StatusPage.resolveAccess(decoded, {
              passwordStored: prepared.hash !== undefined || stored?.password_hash != null,
              wasProtected: stored?.access?.protected === true,
              plan
            })
          )
        )
        return { access: input.access, hash: prepared.hash }
      })

    /** Writes a judged access object; answers what it did to the password. */
    const writeAccess = (
      pageId: string,
      userId: string,
      judged: { readonly access: StatusPage.Access; readonly hash: string | undefined },
      stored: PageRow | undefined
    ) =>
      Effect.gen(function* () {
        const hadPassword = stored?.password_hash != null
        yield* sql`UPDATE status_pages SET access = ${JSON.stringify(judged.access)}::jsonb WHERE id = ${pageId}`
        if (judged.hash !== undefined) {
          yield* sql`
            UPDATE status_pages SET password_hash = ${judged.hash}, password_set_at = now(),
              password_set_by = ${userId}, password_version = password_version + 1
            WHERE id = ${pageId}
          `
        }
        const wasOn = stored?.access?.password.enabled === true
        const endSessions = (judged.hash !== undefined && hadPassword) || (wasOn && !judged.access.password.enabled)
        if (endSessions) {
          yield* sql`DELETE FROM status_page_viewer_sessions WHERE page_id = ${pageId} AND viewer_id IS NULL`
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

    const countPages = (accountId: string) =>
      sql<{ n: number }>`
        SELECT count(*)::int AS n FROM status_pages p JOIN orgs o ON o.id = p.org_id
        WHERE p.account_id = ${accountId} AND o.deleted_at IS NULL
      `.pipe(Effect.map(([count]) => count?.n ?? 0))

    /** Two writes racing for one slug or domain: the unique index decides, the loser hears the conflict. */
    const mapUnique =
      (slug: string | undefined, domain: string | null | undefined) =>
      <A, E, R>(self: Effect.Effect<A, E | SqlError, R>) =>
        Effect.catchIf(self, isSqlError, (error) => {
          const constraint = uniqueViolation(error)
          if (constraint === undefined) return Effect.die(error)
          if (constraint.includes("custom_domain") && domain != null) return Effect.fail(domainTaken(domain))
          return slug === undefined ? Effect.die(error) : Effect.fail(slugTaken(slug))
        })

    const create = (
      org: ActiveOrg,
      userId: string,
      plan: Plan.Plan,
      input: StatusPage.CreateStatusPage,
      writeSource: WriteSource
    ) =>
      Effect.gen(function* () {
        const branding = StatusPage.patchBranding(StatusPage.defaultBranding, input.branding ?? {})
        yield* checkFlags(plan, undefined, input.custom_domain, branding)
        const judged = yield* judgeAccess(yield* prepareAccess(input.access), undefined, plan)
        const id = uuidv7()
        const outcome = yield* sql
          .withTransaction(
            Effect.gen(function* () {
              yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`account:${org.accountId}`}))`
              const current = yield* countPages(org.accountId)
              if (!PlanLimits.fits(plan, "max_status_pages", current)) return { _tag: "Full", current } as const
              const [slugRow] = yield* sql`SELECT 1 FROM status_pages WHERE lower(slug) = ${input.slug}`
              if (slugRow !== undefined) return yield* Effect.fail(slugTaken(input.slug))
              const domain = input.custom_domain ?? null
              if (domain !== null) {
                const [domainRow] = yield* sql`SELECT 1 FROM status_pages WHERE lower(custom_domain) = ${domain}`
                if (domainRow !== undefined) return yield* Effect.fail(domainTaken(domain))
              }
              yield* sql`
              INSERT INTO status_pages (id, org_id, account_id, slug, name, published, public_locale, custom_domain,
                branding, write_source, created_by)
              VALUES (${id}, ${org.id}, ${org.accountId}, ${input.slug}, ${input.name}, ${input.published ?? false},
                ${input.public_locale ?? "en"}, ${domain}, ${JSON.stringify(branding)}::jsonb, ${writeSource}, ${userId})
            `
              const change = judged === undefined ? undefined : yield* writeAccess(id, userId, judged, undefined)
              return { _tag: "Created", change } as const
            })
          )
          .pipe(mapUnique(input.slug, input.custom_domain))
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
      writeSource: WriteSource
    ) =>
      Effect.gen(function* () {
        const prepared = yield* prepareAccess(patch.access)
        const change = yield* sql
          .withTransaction(
            Effect.gen(function* () {
              const stored = yield* found(org, id, true)
              const branding = StatusPage.patchBranding(stored.branding, patch.branding ?? {})
              yield* checkFlags(plan, stored, patch.custom_domain, branding)
              const judged = yield* judgeAccess(prepared, stored, plan)
              if (patch.slug !== undefined && patch.slug !== stored.slug) {
                const [taken] = yield* sql`SELECT 1 FROM status_pages WHERE lower(slug) = ${patch.slug} AND id <> ${id}`
                if (taken !== undefined) return yield* Effect.fail(slugTaken(patch.slug))
              }
              const domain = patch.custom_domain === undefined ? stored.custom_domain : patch.custom_domain
              if (domain !== null && domain !== stored.custom_domain) {
                const [taken] =
                  yield* sql`SELECT 1 FROM status_pages WHERE lower(custom_domain) = ${domain} AND id <> ${id}`
                if (taken !== undefined) return yield* Effect.fail(domainTaken(domain))
              }
              yield* sql`
              UPDATE status_pages SET
                slug = ${patch.slug ?? stored.slug},
                name = ${patch.name ?? stored.name},
                published = ${patch.published ?? stored.published},
                public_locale = ${patch.public_locale ?? stored.public_locale},
                custom_domain = ${domain},
                branding = ${JSON.stringify(branding)}::jsonb,
                write_source = ${writeSource},
                updated_at = now()
              WHERE id = ${id}
            `
              return judged === undefined ? undefined : yield* writeAccess(id, userId, judged, stored)
            })
          )
          .pipe(mapUnique(patch.slug, patch.custom_domain))
        yield* invalidation.publish(PageChanges.tag(id))
        yield* auditPassword(org, id, change)
        return yield* one(org, id)
      }).pipe(Effect.catchTag("ParseError", Effect.die))

    const remove = (org: ActiveOrg, id: string) =>
      Effect.gen(function* () {
        const deleted = yield* sql`DELETE FROM status_pages WHERE id = ${id} AND org_id = ${org.id} RETURNING id`
        if (deleted.length === 0) return yield* Effect.fail(notFound)
      }).pipe(changed(id), Effect.catchTag("SqlError", Effect.die))

    // -- components

    const componentsOf = (pageId: string) =>
      sql`
        SELECT target_id::text AS target_id, public_name, public_description, public_group, sort_order
        FROM status_page_components WHERE page_id = ${pageId} ORDER BY sort_order, created_at, target_id
      `.pipe(
        Effect.flatMap(decodeComponents),
        Effect.map((rows) => rows.map((r) => new StatusPage.Component(r)))
      )

    const listComponents = (org: ActiveOrg, id: string) =>
      Effect.gen(function* () {
        yield* found(org, id)
        return { data: yield* componentsOf(id) }
      }).pipe(Effect.catchTag("SqlError", "ParseError", Effect.die))

    const component = (pageId: string, targetId: string) =>
      Effect.flatMap(componentsOf(pageId), (all) => {
        const hit = all.find((c) => c.target_id === targetId.toLowerCase())
        return hit === undefined ? Effect.fail(componentNotFound) : Effect.succeed(hit)
      })

    const addComponent = (
      org: ActiveOrg,
      userId: string,
      plan: Plan.Plan,
      id: string,
      input: StatusPage.AddComponent
    ) =>
      Effect.gen(function* () {
        const targetId = input.target_id.toLowerCase()
        const outcome = yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* found(org, id, true)
            const [target] = yield* sql`SELECT 1 FROM targets WHERE id = ${targetId} AND org_id = ${org.id}`
            if (target === undefined) {
              return yield* Effect.fail(
                ApiError.make("VALIDATION_FAILED", "No such monitor in this org", { field: "target_id" })
              )
            }
            const [already] =
              yield* sql`SELECT 1 FROM status_page_components WHERE page_id = ${id} AND target_id = ${targetId}`
            if (already !== undefined) {
              return yield* Effect.fail(
                ApiError.make("COMPONENT_ALREADY_ON_PAGE", "This monitor is already on the page", {
                  field: "target_id"
                })
              )
            }
            yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`account:${org.accountId}`}))`
            // A monitor already published on another page of the account costs nothing more.
            const [usage] = yield* sql<{ n: number; published: boolean }>`
              SELECT count(DISTINCT c.target_id)::int AS n,
                coalesce(bool_or(c.target_id = ${targetId}::uuid), false) AS published
              FROM status_page_components c
              JOIN status_pages p ON p.id = c.page_id JOIN orgs o ON o.id = p.org_id
              WHERE p.account_id = ${org.accountId} AND o.deleted_at IS NULL
            `
            const current = usage?.n ?? 0
            if (usage?.published !== true && !PlanLimits.fits(plan, "max_public_components", current)) {
              return { _tag: "Full", current } as const
            }
            yield* sql`
              INSERT INTO status_page_components (page_id, target_id, public_name, public_description, public_group,
                sort_order)
              VALUES (${id}, ${targetId}, ${input.public_name ?? null}, ${input.public_description ?? null},
                ${input.public_group ?? null},
                (SELECT coalesce(max(sort_order) + 1, 0) FROM status_page_components WHERE page_id = ${id}))
            `
            yield* sql`UPDATE status_pages SET updated_at = now() WHERE id = ${id}`
            return { _tag: "Added" } as const
          })
        )
        if (outcome._tag === "Full") {
          return yield* quotaEvents.refuse({
            plan,
            accountId: org.accountId,
            userId,
            quota: "max_public_components",
            current: outcome.current
          })
        }
        return yield* component(id, targetId)
      }).pipe(changed(id), Effect.catchTag("SqlError", "ParseError", Effect.die))

    const updateComponent = (org: ActiveOrg, id: string, targetId: string, patch: StatusPage.PatchComponent) =>
      Effect.gen(function* () {
        yield* found(org, id)
        const target = targetId.toLowerCase()
        const current = yield* component(id, target)
        const pick = <K extends "public_name" | "public_description" | "public_group">(key: K) =>
          patch[key] === undefined ? current[key] : patch[key]
        yield* sql`
          UPDATE status_page_components SET public_name = ${pick("public_name")},
            public_description = ${pick("public_description")}, public_group = ${pick("public_group")}
          WHERE page_id = ${id} AND target_id = ${target}
        `
        return yield* component(id, target)
      }).pipe(changed(id), Effect.catchTag("SqlError", "ParseError", Effect.die))

    const removeComponent = (org: ActiveOrg, id: string, targetId: string) =>
      Effect.gen(function* () {
        yield* found(org, id)
        const deleted = yield* sql`
          DELETE FROM status_page_components WHERE page_id = ${id} AND target_id = ${targetId.toLowerCase()}
          RETURNING target_id
        `
        if (deleted.length === 0) return yield* Effect.fail(componentNotFound)
      }).pipe(changed(id), Effect.catchTag("SqlError", "ParseError", Effect.die))

    const reorder = (org: ActiveOrg, id: string, input: StatusPage.ReorderComponents) =>
      Effect.gen(function* () {
        yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* found(org, id, true)
            const current = yield* componentsOf(id)
            const order = yield* fromEither(
              StatusPage.checkReorder(
                current.map((c) => c.target_id),
                input.target_ids
              )
            )
            if (order.length === 0) return
            yield* sql`
              UPDATE status_page_components c SET sort_order = t.n - 1
              FROM unnest(${order}::uuid[]) WITH ORDINALITY AS t(id, n)
              WHERE c.page_id = ${id} AND c.target_id = t.id
            `
          })
        )
        return { data: yield* componentsOf(id) }
      }).pipe(changed(id), Effect.catchTag("SqlError", "ParseError", Effect.die))

    // -- logo

    const setLogo = (
      org: ActiveOrg,
      id: string,
      logo: { readonly contentType: string; readonly bytes: Uint8Array; readonly sha256: string }
    ) =>
      Effect.gen(function* () {
        yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* found(org, id, true)
            yield* sql`
              INSERT INTO status_page_logos (page_id, content_type, bytes, sha256)
              VALUES (${id}, ${logo.contentType}, ${logo.bytes}, ${logo.sha256})
              ON CONFLICT (page_id) DO UPDATE SET content_type = EXCLUDED.content_type, bytes = EXCLUDED.bytes,
                sha256 = EXCLUDED.sha256, uploaded_at = now()
            `
            yield* sql`UPDATE status_pages SET updated_at = now() WHERE id = ${id}`
          })
        )
        return yield* one(org, id)
      }).pipe(changed(id), Effect.catchTag("SqlError", "ParseError", Effect.die))

    const removeLogo = (org: ActiveOrg, id: string) =>
      Effect.gen(function* () {
        yield* found(org, id)
        const deleted = yield* sql`DELETE FROM status_page_logos WHERE page_id = ${id} RETURNING page_id`
        if (deleted.length > 0) yield* sql`UPDATE status_pages SET updated_at = now() WHERE id = ${id}`
        return yield* one(org, id)
      }).pipe(changed(id), Effect.catchTag("SqlError", "ParseError", Effect.die))

    /** A logo by page and version, for the public route. */
    const logo = (pageId: string, sha256: string) =>
      sql<{ content_type: string; bytes: Uint8Array }>`
        SELECT content_type, bytes FROM status_page_logos WHERE page_id = ${pageId} AND sha256 = ${sha256}
      `.pipe(
        Effect.map((rows) => rows[0]),
        Effect.orDie
      )

    return {
      list,
      one,
      create,
      update,
      remove,
      bySlug,
      byId,
      found,
      listComponents,
      addComponent,
      updateComponent,
      removeComponent,
      reorder,
      setLogo,
      removeLogo,
      logo
    }
  }),
  dependencies: [QuotaEvents.Default, AuditLog.Default, Invalidation.Default]
}) {}
