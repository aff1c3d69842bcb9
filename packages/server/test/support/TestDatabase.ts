/**
 * A database for one test file: a fresh PostgreSQL database created on the local server and dropped afterwards,
 * or the embedded one in memory, chosen by the vitest project (`SIGNALMAN_TEST_DATABASE`).
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import type * as SqlClient from "@effect/sql/SqlClient"
import { PgClient } from "@effect/sql-pg"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"

export type Kind = "embedded" | "postgres"

export const kind: Kind = process.env["SIGNALMAN_TEST_DATABASE"] === "postgres" ? "postgres" : "embedded"

/** The server's maintenance database; tests create and drop their own beside it. */
export const adminUrl = process.env["TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres"

export interface TestDatabase {
  readonly kind: Kind
  /** Environment for the server's configuration: `DATABASE_URL` or `DATA_DIR`. */
  readonly env: Record<string, string>
  readonly url?: string
}

const withAdmin = <A, E>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.scoped(
    Effect.flatMap(PgClient.make({ url: Redacted.make(adminUrl), maxConnections: 1 }), (sql) => f(sql))
  ).pipe(Effect.provide(Reactivity.layer))

const databaseUrl = (name: string): string => {
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
}

export const acquire: Effect.Effect<TestDatabase, unknown, Scope.Scope> =
  kind === "embedded"
    ? Effect.succeed({ kind, env: { DATA_DIR: "memory://" } })
    : Effect.acquireRelease(
        Effect.gen(function* () {
          const name = `sm_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
          yield* withAdmin((sql) => sql`CREATE DATABASE ${sql(name)}`)
          const url = databaseUrl(name)
          return { kind, env: { DATABASE_URL: url }, url, name }
        }),
        ({ name }) => withAdmin((sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`).pipe(Effect.orDie)
      )
