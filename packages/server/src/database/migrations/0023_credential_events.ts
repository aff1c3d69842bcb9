import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// Credential changes (auth-and-limits.md, "Credential changes"): one row each time a sign-in method (a linked
// provider or a passkey) is added to an account or removed from it. The account page and the data export read a
// person's rows newest first; the rows go with the person (ON DELETE CASCADE) when the account is purged. The
// device is kept as keyed hashes, like sessions and attempts (auth/Fingerprint.ts).
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE credential_events (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      change text NOT NULL CHECK (change IN ('added', 'removed')),
      method text NOT NULL,
      origin text NOT NULL CHECK (origin IN ('signup', 'email_match', 'session')),
      label text NOT NULL,
      ip_hash text,
      user_agent_hash text,
      created_at timestamptz NOT NULL DEFAULT now()
    )
  `
  yield* sql`CREATE INDEX credential_events_user ON credential_events (user_id, created_at DESC)`
})
