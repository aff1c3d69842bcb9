/**
 * Many monitors at once: bulk create (all or none, quota counted for all), duplicate (the six rules), bulk actions,
 * and Idempotency-Key on create, bulk and duplicate.
 */
import { assert, expect } from "@effect/vitest"
import { CreatedAgent } from "@signalman/core/api/Operator"
import { TargetBatch, TargetPage } from "@signalman/core/api/Targets"
import { BulkActionResult } from "@signalman/core/BulkAction"
import { CreatedChannel } from "@signalman/core/Channel"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as AgentClient from "../support/AgentClient.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import { bearer, mintToken } from "../support/Identity.js"
import * as TestDatabase from "../support/TestDatabase.js"

const setup = Effect.gen(function* () {
  const server = yield* Fixture.server
  const alice = yield* Fixture.person({ label: "alice" })
  return { server, alice }
})

const httpCheck = (path = "health") => ({ type: "http", url: `https://example.com/${path}` })

/** The targets of a batch answer (bulk create, duplicate), as sent. */
const batch = (reply: Http.Body) => Http.wire(reply, TargetBatch).data

/** A target answer, as sent. */
const asTarget = (reply: Http.Body) => Http.wire(reply, Target)

/** Total of the caller's monitors. */
const totalOf = (reply: Http.Body) => Http.decode(reply, TargetPage).total

/** A bulk action's answer (`{ updated }`), as sent. */
const result = (reply: Http.Body) => Http.wire(reply, BulkActionResult)

Fixture.describe(`bulk targets (${TestDatabase.kind} database)`, (it) => {
  it.effect("bulk create answers 201 with every target in request order, redacted, heartbeats minted", () =>
    Effect.gen(function* () {
      const { server, alice } = yield* setup
      const reply = yield* alice.browser.request("/api/v1/targets/bulk", {
        json: {
          targets: [
            { name: "b-0", check: httpCheck("a"), tags: ["bulk"] },
            { name: "b-1", check: { ...httpCheck("b"), bearer_token: "top-secret" } },
            { name: "b-2", check: { type: "heartbeat", period: 3600, grace: 600 } },
            { name: "b-3", check: { type: "tcp", host: "example.com", port: 5432 }, regions: ["local"] }
          ]
        }
      })
      expect(reply.status).toBe(201)
      const data = batch(reply)
      expect(data.map((t) => t.name)).toEqual(["b-0", "b-1", "b-2", "b-3"])
      expect(data.every((t) => t.write_source === "ui")).toBe(true)
      expect(data[1]?.check["bearer_token"]).toBe("***")
      expect(reply.text).not.toContain("top-secret")
      // The org's ping tokens: other tests' monitors share the server's table.
      const tokens = yield* server.sql<{ target_id: string; token: string }>`
        SELECT p.target_id, p.token FROM ping_tokens p JOIN targets t ON t.id = p.target_id
        WHERE t.org_id = ${alice.org.id}
      `
      expect(tokens.map((t) => t.target_id)).toEqual([data[2]?.id])
      expect(tokens[0]?.token).toMatch(/^[A-Za-z0-9_-]{32}$/)
      const listed = yield* alice.browser.request("/api/v1/targets?tag=bulk")
      expect(totalOf(listed)).toBe(1)
    })
  )

  it.effect("bulk create is all or none: the first refused item is named and nothing is written", () =>
    Effect.gen(function* () {
      const { alice } = yield* setup
      const bulk = (targets: ReadonlyArray<unknown>) =>
        alice.browser.request("/api/v1/targets/bulk", { json: { targets } })
      const count = Effect.map(alice.browser.request("/api/v1/targets"), totalOf)
      const interval = yield* bulk([
        { name: "ok", check: httpCheck() },
        { name: "too-fast", check: httpCheck(), interval: 60 }
      ])
      expect(interval.status).toBe(422)
      expect(Http.envelope(interval)).toMatchObject({ code: "MIN_CHECK_INTERVAL", field: "targets[1].interval" })
      const blocked = yield* bulk([
        { name: "ok", check: httpCheck() },
        { name: "ok", check: httpCheck() },
        { name: "internal", check: { type: "tcp", host: "10.0.0.1", port: 22 } }
      ])
      expect(blocked.status).toBe(400)
      expect(Http.envelope(blocked)).toMatchObject({ code: "TARGET_ADDRESS_BLOCKED", field: "targets[2].check.host" })
      const denied = yield* bulk([
        { name: "ok", check: httpCheck() },
        { name: "rival", check: { type: "http", url: "https://status.uptimerobot.com/" } }
      ])
      expect(denied.status).toBe(400)
      expect(Http.envelope(denied)).toMatchObject({ code: "DOMAIN_DENYLISTED", field: "targets[1].check.url" })
      const recon = yield* bulk([{ name: "recon", check: httpCheck("wp-login.php") }])
      expect(Http.envelope(recon)).toMatchObject({ code: "URL_PATTERN_BLOCKED", field: "targets[0].check.url" })
      const region = yield* bulk([{ name: "r", check: httpCheck(), regions: ["local", "mars-1"] }])
      expect(Http.envelope(region)).toMatchObject({ code: "REGION_INVALID", field: "targets[0].regions[1]" })
      const shape = yield* bulk([
        { name: "ok", check: httpCheck() },
        { name: "bad", check: { type: "smtp" } }
      ])
      expect(shape.status).toBe(400)
      expect(Http.envelope(shape).field).toMatch(/^targets\[1\]\.check/)
      const unknownKey = yield* bulk([{ name: "ok", check: httpCheck(), colour: "red" }])
      expect(unknownKey.status).toBe(422)
      expect(Http.envelope(unknownKey)).toMatchObject({ code: "INVALID_JSON", field: "targets[0].colour" })
      const empty = yield* bulk([])
      expect(Http.envelope(empty)).toMatchObject({ code: "VALIDATION_FAILED", field: "targets" })
      expect(yield* count).toBe(0)
    })
  )

  it.effect("bulk create counts the quota for every item at once and refuses more than 10,000", () =>
    Effect.gen(function* () {
      const { alice } = yield* setup
      const items = (n: number, prefix: string) =>
        Array.from({ length: n }, (_, i) => ({ name: `${prefix}-${i}`, check: httpCheck(`${i}`) }))
      const first = yield* alice.browser.request("/api/v1/targets/bulk", { json: { targets: items(15, "first") } })
      expect(first.status).toBe(201)
      // The free plan holds 20: 15 + 6 does not fit, so none of the 6 is made.
      const over = yield* alice.browser.request("/api/v1/targets/bulk", { json: { targets: items(6, "over") } })
      expect(over.status).toBe(422)
      expect(Http.envelope(over)).toMatchObject({
        code: "QUOTA_EXCEEDED",
        field: null,
        details: { quota: "max_targets", current: 15, limit: 20, plan: "free", requested: 6 }
      })
      const fits = yield* alice.browser.request("/api/v1/targets/bulk", { json: { targets: items(5, "fits") } })
      expect(fits.status).toBe(201)
      const total = totalOf(yield* alice.browser.request("/api/v1/targets"))
      expect(total).toBe(20)
      const huge = yield* alice.browser.request("/api/v1/targets/bulk", {
        json: { targets: Array.from({ length: 10_001 }, (_, i) => ({ name: `h${i}`, check: { type: "manual" } })) }
      })
      expect(huge.status).toBe(413)
      expect(Http.envelope(huge)).toMatchObject({
        code: "BULK_TOO_LARGE",
        field: "targets",
        details: { max: 10_000, count: 10_001 }
      })
    })
  )

  it.effect("Idempotency-Key: a replay answers the first answer; another body is refused; races write once", () =>
    Effect.gen(function* () {
      const { server, alice } = yield* setup
      const create = (key: string, name = "Keyed") =>
        alice.browser.request("/api/v1/targets", {
          json: { name, check: httpCheck() },
          headers: { "idempotency-key": key }
        })
      const first = yield* create("key-1")
      expect(first.status).toBe(201)
      expect(first.headers.get("idempotent-replayed")).toBeNull()
      const again = yield* create("key-1")
      expect(again.status).toBe(201)
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      expect(again.headers.get("location")).toBe(first.headers.get("location"))
      expect(asTarget(again)).toEqual(asTarget(first))
      const reused = yield* create("key-1", "Another")
      expect(reused.status).toBe(422)
      expect(Http.envelope(reused)).toMatchObject({ code: "IDEMPOTENCY_KEY_REUSED", field: "Idempotency-Key" })
      const malformed = yield* create("k".repeat(256))
      expect(malformed.status).toBe(400)
      expect(Http.envelope(malformed)).toMatchObject({ code: "VALIDATION_FAILED", field: "Idempotency-Key" })

      // Eight clients retrying at once with one key make one monitor and all get its answer.
      const raced = yield* Effect.forEach(Array.from({ length: 8 }), () => create("race"), {
        concurrency: "unbounded"
      })
      expect(raced.map((r) => r.status)).toEqual(Array.from({ length: 8 }, () => 201))
      const ids = new Set(raced.map((r) => asTarget(r).id))
      expect(ids.size).toBe(1)

      // A bulk create replays too, and the key is the caller's own: another person's same key is a new request.
      const bulk = (person: typeof alice) =>
        person.browser.request("/api/v1/targets/bulk", {
          json: {
            targets: [
              { name: "k1", check: httpCheck() },
              { name: "k2", check: httpCheck() }
            ]
          },
          headers: { "idempotency-key": "bulk-1" }
        })
      const b1 = yield* bulk(alice)
      const b2 = yield* bulk(alice)
      expect(batch(b2)).toEqual(batch(b1))
      const bob = yield* Fixture.person({ label: "bob" })
      const b3 = yield* bulk(bob)
      expect(b3.status).toBe(201)
      expect(batch(b3).map((t) => t.id)).not.toEqual(batch(b1).map((t) => t.id))

      // A refused request records nothing: fixed and retried with the same key, it goes through.
      const refused = yield* alice.browser.request("/api/v1/targets", {
        json: { name: "slow", check: httpCheck(), interval: 60 },
        headers: { "idempotency-key": "fix-me" }
      })
      expect(refused.status).toBe(422)
      const fixed = yield* alice.browser.request("/api/v1/targets", {
        json: { name: "slow", check: httpCheck(), interval: 60 },
        headers: { "idempotency-key": "fix-me" }
      })
      expect(fixed.status).toBe(422)
      const [row] = yield* server.sql<{
        n: number
      }>`SELECT count(*)::int AS n FROM idempotency_keys WHERE key = 'fix-me'`
      expect(row?.n).toBe(0)
      // The org's: a name is not unique across the people sharing the server.
      const [targets] = yield* server.sql<{ n: number }>`
        SELECT count(*)::int AS n FROM targets WHERE name = 'Keyed' AND org_id = ${alice.org.id}
      `
      expect(targets?.n).toBe(2)
    })
  )

  it.effect("duplicate copies the stored row with each copy's address, in order, credentials kept", () =>
    Effect.gen(function* () {
      const { server, alice } = yield* setup
      const source = asTarget(
        yield* alice.browser.request("/api/v1/targets", {
          json: {
            name: "Source",
            check: { ...httpCheck(), basic_auth: { username: "u", password: "pw-secret" } },
            interval: 300,
            enabled: false,
            tags: ["prod"],
            group: "web",
            recovery_period_secs: 0
          }
        })
      )
      // Stored under an older, looser plan: the copy keeps the interval and regions as stored.
      yield* server.sql`UPDATE targets SET interval_secs = 60 WHERE id = ${source.id}`
      const reply = yield* alice.browser.request(`/api/v1/targets/${source.id}/duplicate`, {
        json: {
          copies: [{ name: "Copy A", address: "https://a.example.com/health" }, { name: "Copy B" }]
        }
      })
      expect(reply.status).toBe(201)
      const [a, b] = batch(reply)
      assert.isDefined(a)
      assert.isDefined(b)
      expect(a).toMatchObject({
        name: "Copy A",
        interval: 60,
        enabled: false,
        tags: ["prod"],
        group: "web",
        regions: ["local"]
      })
      expect(a.check).toMatchObject({ url: "https://a.example.com/health", basic_auth: "***" })
      expect(b.check).toMatchObject({ url: "https://example.com/health", basic_auth: "***" })
      expect(reply.text).not.toContain("pw-secret")
      const sealed = yield* server.sql<{ credentials: string | null }>`
        SELECT credentials FROM targets WHERE id IN (${a.id}, ${b.id})
      `
      expect(sealed.every((r) => r.credentials !== null)).toBe(true)
    })
  )

  it.effect("duplicate: addresses per kind, refusals named per copy, heartbeat copies get their own ping URL", () =>
    Effect.gen(function* () {
      const { server, alice } = yield* setup
      const make = (check: unknown) =>
        Effect.map(alice.browser.request("/api/v1/targets", { json: { name: "src", check } }), (r) => asTarget(r).id)
      const duplicate = (id: string, copies: ReadonlyArray<unknown>) =>
        alice.browser.request(`/api/v1/targets/${id}/duplicate`, { json: { copies } })

      const tcp = yield* make({ type: "tcp", host: "db.example.com", port: 5432 })
      const tcpReply = yield* duplicate(tcp, [
        { name: "bare", address: "db2.example.com" },
        { name: "ported", address: "db3.example.com:6432" },
        { name: "v6", address: "[2606:4700::1111]:7000" }
      ])
      expect(tcpReply.status, tcpReply.text).toBe(201)
      const tcpCopies = batch(tcpReply)
      expect(tcpCopies.map((t) => [t.check["host"], t.check["port"]])).toEqual([
        ["db2.example.com", 5432],
        ["db3.example.com", 6432],
        ["2606:4700::1111", 7000]
      ])
      const badPort = yield* duplicate(tcp, [{ name: "ok" }, { name: "bad", address: "db.example.com:99999" }])
      expect(badPort.status).toBe(400)
      expect(Http.envelope(badPort)).toMatchObject({ code: "VALIDATION_FAILED", field: "copies[1].address" })
      const internal = yield* duplicate(tcp, [{ name: "internal", address: "127.0.0.1:22" }])
      expect(Http.envelope(internal)).toMatchObject({ code: "TARGET_ADDRESS_BLOCKED", field: "copies[0].check.host" })

      const http = yield* make(httpCheck())
      const ftp = yield* duplicate(http, [{ name: "ftp", address: "ftp://example.com/" }])
      expect(Http.envelope(ftp)).toMatchObject({ code: "VALIDATION_FAILED", field: "copies[0].address" })
      const rival = yield* duplicate(http, [{ name: "ok" }, { name: "rival", address: "https://pingdom.com/x" }])
      expect(Http.envelope(rival)).toMatchObject({ code: "DOMAIN_DENYLISTED", field: "copies[1].check.url" })
      const blocked = yield* duplicate(http, [{ name: "meta", address: "http://169.254.169.254/latest" }])
      expect(Http.envelope(blocked)).toMatchObject({ code: "TARGET_ADDRESS_BLOCKED", field: "copies[0].check.url" })

      const dns = yield* make({ type: "dns", domain: "example.com", record_type: "A" })
      const dnsCopy = batch(yield* duplicate(dns, [{ name: "d", address: "example.org" }]))
      expect(dnsCopy[0]?.check["domain"]).toBe("example.org")
      const pingSource = yield* make({ type: "ping", host: "example.com" })
      const pingPort = yield* duplicate(pingSource, [{ name: "p", address: "example.net:80" }])
      expect(Http.envelope(pingPort)).toMatchObject({ code: "VALIDATION_FAILED", field: "copies[0].address" })

      const heartbeat = yield* make({ type: "heartbeat", period: 3600, grace: 300 })
      const addressed = yield* duplicate(heartbeat, [{ name: "h", address: "example.com" }])
      expect(addressed.status).toBe(400)
      expect(Http.envelope(addressed)).toMatchObject({ code: "INVALID_ADDRESS", field: "copies[0].address" })
      const copies = batch(yield* duplicate(heartbeat, [{ name: "h1" }, { name: "h2" }]))
      const tokens = yield* server.sql<{ target_id: string; token: string }>`
        SELECT target_id, token FROM ping_tokens WHERE target_id IN (${heartbeat}, ${copies[0]?.id ?? ""}, ${copies[1]?.id ?? ""})
      `
      expect(tokens).toHaveLength(3)
      expect(new Set(tokens.map((t) => t.token)).size).toBe(3)

      // Nothing of a refused request is written.
      const before = totalOf(yield* alice.browser.request("/api/v1/targets"))
      yield* duplicate(tcp, [{ name: "fine" }, { name: "bad", address: "::1:22:" }])
      const after = totalOf(yield* alice.browser.request("/api/v1/targets"))
      expect(after).toBe(before)
    })
  )

  it.effect("duplicate: 101 copies is 413, no room is 422, a foreign id is 404, a key replays", () =>
    Effect.gen(function* () {
      const { alice } = yield* setup
      const source = asTarget(
        yield* alice.browser.request("/api/v1/targets", { json: { name: "s", check: httpCheck() } })
      ).id
      const copies = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `c${i}` }))
      const many = yield* alice.browser.request(`/api/v1/targets/${source}/duplicate`, {
        json: { copies: copies(101) }
      })
      expect(many.status).toBe(413)
      expect(Http.envelope(many)).toMatchObject({ code: "BULK_TOO_LARGE", field: "copies", details: { max: 100 } })
      const full = yield* alice.browser.request(`/api/v1/targets/${source}/duplicate`, { json: { copies: copies(20) } })
      expect(full.status).toBe(422)
      expect(Http.envelope(full)).toMatchObject({
        code: "QUOTA_EXCEEDED",
        details: { quota: "max_targets", current: 1, limit: 20, requested: 20 }
      })
      const bob = yield* Fixture.person({ label: "bob" })
      const foreign = yield* bob.browser.request(`/api/v1/targets/${source}/duplicate`, { json: { copies: copies(1) } })
      expect(foreign.status).toBe(404)
      const keyed = () =>
        alice.browser.request(`/api/v1/targets/${source}/duplicate`, {
          json: { copies: copies(2) },
          headers: { "idempotency-key": "dup-1" }
        })
      const first = yield* keyed()
      const second = yield* keyed()
      expect(first.status).toBe(201)
      expect(second.headers.get("idempotent-replayed")).toBe("true")
      expect(batch(second)).toEqual(batch(first))
      const total = totalOf(yield* alice.browser.request("/api/v1/targets"))
      expect(total).toBe(3)
    })
  )

  it.effect("bulk actions change every named target or none, stamped with the writer", () =>
    Effect.gen(function* () {
      const { server, alice } = yield* setup
      const made = batch(
        yield* alice.browser.request("/api/v1/targets/bulk", {
          json: {
            targets: [
              { name: "t0", check: httpCheck(), tags: ["a"] },
              { name: "t1", check: httpCheck(), tags: ["a", "b"] },
              { name: "t2", check: { type: "manual" } }
            ]
          }
        })
      )
      const ids = made.map((t) => t.id)
      const token = (yield* mintToken(alice, { scopes: ["targets:write"], org_id: alice.org.id })).token
      const act = (body: Record<string, unknown>) =>
        bearer(server, token, "/api/v1/targets/bulk-action", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body)
        })
      const read = (id: string) => Effect.map(alice.browser.request(`/api/v1/targets/${id}`), asTarget)

      const disable = yield* act({ action: "disable", ids })
      expect(result(disable), disable.text).toEqual({ updated: 3 })
      const disabled = yield* read(ids[0] ?? "")
      expect(disabled).toMatchObject({ enabled: false, write_source: "api" })
      expect(result(yield* act({ action: "tag-add", ids, tags: ["c", "a"] }))).toEqual({ updated: 3 })
      expect((yield* read(ids[1] ?? "")).tags).toEqual(["a", "b", "c"])
      yield* act({ action: "tag-remove", ids: [ids[1]], tags: ["a"] })
      expect((yield* read(ids[1] ?? "")).tags).toEqual(["b", "c"])
      yield* act({ action: "set-group", ids: [ids[0], ids[0]], group: "edge" })
      expect((yield* read(ids[0] ?? "")).group).toBe("edge")
      yield* act({ action: "set-group", ids: [ids[0]], group: null })
      expect((yield* read(ids[0] ?? "")).group).toBeNull()

      // Every target must accept the change: the manual one refuses any interval but 60 and names itself.
      const interval = yield* act({ action: "set-interval", ids, interval: 600 })
      expect(interval.status).toBe(400)
      expect(Http.envelope(interval)).toMatchObject({
        code: "INVALID_INTERVAL",
        field: "interval",
        details: { target_id: ids[2] }
      })
      const floor = yield* act({ action: "set-interval", ids: ids.slice(0, 2), interval: 60 })
      expect(Http.envelope(floor)).toMatchObject({ code: "MIN_CHECK_INTERVAL", field: "interval" })
      expect(result(yield* act({ action: "set-interval", ids: ids.slice(0, 2), interval: 600 }))).toEqual({
        updated: 2
      })
      expect((yield* read(ids[0] ?? "")).interval).toBe(600)

      // Channel bindings: every id must be a channel of the org; an empty list clears them.
      const channel = Http.decode(
        yield* alice.browser.request("/api/v1/channels", {
          json: { name: "ops", kind: "email", config: { addresses: ["ops@example.com"] } }
        }),
        CreatedChannel
      )
      const bound = yield* act({ action: "set-channels", ids: ids.slice(0, 2), channel_ids: [channel.id] })
      expect(result(bound), bound.text).toEqual({ updated: 2 })
      const withAlerts = asTarget(yield* alice.browser.request(`/api/v1/targets/${ids[1]}`))
      expect(withAlerts.alerts).toEqual([{ channel_id: channel.id }])
      const stranger = yield* act({
        action: "set-channels",
        ids,
        channel_ids: [channel.id, "0190a8f0-0000-7000-8000-000000000000"]
      })
      expect(stranger.status).toBe(400)
      expect(Http.envelope(stranger)).toMatchObject({ code: "VALIDATION_FAILED", field: "channel_ids[1]" })
      yield* act({ action: "set-channels", ids: [ids[1]], channel_ids: [] })
      expect(asTarget(yield* alice.browser.request(`/api/v1/targets/${ids[1]}`)).alerts).toEqual([])

      // A foreign or unknown id is the uniform 404 naming it, and nothing changes.
      const bob = yield* Fixture.person({ label: "bob" })
      const bobs = asTarget(
        yield* bob.browser.request("/api/v1/targets", { json: { name: "bob", check: httpCheck() } })
      ).id
      const foreign = yield* act({ action: "enable", ids: [ids[0], bobs] })
      expect(foreign.status).toBe(404)
      expect(Http.envelope(foreign)).toMatchObject({ code: "NOT_FOUND", field: "ids[1]" })
      expect((yield* read(ids[0] ?? "")).enabled).toBe(false)

      // Shapes: the action's own field is required and no other is taken.
      expect(Http.envelope(yield* act({ action: "tag-add", ids }))).toMatchObject({
        code: "VALIDATION_FAILED",
        field: "tags"
      })
      expect(Http.envelope(yield* act({ action: "enable", ids, tags: ["x"] }))).toMatchObject({
        code: "VALIDATION_FAILED",
        field: "tags"
      })
      expect(Http.envelope(yield* act({ action: "explode", ids })).field).toBe("action")
      expect(Http.envelope(yield* act({ action: "enable", ids: ["not-a-uuid"] })).field).toBe("ids[0]")

      // Delete needs targets:delete, which this token lacks.
      const denied = yield* act({ action: "delete", ids })
      expect(denied.status).toBe(403)
      expect(Http.envelope(denied).code).toBe("INSUFFICIENT_SCOPE")
      const deleted = yield* alice.browser.request("/api/v1/targets/bulk-action", {
        json: { action: "delete", ids: ids.slice(0, 2) }
      })
      expect(result(deleted)).toEqual({ updated: 2 })
      expect(totalOf(yield* alice.browser.request("/api/v1/targets"))).toBe(1)
    })
  )
})

// An operator token, and a region every account of the server sees: a server of its own.
const admin = "operator-secret-for-bulk-tests-0123456789"

Fixture.describe(
  `bulk targets and flow regions (${TestDatabase.kind} database)`,
  // The local region runs no flows here, whatever browser the machine has.
  { env: { OPERATOR__ADMIN_TOKEN: admin, CHECKER__BROWSER_PATH: "none" } },
  (it) => {
    it.effect("flows need a flow-capable region: create, bulk, duplicate and test answer NO_FLOW_CAPABLE_AGENT", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const op = (path: string, method: string, json: unknown) =>
          Http.request(`${server.baseUrl}/operator${path}`, {
            method,
            headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
            body: JSON.stringify(json)
          })
        const alice = yield* Fixture.person()
        expect((yield* op(`/accounts/${alice.accountId}/overrides`, "PUT", { max_flow_checks: 5 })).status).toBe(200)
        // A region runs flows while an agent of it with a browser was seen lately.
        expect((yield* op("/regions", "POST", { id: "eu-flow", name: "Flow" })).status).toBe(201)
        const agent = Http.expectOk(
          yield* op("/agents", "POST", { region_id: "eu-flow", name: "fra" }),
          CreatedAgent,
          201
        )
        const hello = yield* AgentClient.make(server.baseUrl, agent.token).hello({
          version: "1",
          browser: "Chromium 153.0.0",
          concurrency: 4
        })
        expect(hello.status).toBe(200)
        const flow = {
          type: "flow",
          start_url: "https://example.com/login",
          steps: [{ action: "assert_text", text: "Welcome" }]
        }
        const local = yield* alice.browser.request("/api/v1/targets", { json: { name: "f", check: flow } })
        expect(local.status).toBe(422)
        expect(Http.envelope(local)).toMatchObject({ code: "NO_FLOW_CAPABLE_AGENT", field: "regions" })
        const bulk = yield* alice.browser.request("/api/v1/targets/bulk", {
          json: {
            targets: [
              { name: "ok", check: flow, regions: ["eu-flow"] },
              { name: "f", check: flow }
            ]
          }
        })
        expect(Http.envelope(bulk)).toMatchObject({ code: "NO_FLOW_CAPABLE_AGENT", field: "targets[1].regions" })
        const made = yield* alice.browser.request("/api/v1/targets", {
          json: { name: "f", check: flow, regions: ["eu-flow"] }
        })
        expect(made.status).toBe(201)
        const id = asTarget(made).id
        expect((yield* op(`/agents/${agent.id}`, "DELETE", {})).status).toBe(204)
        const copied = yield* alice.browser.request(`/api/v1/targets/${id}/duplicate`, {
          json: { copies: [{ name: "c" }] }
        })
        expect(copied.status).toBe(422)
        expect(Http.envelope(copied).code).toBe("NO_FLOW_CAPABLE_AGENT")
        const tested = yield* alice.browser.request("/api/v1/targets/test", { json: { check: flow } })
        expect(tested.status).toBe(422)
        expect(Http.envelope(tested).code).toBe("NO_FLOW_CAPABLE_AGENT")
      })
    )
  }
)
