import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// OAuth sign-in (auth-and-limits.md, "OAuth sign-in"; docs/sign-in.md).
//
// oauth_states: one row per dance begun, consumed (deleted) by the callback in one statement, 10 minutes at most.
// The state is kept only as its SHA-256, like session cookies and magic links: a copy of the table read in the
// ten minutes cannot answer a callback. The PKCE verifier (Google and Microsoft) is kept as it is, since the token
// request sends it; it is worth nothing without the code the provider hands the browser. link_user_id is set when
// a signed-in person links a provider (POST /auth/{provider}/link); the callback compares it with the live session.
//
// oauth_identities: a provider identity linked to a person, unique per (provider, provider_key): GitHub's user id,
// Google's sub, Microsoft's {tid}/{oid} (or sub), GitLab's {iss}/{sub}. email is what the provider attested when
// linked (null when it attested none: an identity linked before still signs in); label is what the pages show.
// Removed with the person (ON DELETE CASCADE), so the hard purge takes them.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE oauth_states (
      state_hash bytea PRIMARY KEY,
      provider text NOT NULL CHECK (provider IN ('github', 'google', 'microsoft', 'gitlab')),
      code_verifier text,
      invitation_token text,
      redirect_after text,
      link_user_id uuid REFERENCES users(id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    )
  `
  yield* sql`CREATE INDEX oauth_states_expires ON oauth_states (expires_at)`

  yield* sql`
    CREATE TABLE oauth_identities (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      provider text NOT NULL CHECK (provider IN ('github', 'google', 'microsoft', 'gitlab')),
      provider_key text NOT NULL,
      email text,
      label text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_used_at timestamptz,
      UNIQUE (provider, provider_key)
    )
  `
  yield* sql`CREATE INDEX oauth_identities_user ON oauth_identities (user_id, created_at)`
})
