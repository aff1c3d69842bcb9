import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// Org variables. Every value is sealed, secret or not, so a dump of this table shows no value in the clear;
// is_secret only decides whether the API reads the value back.
//
// targets.variable_keys lists the keys a monitor's check references. The redacted check_spec hides flow fill
// values, so the references cannot be recovered from it; recording them at write time lets used_by and the
// delete guard count without opening any sealed check. Monitors saved before this migration could not hold a
// reference (every one was refused as unresolved), so the empty default is right for them.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE variables (
      id uuid PRIMARY KEY,
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      key text NOT NULL,
      is_secret boolean NOT NULL,
      value_sealed text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (org_id, key)
    )
  `
  yield* sql`ALTER TABLE targets ADD COLUMN variable_keys text[] NOT NULL DEFAULT '{}'`
})
