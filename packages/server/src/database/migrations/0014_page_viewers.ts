import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// Private status pages: who may read them (docs/status-pages.md, "Management and private access").
//
// status_page_viewers: a person who signed in to one page with the email code, by normalised address. blocked_at
// keeps them out (sign-in refused) until lifted; verified_at is the last time they proved the address (a code), the
// start of the page's recheck_days.
//
// status_page_viewer_sessions: a signed-in device. viewer_id is null for a device signed in with the page password;
// such a session carries the password_version it was made under, so a changed password ends it. Only the hash of
// the cookie value is kept.
//
// status_page_sign_in_codes: the mailed code, bound to the browser that asked (browser_hash); only the newest of an
// address and page is live, and attempts are counted.
//
// status_page_viewer_visits and status_page_viewer_sign_ins: a viewer's history (visit days, sign-in events), kept a
// year by a sweeper. status_page_password_failures: failed password attempts, for the use record's failed_last_24h.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE status_page_viewers (
      id uuid PRIMARY KEY,
      page_id uuid NOT NULL REFERENCES status_pages(id) ON DELETE CASCADE,
      email text NOT NULL,
      blocked_at timestamptz,
      blocked_by uuid REFERENCES users(id) ON DELETE SET NULL,
      verified_at timestamptz,
      last_sign_in_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (page_id, email)
    )
  `
  yield* sql`
    CREATE TABLE status_page_viewer_sessions (
      id uuid PRIMARY KEY,
      page_id uuid NOT NULL REFERENCES status_pages(id) ON DELETE CASCADE,
      viewer_id uuid REFERENCES status_page_viewers(id) ON DELETE CASCADE,
      token_hash bytea NOT NULL UNIQUE,
      password_version integer,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      last_seen_at timestamptz NOT NULL DEFAULT now(),
      ip_hash text,
      user_agent_hash text,
      CHECK ((viewer_id IS NULL) = (password_version IS NOT NULL))
    )
  `
  yield* sql`CREATE INDEX status_page_viewer_sessions_page ON status_page_viewer_sessions (page_id, viewer_id)`
  yield* sql`CREATE INDEX status_page_viewer_sessions_viewer ON status_page_viewer_sessions (viewer_id)`
  yield* sql`CREATE INDEX status_page_viewer_sessions_expiry ON status_page_viewer_sessions (expires_at)`
  yield* sql`
    CREATE TABLE status_page_sign_in_codes (
      id uuid PRIMARY KEY,
      page_id uuid NOT NULL REFERENCES status_pages(id) ON DELETE CASCADE,
      email text NOT NULL,
      code_hash bytea NOT NULL,
      browser_hash bytea NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      retired_at timestamptz
    )
  `
  yield* sql`CREATE INDEX status_page_sign_in_codes_browser ON status_page_sign_in_codes (page_id, browser_hash, created_at)`
  yield* sql`CREATE INDEX status_page_sign_in_codes_email ON status_page_sign_in_codes (page_id, email)`
  yield* sql`
    CREATE TABLE status_page_viewer_visits (
      viewer_id uuid NOT NULL REFERENCES status_page_viewers(id) ON DELETE CASCADE,
      day date NOT NULL,
      PRIMARY KEY (viewer_id, day)
    )
  `
  yield* sql`
    CREATE TABLE status_page_viewer_sign_ins (
      id uuid PRIMARY KEY,
      viewer_id uuid NOT NULL REFERENCES status_page_viewers(id) ON DELETE CASCADE,
      at timestamptz NOT NULL DEFAULT now()
    )
  `
  yield* sql`CREATE INDEX status_page_viewer_sign_ins_viewer ON status_page_viewer_sign_ins (viewer_id, at)`
  yield* sql`
    CREATE TABLE status_page_password_failures (
      id uuid PRIMARY KEY,
      page_id uuid NOT NULL REFERENCES status_pages(id) ON DELETE CASCADE,
      at timestamptz NOT NULL DEFAULT now(),
      ip_hash text
    )
  `
  yield* sql`CREATE INDEX status_page_password_failures_page ON status_page_password_failures (page_id, at)`
  // The password use record's last_sign_in_at.
  yield* sql`ALTER TABLE status_pages ADD COLUMN password_last_sign_in_at timestamptz`
})
