/**
 * Anti-abuse over HTTP: on create, update and test of a monitor, a URL matching an attack-reconnaissance pattern
 * is 400 URL_PATTERN_BLOCKED and a name under a denied domain (built-in, the operator's file, or the operator's
 * own domain) 400 DOMAIN_DENYLISTED, each naming its field and leaving an abuse_blocked audit entry behind.
 */
import * as fs from "node:fs"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Reply from "../support/Http.js"
import { bearer, mintToken, type Person, signIn } from "../support/Identity.js"
import * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TestDatabase from "../support/TestDatabase.js"
import * as TestServer from "../support/TestServer.js"

interface AuditRow {
  readonly event: string
  readonly account_id: string | null
  readonly org_id: string | null
  readonly user_id: string | null
  readonly details: Record<string, unknown>
  readonly ip_hash: string | null
  readonly request_id: string | null
}

const setup = (settings: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const smtp = yield* SmtpCatcher.make
    const server = yield* TestServer.start({
      MAIL__SMTP_URL: smtp.url,
      AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0",
      CHECKER__ALLOW_PRIVATE_TARGETS: "true",
      ...settings
    })
    const alice = yield* signIn(server, smtp)
    const me = (yield* alice.browser.request("/api/v1/me")).json as {
      id: string
      account_id: string
      active_org: { id: string }
    }
    const audit = Effect.gen(function* () {
      const rows = yield* server.sql<{
        event: string
        account_id: string | null
        org_id: string | null
        user_id: string | null
        details: unknown
        ip_hash: string | null
        request_id: string | null
      }>`SELECT event, account_id, org_id, user_id, details, ip_hash, request_id FROM audit_events ORDER BY created_at, id`.pipe(
        Effect.orDie
      )
      return rows.map(
        (row): AuditRow => ({
          ...row,
          details: (typeof row.details === "string" ? JSON.parse(row.details) : row.details) as Record<string, unknown>
        })
      )
    })
    const targets = server.sql<{ n: number }>`SELECT count(*)::int AS n FROM targets`.pipe(
      Effect.map((rows) => rows[0]?.n ?? 0),
      Effect.orDie
    )
    return { server, smtp, alice, me, audit, targets }
  })

const create = (person: Person, check: Record<string, unknown>, headers: Record<string, string> = {}) =>
  person.browser.request("/api/v1/targets", { json: { name: "web", check }, headers })

const test = (person: Person, check: Record<string, unknown>) =>
  person.browser.request("/api/v1/targets/test", { json: { check } })

/** The refusal's status, code and field, for one assertion per case. */
const refusal = (reply: Reply.Reply) => {
  const error = Reply.envelope(reply)
  return { status: reply.status, code: error.code, field: error.field }
}

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
).pipe(Effect.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`))

const tempFile = (name: string, text: string) => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "sm-abuse-")), name)
  fs.writeFileSync(file, text)
  return file
}

describe(`anti-abuse (${TestDatabase.kind} database)`, () => {
  it.scopedLive("create: a denied domain is 400 DOMAIN_DENYLISTED on check.url, audited, nothing stored", () =>
    Effect.gen(function* () {
      const { alice, me, audit, targets } = yield* setup()
      const reply = yield* create(
        alice,
        { type: "http", url: "https://user:hunter2@Status.PINGDOM.com./health" },
        { "x-request-id": "abuse-create-1" }
      )
      expect(refusal(reply)).toEqual({ status: 400, code: "DOMAIN_DENYLISTED", field: "check.url" })
      expect(Reply.envelope(reply).details).toEqual({ domain: "pingdom.com" })
      expect(yield* targets).toBe(0)
      const rows = yield* audit
      expect(rows).toHaveLength(1)
      expect(rows[0]).toMatchObject({
        event: "abuse_blocked",
        account_id: me.account_id,
        org_id: me.active_org.id,
        user_id: me.id,
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

  it.scopedLive("create: an attack-recon path is 400 URL_PATTERN_BLOCKED on check.url, in any case or encoding", () =>
    Effect.gen(function* () {
      const { alice, audit, targets } = yield* setup()
      for (const url of [
        "https://shop.test/WP-LOGIN.php",
        "https://shop.test/.env",
        "https://shop.test/static/..%2f..%2fetc/passwd",
        "https://shop.test/.git/config"
      ]) {
        const reply = yield* create(alice, { type: "http", url })
        expect(refusal(reply), url).toEqual({ status: 400, code: "URL_PATTERN_BLOCKED", field: "check.url" })
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

  it.scopedLive("create: each kind names the field holding the denied name; lookalikes and IPs pass", () =>
    Effect.gen(function* () {
      const { alice, audit } = yield* setup()
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
        expect(refusal(reply), JSON.stringify(check)).toEqual({ status: 400, code: "DOMAIN_DENYLISTED", field })
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

  it.scopedLive("update: a PATCH to a denied check is 400 naming check.url and keeps the stored check", () =>
    Effect.gen(function* () {
      const { alice, audit } = yield* setup()
      const created = yield* create(alice, { type: "http", url: "https://shop.test/health" })
      expect(created.status).toBe(201)
      const id = (created.json as { id: string }).id
      const patch = (check: Record<string, unknown>) =>
        alice.browser.request(`/api/v1/targets/${id}`, { method: "PATCH", json: { check } })
      expect(refusal(yield* patch({ type: "http", url: "https://api.betterstack.com/x" }))).toEqual({
        status: 400,
        code: "DOMAIN_DENYLISTED",
        field: "check.url"
      })
      expect(refusal(yield* patch({ type: "http", url: "https://shop.test/phpmyadmin/" }))).toEqual({
        status: 400,
        code: "URL_PATTERN_BLOCKED",
        field: "check.url"
      })
      const stored = (yield* alice.browser.request(`/api/v1/targets/${id}`)).json as { check: { url: string } }
      expect(stored.check.url).toBe("https://shop.test/health")
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

  it.scopedLive("test: the one-shot run is refused before anything is dialed; loopback IPs still run", () =>
    Effect.gen(function* () {
      const { alice, audit, server, me } = yield* setup()
      expect(refusal(yield* test(alice, { type: "tcp", host: "probe.hetrixtools.com", port: 80 }))).toEqual({
        status: 400,
        code: "DOMAIN_DENYLISTED",
        field: "check.host"
      })
      const base = yield* origin
      expect(refusal(yield* test(alice, { type: "http", url: `${base}/xmlrpc.php` }))).toEqual({
        status: 400,
        code: "URL_PATTERN_BLOCKED",
        field: "check.url"
      })
      expect((yield* test(alice, { type: "http", url: `${base}/health` })).status).toBe(200)
      // An API token's refusal is attributed the same way.
      const token = yield* mintToken(alice, { org_id: me.active_org.id })
      const viaToken = yield* bearer(server, token.token, "/api/v1/targets/test", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ check: { type: "dns", domain: "cronitor.io", record_type: "A" } })
      })
      expect(refusal(viaToken)).toEqual({ status: 400, code: "DOMAIN_DENYLISTED", field: "check.domain" })
      const rows = yield* audit
      expect(rows.map((r) => [r.details["code"], r.details["field"], r.details["path"]])).toEqual([
        ["DOMAIN_DENYLISTED", "check.host", "/api/v1/targets/test"],
        ["URL_PATTERN_BLOCKED", "check.url", "/api/v1/targets/test"],
        ["DOMAIN_DENYLISTED", "check.domain", "/api/v1/targets/test"]
      ])
      expect(new Set(rows.map((r) => r.user_id)).size).toBe(1)
    })
  )

  it.scopedLive("test: a variable cannot smuggle a denied name past the rules", () =>
    Effect.gen(function* () {
      const { alice } = yield* setup()
      const variable = yield* alice.browser.request("/api/v1/variables", {
        json: { key: "host", value: "www.pingdom.com" }
      })
      expect(variable.status).toBe(201)
      expect(refusal(yield* test(alice, { type: "http", url: "https://{{host}}/" }))).toEqual({
        status: 400,
        code: "DOMAIN_DENYLISTED",
        field: "check.url"
      })
    })
  )

  it.scopedLive("the operator's own domain (host of auth.public_base_url) and its subdomains are denied", () =>
    Effect.gen(function* () {
      const { alice } = yield* setup({ AUTH__PUBLIC_BASE_URL: "https://status.signalman.test" })
      for (const url of ["https://status.signalman.test/api/v1/me", "https://eu.status.signalman.test/"]) {
        const reply = yield* create(alice, { type: "http", url })
        expect(refusal(reply), url).toEqual({ status: 400, code: "DOMAIN_DENYLISTED", field: "check.url" })
        expect(Reply.envelope(reply).details).toEqual({ domain: "status.signalman.test" })
      }
      expect((yield* create(alice, { type: "http", url: "https://signalman.test/" })).status).toBe(201)
    })
  )

  it.scopedLive("operator files add patterns and domains; with the built-in rules off only the files apply", () =>
    Effect.gen(function* () {
      const patterns = tempFile("patterns.txt", "# ours\n^/internal-admin(/|$)\n")
      const domains = tempFile("domains.txt", "bücher.de  # a shop we were asked not to probe\nExample.ORG.\n")
      const { alice } = yield* setup({
        ABUSE__URL_PATTERNS_FILE: patterns,
        ABUSE__DOMAIN_DENYLIST_FILE: domains,
        ABUSE__BUILTIN_RULES_ENABLED: "false"
      })
      const refused: ReadonlyArray<readonly [Record<string, unknown>, string, string]> = [
        [{ type: "http", url: "https://shop.test/Internal-Admin/users" }, "URL_PATTERN_BLOCKED", "check.url"],
        [{ type: "http", url: "https://www.BÜCHER.de/" }, "DOMAIN_DENYLISTED", "check.url"],
        [{ type: "tcp", host: "xn--bcher-kva.de", port: 443 }, "DOMAIN_DENYLISTED", "check.host"],
        [{ type: "dns", domain: "a.b.example.org.", record_type: "A" }, "DOMAIN_DENYLISTED", "check.domain"]
      ]
      for (const [check, code, field] of refused) {
        expect(refusal(yield* create(alice, check)), JSON.stringify(check)).toEqual({ status: 400, code, field })
      }
      for (const url of ["https://pingdom.com/", "https://shop.test/.env", "https://example.com/"]) {
        expect((yield* create(alice, { type: "http", url })).status, url).toBe(201)
      }
    })
  )
})
