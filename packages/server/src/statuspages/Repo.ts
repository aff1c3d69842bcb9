/**
 * Status pages' SQL: the pages with their logo's version, their components, their logo, the password columns, and
 * which pages show some monitors (for `PageChanges`). Timestamps arrive as `Date`s. A slug or domain taken by a
 * concurrent write is a `UniqueViolation` for the service to answer; every other database failure is a defect.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { PublicLocale } from "@signalman/core/PublicLocale"
import * as StatusPage from "@signalman/core/StatusPage"
import { WriteSource } from "@signalman/core/Target"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Transaction from "../database/Transaction.js"

/** A stored page with its logo's version (null: no logo). */
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

/** A unique index refused a write: `constraint` names it (empty when the driver did not say). */
export class UniqueViolation extends Data.TaggedError("UniqueViolation")<{ readonly constraint: string }> {}

/** The constraint a unique violation broke, if the error is one. */
const uniqueViolation = (error: SqlError): string | undefined => {
  const cause: unknown = error.cause
  if (typeof cause !== "object" || cause === null || !("code" in cause) || cause.code !== "23505") return undefined
  return "constraint_name" in cause && typeof cause.constraint_name === "string" ? cause.constraint_name : ""
}

const BrandingJson = Schema.parseJson(StatusPage.Branding)
const AccessJson = Schema.parseJson(StatusPage.Access)

/** A new page's row. */
export const NewPage = Schema.Struct({
  id: Schema.String,
  org_id: Schema.String,
  account_id: Schema.String,
  slug: Schema.String,
  name: Schema.String,
  published: Schema.Boolean,
  public_locale: PublicLocale,
  custom_domain: Schema.NullOr(Schema.String),
  branding: BrandingJson,
  write_source: WriteSource,
  created_by: Schema.String
})

/** A changed page: every column a PATCH may touch, merged with the stored values by the service. */
export const PageChange = Schema.Struct({
  id: Schema.String,
  slug: Schema.String,
  name: Schema.String,
  published: Schema.Boolean,
  public_locale: PublicLocale,
  custom_domain: Schema.NullOr(Schema.String),
  branding: BrandingJson,
  write_source: WriteSource
})

/** A monitor put on a page, last in its order. */
export const NewComponent = Schema.Struct({
  page_id: Schema.String,
  target_id: Schema.String,
  public_name: Schema.NullOr(Schema.String),
  public_description: Schema.NullOr(Schema.String),
  public_group: Schema.NullOr(Schema.String)
})

/** A component's public fields, merged with the stored values by the service. */
export const ComponentChange = NewComponent

/** A logo as stored. */
export const LogoRow = Schema.Struct({ content_type: Schema.String, bytes: Schema.Uint8ArrayFromSelf })

const Ref = Schema.Struct({ org_id: Schema.String, id: Schema.String })
const Id = Schema.Struct({ id: Schema.String })
const Count = Schema.Struct({ n: Schema.Int })
const Exists = Schema.Struct({ found: Schema.Boolean })
const Taken = Schema.Struct({ value: Schema.String, except: Schema.NullOr(Schema.String) })
const OnPage = Schema.Struct({ page_id: Schema.String, target_id: Schema.String })

export class StatusPagesRepo extends Effect.Service<StatusPagesRepo>()("Signalman/StatusPagesRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const selectPages = sql`
      SELECT p.*, l.sha256 AS logo_sha256 FROM status_pages p LEFT JOIN status_page_logos l ON l.page_id = p.id
    `

    // -- pages

    const lock = SqlSchema.findOne({
      Request: Ref,
      Result: Id,
      execute: ({ org_id, id }) =>
        sql`SELECT id::text AS id FROM status_pages WHERE id = ${id} AND org_id = ${org_id} FOR UPDATE`
    })

    const one = SqlSchema.findOne({
      Request: Ref,
      Result: PageRow,
      execute: ({ org_id, id }) => sql`${selectPages} WHERE p.id = ${id} AND p.org_id = ${org_id}`
    })

    const count = SqlSchema.single({
      Request: Schema.String,
      Result: Count,
      execute: (orgId) => sql`SELECT count(*)::int AS n FROM status_pages WHERE org_id = ${orgId}`
    })

    const page = SqlSchema.findAll({
      Request: Schema.Struct({ org_id: Schema.String, limit: Schema.Int, offset: Schema.Int }),
      Result: PageRow,
      execute: ({ org_id, limit, offset }) => sql`
        ${selectPages} WHERE p.org_id = ${org_id} ORDER BY p.created_at, p.id LIMIT ${limit} OFFSET ${offset}
      `
    })

    const bySlug = SqlSchema.findOne({
      Request: Schema.String,
      Result: PageRow,
      execute: (slug) => sql`
        ${selectPages} JOIN orgs o ON o.id = p.org_id AND o.deleted_at IS NULL WHERE lower(p.slug) = ${slug}
      `
    })

    const byId = SqlSchema.findOne({
      Request: Schema.String,
      Result: PageRow,
      execute: (id) => sql`${selectPages} WHERE p.id = ${id}`
    })

    const lockAccount = SqlSchema.void({
      Request: Schema.String,
      execute: (accountId) => sql`SELECT pg_advisory_xact_lock(hashtext(${`account:${accountId}`}))`
    })

    const countOfAccount = SqlSchema.single({
      Request: Schema.String,
      Result: Count,
      execute: (accountId) => sql`
        SELECT count(*)::int AS n FROM status_pages p JOIN orgs o ON o.id = p.org_id
        WHERE p.account_id = ${accountId} AND o.deleted_at IS NULL
      `
    })

    const except = (id: string | null) => (id === null ? [] : [sql`id <> ${id}`])

    const slugTaken = SqlSchema.single({
      Request: Taken,
      Result: Exists,
      execute: ({ value, except: id }) => sql`
        SELECT EXISTS (SELECT 1 FROM status_pages WHERE ${sql.and([sql`lower(slug) = ${value}`, ...except(id)])}) AS found
      `
    })

    const domainTaken = SqlSchema.single({
      Request: Taken,
      Result: Exists,
      execute: ({ value, except: id }) => sql`
        SELECT EXISTS (
          SELECT 1 FROM status_pages WHERE ${sql.and([sql`lower(custom_domain) = ${value}`, ...except(id)])}
        ) AS found
      `
    })

    const insert = SqlSchema.void({
      Request: NewPage,
      execute: (row) => sql`
        INSERT INTO status_pages (id, org_id, account_id, slug, name, published, public_locale, custom_domain,
          branding, write_source, created_by)
        VALUES (${row.id}, ${row.org_id}, ${row.account_id}, ${row.slug}, ${row.name}, ${row.published},
          ${row.public_locale}, ${row.custom_domain}, ${row.branding}::jsonb, ${row.write_source}, ${row.created_by})
      `
    })

    const update = SqlSchema.void({
      Request: PageChange,
      execute: (change) => sql`
        UPDATE status_pages SET
          slug = ${change.slug},
          name = ${change.name},
          published = ${change.published},
          public_locale = ${change.public_locale},
          custom_domain = ${change.custom_domain},
          branding = ${change.branding}::jsonb,
          write_source = ${change.write_source},
          updated_at = now()
        WHERE id = ${change.id}
      `
    })

    /** A write that a unique index may refuse: that refusal is the caller's to answer, anything else a defect. */
    const unique = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, UniqueViolation, R> =>
      Effect.catchAll(self, (error) => {
        const constraint = error instanceof SqlError ? uniqueViolation(error) : undefined
        return constraint === undefined ? Effect.die(error) : Effect.fail(new UniqueViolation({ constraint }))
      })

    const remove = SqlSchema.findOne({
      Request: Ref,
      Result: Id,
      execute: ({ org_id, id }) =>
        sql`DELETE FROM status_pages WHERE id = ${id} AND org_id = ${org_id} RETURNING id::text AS id`
    })

    const touch = SqlSchema.void({
      Request: Schema.String,
      execute: (id) => sql`UPDATE status_pages SET updated_at = now() WHERE id = ${id}`
    })

    // -- access and the password

    const setAccess = SqlSchema.void({
      Request: Schema.Struct({ id: Schema.String, access: AccessJson }),
      execute: ({ id, access }) => sql`UPDATE status_pages SET access = ${access}::jsonb WHERE id = ${id}`
    })

    const setPassword = SqlSchema.void({
      Request: Schema.Struct({ id: Schema.String, hash: Schema.String, user_id: Schema.String }),
      execute: ({ id, hash, user_id }) => sql`
        UPDATE status_pages SET password_hash = ${hash}, password_set_at = now(),
          password_set_by = ${user_id}, password_version = password_version + 1
        WHERE id = ${id}
      `
    })

    const endPasswordSessions = SqlSchema.void({
      Request: Schema.String,
      execute: (pageId) => sql`DELETE FROM status_page_viewer_sessions WHERE page_id = ${pageId} AND viewer_id IS NULL`
    })

    // -- components

    const components = SqlSchema.findAll({
      Request: Schema.String,
      Result: StatusPage.Component,
      execute: (pageId) => sql`
        SELECT target_id::text AS target_id, public_name, public_description, public_group, sort_order
        FROM status_page_components WHERE page_id = ${pageId} ORDER BY sort_order, created_at, target_id
      `
    })

    const targetInOrg = SqlSchema.single({
      Request: Schema.Struct({ org_id: Schema.String, target_id: Schema.String }),
      Result: Exists,
      execute: ({ org_id, target_id }) =>
        sql`SELECT EXISTS (SELECT 1 FROM targets WHERE id = ${target_id} AND org_id = ${org_id}) AS found`
    })

    const onPage = SqlSchema.single({
      Request: OnPage,
      Result: Exists,
      execute: ({ page_id, target_id }) => sql`
        SELECT EXISTS (SELECT 1 FROM status_page_components WHERE page_id = ${page_id} AND target_id = ${target_id})
          AS found
      `
    })

    const usage = SqlSchema.single({
      Request: Schema.Struct({ account_id: Schema.String, target_id: Schema.String }),
      Result: Schema.Struct({ n: Schema.Int, published: Schema.Boolean }),
      execute: ({ account_id, target_id }) => sql`
        SELECT count(DISTINCT c.target_id)::int AS n,
          coalesce(bool_or(c.target_id = ${target_id}::uuid), false) AS published
        FROM status_page_components c
        JOIN status_pages p ON p.id = c.page_id JOIN orgs o ON o.id = p.org_id
        WHERE p.account_id = ${account_id} AND o.deleted_at IS NULL
      `
    })

    const insertComponent = SqlSchema.void({
      Request: NewComponent,
      execute: (row) => sql`
        INSERT INTO status_page_components (page_id, target_id, public_name, public_description, public_group,
          sort_order)
        VALUES (${row.page_id}, ${row.target_id}, ${row.public_name}, ${row.public_description}, ${row.public_group},
          (SELECT coalesce(max(sort_order) + 1, 0) FROM status_page_components WHERE page_id = ${row.page_id}))
      `
    })

    const updateComponent = SqlSchema.void({
      Request: ComponentChange,
      execute: (change) => sql`
        UPDATE status_page_components SET public_name = ${change.public_name},
          public_description = ${change.public_description}, public_group = ${change.public_group}
        WHERE page_id = ${change.page_id} AND target_id = ${change.target_id}
      `
    })

    const removeComponent = SqlSchema.findOne({
      Request: OnPage,
      Result: Schema.Struct({ target_id: Schema.String }),
      execute: ({ page_id, target_id }) => sql`
        DELETE FROM status_page_components WHERE page_id = ${page_id} AND target_id = ${target_id}
        RETURNING target_id::text AS target_id
      `
    })

    const reorder = SqlSchema.void({
      Request: Schema.Struct({ page_id: Schema.String, order: Schema.Array(Schema.String) }),
      execute: ({ page_id, order }) => sql`
        UPDATE status_page_components c SET sort_order = t.n - 1
        FROM unnest(${order}::uuid[]) WITH ORDINALITY AS t(id, n)
        WHERE c.page_id = ${page_id} AND c.target_id = t.id
      `
    })

    // -- the logo

    const putLogo = SqlSchema.void({
      Request: Schema.Struct({
        page_id: Schema.String,
        content_type: Schema.String,
        bytes: Schema.Uint8ArrayFromSelf,
        sha256: Schema.String
      }),
      execute: (logo) => sql`
        INSERT INTO status_page_logos (page_id, content_type, bytes, sha256)
        VALUES (${logo.page_id}, ${logo.content_type}, ${logo.bytes}, ${logo.sha256})
        ON CONFLICT (page_id) DO UPDATE SET content_type = EXCLUDED.content_type, bytes = EXCLUDED.bytes,
          sha256 = EXCLUDED.sha256, uploaded_at = now()
      `
    })

    const removeLogo = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ page_id: Schema.String }),
      execute: (pageId) =>
        sql`DELETE FROM status_page_logos WHERE page_id = ${pageId} RETURNING page_id::text AS page_id`
    })

    const logo = SqlSchema.findOne({
      Request: Schema.Struct({ page_id: Schema.String, sha256: Schema.String }),
      Result: LogoRow,
      execute: ({ page_id, sha256 }) =>
        sql`SELECT content_type, bytes FROM status_page_logos WHERE page_id = ${page_id} AND sha256 = ${sha256}`
    })

    // -- the pages showing some monitors

    const showingMonitors = SqlSchema.findAll({
      Request: Schema.Struct({ org_id: Schema.String, target_ids: Schema.Array(Schema.String) }),
      Result: Id,
      execute: ({ org_id, target_ids }) => sql`
        SELECT DISTINCT c.page_id::text AS id
        FROM status_page_components c JOIN status_pages p ON p.id = c.page_id
        WHERE p.org_id = ${org_id} AND c.target_id = ANY(${target_ids}::uuid[])
      `
    })

    const showingIncident = SqlSchema.findAll({
      Request: Schema.String,
      Result: Id,
      execute: (incidentId) => sql`
        SELECT DISTINCT c.page_id::text AS id
        FROM incidents i
        JOIN status_pages p ON p.org_id = i.org_id
        JOIN status_page_components c ON c.page_id = p.id
        WHERE i.id = ${incidentId} AND (c.target_id = i.target_id OR c.target_id IN (
          SELECT ic.target_id FROM incident_components ic WHERE ic.incident_id = i.id))
      `
    })

    const found = (effect: Effect.Effect<Option.Option<unknown>, unknown>) =>
      Effect.map(Effect.orDie(effect), Option.isSome)
    const exists = (effect: Effect.Effect<typeof Exists.Type, unknown>) =>
      Effect.map(Effect.orDie(effect), (row) => row.found)

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      /** Runs `self` in a transaction. */
      transaction: Transaction.make(sql),
      /** Holds the page's row lock to the end of the transaction; false when the org has no such page. */
      lock: (orgId: string, id: string) => found(lock({ org_id: orgId, id })),
      one: (orgId: string, id: string) => Effect.map(Effect.orDie(one({ org_id: orgId, id })), Option.getOrUndefined),
      list: (orgId: string, query: { readonly limit: number; readonly offset: number }) =>
        Effect.orDie(
          Effect.all({
            total: Effect.map(count(orgId), (row) => row.n),
            rows: page({ org_id: orgId, ...query })
          })
        ),
      /** A page by slug (any case) of a live org. */
      bySlug: (slug: string) => Effect.map(Effect.orDie(bySlug(slug.toLowerCase())), Option.getOrUndefined),
      byId: (id: string) => Effect.map(Effect.orDie(byId(id)), Option.getOrUndefined),
      /** Holds the account's lock to the end of the transaction: its quota counts serialise on it. */
      lockAccount: (accountId: string) => Effect.orDie(lockAccount(accountId)),
      /** The account's pages across its live orgs. */
      countOfAccount: (accountId: string) => Effect.map(Effect.orDie(countOfAccount(accountId)), (row) => row.n),
      /** Whether another page (any but `except`) has the slug, in lower case. */
      slugTaken: (slug: string, except: string | null) => exists(slugTaken({ value: slug, except })),
      domainTaken: (domain: string, except: string | null) => exists(domainTaken({ value: domain, except })),
      insert: (row: typeof NewPage.Type) => unique(insert(row)),
      update: (change: typeof PageChange.Type) => unique(update(change)),
      /** Deletes the org's page; false when there was none. */
      remove: (orgId: string, id: string) => found(remove({ org_id: orgId, id })),
      /** Marks the page changed now (a component or the logo). */
      touch: (id: string) => Effect.orDie(touch(id)),
      setAccess: (id: string, access: StatusPage.Access) => Effect.orDie(setAccess({ id, access })),
      /** Stores a new password hash; the version it bumps ends the sessions and feed links of the old one. */
      setPassword: (id: string, hash: string, userId: string) =>
        Effect.orDie(setPassword({ id, hash, user_id: userId })),
      /** Signs out every device signed in with the page password. */
      endPasswordSessions: (pageId: string) => Effect.orDie(endPasswordSessions(pageId)),
      components: (pageId: string) => Effect.orDie(components(pageId)),
      targetInOrg: (orgId: string, targetId: string) => exists(targetInOrg({ org_id: orgId, target_id: targetId })),
      onPage: (pageId: string, targetId: string) => exists(onPage({ page_id: pageId, target_id: targetId })),
      /**
       * The distinct monitors on the account's pages (live orgs), and whether `targetId` is one of them already.
       */
      componentUsage: (accountId: string, targetId: string) =>
        Effect.orDie(usage({ account_id: accountId, target_id: targetId })),
      insertComponent: (row: typeof NewComponent.Type) => Effect.orDie(insertComponent(row)),
      updateComponent: (change: typeof ComponentChange.Type) => Effect.orDie(updateComponent(change)),
      /** False when the monitor was not on the page. */
      removeComponent: (pageId: string, targetId: string) =>
        found(removeComponent({ page_id: pageId, target_id: targetId })),
      /** Numbers the page's components in this order of monitor ids. */
      reorder: (pageId: string, order: ReadonlyArray<string>) => Effect.orDie(reorder({ page_id: pageId, order })),
      putLogo: (
        pageId: string,
        logo: { readonly contentType: string; readonly bytes: Uint8Array; readonly sha256: string }
      ) =>
        Effect.orDie(
          putLogo({ page_id: pageId, content_type: logo.contentType, bytes: logo.bytes, sha256: logo.sha256 })
        ),
      /** False when the page had no logo. */
      removeLogo: (pageId: string) => found(removeLogo(pageId)),
      /** A logo by page and version. */
      logo: (pageId: string, sha256: string) =>
        Effect.map(Effect.orDie(logo({ page_id: pageId, sha256 })), Option.getOrUndefined),
      /** The org's pages showing any of these monitors. */
      showingMonitors: (orgId: string, targetIds: ReadonlyArray<string>) =>
        showingMonitors({ org_id: orgId, target_ids: targetIds }),
      /** The pages showing the incident's monitor or one of its declared components. */
      showingIncident: (incidentId: string) => showingIncident(incidentId)
    }
  })
}) {}
