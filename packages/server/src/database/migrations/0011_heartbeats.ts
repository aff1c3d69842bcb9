import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// Heartbeat and manual monitors.
//
// heartbeat_states: the heartbeat machine's state (core/heartbeat/HeartbeatMachine) one column per field, plus what
// the record shows beside it (the last failure's output) and what the service runs on: next_eval_at (the scheduled
// evaluation's claim, FOR UPDATE SKIP LOCKED) and the last verdict change the HeartbeatVerdicts seam recorded.
// rotated_at belongs to the ping URL's rotation, kept here only because this is the heartbeat's one row: the machine
// never reads it, so rotation cannot re-arm the silence clock. A monitor without a row is in the machine's initial
// state; the first write makes the row.
//
// heartbeat_pings: every ping, for the observed period and the cadence advice (successes of the last 14 days) and
// as the runs' history; output is the POST body kept (4 KiB), dropped sooner than the ping by the sweeper.
//
// manual_states: what an operator set on a manual monitor. A monitor without a row is up since its creation;
// set_by goes null when the setter's account is purged; restated_at is when a worker last wrote its minute's result.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE heartbeat_states (
      target_id uuid PRIMARY KEY REFERENCES targets(id) ON DELETE CASCADE,
      verdict text NOT NULL CHECK (verdict IN ('pending', 'up', 'down')),
      paused boolean NOT NULL,
      down_cause text CHECK (down_cause IN ('fail', 'silence', 'runtime_exceeded')),
      first_ping_at timestamptz,
      last_ping_at timestamptz,
      last_success_at timestamptz,
      last_start_at timestamptz,
      last_fail_at timestamptz,
      last_exit_code integer,
      window_from timestamptz,
      run_started_at timestamptz,
      last_failure_output text,
      rotated_at timestamptz,
      next_eval_at timestamptz NOT NULL DEFAULT now(),
      verdict_changed_at timestamptz,
      verdict_cause text
    )
  `
  yield* sql`CREATE INDEX heartbeat_states_due ON heartbeat_states (next_eval_at)`
  yield* sql`
    CREATE TABLE heartbeat_pings (
      id uuid PRIMARY KEY,
      target_id uuid NOT NULL REFERENCES targets(id) ON DELETE CASCADE,
      at timestamptz NOT NULL,
      signal text NOT NULL CHECK (signal IN ('success', 'start', 'fail')),
      exit_code integer,
      run_duration_ms integer,
      output text
    )
  `
  yield* sql`CREATE INDEX heartbeat_pings_target ON heartbeat_pings (target_id, at)`
  yield* sql`CREATE INDEX heartbeat_pings_at ON heartbeat_pings (at)`
  yield* sql`
    CREATE TABLE manual_states (
      target_id uuid PRIMARY KEY REFERENCES targets(id) ON DELETE CASCADE,
      status text NOT NULL CHECK (status IN ('up', 'degraded', 'down')),
      note text,
      set_at timestamptz NOT NULL,
      set_by uuid REFERENCES users(id) ON DELETE SET NULL,
      restated_at timestamptz
    )
  `
})
