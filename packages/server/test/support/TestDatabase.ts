/**
 * A database for one server: a fresh PostgreSQL database created on the local server and dropped afterwards, or the
 * embedded one in memory, chosen by the vitest project (`SIGNALMAN_TEST_DATABASE`). Both start migrated, copied
 * from the run's template or image (`DatabaseImages`), when the project's global setup made one.
 */
import * as fs from "node:fs"
import * as Reactivity from "@effect/experimental/Reactivity"
import type * as SqlClient from "@effect/sql/SqlClient"
import { PgClient } from "@effect/sql-pg"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { inject } from "vitest"
import { adminUrl } from "./DatabaseImages.js"

export type Kind = "embedded" | "postgres"

export const kind: Kind = process.env["SIGNALMAN_TEST_DATABASE"] === "postgres" ? "postgres" : "embedded"

export { adminUrl } from "./DatabaseImages.js"

export interface TestDatabase {
  readonly kind: Kind
  /** Environment for the server's configuration: `DATABASE_URL` or `DATA_DIR`. */
  readonly env: Record<string, string>
  readonly url?: string
  /** The image an embedded database starts from (`Embedded.Seed`); none for PostgreSQL or without the setup. */
  readonly seed: Option.Option<Blob>
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

// Read once per test process: every server of the file starts from the same bytes.
let image: Option.Option<Blob> | undefined
const embeddedSeed = (): Option.Option<Blob> => {
  if (image === undefined) {
    const file = inject("embeddedImage")
    image = file === undefined ? Option.none() : Option.some(new Blob([fs.readFileSync(file)]))
  }
  return image
}

export const acquire: Effect.Effect<TestDatabase, unknown, Scope.Scope> =
  kind === "embedded"
    ? Effect.sync(() => ({ kind, env: { DATA_DIR: "memory://" }, seed: embeddedSeed() }))
    : Effect.acquireRelease(
        Effect.gen(function* () {
          const name = `sm_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
          const template = inject("postgresTemplate")
          yield* withAdmin((sql) =>
            template === undefined
              ? sql`CREATE DATABASE ${sql(name)}`
              : sql`CREATE DATABASE ${sql(name)} TEMPLATE ${sql(template)}`
          )
          const url = databaseUrl(name)
          return { kind, env: { DATABASE_URL: url }, url, name, seed: Option.none<Blob>() }
        }),
        ({ name }) => withAdmin((sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`).pipe(Effect.orDie)
      )
