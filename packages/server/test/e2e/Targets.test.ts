/**
 * Monitors as a resource: create (201, Location), read, list, change, delete; redaction; write_source; the quota.
 */
import { assert, expect } from "@effect/vitest"
import { Region, TagPage, TargetBatch, TargetPage } from "@signalman/core/api/Targets"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import { bearer, mintToken } from "../support/Identity.js"
import * as TestDatabase from "../support/TestDatabase.js"

const setup = Effect.gen(function* () {
  const server = yield* Fixture.server
  const alice = yield* Fixture.person({ label: "alice" })
  return { server, alice }
})

const httpCheck = { type: "http", url: "https://example.com/health" }

/** A target as sent (every key), once the contract's schema has read it: tests compare answers as the wire has them. */
const asTarget = (reply: Http.Body) => Http.wire(reply, Target)

/** Total of the caller's monitors. */
const totalOf = (reply: Http.Body) => Http.decode(reply, TargetPage).total

/** `GET /regions` and `/targets/{id}/regions`: the contract declares this answer inline (api/Targets.ts). */
const RegionList = Schema.Struct({ regions: Schema.Array(Region) })

Fixture.describe(`targets (${TestDatabase.kind} database)`, (it) => {
  it.effect("create answers 201 with Location and the full target, defaults filled, written by ui", () =>
    Effect.gen(function* () {
      const { alice } = yield* setup
      const created = yield* alice.browser.request("/api/v1/targets", {
        json: { name: "Website", check: httpCheck, tags: ["prod", "web", "prod"] }
      })
      expect(created.status).toBe(201)
      const target = asTarget(created)
      expect(created.headers.get("location")).toBe(`/api/v1/targets/${target.id}`)
      expect(created.headers.get("cache-control")).toBe("no-store")
      expect(target).toMatchObject({
        name: "Website",
        interval: 180,
        write_source: "ui",
        managed_by: null,
        alert_confirmations: 2,
        recovery_period_secs: 180,
        regions: ["local"],
        tags: ["prod", "web"]
      })
      expect(target.check).toMatchObject({ type: "http", method: "GET", expected_status: "2xx", timeout: 10 })
      const read = yield* alice.browser.request(`/api/v1/targets/${target.id}`)
      expect(asTarget(read)).toEqual(target)
    })
  )

  it.effect("credentials are redacted on every answer, refused as a write, kept when check is omitted", () =>
    Effect.gen(function* () {
      const { server, alice } = yield* setup
      const created = yield* alice.browser.request("/api/v1/targets", {
        json: {
          name: "API",
          check: { ...httpCheck, basic_auth: { username: "u", password: "p" }, bearer_token: "secret-token" }
        }
      })
      const target = asTarget(created)
      expect(target.check["basic_auth"]).toBe("***")
      expect(target.check["bearer_token"]).toBe("***")
      expect(created.text).not.toContain("secret-token")
      const listed = yield* alice.browser.request("/api/v1/targets")
      expect(listed.text).not.toContain("secret-token")
      // Stored sealed: the row holds no credential in the clear. Other tests' monitors share the server's table,
      // so the row is read by this monitor's id.
      const [row] = yield* server.sql<{
        check_spec: unknown
        credentials: string
      }>`SELECT check_spec, credentials FROM targets WHERE id = ${target.id}`
      expect(JSON.stringify(row?.check_spec)).not.toContain("secret-token")
      expect(row?.credentials).toMatch(/^v1\./)
      expect(row?.credentials).not.toContain("secret-token")

      const echoed = yield* alice.browser.request(`/api/v1/targets/${target.id}`, {
        method: "PATCH",
        json: { check: target.check }
      })
      expect(echoed.status).toBe(400)
      expect(Http.envelope(echoed)).toMatchObject({ code: "REDACTION_SENTINEL", field: "check.bearer_token" })
      const renamed = yield* alice.browser.request(`/api/v1/targets/${target.id}`, {
        method: "PATCH",
        json: { name: "API v2" }
      })
      expect(renamed.status).toBe(200)
      expect(asTarget(renamed).check["bearer_token"]).toBe("***")
      const kind = yield* alice.browser.request(`/api/v1/targets/${target.id}`, {
        method: "PATCH",
        json: { check: { type: "tcp", host: "example.com", port: 443 } }
      })
      expect(Http.envelope(kind)).toMatchObject({ code: "CHECK_KIND_IMMUTABLE", field: "check.type" })
    })
  )

  it.effect("list: pagination envelope, tag, enabled and name-prefix filters; foreign ids are 404", () =>
    Effect.gen(function* () {
      const { alice } = yield* setup
      for (const [name, tags, enabled] of [
        ["alpha", ["prod"], true],
        ["beta", ["prod", "db"], false],
        ["gamma", ["staging"], true]
      ] as const) {
        yield* alice.browser.request("/api/v1/targets", { json: { name, check: httpCheck, tags, enabled } })
      }
      const page = (query: string) =>
        Effect.map(alice.browser.request(`/api/v1/targets${query}`), (r) => Http.wire(r, TargetPage))
      expect(yield* page("")).toMatchObject({ total: 3, limit: 50, offset: 0 })
      expect((yield* page("?tag=prod")).data.map((t) => t.name).sort()).toEqual(["alpha", "beta"])
      expect((yield* page("?enabled=false")).data.map((t) => t.name)).toEqual(["beta"])
      expect((yield* page("?q=GA")).data.map((t) => t.name)).toEqual(["gamma"])
      const second = yield* page("?limit=2&offset=2")
      expect(second).toMatchObject({ total: 3, limit: 2, offset: 2 })
      expect(second.data).toHaveLength(1)
      expect(Http.envelope(yield* alice.browser.request("/api/v1/targets?limit=0")).field).toBe("limit")
      expect(Http.envelope(yield* alice.browser.request("/api/v1/targets?limit=501")).code).toBe("VALIDATION_FAILED")

      const bob = yield* Fixture.person({ label: "bob" })
      const aliceTarget = (yield* page("")).data[0]
      for (const [method, json] of [
        ["GET", undefined],
        ["PATCH", { name: "mine" }],
        ["DELETE", undefined]
      ] as const) {
        const reply = yield* bob.browser.request(`/api/v1/targets/${aliceTarget?.id}`, {
          method,
          ...(json === undefined ? {} : { json })
        })
        expect(reply.status, method).toBe(404)
        expect(Http.envelope(reply).code).toBe("NOT_FOUND")
      }
      expect((yield* alice.browser.request(`/api/v1/targets/${aliceTarget?.id}`, { method: "DELETE" })).status).toBe(
        204
      )
      expect((yield* alice.browser.request(`/api/v1/targets/${aliceTarget?.id}`)).status).toBe(404)
    })
  )

  it.effect("a token writes as api; scopes gate reads, writes and deletes", () =>
    Effect.gen(function* () {
      const { server, alice } = yield* setup
      const writer = yield* mintToken(alice, { scopes: ["targets:write"], org_id: alice.org.id })
      const json = (body: unknown) => ({
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body)
      })
      const created = yield* bearer(
        server,
        writer.token,
        "/api/v1/targets",
        json({ name: "By token", check: httpCheck })
      )
      expect(created.status).toBe(201)
      const target = asTarget(created)
      expect(target.write_source).toBe("api")
      expect((yield* bearer(server, writer.token, `/api/v1/targets/${target.id}`)).status).toBe(200)
      const refused = yield* bearer(server, writer.token, `/api/v1/targets/${target.id}`, { method: "DELETE" })
      expect(Http.envelope(refused)).toMatchObject({
        code: "INSUFFICIENT_SCOPE",
        details: { required: "targets:delete" }
      })
      const iac = yield* bearer(server, writer.token, `/api/v1/targets/${target.id}`, {
        method: "PATCH",
        headers: { "content-type": "application/json", "user-agent": "signalman-cli/0.1.0" },
        body: JSON.stringify({ enabled: false })
      })
      expect(asTarget(iac).write_source).toBe("iac")
    })
  )

  it.effect("20 parallel creates against a quota of 20 minus 5 settle at exactly the limit", () =>
    Effect.gen(function* () {
      const { alice } = yield* setup
      for (let i = 0; i < 5; i++) {
        expect(
          (yield* alice.browser.request("/api/v1/targets", { json: { name: `pre-${i}`, check: httpCheck } })).status
        ).toBe(201)
      }
      const replies = yield* Effect.forEach(
        Array.from({ length: 20 }, (_, i) => i),
        (i) => alice.browser.request("/api/v1/targets", { json: { name: `race-${i}`, check: httpCheck } }),
        { concurrency: "unbounded" }
      )
      expect(replies.filter((r) => r.status === 201)).toHaveLength(15)
      const refused = replies.filter((r) => r.status === 422)
      expect(refused).toHaveLength(5)
      assert.isDefined(refused[0])
      expect(Http.envelope(refused[0]!)).toMatchObject({
        code: "QUOTA_EXCEEDED",
        field: null,
        details: { quota: "max_targets", current: 20, limit: 20, plan: "free" }
      })
      const total = totalOf(yield* alice.browser.request("/api/v1/targets"))
      expect(total).toBe(20)
    })
  )

  it.effect("the rules answer with their codes and fields", () =>
    Effect.gen(function* () {
      const { alice } = yield* setup
      const create = (body: Record<string, unknown>) =>
        alice.browser.request("/api/v1/targets", { json: { name: "x", ...body } })
      expect(Http.envelope(yield* create({ check: httpCheck, interval: 60 }))).toMatchObject({
        code: "MIN_CHECK_INTERVAL",
        field: "interval"
      })
      expect(Http.envelope(yield* create({ check: { type: "manual" }, interval: 120 }))).toMatchObject({
        code: "INVALID_INTERVAL"
      })
      expect(Http.envelope(yield* create({ check: { type: "manual" }, recovery_period_secs: 60 }))).toMatchObject({
        code: "INVALID_ALERT_CONFIG"
      })
      expect(Http.envelope(yield* create({ check: { type: "tcp", host: "10.0.0.1", port: 5432 } }))).toMatchObject({
        code: "TARGET_ADDRESS_BLOCKED",
        field: "check.host"
      })
      expect(
        Http.envelope(
          yield* create({
            check: { type: "dns", domain: "example.com", record_type: "A", expected_records: ["1.2.3.4", "1.2.3.4"] }
          })
        )
      ).toMatchObject({ code: "INVALID_DNS_PARAMS" })
      expect(Http.envelope(yield* create({ check: httpCheck, regions: ["mars"] }))).toMatchObject({
        code: "REGION_INVALID",
        field: "regions[0]"
      })
      expect(
        Http.envelope(
          yield* create({
            check: { type: "flow", start_url: "https://example.com", steps: [{ action: "assert_text", text: "x" }] }
          })
        )
      ).toMatchObject({ code: "FLOW_CHECKS_DISABLED" })
      expect(Http.envelope(yield* create({ check: { ...httpCheck, timeuot: 3 } }))).toMatchObject({
        code: "INVALID_JSON",
        field: "check.timeuot"
      })
      expect(Http.envelope(yield* create({ check: httpCheck, id: "x" }))).toMatchObject({
        code: "INVALID_JSON",
        field: "id"
      })
      const manual = asTarget(yield* create({ check: { type: "manual" }, alert_confirmations: 5 }))
      expect(manual.alert_confirmations).toBe(1)
      expect(manual.interval).toBe(60)
    })
  )

  it.effect("an http check's url is an http or https URL: any other scheme is 400 VALIDATION_FAILED on check.url", () =>
    Effect.gen(function* () {
      const { alice } = yield* setup
      const count = Effect.map(alice.browser.request("/api/v1/targets"), totalOf)
      const urls = ["data:text/html,<h1>ok</h1>", "javascript:alert(1)", "ftp://example.com/", "example.com/health"]
      for (const url of urls) {
        const created = yield* alice.browser.request("/api/v1/targets", {
          json: { name: "x", check: { type: "http", url } }
        })
        expect(created.status, url).toBe(400)
        expect(Http.envelope(created)).toMatchObject({ code: "VALIDATION_FAILED", field: "check.url" })
        const bulk = yield* alice.browser.request("/api/v1/targets/bulk", {
          json: {
            targets: [
              { name: "ok", check: httpCheck },
              { name: "bad", check: { type: "http", url } }
            ]
          }
        })
        expect(bulk.status, url).toBe(400)
        expect(Http.envelope(bulk)).toMatchObject({ code: "VALIDATION_FAILED", field: "targets[1].check.url" })
      }
      // A scheme written before a variable reference is judged as written.
      const templated = yield* alice.browser.request("/api/v1/targets", {
        json: { name: "x", check: { type: "http", url: "ftp://{{host}}/" } }
      })
      expect(Http.envelope(templated)).toMatchObject({ code: "VALIDATION_FAILED", field: "check.url" })
      expect(yield* count).toBe(0)

      const target = asTarget(
        yield* alice.browser.request("/api/v1/targets", { json: { name: "web", check: httpCheck } })
      )
      for (const url of urls) {
        const patched = yield* alice.browser.request(`/api/v1/targets/${target.id}`, {
          method: "PATCH",
          json: { check: { type: "http", url } }
        })
        expect(patched.status, url).toBe(400)
        expect(Http.envelope(patched)).toMatchObject({ code: "VALIDATION_FAILED", field: "check.url" })
      }
      const kept = asTarget(yield* alice.browser.request(`/api/v1/targets/${target.id}`))
      expect(kept.check["url"]).toBe(httpCheck.url)
      const https = yield* alice.browser.request(`/api/v1/targets/${target.id}`, {
        method: "PATCH",
        json: { check: { type: "http", url: "HTTP://example.com/other" } }
      })
      expect(https.status, https.text).toBe(200)
    })
  )

  it.effect(
    "dns expected_records over 50 values or with a value over 2048 characters is 400 INVALID_DNS_PARAMS on its field",
    () =>
      Effect.gen(function* () {
        const { alice } = yield* setup
        const dns = (expected_records: ReadonlyArray<string>) => ({
          type: "dns",
          domain: "example.com",
          record_type: "TXT",
          expected_records
        })
        const tooMany = dns(Array.from({ length: 51 }, (_, i) => `v=${i}`))
        const tooLong = dns(["v=spf1 -all", "x".repeat(2049)])
        const cases = [
          [tooMany, "check.expected_records"],
          [tooLong, "check.expected_records[1]"]
        ] as const
        for (const [check, field] of cases) {
          const created = yield* alice.browser.request("/api/v1/targets", { json: { name: "dns", check } })
          expect(created.status, field).toBe(400)
          expect(Http.envelope(created)).toMatchObject({ code: "INVALID_DNS_PARAMS", field })
          const bulk = yield* alice.browser.request("/api/v1/targets/bulk", {
            json: { targets: [{ name: "dns", check }] }
          })
          expect(bulk.status, field).toBe(400)
          expect(Http.envelope(bulk)).toMatchObject({ code: "INVALID_DNS_PARAMS", field: `targets[0].${field}` })
          const tested = yield* alice.browser.request("/api/v1/targets/test", { json: { check } })
          expect(tested.status, field).toBe(400)
          expect(Http.envelope(tested)).toMatchObject({ code: "INVALID_DNS_PARAMS", field })
        }
        const target = yield* alice.browser.request("/api/v1/targets", {
          json: { name: "dns", check: dns(Array.from({ length: 50 }, (_, i) => `v=${i}`)) }
        })
        expect(target.status, target.text).toBe(201)
        const id = asTarget(target).id
        for (const [check, field] of cases) {
          const patched = yield* alice.browser.request(`/api/v1/targets/${id}`, { method: "PATCH", json: { check } })
          expect(patched.status, field).toBe(400)
          expect(Http.envelope(patched)).toMatchObject({ code: "INVALID_DNS_PARAMS", field })
        }
        const edge = yield* alice.browser.request(`/api/v1/targets/${id}`, {
          method: "PATCH",
          json: { check: dns(["x".repeat(2048)]) }
        })
        expect(edge.status, edge.text).toBe(200)
      })
  )

  it.effect(
    "regions: the list, a target's regions, PUT with REGION_INVALID (unknown id, manual monitor); tags with counts",
    () =>
      Effect.gen(function* () {
        const { alice } = yield* setup
        const regions = Http.decode(yield* alice.browser.request("/api/v1/regions"), RegionList)
        expect(regions.regions.map((r) => r.id)).toEqual(["local"])
        const target = asTarget(
          yield* alice.browser.request("/api/v1/targets", {
            json: { name: "web", check: httpCheck, tags: ["prod", "eu"] }
          })
        )
        yield* alice.browser.request("/api/v1/targets", { json: { name: "db", check: httpCheck, tags: ["prod"] } })
        const own = Http.decode(yield* alice.browser.request(`/api/v1/targets/${target.id}/regions`), RegionList)
        expect(own.regions.map((r) => r.id)).toEqual(["local"])
        const unknown = yield* alice.browser.request(`/api/v1/targets/${target.id}/regions`, {
          method: "PUT",
          json: { regions: ["local", "atlantis"] }
        })
        expect(unknown.status).toBe(422)
        expect(Http.envelope(unknown)).toMatchObject({ code: "REGION_INVALID", field: "regions[1]" })
        expect(
          (yield* alice.browser.request(`/api/v1/targets/${target.id}/regions`, {
            method: "PUT",
            json: { regions: ["local"] }
          })).status
        ).toBe(200)
        const manual = asTarget(
          yield* alice.browser.request("/api/v1/targets", {
            json: { name: "m", check: { type: "manual" } }
          })
        )
        const onManual = yield* alice.browser.request(`/api/v1/targets/${manual.id}/regions`, {
          method: "PUT",
          json: { regions: ["local"] }
        })
        expect(Http.envelope(onManual)).toMatchObject({ code: "REGION_INVALID", field: "regions" })

        const tags = Http.wire(yield* alice.browser.request("/api/v1/tags"), TagPage)
        expect(tags).toMatchObject({
          total: 2,
          data: [
            { tag: "eu", targets: 1 },
            { tag: "prod", targets: 2 }
          ]
        })
        const filtered = Http.decode(yield* alice.browser.request("/api/v1/tags?q=P"), TagPage)
        expect(filtered.data.map((t) => t.tag)).toEqual(["prod"])
      })
  )

  it.effect(
    "heartbeat and manual monitors take no regions: create, bulk item and PUT /regions are 422 REGION_INVALID on regions",
    () =>
      Effect.gen(function* () {
        const { alice } = yield* setup
        const heartbeat = { type: "heartbeat", period: 3600, grace: 600 }
        const manual = { type: "manual" }
        const count = Effect.map(alice.browser.request("/api/v1/targets"), totalOf)
        for (const check of [heartbeat, manual]) {
          // `local` too: the spec refuses any region assignment on these kinds, not only a remote one.
          for (const regions of [["local"], ["local", "eu-west"], ["mars"]]) {
            const single = yield* alice.browser.request("/api/v1/targets", { json: { name: "x", check, regions } })
            expect(single.status, `${check.type} ${regions}`).toBe(422)
            expect(Http.envelope(single)).toMatchObject({ code: "REGION_INVALID", field: "regions" })
          }
          const bulk = yield* alice.browser.request("/api/v1/targets/bulk", {
            json: {
              targets: [
                { name: "probed", check: httpCheck, regions: ["local"] },
                { name: "evaluated", check, regions: ["local"] }
              ]
            }
          })
          expect(bulk.status, check.type).toBe(422)
          expect(Http.envelope(bulk)).toMatchObject({ code: "REGION_INVALID", field: "targets[1].regions" })
        }
        expect(yield* count).toBe(0)

        // Without regions they are made, and run where the service evaluates them.
        for (const check of [heartbeat, manual]) {
          const created = yield* alice.browser.request("/api/v1/targets", { json: { name: check.type, check } })
          expect(created.status, created.text).toBe(201)
          const target = asTarget(created)
          expect(target.regions).toEqual(["local"])
          // A duplicate copies the stored row and names no region of its own: it is made, in the same place.
          const copied = yield* alice.browser.request(`/api/v1/targets/${target.id}/duplicate`, {
            json: { copies: [{ name: `${check.type} copy` }] }
          })
          expect(copied.status, copied.text).toBe(201)
          expect(Http.wire(copied, TargetBatch).data[0]?.regions).toEqual(["local"])
          // A copy has no regions field, for any kind: naming one is an unknown key.
          const withRegions = yield* alice.browser.request(`/api/v1/targets/${target.id}/duplicate`, {
            json: { copies: [{ name: "again", regions: ["local"] }] }
          })
          expect(withRegions.status).toBe(422)
          expect(Http.envelope(withRegions)).toMatchObject({ code: "INVALID_JSON", field: "copies[0].regions" })
          // Regions change only through PUT /regions: a PATCH naming them is an unknown key, for any kind.
          const patched = yield* alice.browser.request(`/api/v1/targets/${target.id}`, {
            method: "PATCH",
            json: { regions: ["local"] }
          })
          expect(patched.status).toBe(422)
          expect(Http.envelope(patched)).toMatchObject({ code: "INVALID_JSON", field: "regions" })
          const renamed = yield* alice.browser.request(`/api/v1/targets/${target.id}`, {
            method: "PATCH",
            json: { name: `${check.type} renamed` }
          })
          expect(renamed.status, renamed.text).toBe(200)
          for (const regions of [["local"], ["mars"]]) {
            const put = yield* alice.browser.request(`/api/v1/targets/${target.id}/regions`, {
              method: "PUT",
              json: { regions }
            })
            expect(put.status, `${check.type} ${regions}`).toBe(422)
            expect(Http.envelope(put)).toMatchObject({ code: "REGION_INVALID", field: "regions" })
          }
          const own = Http.decode(yield* alice.browser.request(`/api/v1/targets/${target.id}/regions`), RegionList)
          expect(own.regions.map((r) => r.id)).toEqual(["local"])
        }
      })
  )
})
