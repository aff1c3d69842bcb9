/**
 * Anti-abuse over HTTP: on create, update and test of a monitor, a URL matching an attack-reconnaissance pattern
 * is 400 URL_PATTERN_BLOCKED and a name under a denied domain (built-in, the operator's file, or the operator's
 * own domain) 400 DOMAIN_DENYLISTED, each naming its field and leaving an abuse_blocked audit entry behind.
 */
import * as fs from "node:fs"
import * as Http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { expect } from "@effect/vitest"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Fixture from "../support/Fixture.js"
import * as Reply from "../support/Http.js"
import type { Person } from "../support/Identity.js"
import * as TestDatabase from "../support/TestDatabase.js"

const Details = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** An audit_events row; details is jsonb, which one database client answers parsed and the other as text. */
const AuditRow = Schema.Struct({
  event: Schema.String,
  account_id: Schema.NullOr(Schema.String),
  org_id: Schema.NullOr(Schema.String),
  user_id: Schema.NullOr(Schema.String),
  details: Schema.Union(Details, Schema.parseJson(Details)),
  ip_hash: Schema.NullOr(Schema.String),
  request_id: Schema.NullOr(Schema.String)
})

/** A signed-in person on the block's server, with the audit entries and the monitors of their own account. */
const setup = Effect.gen(function* () {
  const server = yield* Fixture.server
  const alice = yield* Fixture.person()
  const audit = server.sql`
    SELECT event, account_id, org_id, user_id, details, ip_hash, request_id FROM audit_events
    WHERE account_id = ${alice.accountId} ORDER BY created_at, id
  `.pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(AuditRow))), Effect.orDie)
  const targets = server.sql<{ n: number }>`SELECT count(*)::int AS n FROM targets WHERE org_id = ${alice.org.id}`.pipe(
    Effect.map((rows) => rows[0]?.n ?? 0),
    Effect.orDie
  )
  return { server, alice, audit, targets }
})

const create = (person: Person, check: Record<string, unknown>, headers: Record<string, string> = {}) =>
  person.browser.request("/api/v1/targets", { json: { name: "web", check }, headers })

const test = (person: Person, check: Record<string, unknown>) =>
  person.browser.request("/api/v1/targets/test", { json: { check } })

/** A loopback HTTP server answering 200 to everything. */
const origin: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.promise(
    () =>
      new Promise<Http.Server>((resolve) => {
        const server = Http.createServer((_, response) => {
          response.writeHead(200, { "content-type": "text/plain" }).end("ok")
        })
        server.listen(0, "127.0.0.1", () => resolve(server))
      })
  ),
  (server) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
).pipe(
  Effect.flatMap((server) => {
    const address = server.address()
    return address === null || typeof address === "string"
      ? Effect.dieMessage("the origin has no TCP address")
      : Effect.succeed(`http://127.0.0.1:${address.port}`)
  })
)

/** The operator's list files, written before the server that reads them at boot starts, removed after it stops. */
const operatorFiles = Effect.acquireRelease(
  Effect.sync(() => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sm-abuse-"))
    const write = (name: string, text: string) => {
      const file = path.join(dir, name)
      fs.writeFileSync(file, text)
      return file
    }
    return {
      dir,
      patterns: write("patterns.txt", "# ours\n^/internal-admin(/|$)\n"),
      domains: write("domains.txt", "bücher.de  # a shop we were asked not to probe\nExample.ORG.\n")
    }
  }),
  ({ dir }) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

// Monitors on loopback origins are allowed, as the one-shot test runs one.
const env = { CHECKER__ALLOW_PRIVATE_TARGETS: "true" }

Fixture.describe(`anti-abuse (${TestDatabase.kind} database)`, { env }, (it) => {
  it.effect("create: a denied domain is 400 DOMAIN_DENYLISTED on check.url, audited, nothing stored", () =>
    Effect.gen(function* () {
      const { alice, audit, targets } = yield* setup
      const reply = yield* create(
        alice,
        { type: "http", url: "https://user:hunter2@Status.PINGDOM.com./health" },
        { "x-request-id": "abuse-create-1" }
      )
      expect(Reply.refusal(reply)).toEqual({ status: 400, code: "DOMAIN_DENYLISTED", field: "check.url" })
      expect(Reply.envelope(reply).details).toEqual({ domain: "pingdom.com" })
      expect(yield* targets).toBe(0)
      const rows = yield* audit
      expect(rows).toHaveLength(1)
      expect(rows[0]).toMatchObject({
        event: "abuse_blocked",
        account_id: alice.accountId,
        org_id: alice.org.id,
        user_id: alice.userId,
        request_id: "abuse-create-1",
        details: {
          code: "DOMAIN_DENYLISTED",
          field: "check.url",
          host: "status.pingdom.com",
          domain: "pingdom.com",
          method: "POST",
          path: "/api/v1/targets"
        }
      })
      // The credentials in the URL are not copied into the log.
      expect(rows[0]?.details["value"]).toBe("https://Status.PINGDOM.com./health")
      expect(rows[0]?.ip_hash).toMatch(/^[A-Za-z0-9_-]{43}$/)
    })
  )

  it.effect("create: an attack-recon path is 400 URL_PATTERN_BLOCKED on check.url, in any case or encoding", () =>
    Effect.gen(function* () {
      const { alice, audit, targets } = yield* setup
      for (const url of [
        "https://shop.test/WP-LOGIN.php",
        "https://shop.test/.env",
        "https://shop.test/static/..%2f..%2fetc/passwd",
        "https://shop.test/.git/config"
      ]) {
        const reply = yield* create(alice, { type: "http", url })
        expect(Reply.refusal(reply), url).toEqual({ status: 400, code: "URL_PATTERN_BLOCKED", field: "check.url" })
        expect(typeof Reply.envelope(reply).details["pattern"]).toBe("string")
      }
      expect(yield* targets).toBe(0)
      const rows = yield* audit
      expect(rows.map((r) => [r.event, r.details["code"], r.details["value"]])).toEqual([
        ["abuse_blocked", "URL_PATTERN_BLOCKED", "https://shop.test/WP-LOGIN.php"],
        ["abuse_blocked", "URL_PATTERN_BLOCKED", "https://shop.test/.env"],
        ["abuse_blocked", "URL_PATTERN_BLOCKED", "https://shop.test/static/..%2f..%2fetc/passwd"],
        ["abuse_blocked", "URL_PATTERN_BLOCKED", "https://shop.test/.git/config"]
      ])
    })
  )

  it.effect("create: each kind names the field holding the denied name; lookalikes and IPs pass", () =>
    Effect.gen(function* () {
      const { alice, audit } = yield* setup
      const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
        [{ type: "tcp", host: "db.uptimerobot.com", port: 5432 }, "check.host"],
        [{ type: "ping", host: "UPTIMEROBOT.COM." }, "check.host"],
        [{ type: "tls_cert", host: "www.statuscake.com" }, "check.host"],
        [{ type: "dns", domain: "mail.pingdom.com", record_type: "MX" }, "check.domain"],
        [{ type: "domain_expiry", domain: "pingdom.com" }, "check.domain"],
        [
          {
            type: "flow",
            start_url: "https://shop.test/",
            steps: [
              { action: "click", selector: "#login" },
              { action: "goto", url: "https://my.pingdom.com/login" },
              { action: "assert_text", text: "Welcome" }
            ]
          },
          "check.steps[1].url"
        ],
        [
          { type: "flow", start_url: "https://pingdom.com/", steps: [{ action: "assert_text", text: "x" }] },
          "check.start_url"
        ]
      ]
      for (const [check, field] of cases) {
        const reply = yield* create(alice, check)
        expect(Reply.refusal(reply), JSON.stringify(check)).toEqual({ status: 400, code: "DOMAIN_DENYLISTED", field })
      }
      expect((yield* audit).map((r) => r.details["field"])).toEqual(cases.map(([, field]) => field))
      // A name that only ends in the same letters, an IPv6 literal and a plain site are not refused by these rules.
      for (const check of [
        { type: "tcp", host: "notpingdom.com", port: 443 },
        { type: "tcp", host: "::1", port: 443 },
        { type: "http", url: "https://shop.test/health" }
      ]) {
        expect((yield* create(alice, check)).status, JSON.stringify(check)).toBe(201)
      }
      expect(yield* audit).toHaveLength(cases.length)
    })
  )

  it.effect("update: a PATCH to a denied check is 400 naming check.url and keeps the stored check", () =>
    Effect.gen(function* () {
      const { alice, audit } = yield* setup
      const created = yield* create(alice, { type: "http", url: "https://shop.test/health" })
      expect(created.status).toBe(201)
      const id = Reply.decode(created, Target).id
      const patch = (check: Record<string, unknown>) =>
        alice.browser.request(`/api/v1/targets/${id}`, { method: "PATCH", json: { check } })
      expect(Reply.refusal(yield* patch({ type: "http", url: "https://api.betterstack.com/x" }))).toEqual({
        status: 400,
        code: "DOMAIN_DENYLISTED",
        field: "check.url"
      })
      expect(Reply.refusal(yield* patch({ type: "http", url: "https://shop.test/phpmyadmin/" }))).toEqual({
        status: 400,
        code: "URL_PATTERN_BLOCKED",
        field: "check.url"
      })
      const stored = Reply.wire(yield* alice.browser.request(`/api/v1/targets/${id}`), Target)
      expect(stored.check["url"]).toBe("https://shop.test/health")
      const rows = yield* audit
      expect(rows.map((r) => [r.details["code"], r.details["method"], r.details["path"]])).toEqual([
        ["DOMAIN_DENYLISTED", "PATCH", `/api/v1/targets/${id}`],
        ["URL_PATTERN_BLOCKED", "PATCH", `/api/v1/targets/${id}`]
      ])
      // A PATCH that leaves the check alone is not judged again.
      expect(
        (yield* alice.browser.request(`/api/v1/targets/${id}`, { method: "PATCH", json: { name: "b" } })).status
      ).toBe(200)
    })
  )

  it.scoped("test: the one-shot run is refused before anything is dialed; loopback IPs still run", () =>
    Effect.gen(function* () {
      const { alice, audit } = yield* setup
      expect(Reply.refusal(yield* test(alice, { type: "tcp", host: "probe.hetrixtools.com", port: 80 }))).toEqual({
        status: 400,
        code: "DOMAIN_DENYLISTED",
        field: "check.host"
      })
      const base = yield* origin
      expect(Reply.refusal(yield* test(alice, { type: "http", url: `${base}/xmlrpc.php` }))).toEqual({
        status: 400,
        code: "URL_PATTERN_BLOCKED",
        field: "check.url"
      })
      expect((yield* test(alice, { type: "http", url: `${base}/health` })).status).toBe(200)
      // An API token's refusal (the person's token, bound to their org) is attributed the same way.
      const viaToken = yield* alice.api("/api/v1/targets/test", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ check: { type: "dns", domain: "cronitor.io", record_type: "A" } })
      })
      expect(Reply.refusal(viaToken)).toEqual({ status: 400, code: "DOMAIN_DENYLISTED", field: "check.domain" })
      const rows = yield* audit
      expect(rows.map((r) => [r.details["code"], r.details["field"], r.details["path"]])).toEqual([
        ["DOMAIN_DENYLISTED", "check.host", "/api/v1/targets/test"],
        ["URL_PATTERN_BLOCKED", "check.url", "/api/v1/targets/test"],
        ["DOMAIN_DENYLISTED", "check.domain", "/api/v1/targets/test"]
      ])
      expect(new Set(rows.map((r) => r.user_id)).size).toBe(1)
    })
  )

  it.effect("test: a variable cannot smuggle a denied name past the rules", () =>
    Effect.gen(function* () {
      const alice = yield* Fixture.person()
      const variable = yield* alice.browser.request("/api/v1/variables", {
        json: { key: "host", value: "www.pingdom.com" }
      })
      expect(variable.status).toBe(201)
      expect(Reply.refusal(yield* test(alice, { type: "http", url: "https://{{host}}/" }))).toEqual({
        status: 400,
        code: "DOMAIN_DENYLISTED",
        field: "check.url"
      })
    })
  )
})

// The operator's own configuration, on a server of its own since the lists are read at boot and the tests above
// need the built-in rules: a public base URL (whose host is denied), list files, and the built-in rules off. The own
// domain is denied whatever the built-in rules say, and none of the files' entries is under it.
Fixture.describeWith(
  `anti-abuse, the operator's settings (${TestDatabase.kind} database)`,
  Fixture.layer(
    Effect.map(operatorFiles, (files) => ({
      env: {
        ...env,
        AUTH__PUBLIC_BASE_URL: "https://status.signalman.test",
        ABUSE__URL_PATTERNS_FILE: files.patterns,
        ABUSE__DOMAIN_DENYLIST_FILE: files.domains,
        ABUSE__BUILTIN_RULES_ENABLED: "false"
      }
    }))
  ),
  (it) => {
    it.effect("the operator's own domain (host of auth.public_base_url) and its subdomains are denied", () =>
      Effect.gen(function* () {
        const alice = yield* Fixture.person()
        for (const url of ["https://status.signalman.test/api/v1/me", "https://eu.status.signalman.test/"]) {
          const reply = yield* create(alice, { type: "http", url })
          expect(Reply.refusal(reply), url).toEqual({ status: 400, code: "DOMAIN_DENYLISTED", field: "check.url" })
          expect(Reply.envelope(reply).details).toEqual({ domain: "status.signalman.test" })
        }
        expect((yield* create(alice, { type: "http", url: "https://signalman.test/" })).status).toBe(201)
      })
    )

    it.effect("operator files add patterns and domains; with the built-in rules off only the files apply", () =>
      Effect.gen(function* () {
        // The block's lists: a pattern file with ^/internal-admin(/|$), a domain file with bücher.de and Example.ORG.
        const alice = yield* Fixture.person()
        const refused: ReadonlyArray<readonly [Record<string, unknown>, string, string]> = [
          [{ type: "http", url: "https://shop.test/Internal-Admin/users" }, "URL_PATTERN_BLOCKED", "check.url"],
          [{ type: "http", url: "https://www.BÜCHER.de/" }, "DOMAIN_DENYLISTED", "check.url"],
          [{ type: "tcp", host: "xn--bcher-kva.de", port: 443 }, "DOMAIN_DENYLISTED", "check.host"],
          [{ type: "dns", domain: "a.b.example.org.", record_type: "A" }, "DOMAIN_DENYLISTED", "check.domain"]
        ]
        for (const [check, code, field] of refused) {
          expect(Reply.refusal(yield* create(alice, check)), JSON.stringify(check)).toEqual({
            status: 400,
            code,
            field
          })
        }
        for (const url of ["https://pingdom.com/", "https://shop.test/.env", "https://example.com/"]) {
          expect((yield* create(alice, { type: "http", url })).status, url).toBe(201)
        }
      })
    )
  }
)
