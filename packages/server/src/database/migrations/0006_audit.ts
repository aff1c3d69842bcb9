import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// The audit log: who did what, append-only. One table for every kind of entry (abuse_blocked now; target.state_set,
// status-page password changes and the like later), with what is particular to an event in `details`, so a new
// event needs no migration. Entries belong to an account and go with it when it is purged; a departed user's
// entries stay, unattributed. The caller's address is kept only as the keyed fingerprint hash, as everywhere else.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE audit_events (
      id uuid PRIMARY KEY,
      account_id uuid REFERENCES accounts(id) ON DELETE CASCADE,
      org_id uuid REFERENCES orgs(id) ON DELETE CASCADE,
      user_id uuid REFERENCES users(id) ON DELETE SET NULL,
      event text NOT NULL,
      details jsonb NOT NULL DEFAULT '{}',
      ip_hash text,
      request_id text,
      created_at timestamptz NOT NULL DEFAULT now()
    )
  `
  yield* sql`CREATE INDEX audit_events_account ON audit_events (account_id, created_at DESC)`
  yield* sql`CREATE INDEX audit_events_org ON audit_events (org_id, created_at DESC)`
})
