/**
 * The heartbeat machine's state as stored in `heartbeat_states`, one column per field, and back.
 */
import * as HeartbeatMachine from "@signalman/core/heartbeat/HeartbeatMachine"
import * as DateTime from "effect/DateTime"
import * as Schema from "effect/Schema"

const instant = Schema.NullOr(Schema.DateFromSelf)

/** The machine's columns of a `heartbeat_states` row. */
export const StateColumns = Schema.Struct({
  verdict: HeartbeatMachine.Verdict,
  paused: Schema.Boolean,
  down_cause: Schema.NullOr(HeartbeatMachine.DownCause),
  first_ping_at: instant,
  last_ping_at: instant,
  last_success_at: instant,
  last_start_at: instant,
  last_fail_at: instant,
  last_exit_code: Schema.NullOr(Schema.Number),
  window_from: instant,
  run_started_at: instant
})
export type StateColumns = typeof StateColumns.Type

const utc = (at: Date | null): DateTime.Utc | null => (at === null ? null : DateTime.unsafeFromDate(at))
const iso = (at: DateTime.Utc | null): string | null => (at === null ? null : DateTime.formatIso(at))

export const toState = (row: StateColumns): HeartbeatMachine.HeartbeatState => ({
  verdict: row.verdict,
  paused: row.paused,
  down_cause: row.down_cause,
  first_ping_at: utc(row.first_ping_at),
  last_ping_at: utc(row.last_ping_at),
  last_success_at: utc(row.last_success_at),
  last_start_at: utc(row.last_start_at),
  last_fail_at: utc(row.last_fail_at),
  last_exit_code: row.last_exit_code,
  window_from: utc(row.window_from),
  run_started_at: utc(row.run_started_at)
})

/** The state as a JSON record for `jsonb_to_recordset` (timestamps as ISO strings). */
export const toRecord = (targetId: string, state: HeartbeatMachine.HeartbeatState) => ({
  target_id: targetId,
  verdict: state.verdict,
  paused: state.paused,
  down_cause: state.down_cause,
  first_ping_at: iso(state.first_ping_at),
  last_ping_at: iso(state.last_ping_at),
  last_success_at: iso(state.last_success_at),
  last_start_at: iso(state.last_start_at),
  last_fail_at: iso(state.last_fail_at),
  last_exit_code: state.last_exit_code,
  window_from: iso(state.window_from),
  run_started_at: iso(state.run_started_at)
})

/** The column list of `toRecord` for `jsonb_to_recordset(...) AS r(<this>)`. */
export const recordColumns = `target_id uuid, verdict text, paused boolean, down_cause text, first_ping_at timestamptz,
  last_ping_at timestamptz, last_success_at timestamptz, last_start_at timestamptz, last_fail_at timestamptz,
  last_exit_code integer, window_from timestamptz, run_started_at timestamptz`

/**
 * The machine's state brought in line with the monitor's `enabled`: the owner paused or resumed it since the state
 * was stored (by PATCH, a bulk action or monitoring as code), noticed now.
 */
export const reconcile = (
  state: HeartbeatMachine.HeartbeatState,
  enabled: boolean,
  now: DateTime.Utc
): HeartbeatMachine.Step =>
  state.paused === !enabled
    ? { state, effects: [] }
    : HeartbeatMachine.step(
        state,
        enabled ? HeartbeatMachine.HeartbeatEvent.Resume() : HeartbeatMachine.HeartbeatEvent.Pause(),
        now
      )
