import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// Monitors. The check is stored without its credentials (check_spec); the credentials are sealed apart
// (credentials), so a dump of this table holds no secret in the clear.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE targets (
      id uuid PRIMARY KEY,
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      name text NOT NULL,
      kind text NOT NULL,
      check_spec jsonb NOT NULL,
      credentials text,
      interval_secs integer NOT NULL,
      enabled boolean NOT NULL,
      tags text[] NOT NULL,
      group_name text,
      alerts jsonb NOT NULL,
      alert_confirmations integer NOT NULL,
      notify_recovery boolean NOT NULL,
      renotify_interval_secs integer NOT NULL,
      recovery_period_secs integer NOT NULL,
      region_policy jsonb NOT NULL,
      regions text[] NOT NULL,
      write_source text NOT NULL CHECK (write_source IN ('ui', 'api', 'iac')),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )
  `
  yield* sql`CREATE INDEX targets_org ON targets (org_id, created_at, id)`
  yield* sql`CREATE INDEX targets_account ON targets (account_id)`
  yield* sql`CREATE INDEX targets_tags ON targets USING gin (tags)`
})
