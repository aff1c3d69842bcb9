/**
 * Monitoring as code on the server (docs/decisions.md, "Monitoring as code: managed_by"): the read-only `managed_by`
 * of targets, channels, variables, status pages and maintenance windows, stamped by `Signalman-Managed-By` on a
 * create or update (a PATCH of `{}` adopts), the bulk create's `managed_keys`, one live holder per (project, key) in
 * an org, the `?managed_by=` lists, copies that are not managed, and the header in the OpenAPI document.
 */
import { assert, expect } from "@effect/vitest"
import { ChannelPage } from "@signalman/core/api/Channels"
import { MaintenanceWindowPage, MaintenanceWindowResource } from "@signalman/core/api/Maintenance"
import { StatusPageList } from "@signalman/core/api/StatusPages"
import { TargetBatch, TargetPage } from "@signalman/core/api/Targets"
import { VariablePage } from "@signalman/core/api/Variables"
import { Channel } from "@signalman/core/Channel"
import type * as ManagedBy from "@signalman/core/ManagedBy"
import { StatusPage } from "@signalman/core/StatusPage"
import { Target } from "@signalman/core/Target"
import { Variable } from "@signalman/core/Variable"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import * as TestDatabase from "../support/TestDatabase.js"

/** What every managed resource answers, for the checks all five kinds share. */
interface Managed {
  readonly id: string
  readonly managed_by: ManagedBy.ManagedBy | null
}

/** A managed kind: where it lives, a body to create the i-th one, a change to make, and its answer read. */
interface Kind {
  readonly name: string
  readonly path: string
  readonly create: (i: number) => Record<string, unknown>
  readonly change: Record<string, unknown>
  readonly read: (reply: Http.Body) => Managed
  /** The page of a list, read with its contract schema. */
  readonly page: (reply: Http.Body) => { readonly total: number; readonly data: ReadonlyArray<Managed> }
}

let sequence = 0
const unique = (label: string) => `${label}-${Date.now().toString(36)}-${sequence++}`

/** An ISO instant `secs` seconds from now. */
const fromNow = (secs: number) => new Date(Date.now() + secs * 1000).toISOString()

const kinds: ReadonlyArray<Kind> = [
  {
    name: "targets",
    path: "/api/v1/targets",
    create: (i) => ({ name: `t${i}`, check: { type: "http", url: `https://example.com/${i}` } }),
    change: { name: "renamed" },
    read: (reply) => Http.decode(reply, Target),
    page: (reply) => Http.decode(reply, TargetPage)
  },
  {
    name: "channels",
    path: "/api/v1/channels",
    create: (i) => ({ name: `c${i}`, kind: "email", config: { addresses: [`ops${i}@example.com`] } }),
    change: { name: "renamed" },
    read: (reply) => Http.decode(reply, Channel),
    page: (reply) => Http.decode(reply, ChannelPage)
  },
  {
    name: "variables",
    path: "/api/v1/variables",
    create: (i) => ({ key: `v${i}_${sequence++}`, value: "eu" }),
    change: { value: "us" },
    read: (reply) => Http.decode(reply, Variable),
    page: (reply) => Http.decode(reply, VariablePage)
  },
  {
    name: "status pages",
    path: "/api/v1/status-pages",
    create: (i) => ({ slug: unique(`p${i}`), name: `p${i}` }),
    change: { name: "renamed" },
    read: (reply) => Http.decode(reply, StatusPage),
    page: (reply) => Http.decode(reply, StatusPageList)
  },
  {
    name: "maintenance windows",
    path: "/api/v1/maintenance",
    create: (i) => ({ title: `w${i}`, starts_at: fromNow(3600), ends_at: fromNow(7200) }),
    change: { title: "renamed" },
    read: (reply) => Http.decode(reply, MaintenanceWindowResource),
    page: (reply) => Http.decode(reply, MaintenanceWindowPage)
  }
]

const HEADER = "signalman-managed-by"
const header = (value: string) => ({ [HEADER]: value })

/** A person on the pro plan: five status pages, so every kind can be made several times. */
const owner = Fixture.person({ label: "iac", plan: "pro" })

Fixture.describe(`managed_by (${TestDatabase.kind} database)`, (it) => {
  it.effect("create, update and adopt stamp managed_by on each kind; a write without the header leaves it", () =>
    Effect.gen(function* () {
      const alice = yield* owner
      for (const kind of kinds) {
        const create = (i: number, headers: Record<string, string> = {}) =>
          alice.browser.request(kind.path, { json: kind.create(i), headers })
        const patch = (id: string, json: Record<string, unknown>, headers: Record<string, string> = {}) =>
          alice.browser.request(`${kind.path}/${id}`, { method: "PATCH", json, headers })

        const made = yield* create(1, header("infra/web"))
        expect(made.status, `${kind.name}: ${made.text}`).toBe(201)
        const managed = kind.read(made)
        expect(managed.managed_by, kind.name).toEqual({ project: "infra", key: "web" })
        const read = kind.read(yield* alice.browser.request(`${kind.path}/${managed.id}`))
        expect(read.managed_by, kind.name).toEqual({ project: "infra", key: "web" })

        // A change without the header keeps who manages it; with one, it moves.
        const changed = yield* patch(managed.id, kind.change)
        expect(changed.status, `${kind.name}: ${changed.text}`).toBe(200)
        expect(kind.read(changed).managed_by, kind.name).toEqual({ project: "infra", key: "web" })
        const moved = yield* patch(managed.id, kind.change, header("infra/web-2"))
        expect(kind.read(moved).managed_by, kind.name).toEqual({ project: "infra", key: "web-2" })

        // Adoption (signalman import): an unmanaged resource, a PATCH of {} with the header, nothing else changed.
        const plain = yield* create(2)
        expect(plain.status, `${kind.name}: ${plain.text}`).toBe(201)
        const unmanaged = kind.read(plain)
        expect(unmanaged.managed_by, kind.name).toBeNull()
        const bare = yield* patch(unmanaged.id, {})
        expect(bare.status, `${kind.name}: ${bare.text}`).toBe(200)
        expect(kind.read(bare).managed_by, kind.name).toBeNull()
        const adopted = yield* patch(unmanaged.id, {}, header("infra/adopted_1"))
        expect(adopted.status, `${kind.name}: ${adopted.text}`).toBe(200)
        expect(kind.read(adopted).managed_by, kind.name).toEqual({ project: "infra", key: "adopted_1" })
        // Only the stamps moved: the write's time and who manages it.
        const { managed_by: _a, updated_at: _b, ...kept } = Http.decode(adopted, AnyObject)
        const { managed_by: _c, updated_at: _d, ...original } = Http.decode(plain, AnyObject)
        expect(kept, kind.name).toEqual(original)
      }
    })
  )

  it.effect("write_source still comes from the User-Agent; the header is part of what an Idempotency-Key replays", () =>
    Effect.gen(function* () {
      const alice = yield* owner
      const cli = { "user-agent": "signalman-cli/0.1.0", ...header("infra/web") }
      const byCli = yield* alice.api("/api/v1/targets", { json: kinds[0]?.create(1), headers: cli })
      expect(byCli.status, byCli.text).toBe(201)
      expect(Http.decode(byCli, Target)).toMatchObject({ write_source: "iac", managed_by: { key: "web" } })
      const byScript = yield* alice.api("/api/v1/channels", { json: kinds[1]?.create(1), headers: header("infra/ch") })
      expect(Http.decode(byScript, Channel)).toMatchObject({ write_source: "api", managed_by: { key: "ch" } })

      const once = (key: string) =>
        alice.api("/api/v1/targets", {
          json: kinds[0]?.create(2),
          headers: { "idempotency-key": "managed-1", ...header(`infra/${key}`) }
        })
      const first = yield* once("once")
      expect(first.status, first.text).toBe(201)
      const replay = yield* once("once")
      expect(replay.headers.get("idempotent-replayed")).toBe("true")
      expect(Http.decode(replay, Target)).toMatchObject({
        id: Http.decode(first, Target).id,
        managed_by: { key: "once" }
      })
      const other = yield* once("other")
      expect(Http.refusal(other)).toEqual({ status: 422, code: "IDEMPOTENCY_KEY_REUSED", field: "Idempotency-Key" })
    })
  )

  it.effect("managed_by in a body is 422 INVALID_JSON on every create and update, as any read-only field", () =>
    Effect.gen(function* () {
      const alice = yield* owner
      const echoed = { managed_by: { project: "infra", key: "web" } }
      for (const kind of kinds) {
        const created = yield* alice.browser.request(kind.path, { json: { ...kind.create(3), ...echoed } })
        expect(Http.refusal(created), kind.name).toEqual({ status: 422, code: "INVALID_JSON", field: "managed_by" })
        const made = kind.read(yield* alice.browser.request(kind.path, { json: kind.create(4) }))
        const patched = yield* alice.browser.request(`${kind.path}/${made.id}`, { method: "PATCH", json: echoed })
        expect(Http.refusal(patched), kind.name).toEqual({ status: 422, code: "INVALID_JSON", field: "managed_by" })
      }
      const bulk = yield* alice.browser.request("/api/v1/targets/bulk", {
        json: { targets: [{ ...kinds[0]?.create(5), ...echoed }] }
      })
      expect(Http.refusal(bulk)).toEqual({ status: 422, code: "INVALID_JSON", field: "targets[0].managed_by" })
    })
  )

  it.effect("a malformed header is 400 VALIDATION_FAILED naming it; single and bulk forms refuse each other's", () =>
    Effect.gen(function* () {
      const alice = yield* owner
      const [targets, channels] = kinds
      assert.isDefined(targets)
      assert.isDefined(channels)
      const refused = { status: 400, code: "VALIDATION_FAILED", field: "Signalman-Managed-By" }
      for (const value of ["infra", "Infra/web", "infra/web/x", "infra/-web", "/web", `${"p".repeat(65)}/web`]) {
        const reply = yield* alice.browser.request(targets.path, { json: targets.create(6), headers: header(value) })
        expect(Http.refusal(reply), value).toEqual(refused)
      }
      const bulkForm = yield* alice.browser.request(targets.path, { json: targets.create(6), headers: header("infra") })
      expect(Http.envelope(bulkForm).message).toContain("POST /api/v1/targets/bulk")
      const channel = kind(channels, yield* alice.browser.request(channels.path, { json: channels.create(6) }))
      const patched = yield* alice.browser.request(`${channels.path}/${channel.id}`, {
        method: "PATCH",
        json: {},
        headers: header("infra")
      })
      expect(Http.refusal(patched)).toEqual(refused)
      const singleForm = yield* alice.browser.request("/api/v1/targets/bulk", {
        json: { targets: [targets.create(7)], managed_keys: ["a"] },
        headers: header("infra/a")
      })
      expect(Http.refusal(singleForm)).toEqual(refused)
      expect(Http.envelope(singleForm).message).toContain("managed_keys")
      // Nothing was made by any refused write.
      const listed = Http.decode(yield* alice.browser.request("/api/v1/targets"), TargetPage)
      expect(listed.total).toBe(0)
    })
  )

  it.effect("bulk create takes a project and managed_keys in order, all or none, and refuses every mismatch", () =>
    Effect.gen(function* () {
      const alice = yield* owner
      const bulk = (body: Record<string, unknown>, project?: string) =>
        alice.browser.request("/api/v1/targets/bulk", {
          json: body,
          headers: project === undefined ? {} : header(project)
        })
      const items = (n: number, offset = 0) =>
        Array.from({ length: n }, (_, i) => ({
          name: `b${i}`,
          check: { type: "http", url: `https://b${offset + i}.example.com/` }
        }))
      const count = Effect.map(
        alice.browser.request("/api/v1/targets"),
        (reply) => Http.decode(reply, TargetPage).total
      )

      const made = yield* bulk({ targets: items(3), managed_keys: ["web", "api", "db_1"] }, "infra")
      expect(made.status, made.text).toBe(201)
      const batch = Http.decode(made, TargetBatch).data
      expect(batch.map((t) => t.managed_by)).toEqual([
        { project: "infra", key: "web" },
        { project: "infra", key: "api" },
        { project: "infra", key: "db_1" }
      ])
      const plain = yield* bulk({ targets: items(1, 10) })
      expect(Http.decode(plain, TargetBatch).data[0]?.managed_by).toBeNull()
      expect(yield* count).toBe(4)

      const refusal = (status: number, code: string, field: string) => ({ status, code, field })
      expect(Http.refusal(yield* bulk({ targets: items(2), managed_keys: ["a", "b"] }))).toEqual(
        refusal(400, "VALIDATION_FAILED", "Signalman-Managed-By")
      )
      expect(Http.refusal(yield* bulk({ targets: items(2) }, "infra"))).toEqual(
        refusal(400, "VALIDATION_FAILED", "managed_keys")
      )
      expect(Http.refusal(yield* bulk({ targets: items(2), managed_keys: ["a"] }, "infra"))).toEqual(
        refusal(400, "VALIDATION_FAILED", "managed_keys")
      )
      expect(Http.refusal(yield* bulk({ targets: items(2), managed_keys: ["a", "b", "c"] }, "infra"))).toEqual(
        refusal(400, "VALIDATION_FAILED", "managed_keys")
      )
      expect(Http.refusal(yield* bulk({ targets: items(4), managed_keys: ["a", "b", "c", "a"] }, "infra"))).toEqual(
        refusal(400, "VALIDATION_FAILED", "managed_keys[3]")
      )
      expect(Http.refusal(yield* bulk({ targets: items(3), managed_keys: ["a", "B", "c"] }, "infra"))).toEqual(
        refusal(400, "VALIDATION_FAILED", "managed_keys[1]")
      )
      const held = yield* bulk({ targets: items(3), managed_keys: ["new-1", "new-2", "api"] }, "infra")
      expect(Http.refusal(held)).toEqual(refusal(409, "MANAGED_KEY_TAKEN", "managed_keys[2]"))
      expect(Http.envelope(held).details).toEqual({ project: "infra", key: "api", id: batch[1]?.id })
      // The same keys under another project are another project's.
      const elsewhere = yield* bulk({ targets: items(2), managed_keys: ["web", "api"] }, "edge")
      expect(elsewhere.status, elsewhere.text).toBe(201)
      expect(yield* count).toBe(6)
    })
  )

  it.effect("one live holder per (project, key) and kind in an org: 409 naming the holder, freed by a delete", () =>
    Effect.gen(function* () {
      const alice = yield* owner
      const bob = yield* owner
      for (const kind of kinds) {
        const create = (i: number, value: string, person = alice) =>
          person.browser.request(kind.path, { json: kind.create(i), headers: header(value) })
        const holder = kind.read(yield* create(10, "infra/shared"))
        const taken = yield* create(11, "infra/shared")
        expect(Http.refusal(taken), kind.name).toEqual({
          status: 409,
          code: "MANAGED_KEY_TAKEN",
          field: "Signalman-Managed-By"
        })
        expect(Http.envelope(taken).details, kind.name).toEqual({ project: "infra", key: "shared", id: holder.id })
        // Another resource adopting the key is refused the same way; re-stamping the holder's own is not.
        const other = kind.read(yield* create(12, "infra/other"))
        const adopt = yield* alice.browser.request(`${kind.path}/${other.id}`, {
          method: "PATCH",
          json: {},
          headers: header("infra/shared")
        })
        expect(Http.refusal(adopt), kind.name).toMatchObject({ status: 409, code: "MANAGED_KEY_TAKEN" })
        const again = yield* alice.browser.request(`${kind.path}/${holder.id}`, {
          method: "PATCH",
          json: {},
          headers: header("infra/shared")
        })
        expect(again.status, `${kind.name}: ${again.text}`).toBe(200)
        // Another project, or another org, holds its own (project, key).
        expect((yield* create(13, "edge/shared")).status, kind.name).toBe(201)
        expect((yield* create(14, "infra/shared", bob)).status, kind.name).toBe(201)

        const deleted = yield* alice.browser.request(`${kind.path}/${holder.id}`, { method: "DELETE" })
        expect(deleted.status, `${kind.name}: ${deleted.text}`).toBeLessThan(300)
        const freed = yield* create(15, "infra/shared")
        expect(freed.status, `${kind.name}: ${freed.text}`).toBe(201)
      }
    })
  )

  it.effect("a cancelled window keeps managed_by as history and an ended one gives its key to the next claim", () =>
    Effect.gen(function* () {
      const alice = yield* owner
      const window = (title: string, starts: number, value: string) =>
        alice.browser.request("/api/v1/maintenance", {
          json: { title, starts_at: fromNow(starts), ends_at: fromNow(starts + 3600) },
          headers: header(value)
        })
      const read = (id: string) =>
        Effect.map(alice.browser.request(`/api/v1/maintenance/${id}`), (reply) =>
          Http.decode(reply, MaintenanceWindowResource)
        )

      const cancelled = Http.decode(yield* window("cancelled", 3600, "ops/upgrade"), MaintenanceWindowResource)
      expect((yield* alice.browser.request(`/api/v1/maintenance/${cancelled.id}`, { method: "DELETE" })).status).toBe(
        200
      )
      const next = Http.decode(yield* window("next", 3600, "ops/upgrade"), MaintenanceWindowResource)
      expect(next.managed_by).toEqual({ project: "ops", key: "upgrade" })
      expect((yield* read(cancelled.id)).managed_by).toEqual({ project: "ops", key: "upgrade" })

      const running = Http.decode(yield* window("running", -60, "ops/swap"), MaintenanceWindowResource)
      expect(running.status).toBe("running")
      const ended = yield* alice.browser.request(`/api/v1/maintenance/${running.id}`, {
        method: "PATCH",
        json: { ends_at: fromNow(-1) }
      })
      expect(Http.decode(ended, MaintenanceWindowResource).status).toBe("completed")
      expect(Http.refusal(yield* window("held", 3600, "ops/upgrade"))).toMatchObject({ status: 409 })
      const successor = yield* window("successor", 3600, "ops/swap")
      expect(successor.status, successor.text).toBe(201)
      expect((yield* read(running.id)).managed_by).toBeNull()

      const listed = Http.decode(
        yield* alice.browser.request("/api/v1/maintenance?managed_by=ops"),
        MaintenanceWindowPage
      )
      expect(listed.data.map((w) => [w.title, w.status, w.managed_by?.key])).toEqual(
        expect.arrayContaining([
          ["cancelled", "cancelled", "upgrade"],
          ["next", "upcoming", "upgrade"],
          ["successor", "upcoming", "swap"]
        ])
      )
      expect(listed.total).toBe(3)
    })
  )

  it.effect("concurrent claims of one key: exactly one wins, the others hear 409 on the header", () =>
    Effect.gen(function* () {
      const alice = yield* owner
      const attempt = (i: number) =>
        alice.browser.request("/api/v1/variables", {
          json: { key: `race_${i}`, value: "x" },
          headers: header("infra/race")
        })
      const replies = yield* Effect.all([0, 1, 2, 3, 4].map(attempt), { concurrency: "unbounded" })
      expect(replies.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409])
      for (const reply of replies.filter((r) => r.status === 409)) {
        expect(Http.refusal(reply)).toEqual({ status: 409, code: "MANAGED_KEY_TAKEN", field: "Signalman-Managed-By" })
      }
      const listed = Http.decode(yield* alice.browser.request("/api/v1/variables?managed_by=infra"), VariablePage)
      expect(listed.total).toBe(1)
    })
  )

  it.effect("?managed_by=<project> lists only that project's resources of each kind, in pages of up to 500", () =>
    Effect.gen(function* () {
      const alice = yield* owner
      for (const kind of kinds) {
        for (const [i, value] of ["infra/a", "infra/b", "edge/a"].entries()) {
          const made = yield* alice.browser.request(kind.path, { json: kind.create(20 + i), headers: header(value) })
          expect(made.status, `${kind.name}: ${made.text}`).toBe(201)
        }
        expect((yield* alice.browser.request(kind.path, { json: kind.create(23) })).status, kind.name).toBe(201)
        const infra = kind.page(yield* alice.browser.request(`${kind.path}?managed_by=infra&limit=500`))
        expect(infra.total, kind.name).toBe(2)
        expect(infra.data.map((r) => r.managed_by?.key).sort(), kind.name).toEqual(["a", "b"])
        const none = kind.page(yield* alice.browser.request(`${kind.path}?managed_by=nobody`))
        expect(none, kind.name).toMatchObject({ total: 0, data: [] })
        expect(kind.page(yield* alice.browser.request(kind.path)).total, kind.name).toBe(4)
        const bad = yield* alice.browser.request(`${kind.path}?managed_by=Infra`)
        expect(Http.refusal(bad), kind.name).toEqual({ status: 400, code: "VALIDATION_FAILED", field: "managed_by" })
        const tooMany = yield* alice.browser.request(`${kind.path}?managed_by=infra&limit=501`)
        expect(Http.refusal(tooMany), kind.name).toEqual({ status: 400, code: "VALIDATION_FAILED", field: "limit" })
      }
    })
  )

  it.effect("a copy of a managed monitor is not managed, even when the duplicate carries the header", () =>
    Effect.gen(function* () {
      const alice = yield* owner
      const source = Http.decode(
        yield* alice.browser.request("/api/v1/targets", { json: kinds[0]?.create(30), headers: header("infra/src") }),
        Target
      )
      const copies = yield* alice.browser.request(`/api/v1/targets/${source.id}/duplicate`, {
        json: { copies: [{ name: "copy-1" }, { name: "copy-2" }] },
        headers: header("infra/src")
      })
      expect(copies.status, copies.text).toBe(201)
      expect(Http.decode(copies, TargetBatch).data.map((t) => t.managed_by)).toEqual([null, null])
      const read = Http.decode(yield* alice.browser.request(`/api/v1/targets/${source.id}`), Target)
      expect(read.managed_by).toEqual({ project: "infra", key: "src" })
    })
  )

  it.effect("the OpenAPI document declares the header on each write, managed_keys, and managed_by everywhere", () =>
    Effect.gen(function* () {
      const server = yield* Fixture.server
      const reply = yield* Http.request(`${server.baseUrl}/api/openapi.json`)
      const doc = Http.decode(reply, OpenApiDocument)
      const parameter = (path: string, method: string, name: string) =>
        doc.paths[path]?.[method]?.parameters?.find((p) => p.name === name)
      const writes: ReadonlyArray<readonly [string, string]> = [
        ["/api/v1/targets", "post"],
        ["/api/v1/targets/{id}", "patch"],
        ["/api/v1/channels", "post"],
        ["/api/v1/channels/{id}", "patch"],
        ["/api/v1/variables", "post"],
        ["/api/v1/variables/{id}", "patch"],
        ["/api/v1/status-pages", "post"],
        ["/api/v1/status-pages/{id}", "patch"],
        ["/api/v1/maintenance", "post"],
        ["/api/v1/maintenance/{id}", "patch"],
        ["/api/v1/targets/bulk", "post"]
      ]
      for (const [path, method] of writes) {
        expect(parameter(path, method, HEADER), `${method} ${path}`).toMatchObject({ in: "header", required: false })
      }
      expect(parameter("/api/v1/targets/{id}/duplicate", "post", HEADER)).toBeUndefined()
      for (const path of ["/api/v1/targets", "/api/v1/channels", "/api/v1/variables", "/api/v1/status-pages"]) {
        expect(parameter(path, "get", "managed_by"), path).toMatchObject({ in: "query" })
      }
      expect(parameter("/api/v1/maintenance", "get", "managed_by")).toMatchObject({ in: "query" })
      expect(reply.text).toContain('"managed_keys"')
      expect(doc.components.schemas["ManagedBy"]).toMatchObject({ required: ["project", "key"] })
    })
  )
})

/** Any answer's object, every key as sent. */
const AnyObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** A resource's answer read as its kind's. */
const kind = (k: Kind, reply: Http.Body) => {
  expect(reply.status, reply.text).toBe(201)
  return k.read(reply)
}

/** The parts of the OpenAPI document these tests read. */
const OpenApiDocument = Schema.Struct({
  paths: Schema.Record({
    key: Schema.String,
    value: Schema.Record({
      key: Schema.String,
      value: Schema.Struct({
        parameters: Schema.optional(
          Schema.Array(
            Schema.Struct({ name: Schema.String, in: Schema.String, required: Schema.optional(Schema.Boolean) })
          )
        )
      })
    })
  }),
  components: Schema.Struct({ schemas: Schema.Record({ key: Schema.String, value: Schema.Unknown }) })
})
