/**
 * The system of record: PostgreSQL through `@effect/sql-pg`, either a real server (`database.url`) or the
 * embedded one. Migrations run when the layer is built.
 */

import type * as SqlClient from "@effect/sql/SqlClient"
import { PgClient } from "@effect/sql-pg"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { AppConfig } from "../config/Config.js"
import * as Embedded from "./Embedded.js"
import * as Migrations from "./Migrations.js"

const client = Layer.unwrapScoped(
  Effect.gen(function* () {
    const config = yield* AppConfig
    const common = {
      applicationName: "signalman",
      maxConnections: config["database.max_connections"],
      connectTimeout: Duration.seconds(config["database.connect_timeout_secs"]),
      idleTimeout: Duration.seconds(60)
    }
    const url = config["database.url"]
    if (url !== undefined) {
      yield* Effect.logInfo("Using PostgreSQL").pipe(Effect.annotateLogs("database", redactUrl(url)))
      return PgClient.layer({ ...common, url: Redacted.make(url) })
    }
    const embedded = yield* Embedded.start(config.data_dir, 4)
    yield* Effect.logInfo("Using the embedded database").pipe(Effect.annotateLogs("data_dir", config.data_dir))
    return PgClient.layer({
      ...common,
      // PGlite runs one query at a time anyway, and its socket server can interleave the extended-protocol
      // messages of concurrent connections ("portal does not exist"): one connection serialises them cleanly.
      maxConnections: 1,
      host: embedded.socketDir,
      port: embedded.port,
      database: "postgres",
      username: "postgres"
    })
  })
)

const redactUrl = (url: string): string => {
  try {
    const u = new URL(url)
    if (u.password !== "") u.password = "***"
    return u.toString()
  } catch {
    return "(unparseable)"
  }
}

/** The database client with the schema migrated. */
export const layer: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, unknown, AppConfig> = Migrations.layer.pipe(
  Layer.provideMerge(client)
)
