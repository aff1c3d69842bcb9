/**
 * The account's lock. Quotas count across an account's orgs (monitors, channels, orgs, status pages, maintenance
 * windows, share links), so every write that checks one takes this lock inside its transaction and counts under
 * it: concurrent writes then settle exactly at the limit. One key for every feature, or two features would not
 * exclude each other where they count the same thing.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** Holds the account's lock to the end of the current transaction; a database failure is a defect. */
export const lock = (sql: SqlClient.SqlClient, accountId: string): Effect.Effect<void> =>
  Effect.orDie(Effect.asVoid(sql`SELECT pg_advisory_xact_lock(hashtext(${`account:${accountId}`}))`))
