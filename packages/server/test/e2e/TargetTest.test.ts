/**
 * `POST /api/v1/targets/test`: a check run once against real servers on loopback, and every refusal before it runs.
 */

import * as Http from "node:http"
import { expect } from "@effect/vitest"
import { CheckResult } from "@signalman/core/CheckResult"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Fixture from "../support/Fixture.js"
import * as Reply from "../support/Http.js"
import { bearer, mintToken, type Person } from "../support/Identity.js"
import * as TestDatabase from "../support/TestDatabase.js"

/** A loopback HTTP server answering each path with a chosen status. */
const origin: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.promise(
    () =>
      new Promise<Http.Server>((resolve) => {
        const server = Http.createServer((request, response) => {
          if (request.url === "/busy") {
            response.writeHead(503, { "retry-after": "120" }).end("busy")
            return
          }
          response.writeHead(request.url === "/missing" ? 404 : 200, { "content-type": "text/plain" }).end("all good")
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

const testCheck = (person: Person, check: unknown) =>
  person.browser.request("/api/v1/targets/test", { json: { check } })

const setup = Effect.gen(function* () {
  const server = yield* Fixture.server
  const alice = yield* Fixture.person()
  const test = (check: unknown) => testCheck(alice, check)
  return { server, alice, test }
})

// The origin is on loopback: checks against it run only on a server that allows private targets.
Fixture.describe(
  `POST /api/v1/targets/test against loopback (${TestDatabase.kind} database)`,
  { env: { CHECKER__ALLOW_PRIVATE_TARGETS: "true" } },
  (it) => {
    it.scoped("runs the check once and answers its result, nothing stored", () =>
      Effect.gen(function* () {
        const { test } = yield* setup
        const base = yield* origin
        const up = yield* test({ type: "http", url: `${base}/ok`, expected_body_contains: "good" })
        expect(up.status).toBe(200)
        // As sent, so `checked_at` is the string the server wrote.
        const result = Reply.wire(up, CheckResult)
        expect(result.status).toBe("up")
        expect(result.error).toBeNull()
        expect(result.details?.["status_code"]).toBe(200)
        expect(result.region).toBe("local")
        expect(result.checked_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
        expect(result.phases?.connect_ms).toBeGreaterThanOrEqual(0)
        expect(up.headers.get("cache-control")).toBe("no-store")

        const degraded = Reply.decode(yield* test({ type: "http", url: `${base}/busy` }), CheckResult)
        expect(degraded).toMatchObject({ status: "degraded", error: "rate-limited 503 (Retry-After: 120)" })
        const down = Reply.decode(yield* test({ type: "http", url: `${base}/missing` }), CheckResult)
        expect(down.status).toBe("down")
        const port = new URL(base).port
        const tcp = Reply.decode(yield* test({ type: "tcp", host: "127.0.0.1", port: Number(port) }), CheckResult)
        expect(tcp.status).toBe("up")
      })
    )

    it.scoped("a token needs targets:execute and an org: INSUFFICIENT_SCOPE, ORG_REQUIRED", () =>
      Effect.gen(function* () {
        const { server, alice } = yield* setup
        const base = yield* origin
        const body = {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ check: { type: "http", url: `${base}/ok` } })
        }
        const writer = yield* mintToken(alice, { scopes: ["targets:write"], org_id: alice.org.id })
        const refused = yield* bearer(server, writer.token, "/api/v1/targets/test", body)
        expect(refused.status).toBe(403)
        expect(Reply.envelope(refused)).toMatchObject({
          code: "INSUFFICIENT_SCOPE",
          details: { required: "targets:execute" }
        })

        const unbound = yield* mintToken(alice, { scopes: ["targets:execute"] })
        const noOrg = yield* bearer(server, unbound.token, "/api/v1/targets/test", body)
        expect(noOrg.status).toBe(400)
        expect(Reply.envelope(noOrg).code).toBe("ORG_REQUIRED")
        const withOrg = yield* bearer(server, unbound.token, "/api/v1/targets/test", {
          ...body,
          headers: { ...body.headers, "x-signalman-org": alice.org.slug }
        })
        expect(withOrg.status).toBe(200)
        expect(Reply.decode(withOrg, CheckResult).status).toBe("up")
      })
    )
  }
)

// The server's defaults: private addresses refused, flows off.
Fixture.describe(`POST /api/v1/targets/test refusals (${TestDatabase.kind} database)`, (it) => {
  it.effect("refusals before anything runs: blocked literals, ip_version, no probe, flows off, variables", () =>
    Effect.gen(function* () {
      const { test } = yield* setup
      const blocked = yield* test({ type: "http", url: "http://2130706433/" })
      expect(blocked.status).toBe(400)
      expect(Reply.envelope(blocked)).toMatchObject({ code: "TARGET_ADDRESS_BLOCKED", field: "check.url" })
      expect(Reply.envelope(yield* test({ type: "tcp", host: "[::1]", port: 22 }))).toMatchObject({
        code: "TARGET_ADDRESS_BLOCKED",
        field: "check.host"
      })
      const family = yield* test({ type: "tcp", host: "8.8.8.8", port: 53, ip_version: "ipv6" })
      expect(family.status).toBe(400)
      expect(Reply.envelope(family)).toMatchObject({ code: "INVALID_IP_VERSION", field: "check.ip_version" })
      for (const check of [{ type: "heartbeat", period: 3600, grace: 60 }, { type: "manual" }]) {
        const reply = yield* test(check)
        expect(reply.status).toBe(422)
        expect(Reply.envelope(reply)).toMatchObject({ code: "HEARTBEAT_NOT_PROBEABLE", field: "check.type" })
      }
      const flow = yield* test({
        type: "flow",
        start_url: "https://example.com/",
        steps: [{ action: "assert_text", text: "Example" }]
      })
      expect(flow.status).toBe(403)
      expect(Reply.envelope(flow).code).toBe("FLOW_CHECKS_DISABLED")
      const variable = yield* test({
        type: "http",
        url: "https://example.com/",
        headers: { Authorization: "Bearer {{api_key}}" }
      })
      expect(variable.status).toBe(422)
      expect(Reply.envelope(variable)).toMatchObject({
        code: "UNRESOLVED_VARIABLE",
        field: "check.headers.Authorization",
        details: { key: "api_key" }
      })
      const typo = yield* test({ type: "http", url: "https://example.com/", timeuot: 5 })
      expect(typo.status).toBe(422)
      expect(Reply.envelope(typo)).toMatchObject({ code: "INVALID_JSON", field: "check.timeuot" })
    })
  )

  it.effect("a url with another scheme than http or https is 400 VALIDATION_FAILED on check.url, not run", () =>
    Effect.gen(function* () {
      const { alice, test } = yield* setup
      for (const url of [
        "data:text/html,<h1>ok</h1>",
        "javascript:alert(1)",
        "ftp://example.com/",
        "file:///etc/passwd",
        "example.com/health"
      ]) {
        const reply = yield* test({ type: "http", url })
        expect(reply.status, url).toBe(400)
        expect(Reply.envelope(reply)).toMatchObject({ code: "VALIDATION_FAILED", field: "check.url" })
      }
      // A scheme that comes from a variable is judged once the value is in place.
      const variable = yield* alice.browser.request("/api/v1/variables", {
        json: { key: "base", value: "ftp://example.com" }
      })
      expect(variable.status, variable.text).toBe(201)
      const filled = yield* test({ type: "http", url: "{{base}}/health" })
      expect(filled.status).toBe(400)
      expect(Reply.envelope(filled)).toMatchObject({ code: "VALIDATION_FAILED", field: "check.url" })
    })
  )
})
