import * as HttpServer from "@effect/platform/HttpServer"
import { describe, expect, it } from "@effect/vitest"
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import { AccountId, OrgId } from "@signalman/core/Identity"
import * as Plan from "@signalman/core/Plan"
import * as StatusPage from "@signalman/core/StatusPage"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { AuditLog, type Entry } from "../src/audit/AuditLog.js"
import * as Config from "../src/config/Config.js"
import { Invalidation } from "../src/infra/Invalidation.js"
import { QuotaEvents } from "../src/limits/Quota.js"
import { LimitsRepo, type QuotaEvent } from "../src/limits/Repo.js"
import { PageComponents } from "../src/statuspages/Components.js"
import { StatusPagesRepo } from "../src/statuspages/Repo.js"
import { StatusPages } from "../src/statuspages/StatusPages.js"
import { SubscriptionEnds } from "../src/statuspages/SubscriptionEnds.js"

const account = AccountId.make("01900000-0000-7000-8000-0000000000a1")
const org: ActiveOrg = {
  id: OrgId.make("01900000-0000-7000-8000-0000000000b1"),
  slug: "acme",
  accountId: account,
  role: "owner"
}
// Another org of the same account, and an org of another account.
const sibling: ActiveOrg = { ...org, id: OrgId.make("01900000-0000-7000-8000-0000000000b2"), slug: "acme-two" }
const stranger: ActiveOrg = {
  id: OrgId.make("01900000-0000-7000-8000-0000000000c1"),
  slug: "other",
  accountId: AccountId.make("01900000-0000-7000-8000-0000000000a2"),
  role: "owner"
}
const user = "01900000-0000-7000-8000-0000000000d1"
const web = "01900000-0000-7000-8000-0000000000e1"
const db = "01900000-0000-7000-8000-0000000000e2"
const api = "01900000-0000-7000-8000-0000000000e3"
const foreign = "01900000-0000-7000-8000-0000000000e9"

const { founding, free, pro } = Plan.plans
const withQuota = (plan: Plan.Plan, quotas: Partial<Plan.Plan["quotas"]>): Plan.Plan => ({
  ...plan,
  quotas: { ...plan.quotas, ...quotas }
})

const create = Schema.decodeUnknownSync(StatusPage.CreateStatusPage)
const patch = Schema.decodeUnknownSync(StatusPage.PatchStatusPage)
const add = Schema.decodeUnknownSync(StatusPage.AddComponent)
const reorder = Schema.decodeUnknownSync(StatusPage.ReorderComponents)

/** The services on the in-memory repository, with what they logged, published, audited and ended kept to read. */
const setup = (options: Parameters<typeof StatusPagesRepo.Test>[0] = {}) => {
  const quotaEvents: Array<typeof QuotaEvent.Type> = []
  const published: Array<string> = []
  const audited: Array<Entry> = []
  const passwordEnds: Array<string> = []
  const standIns = Layer.mergeAll(
    StatusPagesRepo.Test({ targets: { [org.id]: [web, db, api], [sibling.id]: [web, db, api] }, ...options }),
    QuotaEvents.DefaultWithoutDependencies.pipe(Layer.provide(LimitsRepo.Test({}, quotaEvents))),
    Layer.succeed(AuditLog, AuditLog.make({ append: (entry) => Effect.sync(() => void audited.push(entry)) })),
    Layer.succeed(
      Invalidation,
      Invalidation.make({
        subscribe: () => {},
        publish: (tag) => Effect.sync(() => void published.push(tag)),
        publishMany: (tags) => Effect.sync(() => void published.push(...tags))
      })
    ),
    Layer.succeed(SubscriptionEnds, {
      passwordCount: () => Effect.succeed(0),
      endPassword: (pageId) => Effect.sync(() => void passwordEnds.push(pageId)),
      endViewer: () => Effect.void
    }),
    Config.layer(Config.fromEnv({ AUTH__PUBLIC_BASE_URL: "https://signalman.example" })),
    Layer.succeed(
      HttpServer.HttpServer,
      HttpServer.make({ serve: () => Effect.void, address: { _tag: "TcpAddress", hostname: "127.0.0.1", port: 8080 } })
    )
  )
  const layer = PageComponents.DefaultWithoutDependencies.pipe(
    Layer.provideMerge(StatusPages.DefaultWithoutDependencies),
    Layer.provideMerge(standIns)
  )
  return { layer, quotaEvents, published, audited, passwordEnds }
}

const refusal = (error: { readonly status: number; readonly code: string; readonly field: string | null }) => ({
  status: error.status,
  code: error.code,
  field: error.field
})

describe("StatusPages", () => {
  it.effect("create answers the defaults and live_url; get, list, patch and delete; every change published", () => {
    const { layer, published } = setup()
    return Effect.gen(function* () {
      const pages = yield* StatusPages
      const page = yield* pages.create(org, user, free, create({ slug: "acme", name: "  Acme  " }), "ui")
      expect(page).toMatchObject({
        slug: "acme",
        name: "Acme",
        published: false,
        public_locale: "en",
        custom_domain: null,
        branding: { primary_color: null, theme: "auto", hide_powered_by: false },
        access: null,
        logo_url: null,
        write_source: "ui"
      })
      expect(page.live_url).toBe("https://signalman.example/p/acme")
      expect(yield* pages.one(org, page.id)).toEqual(page)
      const list = yield* pages.list(org, { limit: 50, offset: 0 })
      expect(list.total).toBe(1)
      expect(list.data.map((p) => p.id)).toEqual([page.id])
      expect((yield* pages.list(sibling, { limit: 50, offset: 0 })).total).toBe(0)

      const changed = yield* pages.update(
        org,
        page.id,
        user,
        free,
        patch({ name: "Acme Inc", published: true, public_locale: "de", branding: { primary_color: "#AA00FF" } }),
        "api"
      )
      expect(changed).toMatchObject({
        name: "Acme Inc",
        published: true,
        public_locale: "de",
        branding: { primary_color: "#aa00ff", theme: "auto", hide_powered_by: false },
        write_source: "api"
      })
      yield* pages.remove(org, page.id)
      expect((yield* Effect.flip(pages.one(org, page.id))).code).toBe("NOT_FOUND")
      expect(published).toEqual([`status_page:${page.id}`, `status_page:${page.id}`, `status_page:${page.id}`])
    }).pipe(Effect.provide(layer))
  })

  it.effect("an unknown page, or another org's, is 404 NOT_FOUND for get, patch, delete and the logo", () =>
    Effect.gen(function* () {
      const pages = yield* StatusPages
      const page = yield* pages.create(org, user, free, create({ slug: "mine", name: "Mine" }), "ui")
      const unknown = "01900000-0000-7000-8000-00000000ffff"
      for (const [who, id] of [
        [stranger, page.id],
        [org, unknown]
      ] as const) {
        expect(refusal(yield* Effect.flip(pages.one(who, id)))).toEqual({ status: 404, code: "NOT_FOUND", field: null })
        expect((yield* Effect.flip(pages.update(who, id, user, free, patch({ name: "x" }), "ui"))).code).toBe(
          "NOT_FOUND"
        )
        expect((yield* Effect.flip(pages.remove(who, id))).code).toBe("NOT_FOUND")
        expect((yield* Effect.flip(pages.removeLogo(who, id))).code).toBe("NOT_FOUND")
        expect(
          (yield* Effect.flip(
            pages.setLogo(who, id, { contentType: "image/png", bytes: new Uint8Array(1), sha256: "a" })
          )).code
        ).toBe("NOT_FOUND")
      }
      expect((yield* pages.one(org, page.id)).name).toBe("Mine")
    }).pipe(Effect.provide(setup().layer))
  )

  it.effect("a taken slug is 409 SLUG_TAKEN on create and patch, across orgs; a page keeps its own slug", () =>
    Effect.gen(function* () {
      const pages = yield* StatusPages
      const first = yield* pages.create(org, user, founding, create({ slug: "taken", name: "One" }), "ui")
      const other = yield* pages.create(stranger, user, founding, create({ slug: "other", name: "Two" }), "ui")
      expect(
        refusal(yield* Effect.flip(pages.create(org, user, founding, create({ slug: "taken", name: "x" }), "ui")))
      ).toEqual({ status: 409, code: "SLUG_TAKEN", field: "slug" })
      expect(
        refusal(yield* Effect.flip(pages.update(stranger, other.id, user, founding, patch({ slug: "taken" }), "ui")))
      ).toEqual({ status: 409, code: "SLUG_TAKEN", field: "slug" })
      const same = yield* pages.update(org, first.id, user, founding, patch({ slug: "taken", name: "Again" }), "ui")
      expect(same.name).toBe("Again")
      // Deleted, the slug is free again.
      yield* pages.remove(org, first.id)
      expect((yield* pages.update(stranger, other.id, user, founding, patch({ slug: "taken" }), "ui")).slug).toBe(
        "taken"
      )
    }).pipe(Effect.provide(setup().layer))
  )

  it.effect("a custom domain: live_url follows; a taken one is 409 CUSTOM_DOMAIN_TAKEN; null removes it", () =>
    Effect.gen(function* () {
      const pages = yield* StatusPages
      const first = yield* pages.create(org, user, founding, create({ slug: "one", name: "One" }), "ui")
      const withDomain = yield* pages.update(
        org,
        first.id,
        user,
        founding,
        patch({ custom_domain: "status.acme.example" }),
        "ui"
      )
      expect(withDomain.live_url).toBe("https://status.acme.example/")
      const second = yield* pages.create(org, user, founding, create({ slug: "two", name: "Two" }), "ui")
      const taken = { status: 409, code: "CUSTOM_DOMAIN_TAKEN", field: "custom_domain" }
      expect(
        refusal(
          yield* Effect.flip(
            pages.update(org, second.id, user, founding, patch({ custom_domain: "status.acme.example" }), "ui")
          )
        )
      ).toEqual(taken)
      const elsewhere = create({ slug: "three", name: "Three", custom_domain: "status.acme.example" })
      expect(refusal(yield* Effect.flip(pages.create(stranger, user, founding, elsewhere, "ui")))).toEqual(taken)
      const removed = yield* pages.update(org, first.id, user, founding, patch({ custom_domain: null }), "ui")
      expect(removed.custom_domain).toBeNull()
      expect(removed.live_url).toMatch(/\/p\/one$/)
      const moved = yield* pages.update(
        org,
        second.id,
        user,
        founding,
        patch({ custom_domain: "status.acme.example" }),
        "ui"
      )
      expect(moved.custom_domain).toBe("status.acme.example")
    }).pipe(Effect.provide(setup().layer))
  )

  it.effect("plan gates: 403 CUSTOM_DOMAIN_DISABLED and WHITE_LABEL_DISABLED; a page keeps what it has", () =>
    Effect.gen(function* () {
      const pages = yield* StatusPages
      const page = yield* pages.create(org, user, free, create({ slug: "gated", name: "Gated" }), "ui")
      expect(
        refusal(
          yield* Effect.flip(pages.update(org, page.id, user, free, patch({ custom_domain: "status.x.example" }), "ui"))
        )
      ).toEqual({ status: 403, code: "CUSTOM_DOMAIN_DISABLED", field: "custom_domain" })
      expect(
        refusal(
          yield* Effect.flip(
            pages.update(org, page.id, user, founding, patch({ branding: { hide_powered_by: true } }), "ui")
          )
        )
      ).toEqual({ status: 403, code: "WHITE_LABEL_DISABLED", field: "branding.hide_powered_by" })
      const gatedCreate = create({ slug: "other", name: "x", custom_domain: "status.y.example" })
      expect((yield* Effect.flip(pages.create(org, user, free, gatedCreate, "ui"))).code).toBe("CUSTOM_DOMAIN_DISABLED")
      // Set on pro, then the plan loses both features: the page keeps them, and sending them again is no new value.
      const rich = yield* pages.update(
        org,
        page.id,
        user,
        pro,
        patch({ custom_domain: "status.x.example", branding: { hide_powered_by: true } }),
        "ui"
      )
      expect(rich.branding.hide_powered_by).toBe(true)
      const kept = yield* pages.update(
        org,
        page.id,
        user,
        free,
        patch({ name: "Renamed", custom_domain: "status.x.example", branding: { hide_powered_by: true } }),
        "ui"
      )
      expect(kept).toMatchObject({ name: "Renamed", custom_domain: "status.x.example" })
      expect(kept.branding.hide_powered_by).toBe(true)
    }).pipe(Effect.provide(setup().layer))
  )

  it.effect(
    "max_status_pages counts the account's live orgs: 422 QUOTA_EXCEEDED, logged; concurrent creates settle",
    () => {
      const { layer, quotaEvents } = setup({ deletedOrgs: ["01900000-0000-7000-8000-0000000000b3"] })
      const gone: ActiveOrg = { ...org, id: OrgId.make("01900000-0000-7000-8000-0000000000b3") }
      return Effect.gen(function* () {
        const pages = yield* StatusPages
        // A page of an org pending deletion does not count.
        yield* pages.create(gone, user, founding, create({ slug: "gone", name: "Gone" }), "ui")
        yield* pages.create(sibling, user, founding, create({ slug: "sibling", name: "Sibling" }), "ui")
        const replies = yield* Effect.all(
          Array.from({ length: 4 }, (_, i) =>
            Effect.either(pages.create(org, user, founding, create({ slug: `page-${i}`, name: "Page" }), "api"))
          ),
          { concurrency: "unbounded" }
        )
        const refused = replies.flatMap((r) => (r._tag === "Left" ? [r.left] : []))
        expect(replies.filter((r) => r._tag === "Right")).toHaveLength(1)
        expect(refused.map(refusal)).toEqual(
          Array.from({ length: 3 }, () => ({ status: 422, code: "QUOTA_EXCEEDED", field: null }))
        )
        expect(refused[0]?.details).toMatchObject({ quota: "max_status_pages", limit: 2, current: 2 })
        expect(quotaEvents.map((e) => [e.account_id, e.name, e.limit_value, e.current_value])).toEqual(
          Array.from({ length: 3 }, () => [account, "max_status_pages", 2, 2])
        )
        // Another account has its own allowance.
        yield* pages.create(stranger, user, founding, create({ slug: "theirs", name: "Theirs" }), "ui")
        // A deletion frees a place.
        yield* pages.remove(org, (yield* pages.list(org, { limit: 10, offset: 0 })).data[0]?.id ?? "")
        yield* pages.create(org, user, founding, create({ slug: "again", name: "Again" }), "ui")
      }).pipe(Effect.provide(layer))
    }
  )

  it.effect("access: PRIVATE_PAGES_DISABLED on free; a refused access leaves the whole patch undone", () =>
    Effect.gen(function* () {
      const pages = yield* StatusPages
      const page = yield* pages.create(org, user, founding, create({ slug: "private", name: "Acme status" }), "ui")
      const refused = yield* Effect.flip(
        pages.update(org, page.id, user, founding, patch({ name: "Renamed", access: { protected: true } }), "ui")
      )
      expect(refusal(refused)).toEqual({ status: 400, code: "ACCESS_INVALID", field: "access.protected" })
      expect((yield* pages.one(org, page.id)).name).toBe("Acme status")
      const onFree = patch({ access: { protected: true, password: { enabled: true, value: "x" } } })
      expect(refusal(yield* Effect.flip(pages.update(org, page.id, user, free, onFree, "ui")))).toEqual({
        status: 403,
        code: "PRIVATE_PAGES_DISABLED",
        field: null
      })
    }).pipe(Effect.provide(setup().layer))
  )

  it.effect("a page password: set, then changed, audited without its value; the change ends password sessions", () => {
    const { layer, audited, passwordEnds } = setup()
    return Effect.gen(function* () {
      const pages = yield* StatusPages
      const page = yield* pages.create(org, user, founding, create({ slug: "secret", name: "Secret" }), "ui")
      const password = (value: string) =>
        pages.update(
          org,
          page.id,
          user,
          founding,
          patch({ access: { protected: true, password: { enabled: true, value } } }),
          "ui"
        )
      const first = yield* password("open sesame")
      expect(first.access).toMatchObject({ protected: true, password: { enabled: true } })
      expect(passwordEnds).toEqual([])
      yield* password("new words")
      expect(passwordEnds).toEqual([page.id])
      expect(audited.map((e) => e.event)).toEqual(["status_page.password_set", "status_page.password_changed"])
      expect(JSON.stringify(audited)).not.toContain("open sesame")
      expect(JSON.stringify(audited)).not.toContain("new words")
    }).pipe(Effect.provide(layer))
  })

  it.effect("the repository stand-in refuses a second slug, domain or managed_by with the typed UniqueViolation", () =>
    Effect.gen(function* () {
      const repo = yield* StatusPagesRepo
      const row = (id: string, slug: string, domain: string | null, managedKey: string | null = null) => ({
        id,
        org_id: org.id,
        account_id: account,
        slug,
        name: "x",
        published: false,
        public_locale: "en" as const,
        custom_domain: domain,
        branding: StatusPage.defaultBranding,
        write_source: "ui" as const,
        created_by: user,
        managed_by_project: managedKey === null ? null : "infra",
        managed_by_key: managedKey
      })
      yield* repo.insert(row("01900000-0000-7000-8000-000000000f01", "one", "status.one.example", "public"))
      const slug = yield* Effect.flip(repo.insert(row("01900000-0000-7000-8000-000000000f02", "one", null)))
      expect(slug).toMatchObject({ _tag: "UniqueViolation", constraint: "status_pages_slug" })
      const domain = yield* Effect.flip(
        repo.insert(row("01900000-0000-7000-8000-000000000f03", "two", "status.one.example"))
      )
      expect(domain).toMatchObject({ _tag: "UniqueViolation", constraint: "status_pages_custom_domain" })
      const managed = yield* Effect.flip(
        repo.insert(row("01900000-0000-7000-8000-000000000f05", "five", null, "public"))
      )
      expect(managed).toMatchObject({ _tag: "UniqueViolation", constraint: "status_pages_managed_by" })
      expect(yield* repo.holder(org.id, { project: "infra", key: "public" })).toBe(
        "01900000-0000-7000-8000-000000000f01"
      )
      // A failed transaction leaves nothing behind.
      yield* Effect.flip(
        repo.transaction(
          Effect.zipRight(
            repo.insert(row("01900000-0000-7000-8000-000000000f04", "three", null)),
            Effect.fail("rolled back")
          )
        )
      )
      expect(yield* repo.byId("01900000-0000-7000-8000-000000000f04")).toBeUndefined()
    }).pipe(Effect.provide(setup().layer))
  )
})

describe("PageComponents", () => {
  it.effect("add, 409 twice, a foreign monitor, patch, reorder, remove, and max_public_components", () =>
    Effect.gen(function* () {
      const pages = yield* StatusPages
      const components = yield* PageComponents
      const plan = withQuota(founding, { max_public_components: 2 })
      const one = yield* pages.create(org, user, plan, create({ slug: "one", name: "One" }), "ui")
      const two = yield* pages.create(sibling, user, plan, create({ slug: "two", name: "Two" }), "ui")
      const added = yield* components.add(org, user, plan, one.id, add({ target_id: web, public_name: "Website" }))
      expect(added).toMatchObject({ target_id: web, public_name: "Website", sort_order: 0 })
      expect(refusal(yield* Effect.flip(components.add(org, user, plan, one.id, add({ target_id: web }))))).toEqual({
        status: 409,
        code: "COMPONENT_ALREADY_ON_PAGE",
        field: "target_id"
      })
      expect(refusal(yield* Effect.flip(components.add(org, user, plan, one.id, add({ target_id: foreign }))))).toEqual(
        { status: 400, code: "VALIDATION_FAILED", field: "target_id" }
      )
      yield* components.add(org, user, plan, one.id, add({ target_id: db }))
      // A monitor already on a page of the account costs nothing more; a third distinct one is over the quota.
      yield* components.add(sibling, user, plan, two.id, add({ target_id: web }))
      const full = yield* Effect.flip(components.add(sibling, user, plan, two.id, add({ target_id: api })))
      expect(refusal(full)).toEqual({ status: 422, code: "QUOTA_EXCEEDED", field: null })
      expect(full.details).toMatchObject({ quota: "max_public_components", limit: 2, current: 2 })

      const renamed = yield* components.update(org, one.id, web, { public_name: null, public_group: "Public" })
      expect(renamed).toMatchObject({ public_name: null, public_group: "Public" })
      const ordered = yield* components.reorder(org, one.id, reorder({ target_ids: [db, web] }))
      expect(ordered.data.map((c) => [c.target_id, c.sort_order])).toEqual([
        [db, 0],
        [web, 1]
      ])
      const bad = yield* Effect.flip(components.reorder(org, one.id, reorder({ target_ids: [db] })))
      expect(refusal(bad)).toEqual({ status: 400, code: "VALIDATION_FAILED", field: "target_ids" })
      expect(bad.details).toEqual({ missing: [web], unknown: [], repeated: [] })

      yield* components.remove(org, one.id, web)
      expect((yield* Effect.flip(components.remove(org, one.id, web))).code).toBe("NOT_FOUND")
      expect((yield* components.list(org, one.id)).data.map((c) => c.target_id)).toEqual([db])
      expect((yield* Effect.flip(components.list(stranger, one.id))).code).toBe("NOT_FOUND")
    }).pipe(Effect.provide(setup().layer))
  )
})
