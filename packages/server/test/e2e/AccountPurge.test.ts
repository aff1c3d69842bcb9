/**
 * The hard purge after the deletion grace: an account past it leaves no row in any table its data export reads,
 * and an account still inside it, or restored, keeps everything.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { uuidv7 } from "../../src/infra/Ids.js"
import { SweepersRepo } from "../../src/workers/Repo.js"
import { sweeps } from "../../src/workers/Sweepers.js"
import * as Fixture from "../support/Fixture.js"
import * as TestDatabase from "../support/TestDatabase.js"
import type * as TestServer from "../support/TestServer.js"

/** The hourly purge, run now on the server's database. */
const purge = (server: TestServer.Running) => {
  const found = sweeps(false).find((s) => s.name === "purge_accounts")
  if (found === undefined) return Effect.dieMessage("no purge sweep")
  return Effect.provide(
    found.run,
    SweepersRepo.Default.pipe(Layer.provide(Layer.succeed(SqlClient.SqlClient, server.sql)))
  )
}

/** Rows of a person and their account in every table the export reads (and those their resources hang from). */
const rowsOf = (server: TestServer.Running, person: Fixture.Person) =>
  Effect.map(
    server.sql<Record<string, number>>`
      SELECT
        (SELECT count(*) FROM users WHERE id = ${person.userId})::int AS users,
        (SELECT count(*) FROM accounts WHERE id = ${person.accountId})::int AS accounts,
        (SELECT count(*) FROM orgs WHERE account_id = ${person.accountId})::int AS orgs,
        (SELECT count(*) FROM memberships WHERE user_id = ${person.userId})::int AS memberships,
        (SELECT count(*) FROM targets WHERE org_id = ${person.org.id})::int AS targets,
        (SELECT count(*) FROM channels WHERE account_id = ${person.accountId})::int AS channels,
        (SELECT count(*) FROM status_pages WHERE org_id = ${person.org.id})::int AS status_pages,
        (SELECT count(*) FROM variables WHERE org_id = ${person.org.id})::int AS variables,
        (SELECT count(*) FROM sessions WHERE user_id = ${person.userId})::int AS sessions,
        (SELECT count(*) FROM api_tokens WHERE user_id = ${person.userId})::int AS api_tokens,
        (SELECT count(*) FROM credential_events WHERE user_id = ${person.userId})::int AS credential_events,
        (SELECT count(*) FROM auth_attempts WHERE user_id = ${person.userId})::int AS auth_attempts
    `,
    (rows) => rows[0] ?? {}
  )

/** A person with something in every table the export reads. */
const populated = (label: string) =>
  Effect.gen(function* () {
    const { server } = yield* Fixture.Fixture
    const person = yield* Fixture.person({ label })
    const created = [
      yield* person.browser.request("/api/v1/targets", {
        json: { name: "Website", check: { type: "http", url: "https://example.com/health" } }
      }),
      yield* person.browser.request("/api/v1/channels", {
        json: { name: "hook", kind: "webhook", config: { url: "https://hooks.example.com/purge" } }
      }),
      yield* person.browser.request("/api/v1/status-pages", {
        json: { slug: `${label}-${Date.now().toString(36)}`, name: "Status" }
      }),
      yield* person.browser.request("/api/v1/variables", { json: { key: "token", is_secret: true, value: "s" } })
    ]
    for (const reply of created) expect(reply.status, reply.text).toBe(201)
    yield* server.sql`
      INSERT INTO credential_events (id, user_id, change, method, origin, label)
      VALUES (${uuidv7()}, ${person.userId}, 'added', 'passkey', 'session', 'Laptop')
    `
    const rows = yield* rowsOf(server, person)
    for (const [table, n] of Object.entries(rows)) expect(n, table).toBeGreaterThan(0)
    return person
  })

/** Deletes the person's account through the API and moves its grace `days` from now. */
const deleteWithGraceEnding = (person: Fixture.Person, interval: string) =>
  Effect.gen(function* () {
    const { server } = yield* Fixture.Fixture
    const reply = yield* person.browser.request("/api/v1/me", { method: "DELETE" })
    expect(reply.status, reply.text).toBe(200)
    yield* server.sql`UPDATE accounts SET purge_after = now() + ${interval}::interval WHERE id = ${person.accountId}`
    yield* server.sql`UPDATE users SET purge_after = now() + ${interval}::interval WHERE id = ${person.userId}`
  })

Fixture.describe(`account purge (${TestDatabase.kind} database)`, {}, (it) => {
  it.effect("an account past its grace is purged: none of its rows remain in any table the export reads", () =>
    Effect.gen(function* () {
      const { server } = yield* Fixture.Fixture
      const gone = yield* populated("purged")
      const waiting = yield* populated("waiting")
      const restored = yield* populated("restored")
      const bystander = yield* populated("bystander")
      yield* deleteWithGraceEnding(gone, "-1 minute")
      yield* deleteWithGraceEnding(waiting, "1 day")
      yield* deleteWithGraceEnding(restored, "-1 minute")
      // A restore that lands before the sweep wins, even though the grace had run out.
      const back = yield* restored.browser.request("/api/v1/me/restore", { method: "POST" })
      expect(back.status, back.text).toBe(200)

      // Purging clears an attempt's person (ON DELETE SET NULL) if nothing deletes it: count the rows themselves.
      const attempts = (yield* server.sql<{
        id: string
      }>`SELECT id FROM auth_attempts WHERE user_id = ${gone.userId}`).map((row) => row.id)
      expect(attempts.length).toBeGreaterThan(0)

      yield* purge(server)

      const left = yield* rowsOf(server, gone)
      for (const [table, n] of Object.entries(left)) expect(n, table).toBe(0)
      const [remaining] = yield* server.sql<{ n: number }>`
        SELECT count(*)::int AS n FROM auth_attempts WHERE id IN ${server.sql.in(attempts)}
      `
      expect(remaining?.n).toBe(0)
      for (const kept of [waiting, restored, bystander]) {
        const rows = yield* rowsOf(server, kept)
        for (const [table, n] of Object.entries(rows)) expect(n, `${kept.email} ${table}`).toBeGreaterThan(0)
      }
    })
  )
})
