import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// Status-page subscribers (docs/status-pages.md, "Subscribers").
//
// status_page_subscribers: one row per (page, address), the address trimmed and lower-cased. confirmed_at is set
// when the confirmation link is followed (double opt-in: nothing is mailed before); unsubscribed_at when the person
// leaves (a later subscribe must confirm again). The confirmation token is kept only as a hash, with when it was
// mailed (the 10-minute throttle and the link's lifetime). The unsubscribe token is hashed for the lookup and
// sealed so every mail can carry the link.
//
// notices and deliveries (the notifier's outbox) also carry page events: a page notice has page_id and no monitor
// or incident, and fans out to the page's confirmed subscribers, one delivery each (subscriber_id), deduplicated by
// (page_id, dedupe_key) and (notice_id, subscriber_id).
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE status_page_subscribers (
      id uuid PRIMARY KEY,
      page_id uuid NOT NULL REFERENCES status_pages(id) ON DELETE CASCADE,
      email text NOT NULL CHECK (email = lower(email)),
      confirmed_at timestamptz,
      unsubscribed_at timestamptz,
      confirm_token_hash bytea,
      confirm_sent_at timestamptz,
      unsubscribe_token_hash bytea NOT NULL,
      unsubscribe_token_sealed text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (page_id, email)
    )
  `
  yield* sql`CREATE UNIQUE INDEX status_page_subscribers_confirm ON status_page_subscribers (confirm_token_hash)`
  yield* sql`CREATE UNIQUE INDEX status_page_subscribers_unsubscribe ON status_page_subscribers (unsubscribe_token_hash)`

  yield* sql`ALTER TABLE notices ALTER COLUMN target_id DROP NOT NULL`
  yield* sql`ALTER TABLE notices ALTER COLUMN incident_id DROP NOT NULL`
  yield* sql`ALTER TABLE notices ADD COLUMN page_id uuid REFERENCES status_pages(id) ON DELETE CASCADE`
  yield* sql`ALTER TABLE notices DROP CONSTRAINT notices_kind_check`
  yield* sql`
    ALTER TABLE notices ADD CONSTRAINT notices_kind_check
      CHECK (kind IN ('opened', 'reminder', 'recovered', 'resolved', 'page_event'))
  `
  yield* sql`
    ALTER TABLE notices ADD CONSTRAINT notices_subject_check
      CHECK ((page_id IS NULL) = (target_id IS NOT NULL AND incident_id IS NOT NULL))
  `
  yield* sql`CREATE UNIQUE INDEX notices_page_dedupe ON notices (page_id, dedupe_key) WHERE page_id IS NOT NULL`
  // The sweep that announces windows starting and ending reads the last hour of either.
  yield* sql`CREATE INDEX maintenance_windows_starts ON maintenance_windows (starts_at) WHERE deleted_at IS NULL`
  yield* sql`CREATE INDEX maintenance_windows_ends ON maintenance_windows (ends_at) WHERE deleted_at IS NULL`
  yield* sql`
    ALTER TABLE deliveries ADD COLUMN subscriber_id uuid REFERENCES status_page_subscribers(id) ON DELETE CASCADE
  `
  yield* sql`
    CREATE UNIQUE INDEX deliveries_notice_subscriber ON deliveries (notice_id, subscriber_id)
      WHERE subscriber_id IS NOT NULL
  `
})
