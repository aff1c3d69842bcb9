import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// Share links (docs/status-pages.md, "Share links").
//
// monitor_shares: one row per link. The token is kept twice: sealed (token_sealed, AES-GCM under the instance key,
// so the list can show it again) and hashed (token_hash, SHA-256, unique, what the /m/<token> page looks up), so
// neither a dump nor an index holds it in the clear. A revoked link keeps its row (revoked_at) as history; a link
// goes with its monitor. account_id is the monitor's account, kept here so max_shared_monitors counts across the
// account without a join.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE monitor_shares (
      id uuid PRIMARY KEY,
      target_id uuid NOT NULL REFERENCES targets(id) ON DELETE CASCADE,
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      label text,
      token_sealed text NOT NULL,
      token_hash bytea NOT NULL,
      expires_at timestamptz,
      revoked_at timestamptz,
      revoked_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )
  `
  yield* sql`CREATE UNIQUE INDEX monitor_shares_token ON monitor_shares (token_hash)`
  yield* sql`CREATE INDEX monitor_shares_target ON monitor_shares (target_id, created_at, id) WHERE revoked_at IS NULL`
  yield* sql`CREATE INDEX monitor_shares_account ON monitor_shares (account_id) WHERE revoked_at IS NULL`
})
