/**
 * Monitors' own decisions, through the real `Targets` and `Admission` on the in-memory repository: the org's
 * monitors only (another org's is not found), list filters and paging, the tag inventory, credentials sealed and
 * redacted, the account's `max_targets` quota, references re-checked under the lock, and the region rules.
 */
import { describe, expect, it } from "@effect/vitest"
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import { AccountId, OrgId, SessionId } from "@signalman/core/Identity"
import * as Plan from "@signalman/core/Plan"
import * as Target from "@signalman/core/Target"
import * as TargetRules from "@signalman/core/TargetRules"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { Abuse } from "../src/abuse/Abuse.js"
import { AuditLog } from "../src/audit/AuditLog.js"
import * as Config from "../src/config/Config.js"
import { Sealer } from "../src/crypto/Sealer.js"
import { QuotaEvents } from "../src/limits/Quota.js"
import { LimitsRepo, type QuotaEvent } from "../src/limits/Repo.js"
import { Admission, type Writer } from "../src/targets/Admission.js"
import { References } from "../src/targets/References.js"
import { TargetsRepo } from "../src/targets/Repo.js"
import { Targets } from "../src/targets/Targets.js"

const account = AccountId.make("01900000-0000-7000-8000-0000000000a1")
const org: ActiveOrg = {
  id: OrgId.make("01900000-0000-7000-8000-0000000000b1"),
  slug: "acme",
  accountId: account,
  role: "owner"
}
// Another org of the same account (its monitors count toward the same quota), and an org of another account.
const sibling: ActiveOrg = { ...org, id: OrgId.make("01900000-0000-7000-8000-0000000000b2"), slug: "acme-two" }
const stranger: ActiveOrg = {
  id: OrgId.make("01900000-0000-7000-8000-0000000000c1"),
  slug: "other",
  accountId: AccountId.make("01900000-0000-7000-8000-0000000000a2"),
  role: "owner"
}
const user = "01900000-0000-7000-8000-0000000000d1"
const channel = "01900000-0000-7000-8000-0000000000f1"
const unknownId = "01900000-0000-7000-8000-0000000000ff"

const { free } = Plan.plans
const withQuota = (plan: Plan.Plan, quotas: Partial<Plan.Plan["quotas"]>): Plan.Plan => ({
  ...plan,
  quotas: { ...plan.quotas, ...quotas }
})

const decode = Schema.decodeUnknownSync(Target.CreateTarget)
const httpCheck = { type: "http", url: "https://example.com/health" }
/** A create body as the rules resolve it under the free plan. */
const resolved = (body: Record<string, unknown>, plan: Plan.Plan = free) =>
  Either.getOrThrow(TargetRules.resolveCreate(decode({ name: "x", check: httpCheck, ...body }), plan))

const regions = [
  { id: "eu", name: "Europe", city: null, country_code: null, continent: "EU", latitude: null, longitude: null },
  { id: "us", name: "America", city: null, country_code: null, continent: "NA", latitude: null, longitude: null },
  { id: "ap", name: "Asia", city: null, country_code: null, continent: "AS", latitude: null, longitude: null },
  { id: "sa", name: "South", city: null, country_code: null, continent: "SA", latitude: null, longitude: null },
  { id: "off", name: "Off", city: null, country_code: null, continent: null, latitude: null, longitude: null }
].map((r) => ({ ...r, enabled: r.id !== "off", flow_capable: r.id === "eu" }))

/** The services on the in-memory repository, with the quota events and ping tokens kept to read. */
const setup = (options: Parameters<typeof TargetsRepo.Test>[0] = {}) => {
  const quotaEvents: Array<typeof QuotaEvent.Type> = []
  const pingTokens: Array<{ readonly token: string; readonly target_id: string }> = []
  const standIns = Layer.mergeAll(
    TargetsRepo.Test({
      variables: { [org.id]: ["token"] },
      channels: { [org.id]: [channel] },
      regions,
      pingTokens,
      ...options
    }),
    QuotaEvents.DefaultWithoutDependencies.pipe(Layer.provide(LimitsRepo.Test({}, quotaEvents))),
    Layer.succeed(
      Sealer,
      Sealer.make({
        seal: (plaintext) => `sealed:${plaintext}`,
        open: (sealed) => Effect.succeed(sealed.replace(/^sealed:/, ""))
      })
    ),
    Layer.succeed(AuditLog, AuditLog.make({ append: () => Effect.void })),
    Config.layer(Config.fromEnv({ AUTH__PUBLIC_BASE_URL: "https://signalman.example" }))
  )
  const layer = Layer.mergeAll(Targets.DefaultWithoutDependencies, Admission.DefaultWithoutDependencies).pipe(
    Layer.provideMerge(Layer.mergeAll(References.DefaultWithoutDependencies, Abuse.DefaultWithoutDependencies)),
    Layer.provideMerge(standIns)
  )
  return { layer, quotaEvents, pingTokens }
}

const refusal = (error: unknown) => {
  const e = error as { status: number; code: string; field: string | null; details?: unknown }
  return { status: e.status, code: e.code, field: e.field, details: e.details }
}

describe("Targets", () => {
  it.effect("one, update and remove see only the org's own monitors; another org's is as unknown", () => {
    const { layer } = setup()
    return Effect.gen(function* () {
      const targets = yield* Targets
      const [row] = yield* targets.insert(org, user, free, [resolved({ name: "Website" })], "ui")
      expect(row).toMatchObject({ name: "Website", org_id: org.id, write_source: "ui", kind: "http" })
      expect(yield* targets.one(org, row!.id)).toEqual(row)
      expect(yield* targets.one(org, row!.id.toUpperCase())).toEqual(row)
      for (const other of [sibling, stranger]) {
        expect(yield* targets.one(other, row!.id)).toBeUndefined()
        expect(yield* targets.update(other, row!.id, resolved({ name: "mine" }), "api")).toBeUndefined()
        expect(yield* targets.remove(other, row!.id)).toBe(false)
      }
      expect(yield* targets.one(org, unknownId)).toBeUndefined()
      const changed = yield* targets.update(org, row!.id, resolved({ name: "Website v2", enabled: false }), "api")
      expect(changed).toMatchObject({ name: "Website v2", enabled: false, write_source: "api" })
      expect(changed?.created_at).toEqual(row!.created_at)
      expect(yield* targets.remove(org, row!.id)).toBe(true)
      expect(yield* targets.one(org, row!.id)).toBeUndefined()
      expect(yield* targets.remove(org, row!.id)).toBe(false)
    }).pipe(Effect.provide(layer))
  })

  it.effect(
    "claims stamp managed_by in order; a held one is refused naming its field and holder, nothing written",
    () => {
      const { layer } = setup()
      return Effect.gen(function* () {
        const targets = yield* Targets
        const infra = (key: string) => ({ project: "infra", key })
        const field = (index: number | undefined) => `managed_keys[${index}]`
        const rows = yield* targets.insert(
          org,
          user,
          free,
          [resolved({ name: "a" }), resolved({ name: "b" }), resolved({ name: "c" })],
          "api",
          undefined,
          { of: [infra("a"), undefined, infra("c")], field }
        )
        expect(rows.map((r) => [r.managed_by_project, r.managed_by_key])).toEqual([
          ["infra", "a"],
          [null, null],
          ["infra", "c"]
        ])
        const held = yield* Effect.flip(
          targets.insert(org, user, free, [resolved({ name: "d" }), resolved({ name: "e" })], "api", undefined, {
            of: [infra("d"), infra("c")],
            field
          })
        )
        expect(refusal(held)).toEqual({
          status: 409,
          code: "MANAGED_KEY_TAKEN",
          field: "managed_keys[1]",
          details: { project: "infra", key: "c", id: rows[2]?.id }
        })
        expect((yield* targets.list(org, { limit: 50, offset: 0 })).total).toBe(3)
        expect((yield* targets.list(org, { limit: 50, offset: 0, managed_by: "infra" })).total).toBe(2)
        // Another org holds its own; an update may re-stamp its own claim, not take another's.
        expect(
          yield* targets.insert(stranger, user, free, [resolved({})], "api", undefined, { of: [infra("a")], field })
        ).toHaveLength(1)
        const plain = rows[1]!
        const taken = yield* Effect.flip(targets.update(org, plain.id, resolved({ name: "b" }), "api", infra("a")))
        expect(refusal(taken)).toMatchObject({ status: 409, code: "MANAGED_KEY_TAKEN", field: "Signalman-Managed-By" })
        const adopted = yield* targets.update(org, plain.id, resolved({ name: "b" }), "api", infra("b"))
        expect(adopted).toMatchObject({ managed_by_project: "infra", managed_by_key: "b" })
        const kept = yield* targets.update(org, plain.id, resolved({ name: "b2" }), "api")
        expect(kept).toMatchObject({ name: "b2", managed_by_project: "infra", managed_by_key: "b" })
      }).pipe(Effect.provide(layer))
    }
  )

  it.effect("credentials are sealed beside a redacted check; resolved opens the full one", () => {
    const { layer } = setup()
    return Effect.gen(function* () {
      const targets = yield* Targets
      const check = { ...httpCheck, basic_auth: { username: "u", password: "p" }, bearer_token: "secret-token" }
      const [row] = yield* targets.insert(org, user, free, [resolved({ name: "API", check })], "ui")
      expect(row!.check_spec["bearer_token"]).toBe("***")
      expect(row!.check_spec["basic_auth"]).toBe("***")
      expect(JSON.stringify(row!.check_spec)).not.toContain("secret-token")
      expect(row!.credentials).toMatch(/^sealed:/)
      const stored = yield* targets.one(org, row!.id)
      expect(JSON.stringify(stored?.check_spec)).not.toContain("secret-token")
      const full = yield* targets.resolved(stored!)
      expect(full.check).toMatchObject({ bearer_token: "secret-token", basic_auth: { username: "u", password: "p" } })
      const listed = yield* targets.list(org, { limit: 50, offset: 0 })
      expect(JSON.stringify(listed.rows.map((r) => r.check_spec))).not.toContain("secret-token")

      const [plain] = yield* targets.insert(org, user, free, [resolved({ name: "Plain" })], "ui")
      expect(plain!.credentials).toBeNull()
      expect((yield* targets.resolved(plain!)).check).toMatchObject({ url: httpCheck.url })
    }).pipe(Effect.provide(layer))
  })

  it.effect("list: newest first, tag, enabled and name-prefix filters, paging; the org's own only", () => {
    const { layer } = setup()
    return Effect.gen(function* () {
      const targets = yield* Targets
      for (const [name, tags, enabled] of [
        ["alpha", ["prod"], true],
        ["beta", ["prod", "db"], false],
        ["Gamma", ["staging"], true]
      ] as const) {
        yield* targets.insert(org, user, free, [resolved({ name, tags, enabled })], "ui")
      }
      yield* targets.insert(sibling, user, free, [resolved({ name: "alpha-two", tags: ["prod"] })], "ui")
      const names = (query: Parameters<typeof targets.list>[1]) =>
        Effect.map(targets.list(org, query), (page) => ({ total: page.total, names: page.rows.map((r) => r.name) }))
      expect(yield* names({ limit: 50, offset: 0 })).toEqual({ total: 3, names: ["Gamma", "beta", "alpha"] })
      expect(yield* names({ limit: 50, offset: 0, tag: "prod" })).toEqual({ total: 2, names: ["beta", "alpha"] })
      expect(yield* names({ limit: 50, offset: 0, enabled: false })).toEqual({ total: 1, names: ["beta"] })
      expect(yield* names({ limit: 50, offset: 0, q: "ga" })).toEqual({ total: 1, names: ["Gamma"] })
      expect(yield* names({ limit: 50, offset: 0, q: "" })).toMatchObject({ total: 3 })
      expect(yield* names({ limit: 50, offset: 0, q: "a%" })).toEqual({ total: 0, names: [] })
      expect(yield* names({ limit: 2, offset: 2 })).toEqual({ total: 3, names: ["alpha"] })
      expect(yield* names({ limit: 2, offset: 5 })).toEqual({ total: 3, names: [] })
      expect((yield* targets.list(stranger, { limit: 50, offset: 0 })).total).toBe(0)
    }).pipe(Effect.provide(layer))
  })

  it.effect("tags: the org's tags by prefix, any case, each with its monitors, and the count of matches", () => {
    const { layer } = setup()
    return Effect.gen(function* () {
      const targets = yield* Targets
      yield* targets.insert(
        org,
        user,
        free,
        [resolved({ tags: ["prod", "Payments"] }), resolved({ tags: ["prod", "db"] }), resolved({ tags: ["pg"] })],
        "ui"
      )
      yield* targets.insert(stranger, user, free, [resolved({ tags: ["prod", "private"] })], "ui")
      expect(yield* targets.tags(org, { limit: 50, offset: 0 })).toEqual({
        rows: [
          { tag: "Payments", targets: 1 },
          { tag: "db", targets: 1 },
          { tag: "pg", targets: 1 },
          { tag: "prod", targets: 2 }
        ],
        total: 4
      })
      expect(yield* targets.tags(org, { q: "P", limit: 2, offset: 1 })).toEqual({
        rows: [
          { tag: "pg", targets: 1 },
          { tag: "prod", targets: 2 }
        ],
        total: 3
      })
      expect(yield* targets.tags(org, { q: "zzz", limit: 50, offset: 0 })).toEqual({ rows: [], total: 0 })
    }).pipe(Effect.provide(layer))
  })

  it.effect(
    "max_targets counts the account's live orgs: QUOTA_EXCEEDED 422 with details, logged, nothing stored",
    () => {
      const { layer, quotaEvents } = setup({ deletedOrgs: ["01900000-0000-7000-8000-0000000000b9"] })
      const plan = withQuota(free, { max_targets: 3 })
      const doomed: ActiveOrg = { ...org, id: OrgId.make("01900000-0000-7000-8000-0000000000b9") }
      return Effect.gen(function* () {
        const targets = yield* Targets
        yield* targets.insert(doomed, user, plan, [resolved({ name: "gone" }), resolved({ name: "gone" })], "ui")
        yield* targets.insert(org, user, plan, [resolved({ name: "a" })], "ui")
        yield* targets.insert(sibling, user, plan, [resolved({ name: "b" })], "ui")
        // An org pending deletion: its monitors no longer count.
        const many = yield* Effect.flip(
          targets.insert(org, user, plan, [resolved({ name: "c" }), resolved({ name: "d" })], "ui")
        )
        expect(refusal(many)).toMatchObject({
          status: 422,
          code: "QUOTA_EXCEEDED",
          field: null,
          details: { quota: "max_targets", current: 2, limit: 3, plan: "free", requested: 2 }
        })
        expect(quotaEvents).toMatchObject([
          { kind: "quota", name: "max_targets", limit_value: 3, current_value: 2, account_id: account, user_id: user }
        ])
        expect((yield* targets.list(org, { limit: 50, offset: 0 })).total).toBe(1)
        yield* targets.insert(org, user, plan, [resolved({ name: "c" })], "ui")
        const one = yield* Effect.flip(targets.insert(sibling, user, plan, [resolved({ name: "e" })], "ui"))
        expect(refusal(one)).toMatchObject({ status: 422, code: "QUOTA_EXCEEDED", details: { current: 3, limit: 3 } })
        expect((refusal(one).details as Record<string, unknown>)["requested"]).toBeUndefined()
        // Another account has its own count.
        expect(yield* targets.insert(stranger, user, plan, [resolved({ name: "f" })], "ui")).toHaveLength(1)
      }).pipe(Effect.provide(layer))
    }
  )

  it.effect("parallel creates settle exactly at the limit", () => {
    const { layer } = setup()
    const plan = withQuota(free, { max_targets: 5 })
    return Effect.gen(function* () {
      const targets = yield* Targets
      const exits = yield* Effect.forEach(
        Array.from({ length: 8 }, (_, i) => i),
        (i) => Effect.exit(targets.insert(org, user, plan, [resolved({ name: `race-${i}` })], "ui")),
        { concurrency: "unbounded" }
      )
      expect(exits.filter(Exit.isSuccess)).toHaveLength(5)
      expect((yield* targets.list(org, { limit: 50, offset: 0 })).total).toBe(5)
    }).pipe(Effect.provide(layer))
  })

  it.effect("a write re-checks its references under the lock and rolls back when one is gone", () => {
    const { layer } = setup()
    return Effect.gen(function* () {
      const targets = yield* Targets
      const withVariable = resolved({ check: { ...httpCheck, url: "https://example.com/{{token}}" } })
      expect(yield* targets.insert(org, user, free, [withVariable], "ui")).toHaveLength(1)
      const missing = yield* Effect.flip(
        targets.insert(
          org,
          user,
          free,
          [resolved({}), resolved({ check: { ...httpCheck, url: "https://example.com/{{gone}}" } })],
          "ui"
        )
      )
      expect(refusal(missing)).toMatchObject({ code: "UNRESOLVED_VARIABLE", details: { key: "gone" } })
      const unbound = yield* Effect.flip(
        targets.insert(org, user, free, [resolved({ alerts: [{ channel_id: unknownId }] })], "ui")
      )
      expect(refusal(unbound)).toMatchObject({ code: "VALIDATION_FAILED", details: { channel_id: unknownId } })
      expect(
        yield* targets.insert(org, user, free, [resolved({ alerts: [{ channel_id: channel.toUpperCase() }] })], "ui")
      ).toHaveLength(1)
      // The channel is the org's, not the stranger's.
      expect(
        refusal(
          yield* Effect.flip(
            targets.insert(stranger, user, free, [resolved({ alerts: [{ channel_id: channel }] })], "ui")
          )
        )
      ).toMatchObject({ code: "VALIDATION_FAILED" })
      expect((yield* targets.list(org, { limit: 50, offset: 0 })).total).toBe(2)
    }).pipe(Effect.provide(layer))
  })

  it.effect("within fails: the rows are rolled back; a heartbeat gets a ping token", () => {
    const { layer, pingTokens } = setup()
    return Effect.gen(function* () {
      const targets = yield* Targets
      const failed = yield* Effect.flip(
        targets.insert(org, user, free, [resolved({})], "ui", () => Effect.fail("lost race" as const))
      )
      expect(failed).toBe("lost race")
      expect((yield* targets.list(org, { limit: 50, offset: 0 })).total).toBe(0)
      const [beat, web] = yield* targets.insert(
        org,
        user,
        free,
        [resolved({ check: { type: "heartbeat", period: 300, grace: 60 } }), resolved({})],
        "api",
        (rows) => Effect.sync(() => expect(rows.map((r) => r.write_source)).toEqual(["api", "api"]))
      )
      expect(pingTokens.map((p) => p.target_id)).toEqual([beat!.id])
      expect(pingTokens[0]?.token).not.toBe("")
      expect(yield* targets.one(org, web!.id)).toEqual(web)
    }).pipe(Effect.provide(layer))
  })
})

describe("Admission", () => {
  const writer: Writer = {
    org,
    plan: free,
    userId: user,
    credential: { kind: "session", sessionId: SessionId.make("01900000-0000-7000-8000-0000000000e1") }
  }

  it.effect("regions must be enabled; more than the plan allows is QUOTA_EXCEEDED", () => {
    const { layer, quotaEvents } = setup()
    return Effect.gen(function* () {
      const admission = yield* Admission
      const index = yield* admission.enabledRegions
      expect([...index.enabled].sort()).toEqual(["ap", "eu", "sa", "us"])
      expect([...index.flowCapable]).toEqual(["eu"])
      yield* admission.checkRegions(writer, ["eu", "us"], index)
      expect(refusal(yield* Effect.flip(admission.checkRegions(writer, ["eu", "mars"], index)))).toMatchObject({
        code: "REGION_INVALID",
        field: "regions[1]"
      })
      expect(refusal(yield* Effect.flip(admission.checkRegions(writer, ["off"], index)))).toMatchObject({
        code: "REGION_INVALID",
        field: "regions[0]"
      })
      const over = yield* Effect.flip(admission.checkRegions(writer, ["eu", "us", "ap", "sa"], index))
      expect(refusal(over)).toMatchObject({
        status: 422,
        code: "QUOTA_EXCEEDED",
        details: { quota: "max_regions", limit: free.quotas.max_regions }
      })
      expect(quotaEvents.map((e) => e.name)).toEqual(["max_regions"])
    }).pipe(Effect.provide(layer))
  })

  it.effect("alert bindings name a channel of the org, once", () => {
    const { layer } = setup()
    return Effect.gen(function* () {
      const admission = yield* Admission
      yield* admission.checkAlerts(org, [{ channel_id: channel.toUpperCase() }])
      expect(
        refusal(yield* Effect.flip(admission.checkAlerts(org, [{ channel_id: channel }, { channel_id: channel }])))
      ).toMatchObject({ code: "VALIDATION_FAILED", field: "alerts[1].channel_id" })
      expect(refusal(yield* Effect.flip(admission.checkAlerts(stranger, [{ channel_id: channel }])))).toMatchObject({
        code: "VALIDATION_FAILED",
        field: "alerts[0].channel_id"
      })
    }).pipe(Effect.provide(layer))
  })
})
