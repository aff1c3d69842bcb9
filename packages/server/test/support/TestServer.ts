/**
 * The real server, started in the test process on a free loopback port over a fresh database, stopped (with
 * its graceful shutdown) when the test file's layer closes.
 */
import * as HttpServer from "@effect/platform/HttpServer"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as App from "../../src/App.js"
import * as Config from "../../src/config/Config.js"
import * as Embedded from "../../src/database/Embedded.js"
import * as TestDatabase from "./TestDatabase.js"

export interface Running {
  readonly baseUrl: string
  /** The server's own database client, for a test to arrange or inspect state. */
  readonly sql: SqlClient.SqlClient
  readonly database: TestDatabase.TestDatabase
  readonly config: Config.Values
}

export class TestServer extends Context.Tag("test/TestServer")<TestServer, Running>() {}

/** Starts the server; `env` adds settings in their environment spelling (`CHECKER__ALLOW_PRIVATE_TARGETS`). */
export const start = (env: Record<string, string> = {}, database?: TestDatabase.TestDatabase) =>
  Effect.gen(function* () {
    const db = database ?? (yield* TestDatabase.acquire)
    const config = Config.fromEnv({
      HOST: "127.0.0.1",
      PORT: "0",
      LOG__LEVEL: process.env["TEST_LOG_LEVEL"] ?? "error",
      SERVER__SHUTDOWN_GRACE_SECS: "2",
      ...db.env,
      ...env
    })
    const context = yield* Layer.build(App.layer(config)).pipe(Effect.provideService(Embedded.Seed, db.seed))
    const address = Context.get(context, HttpServer.HttpServer).address
    if (address._tag !== "TcpAddress") return yield* Effect.die(new Error("expected a TCP address"))
    const sql = yield* Effect.provide(SqlClient.SqlClient, context)
    return { baseUrl: `http://127.0.0.1:${address.port}`, sql, database: db, config }
  })

export const layer = (env: Record<string, string> = {}): Layer.Layer<TestServer, unknown> =>
  Layer.scoped(TestServer, start(env))
