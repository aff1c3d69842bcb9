/**
 * A monitor never keeps a reference to a variable or channel deleted while it was being saved. The test holds the
 * org's reference lock in a transaction of its own, sends the save (it validates, then waits on the lock), deletes
 * the referenced row in that transaction and commits: the save must then refuse, not store a dangling reference.
 * PostgreSQL only: the embedded database has one connection, which the held transaction would take.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { eventually } from "../support/Eventually.js"
import * as Http from "../support/Http.js"
import { signIn } from "../support/Identity.js"
import * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TestServer from "../support/TestServer.js"

describe("saving a monitor while what it references is deleted", () => {
  it.scopedLive("a variable or channel deleted under a save makes the save refuse, never dangle", () =>
    Effect.gen(function* () {
      const smtp = yield* SmtpCatcher.make
      const server = yield* TestServer.start({ MAIL__SMTP_URL: smtp.url, AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0" })
      const alice = yield* signIn(server, smtp)
      const me = (yield* alice.browser.request("/api/v1/me")).json as { active_org: { id: string } }
      const org = me.active_org.id
      yield* alice.browser.request("/api/v1/variables", { json: { key: "svc_host", value: "example.com" } })
      const channel = (yield* alice.browser.request("/api/v1/channels", {
        json: { name: "ops", kind: "email", config: { addresses: ["ops@example.com"] } }
      })).json as { id: string }

      const key = `org-references:${org}`
      // Someone in this database waits for the org's reference lock (the advisory lock's key split as PostgreSQL
      // shows it: objid holds the low 32 bits).
      const saveWaiting = server.sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pg_locks
        WHERE locktype = 'advisory' AND NOT granted
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND objid::text::bigint = (hashtext(${key})::bigint & 4294967295)
      `
      const underDelete = (deletion: Effect.Effect<unknown, unknown>, save: Effect.Effect<Http.Reply>) =>
        Effect.gen(function* () {
          const locked = yield* Deferred.make<void>()
          const held = yield* server.sql
            .withTransaction(
              Effect.gen(function* () {
                yield* server.sql`SELECT pg_advisory_xact_lock(hashtext(${key}))`
                yield* Deferred.succeed(locked, undefined)
                // Until the save has passed its checks and waits on the lock (observed, not guessed; bounded, so a
                // save that never waits goes on and fails the assertions below).
                yield* eventually(saveWaiting, (rows) => (rows[0]?.n ?? 0) > 0, { timeoutMs: 20_000, intervalMs: 50 })
                yield* deletion
              })
            )
            .pipe(Effect.fork)
          // The save is sent only once the lock is held.
          yield* Deferred.await(locked)
          const reply = yield* save
          yield* Fiber.join(held)
          return reply
        })

      const variableSave = yield* underDelete(
        server.sql`DELETE FROM variables WHERE org_id = ${org} AND key = 'svc_host'`,
        alice.browser.request("/api/v1/targets", {
          json: { name: "templated", check: { type: "http", url: "https://{{svc_host}}/health" } }
        })
      )
      expect(variableSave.status).toBe(422)
      expect(Http.envelope(variableSave)).toMatchObject({ code: "UNRESOLVED_VARIABLE", details: { key: "svc_host" } })

      const channelSave = yield* underDelete(
        server.sql`DELETE FROM channels WHERE id = ${channel.id}`,
        alice.browser.request("/api/v1/targets", {
          json: {
            name: "bound",
            check: { type: "http", url: "https://example.com/health" },
            alerts: [{ channel_id: channel.id }]
          }
        })
      )
      expect(channelSave.status).toBe(400)
      expect(Http.envelope(channelSave)).toMatchObject({
        code: "VALIDATION_FAILED",
        details: { channel_id: channel.id }
      })
      const [left] = yield* server.sql<{ n: number }>`SELECT count(*)::int AS n FROM targets`
      expect(left?.n).toBe(0)
    })
  )
})
