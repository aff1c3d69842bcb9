import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// Bulk writes and what they need.
//
// idempotency_keys: the answer of a create, bulk create or duplicate sent with an Idempotency-Key, recorded in the
// transaction that made the rows, so a replay returns the first answer and a retry racing the first request waits
// on the key's primary key instead of writing twice. The key is scoped to the caller and the operation; the
// fingerprint is of the request body, so the same key with another body is refused instead of answered wrongly.
//
// ping_tokens: a heartbeat monitor's ping URL tokens. The current one has no expiry; a rotated-out one keeps
// working until expires_at. One table for both lets a ping resolve either with one index lookup.
//
// targets.created_by: who made the monitor ("the caller owns every copy"); null once that user is purged.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE idempotency_keys (
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      operation text NOT NULL,
      key text NOT NULL,
      fingerprint text NOT NULL,
      status integer NOT NULL,
      response jsonb NOT NULL,
      location text,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (org_id, user_id, operation, key)
    )
  `
  yield* sql`CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at)`
  yield* sql`
    CREATE TABLE ping_tokens (
      token text PRIMARY KEY,
      target_id uuid NOT NULL REFERENCES targets(id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz,
      last_used_at timestamptz
    )
  `
  yield* sql`CREATE INDEX ping_tokens_target ON ping_tokens (target_id)`
  yield* sql`ALTER TABLE targets ADD COLUMN created_by uuid REFERENCES users(id) ON DELETE SET NULL`
})
