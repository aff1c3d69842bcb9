import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// How a private page's subscriber got in (docs/status-pages.md, "Subscribers"): a subscription made by a signed-in
// viewer ends when that viewer is blocked; one made on a device signed in with the page password ends when the
// password changes or its way in is turned off (the password record counts them beforehand). A public page's
// subscribers are 'public' and depend on nothing.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    ALTER TABLE status_page_subscribers
      ADD COLUMN admitted_by text NOT NULL DEFAULT 'public' CHECK (admitted_by IN ('public', 'viewer', 'password')),
      ADD COLUMN viewer_id uuid REFERENCES status_page_viewers(id) ON DELETE SET NULL
  `
  yield* sql`
    CREATE INDEX status_page_subscribers_admission ON status_page_subscribers (page_id, admitted_by)
      WHERE unsubscribed_at IS NULL
  `
})
