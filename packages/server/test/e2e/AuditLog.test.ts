/**
 * The audit log keeps an entry appended inside a transaction that then rolls back: a refusal is recorded even
 * though the request's writes are undone.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { AuditLog } from "../../src/audit/AuditLog.js"
import { AppConfig } from "../../src/config/Config.js"
import { eventually } from "../support/Eventually.js"
import * as Fixture from "../support/Fixture.js"
import * as TestDatabase from "../support/TestDatabase.js"

Fixture.describe(`audit log (${TestDatabase.kind} database)`, (it) => {
  it.effect("an entry appended inside a transaction that fails is written all the same", () =>
    Effect.gen(function* () {
      const server = yield* Fixture.server
      const sql = server.sql
      const audit = yield* AuditLog.pipe(
        Effect.provide(AuditLog.Default),
        Effect.provideService(SqlClient.SqlClient, sql),
        Effect.provideService(AppConfig, server.config)
      )
      const count = (event: string) =>
        sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_events WHERE event = ${event}`.pipe(
          Effect.map((rows) => rows[0]?.n ?? 0),
          Effect.orDie
        )
      const failed = yield* sql
        .withTransaction(
          Effect.gen(function* () {
            yield* sql`INSERT INTO instance_secrets (name, value) VALUES ('rolled_back', 'x')`
            yield* audit.append({
              event: "test.refused",
              details: { n: 1 },
              accountId: null,
              orgId: null,
              userId: null
            })
            return yield* Effect.fail("refused" as const)
          })
        )
        .pipe(Effect.flip)
      expect(failed).toBe("refused")
      // Written on its own connection once the transaction let go: poll for it, boundedly (generous under load).
      expect(yield* eventually(count("test.refused"), (n) => n > 0, { intervalMs: 50 })).toBe(1)
      const kept = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM instance_secrets WHERE name = 'rolled_back'`
      expect(kept[0]?.n).toBe(0)

      // Outside a transaction the entry is written before append returns.
      yield* audit.append({ event: "test.plain", accountId: null, orgId: null, userId: null })
      expect(yield* count("test.plain")).toBe(1)
    })
  )
})
