/**
 * The heartbeat monitor's state machine (service-api.md "States and transitions", "Heartbeat monitor"): a pure
 * function of `(state, event, now)` to the next state and the effects the caller carries out.
 *
 * The verdict is `pending` until the first ping, then `up` or `down`. Two things move it: pings (success, start,
 * fail, exit status) and the scheduled evaluation, which runs at the monitor's interval and is the heartbeat's
 * "check": it writes one result per tick, so the incident pipeline counts confirmations as for any probe. A ping
 * writes a result only when it changes the verdict (a success ending a silence or a failure, a failure after
 * successes); routine pings write nothing and wait for the next tick.
 *
 * The silence clock (`window_from`) starts at the first ping, moves to every success and, after a pause, to the
 * resume. Rotating the ping URL never touches this state, so rotation cannot re-arm the clock.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as DateTime from "effect/DateTime"
import * as Schema from "effect/Schema"
import type { ProbeOutcome } from "../CheckResult.js"
import type { HeartbeatCheck } from "../CheckSpec.js"
import type { PingSignal } from "./PingSignal.js"

/**
 * `pending` until the first ping (never evaluated, writes no results, opens no incidents), then `up` or `down`.
 *
 * @since 0.1.0
 * @category models
 */
export const Verdict = Schema.Literal("pending", "up", "down")

/**
 * @since 0.1.0
 * @category models
 */
export type Verdict = typeof Verdict.Type

/**
 * Why a heartbeat is down: the job reported a failure (`/fail` or a non-zero exit status), no success came within
 * period + grace, or a run begun with `/start` outlived `max_runtime`.
 *
 * @since 0.1.0
 * @category models
 */
export const DownCause = Schema.Literal("fail", "silence", "runtime_exceeded")

/**
 * @since 0.1.0
 * @category models
 */
export type DownCause = typeof DownCause.Type

const instant = Schema.NullOr(Schema.DateTimeUtc)

/**
 * What the service keeps per heartbeat monitor between events.
 *
 * @since 0.1.0
 * @category models
 */
export const HeartbeatState = Schema.Struct({
  verdict: Verdict,
  /** The monitor is disabled: pings are recorded, nothing is evaluated or written. */
  paused: Schema.Boolean,
  /** Set while the verdict is down. */
  down_cause: Schema.NullOr(DownCause),
  first_ping_at: instant,
  last_ping_at: instant,
  last_success_at: instant,
  last_start_at: instant,
  last_fail_at: instant,
  /** The exit status of the last failure; null when that failure was a plain `/fail`. */
  last_exit_code: Schema.NullOr(Schema.Int),
  /** Where the silence clock counts from: the first ping, then the last success or the last resume. */
  window_from: instant,
  /** A run begun with `/start` and not yet finished: the only thing `max_runtime` watches. */
  run_started_at: instant
}).annotations({ identifier: "HeartbeatState" })

/**
 * @since 0.1.0
 * @category models
 */
export type HeartbeatState = typeof HeartbeatState.Type

/**
 * The state of a newly created heartbeat: pending, and paused when it was created disabled.
 *
 * @since 0.1.0
 * @category constructors
 */
export const initial = (options: { readonly enabled: boolean }): HeartbeatState => ({
  verdict: "pending",
  paused: !options.enabled,
  down_cause: null,
  first_ping_at: null,
  last_ping_at: null,
  last_success_at: null,
  last_start_at: null,
  last_fail_at: null,
  last_exit_code: null,
  window_from: null,
  run_started_at: null
})

/**
 * The windows a scheduled evaluation judges against (the check's `period`, `grace` and `max_runtime`, seconds).
 *
 * @since 0.1.0
 * @category models
 */
export type Window = Pick<HeartbeatCheck, "period" | "grace" | "max_runtime">

/**
 * A ping with its signal; the scheduled evaluation with the check as it stands; the monitor being disabled or
 * enabled again.
 *
 * @since 0.1.0
 * @category models
 */
export type HeartbeatEvent = Data.TaggedEnum<{
  Ping: { readonly signal: PingSignal }
  Evaluate: { readonly window: Window }
  Pause: Record<never, never>
  Resume: Record<never, never>
}>

/**
 * Constructors for {@link HeartbeatEvent}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const HeartbeatEvent = Data.taggedEnum<HeartbeatEvent>()

/**
 * What moved the verdict.
 *
 * @since 0.1.0
 * @category models
 */
export type ChangeCause = "success" | "start" | "fail" | "silence" | "runtime_exceeded" | "resumed"

/**
 * What the caller does after a step.
 *
 * - `VerdictChanged`: the verdict moved. `at_once` tells the incident pipeline the job itself reported it (a
 *   ping, or a run outliving `max_runtime`), so it acts without waiting for `alert_confirmations`; a silence or a
 *   resume goes through the normal confirmations.
 * - `WriteResult`: a check result to store now (a verdict-changing ping, or an evaluation tick).
 * - `PingRecorded`: a ping to log (it moves `last_ping_at`); `run_duration_ms` is set when it finished a run begun
 *   with `/start`.
 *
 * @since 0.1.0
 * @category models
 */
export type HeartbeatEffect = Data.TaggedEnum<{
  VerdictChanged: {
    readonly from: Verdict
    readonly to: "up" | "down"
    readonly cause: ChangeCause
    readonly at_once: boolean
  }
  WriteResult: { readonly outcome: ProbeOutcome; readonly checked_at: DateTime.Utc }
  PingRecorded: {
    readonly signal: PingSignal
    readonly at: DateTime.Utc
    readonly run_duration_ms: number | null
  }
}>

/**
 * Constructors for {@link HeartbeatEffect}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const HeartbeatEffect = Data.taggedEnum<HeartbeatEffect>()

/**
 * The next state and what to do about it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Step {
  readonly state: HeartbeatState
  readonly effects: ReadonlyArray<HeartbeatEffect>
}

const millis = (from: DateTime.Utc, to: DateTime.Utc): number => DateTime.distance(from, to)

const iso = (at: DateTime.Utc | null): string | null => (at === null ? null : DateTime.formatIso(at))

const signalName = (signal: PingSignal): "success" | "start" | "fail" => {
  switch (signal._tag) {
    case "Success":
      return "success"
    case "Start":
      return "start"
    case "Fail":
      return "fail"
  }
}

const failureText = (exitCode: number | null): string =>
  exitCode === null ? "the job reported a failure" : `the job exited with status ${exitCode}`

const downText = (state: HeartbeatState, window: Window, now: DateTime.Utc): string => {
  switch (state.down_cause) {
    case "fail":
    case null:
      return failureText(state.last_exit_code)
    case "silence": {
      const since = state.window_from === null ? 0 : Math.floor(millis(state.window_from, now) / 1000)
      return `no success ping for ${since} s (period ${window.period} s + grace ${window.grace} s)`
    }
    case "runtime_exceeded":
      return `the run started at ${iso(state.run_started_at)} has not finished within max_runtime ${window.max_runtime} s`
  }
}

const pingOutcome = (status: "up" | "down", signal: PingSignal, runDuration: number | null): ProbeOutcome => {
  const exitCode = signal._tag === "Start" ? null : signal.exit_code
  return {
    status,
    duration_ms: runDuration ?? 0,
    error: status === "down" ? failureText(exitCode) : null,
    details: { source: "ping", signal: signalName(signal), exit_code: exitCode },
    phases: null
  }
}

// Everything a ping records whatever the verdict does, paused or not: the timestamps of the record, the exit
// status of a failure, and the pairing of a finish with its `/start`.
const recordPing = (
  state: HeartbeatState,
  signal: PingSignal,
  now: DateTime.Utc
): { readonly state: HeartbeatState; readonly runDuration: number | null } => {
  const base: HeartbeatState = { ...state, first_ping_at: state.first_ping_at ?? now, last_ping_at: now }
  switch (signal._tag) {
    case "Start":
      // A second /start before a finish begins a new run: the earlier one never reported, and pairing the finish
      // with the latest start gives the duration of the run that actually finished.
      return { state: { ...base, last_start_at: now, run_started_at: now }, runDuration: null }
    case "Success":
    case "Fail": {
      const runDuration = state.run_started_at === null ? null : Math.max(0, millis(state.run_started_at, now))
      const finished: HeartbeatState = { ...base, run_started_at: null }
      return signal._tag === "Success"
        ? { state: { ...finished, last_success_at: now }, runDuration }
        : { state: { ...finished, last_fail_at: now, last_exit_code: signal.exit_code }, runDuration }
    }
  }
}

const ping = (state: HeartbeatState, signal: PingSignal, now: DateTime.Utc): Step => {
  const recorded = recordPing(state, signal, now)
  const logged = HeartbeatEffect.PingRecorded({ signal, at: now, run_duration_ms: recorded.runDuration })
  // While paused a ping is kept for the record (and makes the monitor "pinged before" for the resume rule), but
  // nothing is judged: the silence clock is re-armed by the resume anyway.
  if (state.paused) return { state: recorded.state, effects: [logged] }

  const failed = signal._tag === "Fail"
  const to: "up" | "down" = failed
    ? "down"
    : signal._tag === "Success"
      ? "up"
      : state.verdict === "down"
        ? "down"
        : "up"
  const next: HeartbeatState = {
    ...recorded.state,
    verdict: to,
    down_cause: failed ? "fail" : to === "down" ? state.down_cause : null,
    // A success advances the window; the first ping of any kind starts it (so a monitor that only ever says
    // /start still goes silent); /start and /fail leave it.
    window_from: signal._tag === "Success" || state.first_ping_at === null ? now : state.window_from
  }
  if (to === state.verdict) return { state: next, effects: [logged] }
  return {
    state: next,
    effects: [
      logged,
      HeartbeatEffect.VerdictChanged({ from: state.verdict, to, cause: signalName(signal), at_once: true }),
      HeartbeatEffect.WriteResult({ outcome: pingOutcome(to, signal, recorded.runDuration), checked_at: now })
    ]
  }
}

const evaluationOutcome = (state: HeartbeatState, window: Window, now: DateTime.Utc): ProbeOutcome => ({
  status: state.verdict === "down" ? "down" : "up",
  duration_ms: 0,
  error: state.verdict === "down" ? downText(state, window, now) : null,
  details: {
    source: "evaluation",
    cause: state.down_cause,
    last_success_at: iso(state.last_success_at),
    run_started_at: iso(state.run_started_at)
  },
  phases: null
})

// Which rule, if any, turns an up heartbeat down at `now`. An overdue run is named first: it is the more specific
// cause, and the one the job's owner can act on.
const overdue = (state: HeartbeatState, window: Window, now: DateTime.Utc): DownCause | null => {
  if (
    window.max_runtime !== undefined &&
    state.run_started_at !== null &&
    millis(state.run_started_at, now) >= window.max_runtime * 1000
  ) {
    return "runtime_exceeded"
  }
  // "Exceeds": a ping exactly at period + grace is still on time.
  if (state.window_from !== null && millis(state.window_from, now) > (window.period + window.grace) * 1000) {
    return "silence"
  }
  return null
}

const evaluate = (state: HeartbeatState, window: Window, now: DateTime.Utc): Step => {
  if (state.paused || state.verdict === "pending") return { state, effects: [] }
  if (state.verdict === "down") {
    return {
      state,
      effects: [HeartbeatEffect.WriteResult({ outcome: evaluationOutcome(state, window, now), checked_at: now })]
    }
  }
  const cause = overdue(state, window, now)
  if (cause === null) {
    return {
      state,
      effects: [HeartbeatEffect.WriteResult({ outcome: evaluationOutcome(state, window, now), checked_at: now })]
    }
  }
  const next: HeartbeatState = { ...state, verdict: "down", down_cause: cause }
  return {
    state: next,
    effects: [
      // A run outliving max_runtime "opens an incident" (the spec's table): the job told us it started, so there
      // is nothing to confirm. Silence is inferred, and goes through the normal confirmations.
      HeartbeatEffect.VerdictChanged({ from: "up", to: "down", cause, at_once: cause === "runtime_exceeded" }),
      HeartbeatEffect.WriteResult({ outcome: evaluationOutcome(next, window, now), checked_at: now })
    ]
  }
}

const resume = (state: HeartbeatState, now: DateTime.Utc): Step => {
  if (!state.paused) return { state, effects: [] }
  if (state.first_ping_at === null) return { state: { ...state, paused: false }, effects: [] }
  // "Up until a full period + grace from the resume": the clock restarts now, and a run begun before or during the
  // pause is forgotten, since its max_runtime could otherwise turn the monitor down inside that promise.
  const next: HeartbeatState = {
    ...state,
    paused: false,
    verdict: "up",
    down_cause: null,
    window_from: now,
    run_started_at: null
  }
  // The next evaluation tick writes the result; the resume itself is not a signal from the job.
  return state.verdict === "up"
    ? { state: next, effects: [] }
    : {
        state: next,
        effects: [HeartbeatEffect.VerdictChanged({ from: state.verdict, to: "up", cause: "resumed", at_once: false })]
      }
}

/**
 * One transition of the heartbeat machine.
 *
 * @since 0.1.0
 * @category transitions
 */
export const step = (state: HeartbeatState, event: HeartbeatEvent, now: DateTime.Utc): Step => {
  switch (event._tag) {
    case "Ping":
      return ping(state, event.signal, now)
    case "Evaluate":
      return evaluate(state, event.window, now)
    case "Pause":
      // Nothing to write: a paused monitor is simply not evaluated. Its open incident, if any, is the incident
      // pipeline's to handle.
      return { state: state.paused ? state : { ...state, paused: true }, effects: [] }
    case "Resume":
      return resume(state, now)
  }
}
