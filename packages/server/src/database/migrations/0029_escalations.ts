import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// Escalation walks (issue 21; docs/on-call.md, "Escalation").
//
// incident_escalations: one row per incident opened on a monitor with a policy bound, written in the transaction
// that opens it. The policy is copied as it stood then (name, steps, repeat), so the walk's pages and their due
// times stay what they were announced as even if the policy is edited or deleted meanwhile (policy_id then turns
// null). next_page is the ordinal of the next page to send and next_due_at when it is due; workers claim due rows
// with FOR UPDATE SKIP LOCKED, send the page and advance both in one transaction, so each page is sent once however
// many workers walk. Acknowledging or closing the incident stops the walk in the transaction that does it
// (stopped_at, stop_reason, next_due_at null); a walk whose pages are all sent stops as 'exhausted'.
//
// escalation_pages: what each page did, keyed (incident_id, n) so a page is recorded once: when it was due and
// sent, and per target of its step who was paged (recipients: the schedule's on-call user at that moment, nobody,
// a channel, a user; a target gone or disabled since is recorded as such). notice_id is the outbox notice that
// carries it (null when nobody could be paged).
//
// notices may be 'escalation' pages, and deliveries may go to a user (user_id: a person paged by mail, the
// address read at send time); (notice_id, user_id) is unique, so a user named twice in one step is paged once.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE incident_escalations (
      incident_id uuid PRIMARY KEY REFERENCES incidents(id) ON DELETE CASCADE,
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      target_id uuid NOT NULL REFERENCES targets(id) ON DELETE CASCADE,
      policy_id uuid REFERENCES escalation_policies(id) ON DELETE SET NULL,
      policy_name text NOT NULL,
      steps jsonb NOT NULL,
      repeat integer NOT NULL,
      opened_at timestamptz NOT NULL,
      next_page integer NOT NULL,
      next_due_at timestamptz,
      stopped_at timestamptz,
      stop_reason text CHECK (stop_reason IN ('acknowledged', 'resolved', 'recovered', 'exhausted')),
      created_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((stopped_at IS NULL) = (stop_reason IS NULL)),
      CHECK (stopped_at IS NULL OR next_due_at IS NULL)
    )
  `
  yield* sql`CREATE INDEX incident_escalations_due ON incident_escalations (next_due_at) WHERE next_due_at IS NOT NULL`
  yield* sql`
    CREATE TABLE escalation_pages (
      incident_id uuid NOT NULL REFERENCES incident_escalations(incident_id) ON DELETE CASCADE,
      n integer NOT NULL,
      round integer NOT NULL,
      step integer NOT NULL,
      due_at timestamptz NOT NULL,
      paged_at timestamptz NOT NULL,
      notice_id uuid REFERENCES notices(id) ON DELETE SET NULL,
      recipients jsonb NOT NULL,
      PRIMARY KEY (incident_id, n)
    )
  `
  yield* sql`ALTER TABLE notices DROP CONSTRAINT notices_kind_check`
  yield* sql`
    ALTER TABLE notices ADD CONSTRAINT notices_kind_check
      CHECK (kind IN ('opened', 'reminder', 'recovered', 'resolved', 'page_event', 'escalation'))
  `
  yield* sql`ALTER TABLE deliveries ADD COLUMN user_id uuid REFERENCES users(id) ON DELETE SET NULL`
  yield* sql`
    CREATE UNIQUE INDEX deliveries_notice_user ON deliveries (notice_id, user_id) WHERE user_id IS NOT NULL
  `
})
