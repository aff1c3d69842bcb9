import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// One-off checks in remote regions (docs/agent-protocol.md, "One-off checks"): `POST /targets/test` with a region,
// and check-now in each region of a monitor. The API process answering the request and the one holding an agent's
// stream may differ, so they meet here, never in memory alone:
// - the request writes a row (the region, the ready check sealed with the server's key since it may carry the org's
//   secrets, who asked, when the agent must start it by and when the request stops waiting) and waits for its
//   outcome;
// - a process holding a stream of an agent of the region claims the row for that agent (`agent_id`, with FOR UPDATE
//   SKIP LOCKED, so one run goes to one agent) and pushes the check on the stream;
// - the agent's answer sets `answered_at` and `result` once (a conditional update), and for check-now (`target_id`
//   set) stores the result in the same transaction; the request reads it, or closes the row itself at its deadline
//   so no answer is taken after it gave up. The request deletes the row when done; the sweepers delete what a
//   crashed process left.
// A monitor deleted meanwhile takes its runs with it: the request answers 404 and nothing is stored.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE one_off_runs (
      id uuid PRIMARY KEY,
      region text NOT NULL,
      kind text NOT NULL,
      org_id uuid NOT NULL,
      target_id uuid REFERENCES targets (id) ON DELETE CASCADE,
      requested_by text NOT NULL,
      check_sealed text,
      start_by timestamptz NOT NULL,
      deadline timestamptz NOT NULL,
      agent_id uuid,
      dispatched_at timestamptz,
      answered_at timestamptz,
      result jsonb,
      created_at timestamptz NOT NULL DEFAULT now()
    )
  `
  yield* sql`
    CREATE INDEX one_off_runs_waiting ON one_off_runs (region, created_at)
    WHERE agent_id IS NULL AND answered_at IS NULL
  `
  yield* sql`CREATE INDEX one_off_runs_deadline ON one_off_runs (deadline)`
  yield* sql`CREATE INDEX one_off_runs_target ON one_off_runs (target_id) WHERE target_id IS NOT NULL`
})
