/**
 * One migrated database for the whole test run, copied for each server instead of migrated per server: a
 * PostgreSQL template database (`CREATE DATABASE ... TEMPLATE`) and an image of an embedded database (PGlite's data
 * directory dump). Both are named after the migrations' contents, so a changed or new migration makes a new one, and
 * several runs at once (or one after another) share them. Built by the e2e projects' global setup (see
 * `vitest.config.ts`); servers start from them through `TestDatabase`.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Reactivity from "@effect/experimental/Reactivity"
import type * as SqlClient from "@effect/sql/SqlClient"
import { PgClient } from "@effect/sql-pg"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Redacted from "effect/Redacted"
import * as Embedded from "../../src/database/Embedded.js"
import * as Migrations from "../../src/database/Migrations.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const migrationsDir = path.resolve(here, "../../src/database/migrations")
const cacheDir = path.resolve(here, "../../../../node_modules/.cache/signalman-test")

/** The test PostgreSQL server's maintenance database; tests create and drop their own beside it. */
export const adminUrl = process.env["TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres"

/** A short hash of every migration's name and contents: the schema version the images hold. */
export const schemaVersion = (): string => {
  const hash = createHash("sha256")
  for (const name of fs.readdirSync(migrationsDir).sort()) {
    hash
      .update(name)
      .update("\0")
      .update(fs.readFileSync(path.join(migrationsDir, name)))
      .update("\0")
  }
  return hash.digest("hex").slice(0, 16)
}

const migrate = (client: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, unknown>) =>
  Effect.scoped(Layer.build(Migrations.layer.pipe(Layer.provide(client))))

const quiet = <A, E>(effect: Effect.Effect<A, E>) =>
  effect.pipe(Logger.withMinimumLogLevel(LogLevel.Warning), Effect.provide(Reactivity.layer))

/** The path of a migrated embedded database's image, built when missing. */
export const embeddedImage = (): Promise<string> => {
  const file = path.join(cacheDir, `embedded-${schemaVersion()}.img`)
  if (fs.existsSync(file)) return Promise.resolve(file)
  const build = Effect.scoped(
    Effect.gen(function* () {
      const embedded = yield* Embedded.start("memory://", 1)
      yield* migrate(
        PgClient.layer({
          host: embedded.socketDir,
          port: embedded.port,
          database: "postgres",
          username: "postgres",
          maxConnections: 1
        })
      )
      const image = yield* embedded.image
      const bytes = new Uint8Array(yield* Effect.promise(() => image.arrayBuffer()))
      // Written aside and renamed, so a run reading the cache never sees half an image.
      fs.mkdirSync(cacheDir, { recursive: true })
      const partial = `${file}.${process.pid}.partial`
      fs.writeFileSync(partial, bytes)
      fs.renameSync(partial, file)
      // Images of earlier schema versions are of no further use (43 MB each).
      for (const stale of fs.readdirSync(cacheDir)) {
        if (stale.startsWith("embedded-") && path.join(cacheDir, stale) !== file) {
          fs.rmSync(path.join(cacheDir, stale), { force: true })
        }
      }
      return file
    })
  )
  return Effect.runPromise(quiet(build))
}

/** The name of a migrated PostgreSQL template database on the server of `adminUrl`, made when missing. */
export const postgresTemplate = (): Promise<string> => {
  const name = `sm_template_${schemaVersion()}`
  const admin = PgClient.layer({ url: Redacted.make(adminUrl), maxConnections: 1 })
  const withAdmin = <A, E>(f: (sql: PgClient.PgClient) => Effect.Effect<A, E>) =>
    Effect.flatMap(PgClient.PgClient, f).pipe(Effect.provide(admin))
  const build = Effect.gen(function* () {
    const exists = yield* withAdmin((sql) => sql`SELECT 1 FROM pg_database WHERE datname = ${name}`)
    if (exists.length > 0) return name
    // Built under a name of its own and renamed, so no run copies a template that is still being migrated.
    const building = `${name}_${process.pid}`
    yield* withAdmin((sql) => sql`CREATE DATABASE ${sql(building)}`)
    const url = new URL(adminUrl)
    url.pathname = `/${building}`
    yield* migrate(PgClient.layer({ url: Redacted.make(url.toString()), maxConnections: 1 }))
    yield* withAdmin((sql) =>
      sql`ALTER DATABASE ${sql(building)} RENAME TO ${sql(name)}`.pipe(
        // Another run finished the same template first: keep theirs.
        Effect.catchAll(() => sql`DROP DATABASE IF EXISTS ${sql(building)} WITH (FORCE)`)
      )
    )
    return name
  })
  return Effect.runPromise(quiet(build))
}
