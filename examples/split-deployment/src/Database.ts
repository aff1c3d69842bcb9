/**
 * The deployment's one PostgreSQL: `SPLIT_DATABASE_URL`, by default the machine's server at 127.0.0.1:5432 and a
 * database of the example's own (`signalman_split`), created when missing. The schema is not made here: every
 * Signalman process migrates at boot (the migrator takes a table lock, so processes booting at once migrate once).
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { PgClient } from "@effect/sql-pg"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"

export const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/signalman_split"

export const url = (env: NodeJS.ProcessEnv): string => env["SPLIT_DATABASE_URL"] ?? DEFAULT_URL

/** The database's name, and the URL of the server's maintenance database (`postgres`) to create it from. */
const parts = (databaseUrl: string) => {
  const parsed = new URL(databaseUrl)
  const name = decodeURIComponent(parsed.pathname.replace(/^\//, ""))
  if (name === "") throw new Error(`SPLIT_DATABASE_URL names no database: ${databaseUrl}`)
  parsed.pathname = "/postgres"
  return { name, maintenance: parsed.toString() }
}

/** Creates the database unless it exists; answers whether it was created. */
export const ensure = (databaseUrl: string): Promise<boolean> => {
  const { name, maintenance } = parts(databaseUrl)
  return Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const sql = yield* PgClient.make({ url: Redacted.make(maintenance), maxConnections: 1 })
        const found = yield* sql`SELECT 1 AS one FROM pg_database WHERE datname = ${name}`
        if (found.length > 0) return false
        yield* sql`CREATE DATABASE ${sql(name)}`
        return true
      })
    ).pipe(Effect.provide(Reactivity.layer))
  )
}
