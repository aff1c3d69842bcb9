/**
 * Org variables as a resource (create, list, get, rotate, delete), secrets never read back, key rules, used_by
 * and the delete guard, resolution when a monitor is saved or tested, scopes and foreign ids.
 */
import * as NodeHttp from "node:http"
import { expect } from "@effect/vitest"
import { TargetPage } from "@signalman/core/api/Targets"
import { VariablePage } from "@signalman/core/api/Variables"
import { CheckResult } from "@signalman/core/CheckResult"
import { Target } from "@signalman/core/Target"
import { Variable } from "@signalman/core/Variable"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import { bearer, mintToken, type Person } from "../support/Identity.js"
import * as TestDatabase from "../support/TestDatabase.js"

const createVariable = (person: Person, body: Record<string, unknown>) =>
  person.browser.request("/api/v1/variables", { json: body })

const variable = (person: Person, body: Record<string, unknown>) =>
  Effect.map(createVariable(person, body), (reply) => {
    expect(reply.status, reply.text).toBe(201)
    return Http.decode(reply, Variable)
  })

const createTarget = (person: Person, check: Record<string, unknown>, name = "web") =>
  person.browser.request("/api/v1/targets", { json: { name, check } })

const usedBy = (person: Person, id: string) =>
  Effect.map(person.browser.request(`/api/v1/variables/${id}`), (reply) => Http.decode(reply, Variable).used_by)

/** A loopback server that answers 200 "all good" only to the expected X-Api-Key, 401 otherwise. */
const origin = (apiKey: string): Effect.Effect<number, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<NodeHttp.Server>((resolve) => {
          const server = NodeHttp.createServer((request, response) => {
            const ok = request.headers["x-api-key"] === apiKey
            response.writeHead(ok ? 200 : 401, { "content-type": "text/plain" }).end(ok ? "all good" : "who are you")
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
        : Effect.succeed(address.port)
    })
  )

Fixture.describe(`variables (${TestDatabase.kind} database)`, (it) => {
  it.effect("create is 201 with used_by 0; list is paginated; get; PATCH rotates; DELETE is 204 then 404", () =>
    Effect.gen(function* () {
      const alice = yield* Fixture.person()
      const created = yield* createVariable(alice, { key: "region", value: "eu" })
      expect(created.status).toBe(201)
      expect(created.headers.get("cache-control")).toBe("no-store")
      const region = Http.wire(created, Variable)
      expect(region).toEqual({
        id: region.id,
        key: "region",
        is_secret: false,
        value: "eu",
        used_by: 0,
        managed_by: null
      })
      yield* variable(alice, { key: "api_base", value: "https://api.example.com" })
      yield* variable(alice, { key: "zone", value: "b" })

      const page = (query: string) =>
        Effect.map(alice.browser.request(`/api/v1/variables${query}`), (r) => Http.wire(r, VariablePage))
      const all = yield* page("")
      expect(all).toMatchObject({ total: 3, limit: 50, offset: 0 })
      expect(all.data.map((v) => v.key)).toEqual(["api_base", "region", "zone"])
      const second = yield* page("?limit=2&offset=2")
      expect(second).toMatchObject({ total: 3, limit: 2, offset: 2 })
      expect(second.data.map((v) => v.key)).toEqual(["zone"])
      expect(Http.envelope(yield* alice.browser.request("/api/v1/variables?limit=0")).field).toBe("limit")

      const read = yield* alice.browser.request(`/api/v1/variables/${region.id}`)
      expect(read.status).toBe(200)
      expect(Http.wire(read, Variable)).toEqual(region)

      const rotated = yield* alice.browser.request(`/api/v1/variables/${region.id}`, {
        method: "PATCH",
        json: { value: "us" }
      })
      expect(rotated.status).toBe(200)
      expect(Http.wire(rotated, Variable)).toEqual({ ...region, value: "us" })
      expect(Http.decode(yield* alice.browser.request(`/api/v1/variables/${region.id}`), Variable).value).toBe("us")

      const keyChange = yield* alice.browser.request(`/api/v1/variables/${region.id}`, {
        method: "PATCH",
        json: { value: "x", key: "other" }
      })
      expect(keyChange.status).toBe(422)
      expect(Http.envelope(keyChange)).toMatchObject({ code: "INVALID_JSON", field: "key" })

      const deleted = yield* alice.browser.request(`/api/v1/variables/${region.id}`, { method: "DELETE" })
      expect(deleted.status).toBe(204)
      const gone = yield* alice.browser.request(`/api/v1/variables/${region.id}`)
      expect(gone.status).toBe(404)
      expect(Http.envelope(gone).code).toBe("NOT_FOUND")
      expect((yield* page("")).total).toBe(2)
    })
  )

  it.effect("a secret's value is null on create, list, get and rotate; no value is stored in the clear", () =>
    Effect.gen(function* () {
      const server = yield* Fixture.server
      const alice = yield* Fixture.person()
      const created = yield* createVariable(alice, { key: "api_token", is_secret: true, value: "tok-very-secret" })
      expect(created.status).toBe(201)
      expect(created.text).not.toContain("tok-very-secret")
      const secret = Http.wire(created, Variable)
      expect(secret).toMatchObject({ key: "api_token", is_secret: true, value: null, used_by: 0 })
      yield* variable(alice, { key: "plain", value: "plain-visible-value" })

      const listed = yield* alice.browser.request("/api/v1/variables")
      expect(listed.text).not.toContain("tok-very-secret")
      expect(Http.wire(listed, VariablePage).data.find((v) => v.key === "api_token")?.value).toBeNull()
      const read = yield* alice.browser.request(`/api/v1/variables/${secret.id}`)
      expect(Http.wire(read, Variable)).toEqual(secret)

      const rotated = yield* alice.browser.request(`/api/v1/variables/${secret.id}`, {
        method: "PATCH",
        json: { value: "tok-rotated-secret" }
      })
      expect(rotated.status).toBe(200)
      expect(rotated.text).not.toContain("tok-rotated-secret")
      expect(Http.wire(rotated, Variable)).toEqual(secret)

      // Sealed at rest, secret or not.
      const rows = yield* server.sql<{ key: string; value_sealed: string }>`
        SELECT key, value_sealed FROM variables WHERE org_id = ${alice.org.id}
      `
      expect(rows).toHaveLength(2)
      for (const row of rows) {
        expect(row.value_sealed).toMatch(/^v1\./)
        expect(row.value_sealed).not.toContain("secret")
        expect(row.value_sealed).not.toContain("plain-visible-value")
      }
    })
  )

  it.effect("400 INVALID_VARIABLE_KEY for Bad, 1x, a-b and a 64-char key; 409 VARIABLE_KEY_EXISTS", () =>
    Effect.gen(function* () {
      const alice = yield* Fixture.person()
      for (const key of ["Bad", "1x", "a-b", `a${"b".repeat(63)}`, ""]) {
        const reply = yield* createVariable(alice, { key, value: "v" })
        expect(reply.status, key).toBe(400)
        expect(Http.envelope(reply), key).toMatchObject({ code: "INVALID_VARIABLE_KEY", field: "key" })
      }
      yield* variable(alice, { key: `a${"b".repeat(62)}`, value: "longest key" })
      yield* variable(alice, { key: "api_key", value: "one" })
      const duplicate = yield* createVariable(alice, { key: "api_key", is_secret: true, value: "two" })
      expect(duplicate.status).toBe(409)
      expect(Http.envelope(duplicate)).toMatchObject({ code: "VARIABLE_KEY_EXISTS", field: "key" })

      const long = yield* createVariable(alice, { key: "big", value: "x".repeat(4097) })
      expect(long.status).toBe(400)
      expect(Http.envelope(long)).toMatchObject({ code: "VALIDATION_FAILED", field: "value" })
      yield* variable(alice, { key: "big", value: "x".repeat(4096) })
      const unknown = yield* createVariable(alice, { key: "other", value: "v", used_by: 3 })
      expect(unknown.status).toBe(422)
      expect(Http.envelope(unknown)).toMatchObject({ code: "INVALID_JSON", field: "used_by" })

      // Another org may use the same key.
      const bob = yield* Fixture.person()
      yield* variable(bob, { key: "api_key", value: "bob's" })
    })
  )

  it.effect("used_by counts referencing monitors; 409 VARIABLE_IN_USE until none references the key", () =>
    Effect.gen(function* () {
      const alice = yield* Fixture.person()
      const path = yield* variable(alice, { key: "health_path", value: "health" })
      const token = yield* variable(alice, { key: "token", is_secret: true, value: "t0k" })
      const first = yield* createTarget(alice, {
        type: "http",
        url: "https://example.com/{{health_path}}",
        headers: { Authorization: "Bearer {{token}}" }
      })
      expect(first.status, first.text).toBe(201)
      const firstId = Http.decode(first, Target).id
      expect(Http.wire(first, Target).check["url"]).toBe("https://example.com/{{health_path}}")
      const second = yield* createTarget(
        alice,
        { type: "http", url: "https://example.org/", body: '{"path":"{{ health_path }}"}' },
        "api"
      )
      expect(second.status, second.text).toBe(201)
      const secondId = Http.decode(second, Target).id
      yield* createTarget(alice, { type: "http", url: "https://example.net/" }, "plain")

      expect(yield* usedBy(alice, path.id)).toBe(2)
      expect(yield* usedBy(alice, token.id)).toBe(1)
      const listed = Http.wire(yield* alice.browser.request("/api/v1/variables"), VariablePage)
      expect(listed.data.map((v) => [v.key, v.used_by])).toEqual([
        ["health_path", 2],
        ["token", 1]
      ])

      const inUse = yield* alice.browser.request(`/api/v1/variables/${path.id}`, { method: "DELETE" })
      expect(inUse.status).toBe(409)
      expect(Http.envelope(inUse)).toMatchObject({ code: "VARIABLE_IN_USE", details: { used_by: 2 } })

      // A PATCH that drops the reference stops counting; a PATCH without check keeps it.
      const renamed = yield* alice.browser.request(`/api/v1/targets/${firstId}`, {
        method: "PATCH",
        json: { name: "renamed" }
      })
      expect(renamed.status).toBe(200)
      expect(yield* usedBy(alice, token.id)).toBe(1)
      const rewritten = yield* alice.browser.request(`/api/v1/targets/${firstId}`, {
        method: "PATCH",
        json: { check: { type: "http", url: "https://example.com/health" } }
      })
      expect(rewritten.status, rewritten.text).toBe(200)
      expect(yield* usedBy(alice, path.id)).toBe(1)
      expect(yield* usedBy(alice, token.id)).toBe(0)
      expect((yield* alice.browser.request(`/api/v1/variables/${token.id}`, { method: "DELETE" })).status).toBe(204)

      expect((yield* alice.browser.request(`/api/v1/variables/${path.id}`, { method: "DELETE" })).status).toBe(409)
      expect((yield* alice.browser.request(`/api/v1/targets/${secondId}`, { method: "DELETE" })).status).toBe(204)
      expect((yield* alice.browser.request(`/api/v1/variables/${path.id}`, { method: "DELETE" })).status).toBe(204)
    })
  )

  it.effect("a monitor is saved only when its references resolve: 422 UNRESOLVED_VARIABLE otherwise", () =>
    Effect.gen(function* () {
      const alice = yield* Fixture.person()
      yield* variable(alice, { key: "host", value: "example.com" })
      yield* variable(alice, { key: "api_key", is_secret: true, value: "k" })

      const unknown = yield* createTarget(alice, { type: "http", url: "https://example.com/{{nope}}" })
      expect(unknown.status).toBe(422)
      expect(Http.envelope(unknown)).toMatchObject({
        code: "UNRESOLVED_VARIABLE",
        field: "check.url",
        details: { key: "nope" }
      })

      const secretInUrl = yield* createTarget(alice, { type: "http", url: "https://example.com/?k={{api_key}}" })
      expect(secretInUrl.status).toBe(422)
      const refused = Http.envelope(secretInUrl)
      expect(refused).toMatchObject({ code: "UNRESOLVED_VARIABLE", field: "check.url", details: { key: "api_key" } })
      expect(refused.message).toContain("secret")
      const secretExpected = yield* createTarget(alice, {
        type: "http",
        url: "https://example.com/",
        expected_body_contains: "{{api_key}}"
      })
      expect(Http.envelope(secretExpected)).toMatchObject({
        code: "UNRESOLVED_VARIABLE",
        field: "check.expected_body_contains"
      })

      const plain = yield* createTarget(alice, {
        type: "http",
        url: "https://{{host}}/health",
        headers: { "X-Api-Key": "{{api_key}}" },
        body: "{{api_key}}"
      })
      expect(plain.status, plain.text).toBe(201)
      const target = Http.decode(plain, Target)

      const patched = yield* alice.browser.request(`/api/v1/targets/${target.id}`, {
        method: "PATCH",
        json: { check: { type: "http", url: "https://{{host}}/{{missing}}" } }
      })
      expect(patched.status).toBe(422)
      expect(Http.envelope(patched)).toMatchObject({ code: "UNRESOLVED_VARIABLE", field: "check.url" })
      expect(Http.wire(yield* alice.browser.request("/api/v1/targets"), TargetPage)).toMatchObject({ total: 1 })
    })
  )

  it.effect("a substituted address is judged again: a variable cannot smuggle in an internal address", () =>
    Effect.gen(function* () {
      const alice = yield* Fixture.person()
      yield* variable(alice, { key: "host", value: "127.0.0.1" })
      const reply = yield* alice.browser.request("/api/v1/targets/test", {
        json: { check: { type: "http", url: "http://{{host}}/" } }
      })
      expect(reply.status).toBe(400)
      expect(Http.envelope(reply)).toMatchObject({ code: "TARGET_ADDRESS_BLOCKED", field: "check.url" })
    })
  )

  it.effect("scopes: variables:read lists but cannot create (INSUFFICIENT_SCOPE); delete needs variables:delete", () =>
    Effect.gen(function* () {
      const server = yield* Fixture.server
      const alice = yield* Fixture.person()
      const org = alice.org
      const json = (body: unknown, method = "POST") => ({
        method,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body)
      })
      const reader = yield* mintToken(alice, { scopes: ["variables:read"], org_id: org.id })
      const writer = yield* mintToken(alice, { scopes: ["variables:write"], org_id: org.id })
      const deleter = yield* mintToken(alice, { scopes: ["variables:delete"], org_id: org.id })

      const refused = yield* bearer(server, reader.token, "/api/v1/variables", json({ key: "k", value: "v" }))
      expect(refused.status).toBe(403)
      expect(Http.envelope(refused)).toMatchObject({
        code: "INSUFFICIENT_SCOPE",
        details: { required: "variables:write" }
      })
      const created = yield* bearer(server, writer.token, "/api/v1/variables", json({ key: "k", value: "v" }))
      expect(created.status).toBe(201)
      const id = Http.decode(created, Variable).id
      expect((yield* bearer(server, reader.token, "/api/v1/variables")).status).toBe(200)
      // write implies read
      expect((yield* bearer(server, writer.token, `/api/v1/variables/${id}`)).status).toBe(200)
      expect(
        Http.envelope(yield* bearer(server, reader.token, `/api/v1/variables/${id}`, json({ value: "w" }, "PATCH")))
          .code
      ).toBe("INSUFFICIENT_SCOPE")
      const notDeleter = yield* bearer(server, writer.token, `/api/v1/variables/${id}`, { method: "DELETE" })
      expect(Http.envelope(notDeleter)).toMatchObject({
        code: "INSUFFICIENT_SCOPE",
        details: { required: "variables:delete" }
      })
      expect(Http.envelope(yield* bearer(server, deleter.token, "/api/v1/variables")).code).toBe("INSUFFICIENT_SCOPE")
      expect((yield* bearer(server, deleter.token, `/api/v1/variables/${id}`, { method: "DELETE" })).status).toBe(204)

      const unbound = yield* mintToken(alice, { scopes: ["variables:read"] })
      expect(Http.envelope(yield* bearer(server, unbound.token, "/api/v1/variables")).code).toBe("ORG_REQUIRED")
    })
  )

  it.effect("another org's variable is 404 on get, rotate and delete, and absent from its list", () =>
    Effect.gen(function* () {
      const alice = yield* Fixture.person()
      const mine = yield* variable(alice, { key: "mine", value: "alice's" })
      const bob = yield* Fixture.person()
      for (const [method, json] of [
        ["GET", undefined],
        ["PATCH", { value: "bob's" }],
        ["DELETE", undefined]
      ] as const) {
        const reply = yield* bob.browser.request(`/api/v1/variables/${mine.id}`, {
          method,
          ...(json === undefined ? {} : { json })
        })
        expect(reply.status, method).toBe(404)
        expect(Http.envelope(reply).code).toBe("NOT_FOUND")
      }
      expect((yield* bob.browser.request("/api/v1/variables")).json).toMatchObject({ total: 0, data: [] })
      // Bob cannot reference alice's variable either.
      const target = yield* createTarget(bob, { type: "http", url: "https://example.com/{{mine}}" })
      expect(Http.envelope(target)).toMatchObject({ code: "UNRESOLVED_VARIABLE" })
      expect(Http.decode(yield* alice.browser.request(`/api/v1/variables/${mine.id}`), Variable).value).toBe("alice's")
    })
  )
})

// A test run that reaches a loopback origin needs internal addresses allowed, which the smuggling test above
// expects refused: its own server.
Fixture.describe(
  `variables, internal addresses allowed (${TestDatabase.kind} database)`,
  { env: { CHECKER__ALLOW_PRIVATE_TARGETS: "true" } },
  (it) => {
    it.scoped("POST /targets/test runs the check with the values in place: a port, a secret header", () =>
      Effect.gen(function* () {
        const alice = yield* Fixture.person()
        const port = yield* origin("s3cret-header")
        yield* variable(alice, { key: "port", value: String(port) })
        const key = yield* variable(alice, { key: "api_key", is_secret: true, value: "wrong" })
        const test = (check: Record<string, unknown>) =>
          Effect.map(alice.browser.request("/api/v1/targets/test", { json: { check } }), (reply) => {
            expect(reply.status, reply.text).toBe(200)
            return Http.wire(reply, CheckResult)
          })
        const check = {
          type: "http",
          url: "http://127.0.0.1:{{port}}/ok",
          headers: { "X-Api-Key": "{{api_key}}" },
          expected_body_contains: "good"
        }
        const refused = yield* test(check)
        expect(refused).toMatchObject({ status: "down", details: { status_code: 401 } })
        yield* alice.browser.request(`/api/v1/variables/${key.id}`, {
          method: "PATCH",
          json: { value: "s3cret-header" }
        })
        expect(yield* test(check)).toMatchObject({ status: "up", details: { status_code: 200 } })

        const unresolved = yield* alice.browser.request("/api/v1/targets/test", {
          json: { check: { ...check, url: "http://127.0.0.1:{{no_port}}/ok" } }
        })
        expect(unresolved.status).toBe(422)
        expect(Http.envelope(unresolved)).toMatchObject({ code: "UNRESOLVED_VARIABLE", field: "check.url" })
      })
    )
  }
)
