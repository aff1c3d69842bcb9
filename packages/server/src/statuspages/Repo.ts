/**
 * Status pages' SQL: the pages with their logo's version, their components, their logo, the password columns, and
 * which pages show some monitors (for `PageChanges`). Timestamps arrive as `Date`s. A slug, domain or `managed_by`
 * taken by a concurrent write is a `UniqueViolation` for the service to answer; every other database failure is a
 * defect.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as ManagedBy from "@signalman/core/ManagedBy"
import { PublicLocale } from "@signalman/core/PublicLocale"
import * as StatusPage from "@signalman/core/StatusPage"
import { WriteSource } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as AccountLock from "../database/AccountLock.js"
import * as ManagedColumns from "../database/ManagedColumns.js"
import * as Transaction from "../database/Transaction.js"
import { refusable, UniqueViolation } from "../database/UniqueViolation.js"

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
  ...ManagedColumns.fields,
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf,
  logo_sha256: Schema.NullOr(Schema.String)
})
export type PageRow = typeof PageRow.Type

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
  created_by: Schema.String,
  ...ManagedColumns.fields
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
  write_source: WriteSource,
  /** Stamped when given; left as stored otherwise. */
  managed_by: Schema.UndefinedOr(ManagedBy.ManagedBy)
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
const Listing = Schema.Struct({
  org_id: Schema.String,
  managed_by: Schema.UndefinedOr(Schema.String),
  limit: Schema.Int,
  offset: Schema.Int
})

/** A page of the org's pages, of one config project when `managed_by` is given. */
export interface ListQuery {
  readonly limit: number
  readonly offset: number
  readonly managed_by?: string | undefined
}

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

    const listed = (listing: typeof Listing.Encoded) =>
      sql.and([
        sql`p.org_id = ${listing.org_id}`,
        ...(listing.managed_by === undefined ? [] : [sql`p.managed_by_project = ${listing.managed_by}`])
      ])

    const count = SqlSchema.single({
      Request: Listing,
      Result: Count,
      execute: (listing) => sql`SELECT count(*)::int AS n FROM status_pages p WHERE ${listed(listing)}`
    })

    const page = SqlSchema.findAll({
      Request: Listing,
      Result: PageRow,
      execute: (listing) => sql`
        ${selectPages} WHERE ${listed(listing)} ORDER BY p.created_at, p.id
        LIMIT ${listing.limit} OFFSET ${listing.offset}
      `
    })

    const holder = SqlSchema.findAll({
      Request: ManagedColumns.Claim,
      Result: Id,
      execute: (c) => sql`SELECT id::text AS id FROM status_pages WHERE ${ManagedColumns.holding(sql, c)}`
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
          branding, write_source, created_by, managed_by_project, managed_by_key)
        VALUES (${row.id}, ${row.org_id}, ${row.account_id}, ${row.slug}, ${row.name}, ${row.published},
          ${row.public_locale}, ${row.custom_domain}, ${row.branding}::jsonb, ${row.write_source}, ${row.created_by},
          ${row.managed_by_project}, ${row.managed_by_key})
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
          ${ManagedColumns.stamp(sql, change.managed_by)}
          write_source = ${change.write_source},
          updated_at = now()
        WHERE id = ${change.id}
      `
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
      list: (orgId: string, query: ListQuery) => {
        const listing = { org_id: orgId, managed_by: query.managed_by, limit: query.limit, offset: query.offset }
        return Effect.orDie(Effect.all({ total: Effect.map(count(listing), (row) => row.n), rows: page(listing) }))
      },
      /** The page of the org, other than `except`, that holds this (project, key), if any. */
      holder: (orgId: string, claim: ManagedBy.ManagedBy, except: string | null = null) =>
        Effect.map(Effect.orDie(holder({ org_id: orgId, claim, except })), (rows): string | undefined => rows[0]?.id),
      /** A page by slug (any case) of a live org. */
      bySlug: (slug: string) => Effect.map(Effect.orDie(bySlug(slug.toLowerCase())), Option.getOrUndefined),
      byId: (id: string) => Effect.map(Effect.orDie(byId(id)), Option.getOrUndefined),
      /** Holds the account's lock to the end of the transaction: its quota counts serialise on it. */
      lockAccount: (accountId: string) => AccountLock.lock(sql, accountId),
      /** The account's pages across its live orgs. */
      countOfAccount: (accountId: string) => Effect.map(Effect.orDie(countOfAccount(accountId)), (row) => row.n),
      /** Whether another page (any but `except`) has the slug, in lower case. */
      slugTaken: (slug: string, except: string | null) => exists(slugTaken({ value: slug, except })),
      domainTaken: (domain: string, except: string | null) => exists(domainTaken({ value: domain, except })),
      insert: (row: typeof NewPage.Type) => refusable(insert(row)),
      update: (change: typeof PageChange.Type) => refusable(update(change)),
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
}) {
  /**
   * An in-memory repository for unit tests of the status pages' rules: pages, their components and logos in one
   * store for every org. Slugs and custom domains are unique in lower case, a write breaking that failing with the
   * `UniqueViolation` the database's indexes give (`status_pages_slug`, `status_pages_custom_domain`); a monitor
   * put twice on a page is a defect, as the primary key makes it. So is a `managed_by` another page of the org
   * holds (`status_pages_managed_by`). Transactions run one at a time (what the
   * account's and the page's locks settle to) and a failed one leaves the store as it was. `targets` gives each
   * org's monitors, `deletedOrgs` the orgs pending deletion (no public pages, not counted), `incidents` what an
   * incident concerns; the password sessions and the database's own clock are not modelled.
   */
  static readonly Test = (
    options: {
      readonly targets?: Readonly<Record<string, ReadonlyArray<string>>>
      readonly deletedOrgs?: ReadonlyArray<string>
      readonly incidents?: Readonly<
        Record<
          string,
          { readonly orgId: string; readonly targetId: string; readonly components?: ReadonlyArray<string> }
        >
      >
    } = {}
  ): Layer.Layer<StatusPagesRepo> =>
    Layer.effect(
      StatusPagesRepo,
      Effect.gen(function* () {
        type Stored = Omit<PageRow, "logo_sha256">
        type StoredComponent = StatusPage.Component & { readonly created: number }
        interface Store {
          pages: ReadonlyMap<string, Stored>
          components: ReadonlyMap<string, ReadonlyArray<StoredComponent>>
          logos: ReadonlyMap<string, typeof LogoRow.Type & { readonly sha256: string }>
        }
        // Every write replaces what it changes, so a transaction's snapshot is the three maps as they were.
        const store: Store = { pages: new Map(), components: new Map(), logos: new Map() }
        let sequence = 0
        const serial = yield* Effect.makeSemaphore(1)
        const inTransaction = FiberRef.unsafeMake(false)

        const live = (orgId: string) => !(options.deletedOrgs ?? []).includes(orgId)
        const pages = () => [...store.pages.values()]
        const row = (page: Stored): PageRow => ({ ...page, logo_sha256: store.logos.get(page.id)?.sha256 ?? null })
        const ofOrg = (orgId: string, id: string) => {
          const page = store.pages.get(id)
          return page === undefined || page.org_id !== orgId ? undefined : page
        }
        const write = (id: string, change: Partial<Stored>) => {
          const page = store.pages.get(id)
          if (page !== undefined) store.pages = new Map(store.pages).set(id, { ...page, ...change })
        }
        const setComponents = (pageId: string, all: ReadonlyArray<StoredComponent>) => {
          store.components = new Map(store.components).set(pageId, all)
        }
        const componentsOf = (pageId: string) => store.components.get(pageId) ?? []
        const holderOf = (orgId: string, claim: ManagedBy.ManagedBy, except: string | null) =>
          pages().find(
            (p) =>
              p.org_id === orgId &&
              p.id !== except &&
              p.managed_by_project === claim.project &&
              p.managed_by_key === claim.key
          )
        const clash = (page: {
          readonly id: string
          readonly slug: string
          readonly custom_domain: string | null
          readonly org_id: string
          readonly managed_by: ManagedBy.ManagedBy | null
        }) =>
          Effect.suspend(() => {
            if (page.managed_by !== null && holderOf(page.org_id, page.managed_by, page.id) !== undefined) {
              return Effect.fail(new UniqueViolation({ constraint: "status_pages_managed_by" }))
            }
            const others = pages().filter((other) => other.id !== page.id)
            if (others.some((other) => other.slug.toLowerCase() === page.slug.toLowerCase())) {
              return Effect.fail(new UniqueViolation({ constraint: "status_pages_slug" }))
            }
            const domain = page.custom_domain?.toLowerCase()
            if (domain !== undefined && others.some((other) => other.custom_domain?.toLowerCase() === domain)) {
              return Effect.fail(new UniqueViolation({ constraint: "status_pages_custom_domain" }))
            }
            return Effect.void
          })
        const sorted = (all: ReadonlyArray<StoredComponent>) =>
          [...all].sort(
            (a, b) =>
              a.sort_order - b.sort_order ||
              a.created - b.created ||
              (a.target_id < b.target_id ? -1 : a.target_id > b.target_id ? 1 : 0)
          )
        const component = (c: StoredComponent) =>
          new StatusPage.Component({
            target_id: c.target_id,
            public_name: c.public_name,
            public_description: c.public_description,
            public_group: c.public_group,
            sort_order: c.sort_order
          })
        const showing = (orgId: string, targetIds: ReadonlyArray<string>) =>
          pages()
            .filter(
              (page) => page.org_id === orgId && componentsOf(page.id).some((c) => targetIds.includes(c.target_id))
            )
            .map((page) => ({ id: page.id as string }))

        return StatusPagesRepo.make({
          transaction: <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
            Effect.flatMap(FiberRef.get(inTransaction), (nested) => {
              const undoable = Effect.suspend(() => {
                const saved = { ...store }
                return Effect.onError(self, () => Effect.sync(() => Object.assign(store, saved)))
              })
              return nested ? undoable : serial.withPermits(1)(Effect.locally(undoable, inTransaction, true))
            }),
          lock: (orgId, id) => Effect.sync(() => ofOrg(orgId, id) !== undefined),
          one: (orgId, id) =>
            Effect.sync(() => {
              const page = ofOrg(orgId, id)
              return page === undefined ? undefined : row(page)
            }),
          list: (orgId, query) =>
            Effect.sync(() => {
              const all = pages().filter(
                (page) =>
                  page.org_id === orgId &&
                  (query.managed_by === undefined || page.managed_by_project === query.managed_by)
              )
              return { total: all.length, rows: all.slice(query.offset, query.offset + query.limit).map(row) }
            }),
          bySlug: (slug) =>
            Effect.sync(() => {
              const page = pages().find((p) => p.slug.toLowerCase() === slug.toLowerCase() && live(p.org_id))
              return page === undefined ? undefined : row(page)
            }),
          byId: (id) =>
            Effect.sync(() => {
              const page = store.pages.get(id)
              return page === undefined ? undefined : row(page)
            }),
          lockAccount: () => Effect.void,
          countOfAccount: (accountId) =>
            Effect.sync(() => pages().filter((page) => page.account_id === accountId && live(page.org_id)).length),
          slugTaken: (slug, except) =>
            Effect.sync(() => pages().some((page) => page.slug.toLowerCase() === slug && page.id !== except)),
          domainTaken: (domain, except) =>
            Effect.sync(() =>
              pages().some((page) => page.custom_domain?.toLowerCase() === domain && page.id !== except)
            ),
          holder: (orgId, claim, except = null) => Effect.sync(() => holderOf(orgId, claim, except)?.id),
          insert: (page) =>
            Effect.zipRight(
              clash({ ...page, managed_by: ManagedColumns.managedBy(page) }),
              Effect.sync(() => {
                const now = new Date()
                const { created_by: _, ...fields } = page
                store.pages = new Map(store.pages).set(page.id, {
                  ...fields,
                  id: StatusPage.StatusPageId.make(page.id),
                  access: null,
                  password_hash: null,
                  password_set_at: null,
                  password_set_by: null,
                  password_version: 0,
                  password_last_sign_in_at: null,
                  created_at: now,
                  updated_at: now
                })
              })
            ),
          update: ({ managed_by, ...change }) =>
            Effect.suspend(() => {
              const stored = store.pages.get(change.id)
              if (stored === undefined) return Effect.void
              const managed =
                managed_by === undefined
                  ? ManagedColumns.columns(ManagedColumns.managedBy(stored))
                  : ManagedColumns.columns(managed_by)
              return Effect.zipRight(
                clash({ ...change, org_id: stored.org_id, managed_by: ManagedColumns.managedBy(managed) }),
                Effect.sync(() =>
                  write(change.id, {
                    ...change,
                    ...managed,
                    id: StatusPage.StatusPageId.make(change.id),
                    updated_at: new Date()
                  })
                )
              )
            }),
          remove: (orgId, id) =>
            Effect.sync(() => {
              if (ofOrg(orgId, id) === undefined) return false
              const pagesLeft = new Map(store.pages)
              pagesLeft.delete(id)
              const componentsLeft = new Map(store.components)
              componentsLeft.delete(id)
              const logosLeft = new Map(store.logos)
              logosLeft.delete(id)
              Object.assign(store, { pages: pagesLeft, components: componentsLeft, logos: logosLeft })
              return true
            }),
          touch: (id) => Effect.sync(() => write(id, { updated_at: new Date() })),
          setAccess: (id, access) => Effect.sync(() => write(id, { access })),
          setPassword: (id, hash, userId) =>
            Effect.sync(() =>
              write(id, {
                password_hash: hash,
                password_set_at: new Date(),
                password_set_by: userId,
                password_version: (store.pages.get(id)?.password_version ?? 0) + 1
              })
            ),
          endPasswordSessions: () => Effect.void,
          components: (pageId) => Effect.sync(() => sorted(componentsOf(pageId)).map(component)),
          targetInOrg: (orgId, targetId) => Effect.sync(() => (options.targets?.[orgId] ?? []).includes(targetId)),
          onPage: (pageId, targetId) => Effect.sync(() => componentsOf(pageId).some((c) => c.target_id === targetId)),
          componentUsage: (accountId, targetId) =>
            Effect.sync(() => {
              const onPages = new Set(
                pages()
                  .filter((page) => page.account_id === accountId && live(page.org_id))
                  .flatMap((page) => componentsOf(page.id).map((c) => c.target_id as string))
              )
              return { n: onPages.size, published: onPages.has(targetId) }
            }),
          insertComponent: (c) =>
            Effect.suspend(() => {
              const all = componentsOf(c.page_id)
              if (all.some((other) => other.target_id === c.target_id)) {
                return Effect.dieMessage(`${c.target_id} is on page ${c.page_id} already`)
              }
              const sortOrder = all.length === 0 ? 0 : Math.max(...all.map((other) => other.sort_order)) + 1
              return Effect.sync(() =>
                setComponents(c.page_id, [
                  ...all,
                  {
                    ...c,
                    target_id: StatusPage.Component.fields.target_id.make(c.target_id),
                    sort_order: sortOrder,
                    created: sequence++
                  }
                ])
              )
            }),
          updateComponent: (change) =>
            Effect.sync(() =>
              setComponents(
                change.page_id,
                componentsOf(change.page_id).map((c) =>
                  c.target_id === change.target_id
                    ? {
                        ...c,
                        public_name: change.public_name,
                        public_description: change.public_description,
                        public_group: change.public_group
                      }
                    : c
                )
              )
            ),
          removeComponent: (pageId, targetId) =>
            Effect.sync(() => {
              const all = componentsOf(pageId)
              setComponents(
                pageId,
                all.filter((c) => c.target_id !== targetId)
              )
              return all.some((c) => c.target_id === targetId)
            }),
          reorder: (pageId, order) =>
            Effect.sync(() =>
              setComponents(
                pageId,
                componentsOf(pageId).map((c) => {
                  const at = order.indexOf(c.target_id)
                  return at === -1 ? c : { ...c, sort_order: at }
                })
              )
            ),
          putLogo: (pageId, logo) =>
            Effect.sync(() => {
              store.logos = new Map(store.logos).set(pageId, {
                content_type: logo.contentType,
                bytes: logo.bytes,
                sha256: logo.sha256
              })
            }),
          removeLogo: (pageId) =>
            Effect.sync(() => {
              if (!store.logos.has(pageId)) return false
              const left = new Map(store.logos)
              left.delete(pageId)
              store.logos = left
              return true
            }),
          logo: (pageId, sha256) =>
            Effect.sync(() => {
              const stored = store.logos.get(pageId)
              return stored === undefined || stored.sha256 !== sha256
                ? undefined
                : { content_type: stored.content_type, bytes: stored.bytes }
            }),
          showingMonitors: (orgId, targetIds) => Effect.sync(() => showing(orgId, targetIds)),
          showingIncident: (incidentId) =>
            Effect.sync(() => {
              const incident = options.incidents?.[incidentId]
              return incident === undefined
                ? []
                : showing(incident.orgId, [incident.targetId, ...(incident.components ?? [])])
            })
        })
      })
    )
}
