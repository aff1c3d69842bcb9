/**
 * A deployment for a fault test: api and worker processes (`--role api`, `--role worker`, ServerProcess) on one
 * PostgreSQL, with the settings a loaded test on loopback needs, a mail catcher to sign in through, the test's own
 * database client, and a signed-in person on the pro plan (room for the monitors).
 *
 * ```ts
 * const deployment = yield* Deployment.open(databaseUrl, { SCHEDULER__LEASE_SECS: "5" })
 * const api = yield* deployment.api()
 * const worker = yield* deployment.worker()
 * const person = yield* deployment.signIn(api)
 * ```
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import type * as SqlClient from "@effect/sql/SqlClient"
import { PgClient } from "@effect/sql-pg"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { type Person, signIn, uniqueEmail } from "../../support/Identity.js"
import * as ServerProcess from "../../support/ServerProcess.js"
import * as SmtpCatcher from "../../support/SmtpCatcher.js"

/** The settings every fault test's processes share; a test's own settings go over them. */
export const baseEnv = (databaseUrl: string, smtpUrl: string): Record<string, string> => ({
  DATABASE_URL: databaseUrl,
  LOG__LEVEL: "info",
  MAIL__SMTP_URL: smtpUrl,
  AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0",
  CHECKER__ALLOW_PRIVATE_TARGETS: "true",
  CHECKER__BROWSER_PATH: "none",
  // Every monitor is the same org's on one loopback origin: past the per-host cap (2 by default) a tick is dropped
  // by design, which would read as a missed slot. The cap is not what these tests are about.
  CHECKER__PER_HOST_MAX_INFLIGHT: "1000",
  SCHEDULER__POLL_INTERVAL_MS: "100",
  INCIDENTS__TICK_INTERVAL_SECS: "1",
  SERVER__SHUTDOWN_GRACE_SECS: "5"
})

export interface Deployment {
  readonly env: Record<string, string>
  readonly smtp: SmtpCatcher.SmtpCatcher
  /** The test's own client (two connections), for arranging monitors and counting what was stored. */
  readonly sql: SqlClient.SqlClient
  /** An api process; `extra` settings over the deployment's. Killed (SIGKILL) when the scope closes if still up. */
  readonly api: (extra?: Record<string, string>) => Effect.Effect<ServerProcess.ServerProcess, Error, Scope.Scope>
  /** A worker process, likewise. */
  readonly worker: (extra?: Record<string, string>) => Effect.Effect<ServerProcess.ServerProcess, Error, Scope.Scope>
  /** A new person signed in through `api`, on the pro plan. */
  readonly signIn: (api: ServerProcess.ServerProcess) => Effect.Effect<Person>
}

/** The deployment's pieces on the database at `databaseUrl` (migrated by the first process started). */
export const open = (
  databaseUrl: string,
  settings: Record<string, string> = {}
): Effect.Effect<Deployment, never, Scope.Scope> =>
  Effect.gen(function* () {
    const smtp = yield* SmtpCatcher.make
    const env = { ...baseEnv(databaseUrl, smtp.url), ...settings }
    const sql = yield* PgClient.make({ url: Redacted.make(databaseUrl), maxConnections: 2 }).pipe(
      Effect.provide(Reactivity.layer),
      Effect.orDie
    )
    return {
      env,
      smtp,
      sql,
      api: (extra = {}) => ServerProcess.start(["--role", "api"], { ...env, ...extra }),
      worker: (extra = {}) => ServerProcess.start(["--role", "worker"], { ...env, ...extra }),
      signIn: (api) =>
        Effect.gen(function* () {
          const email = uniqueEmail("faults")
          const person = yield* signIn(api, smtp, email)
          // Before the first /api/v1 request reads (and caches) the plan.
          yield* sql`UPDATE accounts SET plan_id = 'pro' WHERE id = (SELECT account_id FROM users WHERE email = ${email})`.pipe(
            Effect.orDie
          )
          return person
        })
    }
  })
