import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// Probe agents at work (docs/agent-protocol.md).
//
// agents: what an agent reported in its last hello (version, browser, concurrency), and streaming_until: while one
// of its streams is open, the process serving it pushes this a little ahead every few seconds, so "connected" is a
// comparison with now() whichever API process holds the socket.
//
// regions.browser_seen_at: the processes that run a region's checks in-process (the `local` region's workers) stamp
// it while they have a browser. It replaces the operator-set regions.flow_capable: region_flow_capable() is the one
// definition of the rule (decisions.md): a region runs flows while an agent of it that is not revoked reported a
// browser and was seen in the last 5 minutes, or an in-process prober with a browser was.
//
// agent_receipts: one row per stored agent result, so a result delivered twice (a lost ack, a reconnect, the stream
// and then HTTP) is stored once, by its id, and a slot run twice (a lease lapsed and a sibling ran it too) is stored
// once, by (target, region, due). Written in the results' transaction; pruned by the sweepers after some days, long
// past any redelivery.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    ALTER TABLE agents
      ADD COLUMN version text,
      ADD COLUMN browser text,
      ADD COLUMN concurrency integer,
      ADD COLUMN streaming_until timestamptz
  `
  yield* sql`ALTER TABLE regions ADD COLUMN browser_seen_at timestamptz`
  yield* sql`ALTER TABLE regions DROP COLUMN flow_capable`
  yield* sql.unsafe(`
    CREATE FUNCTION region_flow_capable(region text) RETURNS boolean LANGUAGE sql STABLE AS $$
      SELECT EXISTS (
          SELECT 1 FROM regions r WHERE r.id = region AND r.browser_seen_at > now() - interval '5 minutes'
        ) OR EXISTS (
          SELECT 1 FROM agents a
          WHERE a.region_id = region AND a.revoked_at IS NULL AND a.browser IS NOT NULL
            AND a.last_seen_at > now() - interval '5 minutes'
        )
    $$
  `)
  yield* sql`CREATE INDEX agents_region ON agents (region_id) WHERE revoked_at IS NULL`
  yield* sql`
    CREATE TABLE agent_receipts (
      result_id uuid PRIMARY KEY,
      target_id uuid NOT NULL,
      region text NOT NULL,
      due timestamptz NOT NULL,
      agent_id uuid NOT NULL,
      received_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (target_id, region, due)
    )
  `
  yield* sql`CREATE INDEX agent_receipts_received ON agent_receipts (received_at)`
})
