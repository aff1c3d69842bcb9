import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// The notifier's two-stage outbox.
//
// notices: one row per incident event to announce, written by the incident writer in the transaction that moves
// the incident (so an announcement exists exactly when its transition does). (target_id, dedupe_key) is unique:
// the engine's keys (incident/{n}/notify/{kind}) count incidents per monitor, and a second fold of the same event
// inserts nothing. fanned_out_at is set once the notice has become deliveries. incident_id has no foreign key yet:
// the incidents table comes later.
//
// deliveries: one row per (notice, channel), claimed by workers with FOR UPDATE SKIP LOCKED. channel_name and
// channel_kind are copied at fan-out so the delivery log still says where a notice went after the channel is
// deleted (channel_id then turns null). next_attempt_at is the lease while an attempt runs and the retry time
// after a failure; a delivered or dead row keeps its last value only for the log.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE notices (
      id uuid PRIMARY KEY,
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      target_id uuid NOT NULL REFERENCES targets(id) ON DELETE CASCADE,
      incident_id uuid NOT NULL,
      kind text NOT NULL CHECK (kind IN ('opened', 'reminder', 'recovered', 'resolved')),
      payload jsonb NOT NULL,
      dedupe_key text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      fanned_out_at timestamptz,
      UNIQUE (target_id, dedupe_key)
    )
  `
  yield* sql`CREATE INDEX notices_pending ON notices (created_at) WHERE fanned_out_at IS NULL`
  yield* sql`CREATE INDEX notices_incident ON notices (incident_id)`
  yield* sql`
    CREATE TABLE deliveries (
      id uuid PRIMARY KEY,
      notice_id uuid NOT NULL REFERENCES notices(id) ON DELETE CASCADE,
      channel_id uuid REFERENCES channels(id) ON DELETE SET NULL,
      channel_name text NOT NULL,
      channel_kind text NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'delivered', 'dead')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL,
      last_error text,
      last_status_code integer,
      delivered_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (notice_id, channel_id)
    )
  `
  yield* sql`CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending'`
  yield* sql`CREATE INDEX deliveries_channel ON deliveries (channel_id) WHERE status = 'pending'`
})
