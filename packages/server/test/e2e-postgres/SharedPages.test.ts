/**
 * Public status pages across server processes sharing one PostgreSQL: a narration written through one process
 * shows on a page another process has cached, at once rather than after the page's cache window.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { eventually } from "../support/Eventually.js"
import * as Http from "../support/Http.js"
import { signIn } from "../support/Identity.js"
import * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TestDatabase from "../support/TestDatabase.js"
import * as TestServer from "../support/TestServer.js"

describe("status pages on two API processes and one PostgreSQL", () => {
  it.scopedLive("an incident update or a maintenance window written through one shows on the other's cached page", () =>
    Effect.gen(function* () {
      const smtp = yield* SmtpCatcher.make
      const db = yield* TestDatabase.acquire
      const env = { MAIL__SMTP_URL: smtp.url, AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0", STATUS_PAGE__CACHE_SECS: "60" }
      const one = yield* TestServer.start(env, db)
      const two = yield* TestServer.start(env, db)
      yield* one.sql`UPDATE plans SET incident_narration_enabled = true WHERE id = 'free'`
      const alice = yield* signIn(one, smtp)
      const created = (path: string, json: unknown) =>
        Effect.map(alice.browser.request(path, { json }), (reply) => {
          expect(reply.status, `${path}: ${reply.text}`).toBe(201)
          return (reply.json as { id: string }).id
        })
      const api = yield* created("/api/v1/targets", {
        name: "api",
        enabled: false,
        check: { type: "http", url: "https://api.example.com/health" }
      })
      const page = yield* created("/api/v1/status-pages", { slug: "shared", name: "Shared", published: true })
      yield* created(`/api/v1/status-pages/${page}/components`, { target_id: api })
      const incident = yield* created("/api/v1/incidents", {
        title: "t",
        public_title: "Elevated errors",
        impact: "partial_outage",
        components: [api]
      })

      // The other process builds the page and caches it for a minute...
      const read = (path: string) => Effect.map(Http.request(`${two.baseUrl}${path}`), (reply) => reply.text)
      const feed = "/api/public/v1/incidents.rss?page=shared"
      const maintenance = "/api/public/v1/maintenance?page=shared"
      const cachedFrom = Date.now()
      expect(yield* read(feed)).toContain("Elevated errors")
      expect(yield* read(maintenance)).not.toContain("Database upgrade")

      yield* created(`/api/v1/incidents/${incident}/updates`, { phase: "monitoring", message: "A fix is rolling out" })
      const hour = 3_600_000
      yield* created("/api/v1/maintenance", {
        title: "Database upgrade",
        starts_at: new Date(Date.now() + hour).toISOString(),
        ends_at: new Date(Date.now() + 2 * hour).toISOString(),
        components: [api]
      })
      // ...and drops it when the notification arrives: both answers came well inside the window, so from the
      // notification, not from the window running out.
      const updated = yield* eventually(read(feed), (text) => text.includes("A fix is rolling out"))
      const scheduled = yield* eventually(read(maintenance), (text) => text.includes("Database upgrade"))
      expect(updated).toContain("A fix is rolling out")
      expect(scheduled).toContain("Database upgrade")
      expect(Date.now() - cachedFrom).toBeLessThan(60_000)
    })
  )
})
