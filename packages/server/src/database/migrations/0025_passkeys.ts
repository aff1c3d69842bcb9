import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// Passkeys (auth-and-limits.md, "Passkeys"). A passkey belongs to one person and goes with them (the hard purge
// deletes users, and these rows cascade). `credential_id` is the authenticator's id in base64url, as WebAuthn
// answers it; one credential is one row, whoever holds it. `rp_id` is the relying-party id the credential was made
// for: a passkey whose rp_id is not the host of today's public base URL is retired (kept for the account page to
// label, never accepted). `counter` is the last signature counter seen (checked, not enforced).
//
// Ceremony state: one row per started ceremony, single use (deleted in the statement that reads it), 5 minutes.
// A registration names the session that started it and the person, and the name chosen for the passkey; a
// sign-in carries the invitation and redirect_after the login page was opened with.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE passkeys (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      credential_id text NOT NULL UNIQUE,
      public_key bytea NOT NULL,
      counter bigint NOT NULL DEFAULT 0 CHECK (counter >= 0),
      transports text[] NOT NULL DEFAULT '{}',
      name text NOT NULL,
      rp_id text NOT NULL,
      device_type text NOT NULL CHECK (device_type IN ('singleDevice', 'multiDevice')),
      backed_up boolean NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_used_at timestamptz
    )
  `
  yield* sql`CREATE INDEX passkeys_user ON passkeys (user_id, created_at)`
  yield* sql`
    CREATE TABLE passkey_ceremonies (
      id uuid PRIMARY KEY,
      kind text NOT NULL CHECK (kind IN ('login', 'register')),
      challenge text NOT NULL,
      session_id uuid REFERENCES sessions(id) ON DELETE CASCADE,
      user_id uuid REFERENCES users(id) ON DELETE CASCADE,
      name text,
      invitation_token text,
      redirect_after text,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      CHECK ((kind = 'register') = (session_id IS NOT NULL AND user_id IS NOT NULL AND name IS NOT NULL))
    )
  `
  yield* sql`CREATE INDEX passkey_ceremonies_expiry ON passkey_ceremonies (expires_at)`
})
