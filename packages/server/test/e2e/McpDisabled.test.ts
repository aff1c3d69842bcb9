/**
 * With `mcp.enabled` false the MCP server is not there: `/mcp` answers 404 to every method (not 405, not 401) and so
 * does the server card, while the API is unchanged.
 */
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import * as TestDatabase from "../support/TestDatabase.js"

Fixture.describe(`MCP server disabled (${TestDatabase.kind} database)`, { env: { MCP__ENABLED: "false" } }, (it) => {
  it.effect("every /mcp route and the server card are 404; /api/v1 still answers the same token", () =>
    Effect.gen(function* () {
      const server = yield* Fixture.server
      const alice = yield* Fixture.person()
      const authorization = `Bearer ${alice.token}`
      for (const method of ["POST", "GET", "DELETE"]) {
        const reply = yield* Http.request(`${server.baseUrl}/mcp`, {
          method,
          headers: { authorization, "content-type": "application/json", accept: "application/json, text/event-stream" },
          ...(method === "POST" ? { body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) } : {})
        })
        expect(reply.status, method).toBe(404)
        expect(Http.envelope(reply).code).toBe("NOT_FOUND")
      }
      const card = yield* Http.request(`${server.baseUrl}/.well-known/mcp/server-card.json`)
      expect(card.status).toBe(404)
      expect((yield* alice.api("/api/v1/targets")).status).toBe(200)
    })
  )
})
