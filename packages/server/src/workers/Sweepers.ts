/**
 * Sweepers: deletes of rows nothing will read again (auth-and-limits.md, Security model). Each is idempotent, so
 * any number of worker processes may run them; a failed sweep is logged and retried on the next tick.
 *
 * - magic-link rows: dropped seven days after they expire, every 6 hours (when magic links are offered);
 * - invitations: answered, revoked or expired more than 30 days ago, daily;
 * - sessions: ended (expired or revoked) more than 7 days ago, hourly;
 * - rate windows: older than ten minutes, every 10 minutes;
 * - heartbeat pings: older than 14 days, and their outputs older than 7 days, hourly;
 * - accounts whose 30-day deletion grace has passed: purged for good (people, orgs and everything they own),
 *   hourly, one account per transaction;
 * - private status pages: viewer history (visit days, sign-ins) older than a year, password failures older than a
 *   day, ended viewer sessions and sign-in codes a day after they ended, hourly.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { AppConfig } from "../config/Config.js"

export interface Sweep {
  readonly name: string
  readonly every: Duration.DurationInput
  readonly run: Effect.Effect<number, unknown, SqlClient.SqlClient>
}

const count = (rows: ReadonlyArray<unknown>) => rows.length

export const sweeps = (magicLinks: boolean): ReadonlyArray<Sweep> => [
  ...(magicLinks
    ? [
        {
          name: "magic_links",
          every: "6 hours",
          run: Effect.flatMap(SqlClient.SqlClient, (sql) =>
            Effect.map(sql`DELETE FROM magic_links WHERE expires_at < now() - interval '7 days' RETURNING id`, count)
          )
        } satisfies Sweep
      ]
    : []),
  {
    name: "invitations",
    every: "1 day",
    run: Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.map(
        sql`
          DELETE FROM invitations
          WHERE GREATEST(accepted_at, declined_at, revoked_at, expires_at) < now() - interval '30 days'
            AND (accepted_at IS NOT NULL OR declined_at IS NOT NULL OR revoked_at IS NOT NULL OR expires_at < now())
          RETURNING id
        `,
        count
      )
    )
  },
  {
    name: "sessions",
    every: "1 hour",
    run: Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.map(
        sql`
          DELETE FROM sessions
          WHERE LEAST(idle_expires_at, absolute_expires_at, COALESCE(revoked_at, 'infinity')) < now() - interval '7 days'
          RETURNING id
        `,
        count
      )
    )
  },
  {
    name: "purge_accounts",
    every: "1 hour",
    run: Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.gen(function* () {
        const due = yield* sql<{ id: string }>`
          SELECT id FROM accounts WHERE purge_after IS NOT NULL AND purge_after < now() AND deleted_at IS NOT NULL LIMIT 100
        `
        for (const account of due) {
          yield* sql.withTransaction(
            Effect.gen(function* () {
              // Memberships, sessions, tokens and invitations go with their orgs and users (ON DELETE CASCADE);
              // attempts and support requests keep their rows with the person's id cleared.
              yield* sql`DELETE FROM orgs WHERE account_id = ${account.id}`
              yield* sql`DELETE FROM users WHERE account_id = ${account.id}`
              yield* sql`DELETE FROM accounts WHERE id = ${account.id} AND purge_after < now()`
            })
          )
        }
        return due.length
      })
    )
  },
  {
    name: "rate_windows",
    every: "10 minutes",
    run: Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.map(
        sql`DELETE FROM rate_windows WHERE window_start < now() - interval '10 minutes' RETURNING subject`,
        count
      )
    )
  },
  {
    // The record's figures look back 14 days; older pings only take space. Outputs go sooner (after 7 days): the
    // spec keeps them on a shorter clock than the ping.
    name: "heartbeat_pings",
    every: "1 hour",
    run: Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.gen(function* () {
        yield* sql`UPDATE heartbeat_pings SET output = NULL WHERE output IS NOT NULL AND at < now() - interval '7 days'`
        const deleted = yield* sql`DELETE FROM heartbeat_pings WHERE at < now() - interval '14 days' RETURNING id`
        return deleted.length
      })
    )
  },
  {
    // Viewer history is kept a year (auth-and-limits.md, limits); the rest only serves live sign-ins and the
    // password record's failed_last_24h.
    name: "page_viewers",
    every: "1 hour",
    run: Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.gen(function* () {
        const visits = yield* sql`
          DELETE FROM status_page_viewer_visits WHERE day < (now() - interval '1 year')::date RETURNING viewer_id
        `
        const signIns =
          yield* sql`DELETE FROM status_page_viewer_sign_ins WHERE at < now() - interval '1 year' RETURNING id`
        const failures = yield* sql`
          DELETE FROM status_page_password_failures WHERE at < now() - interval '1 day' RETURNING id
        `
        const sessions = yield* sql`
          DELETE FROM status_page_viewer_sessions WHERE expires_at < now() - interval '1 day' RETURNING id
        `
        const codes = yield* sql`
          DELETE FROM status_page_sign_in_codes WHERE expires_at < now() - interval '1 day' RETURNING id
        `
        return visits.length + signIns.length + failures.length + sessions.length + codes.length
      })
    )
  },
  {
    // A replay is answered for 24 hours; after that the key is a new request and its record only takes space.
    name: "idempotency_keys",
    every: "1 hour",
    run: Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.map(sql`DELETE FROM idempotency_keys WHERE created_at < now() - interval '24 hours' RETURNING key`, count)
    )
  }
]

const runForever = (sweep: Sweep) =>
  sweep.run.pipe(
    Effect.tap((deleted) =>
      deleted > 0 ? Effect.logInfo("Swept").pipe(Effect.annotateLogs({ sweep: sweep.name, deleted })) : Effect.void
    ),
    Effect.catchAllCause((cause) =>
      Effect.logWarning("Sweep failed; retrying on the next tick", cause).pipe(Effect.annotateLogs("sweep", sweep.name))
    ),
    Effect.repeat(Schedule.spaced(sweep.every)),
    Effect.asVoid
  )

/** Runs every sweep in the background for the life of the process. */
export const layer = Layer.scopedDiscard(
  Effect.gen(function* () {
    const config = yield* AppConfig
    for (const sweep of sweeps(config["auth.enabled_methods"].includes("magic_link"))) {
      yield* Effect.forkScoped(runForever(sweep))
    }
  })
)
