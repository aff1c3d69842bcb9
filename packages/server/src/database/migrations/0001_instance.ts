import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// The instance row: one per deployment, so logs and support requests can name the installation.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE instance (
      singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      created_at timestamptz NOT NULL DEFAULT now()
    )
  `
  yield* sql`INSERT INTO instance DEFAULT VALUES`
})
