/**
 * The sweepers' SQL: deletes of rows nothing will read again, each answering how many it removed. Every statement
 * is idempotent, so any number of worker processes may run them at once.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const Id = Schema.Struct({ id: Schema.String })

export class SweepersRepo extends Effect.Service<SweepersRepo>()("Signalman/SweepersRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // A sweep's DELETE ... RETURNING answers one row per row removed; only the count matters.
    const removed = (statement: Statement.Statement<object>) =>
      Effect.map(Effect.orDie(statement), (rows) => rows.length)

    const purgeDue = SqlSchema.findAll({
      Request: Schema.Void,
      Result: Id,
      execute: () => sql`
        SELECT id FROM accounts WHERE purge_after IS NOT NULL AND purge_after < now() AND deleted_at IS NOT NULL LIMIT 100
      `
    })

    const purgeAccount = SqlSchema.void({
      Request: Schema.String,
      execute: (accountId) =>
        sql.withTransaction(
          Effect.gen(function* () {
            // Still due, held until the end: a restore that landed since the account was listed wins.
            const due = yield* sql`
              SELECT id FROM accounts
              WHERE id = ${accountId} AND deleted_at IS NOT NULL AND purge_after < now()
              FOR UPDATE
            `
            if (due.length === 0) return
            // Memberships, sessions, tokens, invitations and credential events go with their orgs and users
            // (ON DELETE CASCADE). The sign-in attempts are in the person's data export, so they go too (the
            // column alone would only be cleared); support requests keep their rows with the person's id cleared.
            yield* sql`DELETE FROM auth_attempts WHERE user_id IN (SELECT id FROM users WHERE account_id = ${accountId})`
            yield* sql`DELETE FROM orgs WHERE account_id = ${accountId}`
            yield* sql`DELETE FROM users WHERE account_id = ${accountId}`
            yield* sql`DELETE FROM accounts WHERE id = ${accountId}`
          })
        )
    })

    return {
      /** Magic-link rows seven days past their expiry. */
      magicLinks: removed(sql`DELETE FROM magic_links WHERE expires_at < now() - interval '7 days' RETURNING id`),
      /** Passkey ceremonies past their 5 minutes (a finished one is already gone: it is deleted as it is read). */
      passkeyCeremonies: removed(sql`DELETE FROM passkey_ceremonies WHERE expires_at < now() RETURNING id`),
      /** Invitations answered, revoked or expired more than 30 days ago. */
      invitations: removed(sql`
        DELETE FROM invitations
        WHERE GREATEST(accepted_at, declined_at, revoked_at, expires_at) < now() - interval '30 days'
          AND (accepted_at IS NOT NULL OR declined_at IS NOT NULL OR revoked_at IS NOT NULL OR expires_at < now())
        RETURNING id
      `),
      /** Sessions ended (expired or revoked) more than 7 days ago. */
      sessions: removed(sql`
        DELETE FROM sessions
        WHERE LEAST(idle_expires_at, absolute_expires_at, COALESCE(revoked_at, 'infinity')) < now() - interval '7 days'
        RETURNING id
      `),
      /** Accounts whose deletion grace has passed, at most 100 at a time. */
      purgeDue: Effect.map(Effect.orDie(purgeDue(undefined)), (rows) => rows.map((row) => row.id)),
      /** An account with its people and orgs, gone for good, in one transaction. */
      purgeAccount: (accountId: string) => Effect.orDie(purgeAccount(accountId)),
      /** Per-minute rate counters older than ten minutes. */
      rateWindows: removed(
        sql`DELETE FROM rate_windows WHERE window_start < now() - interval '10 minutes' RETURNING subject`
      ),
      /** Heartbeat outputs older than 7 days, then pings older than 14 days; the pings removed. */
      heartbeatPings: Effect.zipRight(
        Effect.orDie(
          sql`UPDATE heartbeat_pings SET output = NULL WHERE output IS NOT NULL AND at < now() - interval '7 days'`
        ),
        removed(sql`DELETE FROM heartbeat_pings WHERE at < now() - interval '14 days' RETURNING id`)
      ),
      /** Private pages' viewer history older than a year, password failures older than a day, and viewer sessions
       * and sign-in codes a day after they ended. */
      pageViewers: Effect.map(
        Effect.all([
          removed(sql`
            DELETE FROM status_page_viewer_visits WHERE day < (now() - interval '1 year')::date RETURNING viewer_id
          `),
          removed(sql`DELETE FROM status_page_viewer_sign_ins WHERE at < now() - interval '1 year' RETURNING id`),
          removed(sql`DELETE FROM status_page_password_failures WHERE at < now() - interval '1 day' RETURNING id`),
          removed(
            sql`DELETE FROM status_page_viewer_sessions WHERE expires_at < now() - interval '1 day' RETURNING id`
          ),
          removed(sql`DELETE FROM status_page_sign_in_codes WHERE expires_at < now() - interval '1 day' RETURNING id`)
        ]),
        (counts) => counts.reduce((sum, n) => sum + n, 0)
      ),
      /** Idempotency records older than the 24 hours a replay is answered. */
      idempotencyKeys: removed(
        sql`DELETE FROM idempotency_keys WHERE created_at < now() - interval '24 hours' RETURNING key`
      ),
      agentReceipts: removed(
        sql`DELETE FROM agent_receipts WHERE received_at < now() - interval '7 days' RETURNING result_id`
      ),
      oneOffRuns: removed(sql`DELETE FROM one_off_runs WHERE deadline < now() - interval '1 hour' RETURNING id`),
      /** OAuth states past their 10 minutes: the dance was abandoned. */
      oauthStates: removed(sql`DELETE FROM oauth_states WHERE expires_at < now() RETURNING provider`),
      /**
       * Stripe's event ids older than 30 days: Stripe retries a delivery for 3 days and resends by hand only events
       * of the last 30, so an older id will not come again.
       */
      billingEvents: removed(
        sql`DELETE FROM billing_events WHERE received_at < now() - interval '30 days' RETURNING event_id`
      )
    }
  })
}) {}
