/**
 * The operator surface: hidden without the admin token, guarded with it; regions, agents, plans and overrides.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Http from "../support/Http.js"
import { bearer, mintToken, signIn } from "../support/Identity.js"
import * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TestDatabase from "../support/TestDatabase.js"
import * as TestServer from "../support/TestServer.js"

const ADMIN = "operator-secret-for-tests-0123456789"

const op = (server: TestServer.Running, path: string, init: { method?: string; json?: unknown; token?: string } = {}) =>
  Http.request(`${server.baseUrl}/operator${path}`, {
    method: init.method ?? (init.json === undefined ? "GET" : "POST"),
    headers: {
      authorization: `Bearer ${init.token ?? ADMIN}`,
      ...(init.json === undefined ? {} : { "content-type": "application/json" })
    },
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) })
  })

describe(`operator surface (${TestDatabase.kind} database)`, () => {
  it.scopedLive("every /operator route is 404 while operator.admin_token is unset", () =>
    Effect.gen(function* () {
      const server = yield* TestServer.start()
      for (const path of ["/regions", "/agents", "/accounts?email=a@example.com"]) {
        const reply = yield* op(server, path)
        expect(reply.status, path).toBe(404)
        expect(Http.envelope(reply).code).toBe("NOT_FOUND")
      }
    })
  )

  it.scopedLive("with the token set: a wrong or missing secret is 401; regions, agents, plans and overrides work", () =>
    Effect.gen(function* () {
      const smtp = yield* SmtpCatcher.make
      const server = yield* TestServer.start({
        OPERATOR__ADMIN_TOKEN: ADMIN,
        MAIL__SMTP_URL: smtp.url,
        AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0"
      })
      expect((yield* op(server, "/regions", { token: "wrong" })).status).toBe(401)
      expect((yield* Http.request(`${server.baseUrl}/operator/regions`)).status).toBe(401)

      const listed = yield* op(server, "/regions")
      expect((listed.json as { data: Array<{ id: string }> }).data.map((r) => r.id)).toEqual(["local"])

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
      expect(created.json).toMatchObject({ id: "eu-west", enabled: true, flow_capable: false, agents: 0 })
      expect(Http.envelope(yield* op(server, "/regions", { json: { id: "eu-west", name: "Again" } })).code).toBe(
        "SLUG_TAKEN"
      )
      expect(Http.envelope(yield* op(server, "/regions", { json: { id: "EU West", name: "x" } })).field).toBe("id")
      const patched = yield* op(server, "/regions/eu-west", { method: "PATCH", json: { flow_capable: true } })
      expect(patched.json).toMatchObject({ flow_capable: true, name: "Frankfurt" })

      const agent = yield* op(server, "/agents", { json: { region_id: "eu-west", name: "fra-1" } })
      expect(agent.status).toBe(201)
      const agentBody = agent.json as { id: string; token: string; prefix: string }
      expect(agentBody.token).toMatch(/^sm_agent_[A-Za-z0-9_-]{43}$/)
      expect(agentBody.token.startsWith(agentBody.prefix)).toBe(true)
      expect(JSON.stringify((yield* op(server, "/agents")).json)).not.toContain(agentBody.token)
      expect(Http.envelope(yield* op(server, "/agents", { json: { region_id: "nowhere", name: "x" } })).code).toBe(
        "REGION_INVALID"
      )
      expect(Http.envelope(yield* op(server, "/regions/eu-west", { method: "DELETE" })).code).toBe("REGION_IN_USE")
      expect((yield* op(server, `/agents/${agentBody.id}`, { method: "DELETE" })).status).toBe(204)
      expect((yield* op(server, "/regions/eu-west", { method: "DELETE" })).status).toBe(204)
      expect(Http.envelope(yield* op(server, "/regions/local", { method: "DELETE" })).code).toBe("REGION_IN_USE")

      // Accounts: find by address, move plans, raise limits. An agent token is not an API token.
      const alice = yield* signIn(server, smtp)
      expect((yield* bearer(server, agentBody.token, "/api/v1/me")).status).toBe(401)
      const found = (yield* op(server, `/accounts?email=${encodeURIComponent(alice.email.toUpperCase())}`)).json as {
        data: Array<{ id: string; plan_id: string; users: Array<string> }>
      }
      expect(found.data).toHaveLength(1)
      expect(found.data[0]?.users).toEqual([alice.email])
      const accountId = found.data[0]?.id ?? ""
      const moved = yield* op(server, `/accounts/${accountId}/plan`, { method: "PUT", json: { plan_id: "pro" } })
      expect((moved.json as { plan_id: string }).plan_id).toBe("pro")
      expect(
        Http.envelope(yield* op(server, `/accounts/${accountId}/plan`, { method: "PUT", json: { plan_id: "gold" } }))
          .code
      ).toBe("VALIDATION_FAILED")
      const raised = yield* op(server, `/accounts/${accountId}/overrides`, {
        method: "PUT",
        json: { max_api_tokens_per_user: 12 }
      })
      expect((raised.json as { overrides: object }).overrides).toEqual({ max_api_tokens_per_user: 12 })
      expect(
        Http.envelope(yield* op(server, `/accounts/${accountId}/overrides`, { method: "PUT", json: { max_tokens: 1 } }))
          .code
      ).toBe("INVALID_JSON")
      expect(
        Http.envelope(
          yield* op(server, `/accounts/${accountId}/overrides`, { method: "PUT", json: { max_targets: 0 } })
        ).field
      ).toBe("max_targets")
      const usage = yield* alice.browser.request("/api/v1/me/usage")
      expect(usage.json).toMatchObject({ api_tokens: { limit: 12 }, owned_orgs: { limit: 5 } })
      yield* mintToken(alice)
    })
  )
})
