import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// Notification channels. config is what every answer shows (each secret replaced by ***); the secret values are
// sealed apart in secrets (a JSON map by field), so a dump of this table holds no credential in the clear.
// account_id is the quota subject (max_notification_channels counts across the account's orgs).
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE channels (
      id uuid PRIMARY KEY,
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      name text NOT NULL,
      kind text NOT NULL,
      config jsonb NOT NULL,
      secrets text,
      enabled boolean NOT NULL,
      write_source text NOT NULL CHECK (write_source IN ('ui', 'api', 'iac')),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )
  `
  yield* sql`CREATE INDEX channels_org ON channels (org_id, lower(name), id)`
  yield* sql`CREATE INDEX channels_account ON channels (account_id)`
})
