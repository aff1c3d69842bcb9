/**
 * The operator surface: hidden without the admin token, guarded with it; regions, agents, plans and overrides.
 */
import { expect } from "@effect/vitest"
import { Agent, CreatedAgent, OperatorAccount, OperatorRegion } from "@signalman/core/api/Operator"
import { MeUsage } from "@signalman/core/Identity"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import { bearer, mintToken } from "../support/Identity.js"
import * as TestDatabase from "../support/TestDatabase.js"
import type * as TestServer from "../support/TestServer.js"

const ADMIN = "operator-secret-for-tests-0123456789"

const Regions = Schema.Struct({ data: Schema.Array(OperatorRegion) })
const Agents = Schema.Struct({ data: Schema.Array(Agent) })
const Accounts = Schema.Struct({ data: Schema.Array(OperatorAccount) })

const op = (server: TestServer.Running, path: string, init: { method?: string; json?: unknown; token?: string } = {}) =>
  Http.request(`${server.baseUrl}/operator${path}`, {
    method: init.method ?? (init.json === undefined ? "GET" : "POST"),
    headers: {
      authorization: `Bearer ${init.token ?? ADMIN}`,
      ...(init.json === undefined ? {} : { "content-type": "application/json" })
    },
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) })
  })

// The surface exists or not by a setting read at boot: a server without the token, and one with it.
Fixture.describe(`operator surface (${TestDatabase.kind} database)`, (it) => {
  it.effect("every /operator route is 404 while operator.admin_token is unset", () =>
    Effect.gen(function* () {
      const server = yield* Fixture.server
      for (const path of ["/regions", "/agents", "/accounts?email=a@example.com"]) {
        const reply = yield* op(server, path)
        expect(reply.status, path).toBe(404)
        expect(Http.envelope(reply).code).toBe("NOT_FOUND")
      }
    })
  )
})

// Regions and agents are the server's, not an account's: this test expects the seeded region alone, so no other test
// may share its server.
Fixture.describe(
  `operator surface, admin token set (${TestDatabase.kind} database)`,
  { env: { OPERATOR__ADMIN_TOKEN: ADMIN } },
  (it) => {
    it.effect("with the token set: a wrong or missing secret is 401; regions, agents, plans and overrides work", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        expect((yield* op(server, "/regions", { token: "wrong" })).status).toBe(401)
        expect((yield* Http.request(`${server.baseUrl}/operator/regions`)).status).toBe(401)

        const listed = yield* op(server, "/regions")
        expect(Http.wire(listed, Regions).data.map((r) => r.id)).toEqual(["local"])

        const created = yield* op(server, "/regions", {
          json: {
            id: "eu-west",
            name: "Frankfurt",
            city: "Frankfurt",
            country_code: "DE",
            continent: "EU",
            latitude: 50.1,
            longitude: 8.7
          }
        })
        expect(created.status).toBe(201)
        expect(Http.wire(created, OperatorRegion)).toMatchObject({
          id: "eu-west",
          enabled: true,
          flow_capable: false,
          agents: 0
        })
        expect(Http.envelope(yield* op(server, "/regions", { json: { id: "eu-west", name: "Again" } })).code).toBe(
          "SLUG_TAKEN"
        )
        expect(Http.envelope(yield* op(server, "/regions", { json: { id: "EU West", name: "x" } })).field).toBe("id")
        const patched = yield* op(server, "/regions/eu-west", { method: "PATCH", json: { city: "Frankfurt am Main" } })
        expect(Http.wire(patched, OperatorRegion)).toMatchObject({ city: "Frankfurt am Main", name: "Frankfurt" })
        // Whether a region runs flows follows its agents (docs/agent-protocol.md): it is not the operator's to set.
        const computed = yield* op(server, "/regions/eu-west", { method: "PATCH", json: { flow_capable: true } })
        expect(Http.refusal(computed)).toEqual({ status: 422, code: "INVALID_JSON", field: "flow_capable" })

        const agent = yield* op(server, "/agents", { json: { region_id: "eu-west", name: "fra-1" } })
        const agentBody = Http.expectOk(agent, CreatedAgent, 201)
        expect(agentBody.token).toMatch(/^sm_agent_[A-Za-z0-9_-]{43}$/)
        expect(agentBody.token.startsWith(agentBody.prefix)).toBe(true)
        expect(JSON.stringify(Http.wire(yield* op(server, "/agents"), Agents))).not.toContain(agentBody.token)
        expect(Http.envelope(yield* op(server, "/agents", { json: { region_id: "nowhere", name: "x" } })).code).toBe(
          "REGION_INVALID"
        )
        // The built-in region runs in the service itself: no agent may claim its checks.
        expect(Http.refusal(yield* op(server, "/agents", { json: { region_id: "local", name: "x" } }))).toEqual({
          status: 422,
          code: "REGION_INVALID",
          field: "region_id"
        })
        expect(Http.envelope(yield* op(server, "/regions/eu-west", { method: "DELETE" })).code).toBe("REGION_IN_USE")
        expect((yield* op(server, `/agents/${agentBody.id}`, { method: "DELETE" })).status).toBe(204)
        expect((yield* op(server, "/regions/eu-west", { method: "DELETE" })).status).toBe(204)
        expect(Http.envelope(yield* op(server, "/regions/local", { method: "DELETE" })).code).toBe("REGION_IN_USE")

        // Accounts: find by address, move plans, raise limits. An agent token is not an API token.
        const alice = yield* Fixture.person()
        expect((yield* bearer(server, agentBody.token, "/api/v1/me")).status).toBe(401)
        const found = Http.decode(
          yield* op(server, `/accounts?email=${encodeURIComponent(alice.email.toUpperCase())}`),
          Accounts
        )
        expect(found.data).toHaveLength(1)
        expect(found.data[0]?.users).toEqual([alice.email])
        const accountId = found.data[0]?.id ?? ""
        const moved = yield* op(server, `/accounts/${accountId}/plan`, { method: "PUT", json: { plan_id: "pro" } })
        expect(Http.decode(moved, OperatorAccount).plan_id).toBe("pro")
        expect(
          Http.envelope(yield* op(server, `/accounts/${accountId}/plan`, { method: "PUT", json: { plan_id: "gold" } }))
            .code
        ).toBe("VALIDATION_FAILED")
        const raised = yield* op(server, `/accounts/${accountId}/overrides`, {
          method: "PUT",
          json: { max_api_tokens_per_user: 12 }
        })
        expect(Http.wire(raised, OperatorAccount).overrides).toEqual({ max_api_tokens_per_user: 12 })
        expect(
          Http.envelope(
            yield* op(server, `/accounts/${accountId}/overrides`, { method: "PUT", json: { max_tokens: 1 } })
          ).code
        ).toBe("INVALID_JSON")
        expect(
          Http.envelope(
            yield* op(server, `/accounts/${accountId}/overrides`, { method: "PUT", json: { max_targets: 0 } })
          ).field
        ).toBe("max_targets")
        const usage = yield* alice.browser.request("/api/v1/me/usage")
        expect(Http.wire(usage, MeUsage)).toMatchObject({ api_tokens: { limit: 12 }, owned_orgs: { limit: 5 } })
        yield* mintToken(alice)
      })
    )
  }
)

const httpCheck = { type: "http", url: "https://example.com/health" }

// A plan is cached for plan_cache_ttl_secs (300 by default) and an operator's change forgets only the cache of the
// process it reaches, so a group that sees the change at once shares the operator group's Plans.
Fixture.describe(
  `operator changes and the plan cache (${TestDatabase.kind} database)`,
  { env: { OPERATOR__ADMIN_TOKEN: ADMIN } },
  (it) => {
    it.effect("an override is enforced by the targets group at once: one Plans service per process", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const alice = yield* Fixture.person()
        const create = (name: string) => alice.browser.request("/api/v1/targets", { json: { name, check: httpCheck } })
        for (let i = 0; i < 20; i++) expect((yield* create(`t-${i}`)).status).toBe(201)
        // Refused under the free plan's figure, which the targets group has now cached.
        expect(Http.envelope(yield* create("over")).details).toMatchObject({ quota: "max_targets", limit: 20 })

        const found = Http.decode(yield* op(server, `/accounts?email=${encodeURIComponent(alice.email)}`), Accounts)
        const accountId = found.data[0]?.id ?? ""
        const raised = yield* op(server, `/accounts/${accountId}/overrides`, {
          method: "PUT",
          json: { max_targets: 21 }
        })
        expect(raised.status, raised.text).toBe(200)

        expect((yield* create("raised")).status).toBe(201)
        const full = yield* create("raised over")
        expect(full.status).toBe(422)
        expect(Http.envelope(full)).toMatchObject({
          code: "QUOTA_EXCEEDED",
          details: { quota: "max_targets", current: 21, limit: 21 }
        })
      })
    )
  }
)
