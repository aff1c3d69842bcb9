import { describe, expect, it } from "@effect/vitest"
import * as DateTime from "effect/DateTime"
import * as Option from "effect/Option"
import {
  type HeartbeatEffect,
  HeartbeatEvent,
  type HeartbeatState,
  initial,
  type Step,
  step,
  type Window
} from "../../src/heartbeat/HeartbeatMachine.js"
import * as PingSignal from "../../src/heartbeat/PingSignal.js"

const t0 = DateTime.unsafeMake("2026-11-22T10:00:00.000Z")
const at = (seconds: number): DateTime.Utc => DateTime.unsafeMake(DateTime.toEpochMillis(t0) + seconds * 1000)

const signal = (suffix: string): PingSignal.PingSignal => Option.getOrThrow(PingSignal.fromSuffix(suffix))
const ping = (suffix: string) => HeartbeatEvent.Ping({ signal: signal(suffix) })

// period 1 h, grace 5 min, runs may take 10 min.
const window: Window = { period: 3600, grace: 300, max_runtime: 600 }
const evaluate = (w: Window = window) => HeartbeatEvent.Evaluate({ window: w })

type Scripted = readonly [seconds: number, event: HeartbeatEvent]

// Runs a script of events from a fresh, enabled heartbeat and returns the last step.
const run = (script: ReadonlyArray<Scripted>, from: HeartbeatState = initial({ enabled: true })): Step => {
  let last: Step = { state: from, effects: [] }
  for (const [seconds, event] of script) last = step(last.state, event, at(seconds))
  return last
}

const tags = (effects: ReadonlyArray<HeartbeatEffect>) => effects.map((effect) => effect._tag)

const changes = (effects: ReadonlyArray<HeartbeatEffect>) =>
  effects.flatMap((effect) =>
    effect._tag === "VerdictChanged"
      ? [{ from: effect.from, to: effect.to, cause: effect.cause, at_once: effect.at_once }]
      : []
  )

const results = (effects: ReadonlyArray<HeartbeatEffect>) =>
  effects.flatMap((effect) => (effect._tag === "WriteResult" ? [effect] : []))

const upAt = (seconds: number): HeartbeatState => run([[seconds, ping("")]]).state

describe("HeartbeatMachine: the spec's state table", () => {
  it("pending (first_ping_at null) | any first ping including /fail | none | up, or down on /fail; pending is not evaluated, writes no results and opens no incidents; a first /fail alerts at once", () => {
    const pending = initial({ enabled: true })
    // Pending: evaluation does nothing, however long it waits.
    expect(step(pending, evaluate(), at(999_999))).toEqual({ state: pending, effects: [] })

    for (const suffix of ["", "/success", "/0", "/start"]) {
      const first = step(pending, ping(suffix), at(10))
      expect(first.state.verdict).toBe("up")
      expect(first.state.first_ping_at).toEqual(at(10))
      expect(first.state.window_from).toEqual(at(10))
      expect(changes(first.effects)).toEqual([
        { from: "pending", to: "up", cause: suffix === "/start" ? "start" : "success", at_once: true }
      ])
      expect(results(first.effects).map((r) => r.outcome.status)).toEqual(["up"])
    }

    for (const suffix of ["/fail", "/1", "/255"]) {
      const first = step(pending, ping(suffix), at(10))
      expect(first.state.verdict).toBe("down")
      expect(first.state.down_cause).toBe("fail")
      expect(first.state.first_ping_at).toEqual(at(10))
      expect(first.state.last_fail_at).toEqual(at(10))
      // Alerts at once: the incident pipeline is told not to wait for confirmations.
      expect(changes(first.effects)).toEqual([{ from: "pending", to: "down", cause: "fail", at_once: true }])
      const [result] = results(first.effects)
      expect(result?.outcome.status).toBe("down")
      expect(result?.checked_at).toEqual(at(10))
    }
    expect(step(pending, ping("/42"), at(10)).state.last_exit_code).toBe(42)
    expect(results(step(pending, ping("/42"), at(10)).effects)[0]?.outcome.error).toBe("the job exited with status 42")
  })

  it("up | scheduled evaluation | age of last success exceeds period + grace | down; goes through the normal incident pipeline", () => {
    const up = upAt(0)
    // Exactly period + grace is still on time: the rule is "exceeds".
    const onTime = step(up, evaluate(), at(3900))
    expect(onTime.state.verdict).toBe("up")
    expect(changes(onTime.effects)).toEqual([])
    expect(results(onTime.effects).map((r) => r.outcome.status)).toEqual(["up"])

    const late = step(up, evaluate(), at(3901))
    expect(late.state.verdict).toBe("down")
    expect(late.state.down_cause).toBe("silence")
    // Normal pipeline: a down result that counts toward alert_confirmations, not an immediate alert.
    expect(changes(late.effects)).toEqual([{ from: "up", to: "down", cause: "silence", at_once: false }])
    const [result] = results(late.effects)
    expect(result?.outcome.status).toBe("down")
    expect(result?.outcome.error).toBe("no success ping for 3901 s (period 3600 s + grace 300 s)")

    // Later ticks keep writing down, so confirmations can accumulate.
    const again = step(late.state, evaluate(), at(4000))
    expect(changes(again.effects)).toEqual([])
    expect(results(again.effects).map((r) => r.outcome.status)).toEqual(["down"])

    // A success advances the window: silence is measured from it.
    const pinged = run([[3000, ping("/success")]], up)
    expect(step(pinged.state, evaluate(), at(6900)).state.verdict).toBe("up")
    expect(step(pinged.state, evaluate(), at(6901)).state.verdict).toBe("down")
  })

  it("up | ping to /fail, or ping to /$? with a non-zero code | any | down; immediate, result written at once", () => {
    for (const [suffix, code] of [
      ["/fail", null],
      ["/fail/", null],
      ["/1", 1],
      ["/137", 137]
    ] as const) {
      const failed = step(upAt(0), ping(suffix), at(60))
      expect(failed.state.verdict).toBe("down")
      expect(failed.state.last_fail_at).toEqual(at(60))
      expect(failed.state.last_exit_code).toBe(code)
      expect(changes(failed.effects)).toEqual([{ from: "up", to: "down", cause: "fail", at_once: true }])
      const [result] = results(failed.effects)
      expect(result?.checked_at).toEqual(at(60))
      expect(result?.outcome.status).toBe("down")
      expect(result?.outcome.details).toEqual({ source: "ping", signal: "fail", exit_code: code })
    }
    // A fail does not advance the window.
    expect(step(upAt(0), ping("/fail"), at(60)).state.window_from).toEqual(at(0))
  })

  it("down | success ping (bare URL, /success, or /0) | any | up; result written at once; clears the failure and advances the window", () => {
    for (const down of [
      run([[0, ping("/fail")]]).state,
      run([
        [0, ping("")],
        [4000, evaluate()]
      ]).state
    ]) {
      expect(down.verdict).toBe("down")
      for (const suffix of ["", "/", "/success", "/0"]) {
        const cleared = step(down, ping(suffix), at(5000))
        expect(cleared.state.verdict).toBe("up")
        expect(cleared.state.down_cause).toBeNull()
        expect(cleared.state.window_from).toEqual(at(5000))
        expect(cleared.state.last_success_at).toEqual(at(5000))
        expect(changes(cleared.effects)).toEqual([{ from: "down", to: "up", cause: "success", at_once: true }])
        expect(results(cleared.effects).map((r) => [r.outcome.status, r.checked_at])).toEqual([["up", at(5000)]])
        // The window was advanced: up for a full period + grace from the success.
        expect(step(cleared.state, evaluate(), at(5000 + 3900)).state.verdict).toBe("up")
      }
    }
  })

  it("up | /start then no finish | max_runtime elapsed | down; opens an incident", () => {
    const started = run([
      [0, ping("")],
      [100, ping("/start")]
    ])
    expect(started.state.run_started_at).toEqual(at(100))
    expect(started.state.last_start_at).toEqual(at(100))
    // Routine: a /start writes nothing and does not advance the window.
    expect(tags(started.effects)).toEqual(["PingRecorded"])
    expect(started.state.window_from).toEqual(at(0))

    expect(step(started.state, evaluate(), at(699)).state.verdict).toBe("up")
    const overdue = step(started.state, evaluate(), at(700))
    expect(overdue.state.verdict).toBe("down")
    expect(overdue.state.down_cause).toBe("runtime_exceeded")
    // Opens an incident: the pipeline acts without waiting for confirmations.
    expect(changes(overdue.effects)).toEqual([{ from: "up", to: "down", cause: "runtime_exceeded", at_once: true }])
    expect(results(overdue.effects)[0]?.outcome.error).toBe(
      "the run started at 2026-11-22T10:01:40.000Z has not finished within max_runtime 600 s"
    )

    // The late finish clears it and still gives the run its duration.
    const finished = step(overdue.state, ping(""), at(900))
    expect(finished.state.verdict).toBe("up")
    expect(finished.effects[0]).toMatchObject({ _tag: "PingRecorded", run_duration_ms: 800_000 })

    // Without /start, max_runtime does nothing; without max_runtime, an open run does nothing.
    expect(step(upAt(0), evaluate(), at(3000)).state.verdict).toBe("up")
    expect(step(started.state, evaluate({ period: 3600, grace: 300 }), at(3000)).state.verdict).toBe("up")
  })

  it("paused then re-enabled | enable | monitor has pinged before | up until a full period + grace from the resume", () => {
    const down = run([
      [0, ping("")],
      [60, ping("/fail")],
      [120, HeartbeatEvent.Pause()]
    ]).state
    expect(down.paused).toBe(true)
    const resumed = step(down, HeartbeatEvent.Resume(), at(86_400))
    expect(resumed.state.paused).toBe(false)
    expect(resumed.state.verdict).toBe("up")
    expect(resumed.state.window_from).toEqual(at(86_400))
    // The resume is not a signal from the job: the next evaluation tick writes the result.
    expect(changes(resumed.effects)).toEqual([{ from: "down", to: "up", cause: "resumed", at_once: false }])
    expect(results(resumed.effects)).toEqual([])

    expect(results(step(resumed.state, evaluate(), at(86_460)).effects).map((r) => r.outcome.status)).toEqual(["up"])
    expect(step(resumed.state, evaluate(), at(86_400 + 3900)).state.verdict).toBe("up")
    expect(step(resumed.state, evaluate(), at(86_400 + 3901)).state.verdict).toBe("down")

    // An up monitor resumes up with the clock re-armed, and no change to report.
    const upPaused = run([
      [0, ping("")],
      [60, HeartbeatEvent.Pause()]
    ]).state
    const upResumed = step(upPaused, HeartbeatEvent.Resume(), at(50_000))
    expect(upResumed.state.window_from).toEqual(at(50_000))
    expect(upResumed.effects).toEqual([])

    // Never pinged: it stays pending.
    const neverPinged = step(initial({ enabled: false }), HeartbeatEvent.Resume(), at(100))
    expect(neverPinged.state.verdict).toBe("pending")
    expect(neverPinged.state.paused).toBe(false)
    expect(neverPinged.effects).toEqual([])
  })
})

describe("HeartbeatMachine: pings", () => {
  it("a routine success while up writes nothing, records the ping and advances the window", () => {
    const next = step(upAt(0), ping("/success"), at(600))
    expect(tags(next.effects)).toEqual(["PingRecorded"])
    expect(next.state.last_ping_at).toEqual(at(600))
    expect(next.state.last_success_at).toEqual(at(600))
    expect(next.state.window_from).toEqual(at(600))
  })

  it("a fail while already down writes nothing but records the failure", () => {
    const down = run([[0, ping("/fail")]]).state
    const again = step(down, ping("/3"), at(60))
    expect(tags(again.effects)).toEqual(["PingRecorded"])
    expect(again.state.last_fail_at).toEqual(at(60))
    expect(again.state.last_exit_code).toBe(3)
  })

  it("a fail during a silence outage becomes the cause the next evaluation reports", () => {
    const silent = run([
      [0, ping("")],
      [4000, evaluate()]
    ]).state
    const failed = step(silent, ping("/fail"), at(4100))
    expect(failed.state.down_cause).toBe("fail")
    expect(results(step(failed.state, evaluate(), at(4200)).effects)[0]?.outcome.error).toBe(
      "the job reported a failure"
    )
  })

  it("/start pairs with the next finish, success or failure, to give the run a duration", () => {
    const success = run([
      [0, ping("")],
      [100, ping("/start")],
      [130, ping("/success")]
    ])
    expect(success.effects[0]).toMatchObject({ _tag: "PingRecorded", run_duration_ms: 30_000 })
    expect(success.state.run_started_at).toBeNull()

    const failure = run([
      [0, ping("")],
      [100, ping("/start")],
      [145, ping("/2")]
    ])
    expect(failure.effects[0]).toMatchObject({ _tag: "PingRecorded", run_duration_ms: 45_000 })
    expect(results(failure.effects)[0]?.outcome.duration_ms).toBe(45_000)

    // A finish without a start has no duration; a second /start restarts the run.
    expect(
      run([
        [0, ping("")],
        [10, ping("")]
      ]).effects[0]
    ).toMatchObject({ run_duration_ms: null })
    const restarted = run([
      [0, ping("")],
      [100, ping("/start")],
      [200, ping("/start")],
      [210, ping("")]
    ])
    expect(restarted.effects[0]).toMatchObject({ run_duration_ms: 10_000 })
  })

  it("a /start while down keeps the monitor down and writes nothing", () => {
    const down = run([[0, ping("/fail")]]).state
    const started = step(down, ping("/start"), at(60))
    expect(started.state.verdict).toBe("down")
    expect(started.state.down_cause).toBe("fail")
    expect(tags(started.effects)).toEqual(["PingRecorded"])
  })

  it("a first /start arms the silence clock, so a job that never finishes goes silent", () => {
    const started = run([[0, ping("/start")]]).state
    expect(started.last_success_at).toBeNull()
    expect(step(started, evaluate({ period: 3600, grace: 300 }), at(3901)).state.down_cause).toBe("silence")
  })
})

describe("HeartbeatMachine: pause", () => {
  it("a ping during a pause is recorded but judges nothing and writes nothing", () => {
    const paused = run([
      [0, ping("")],
      [60, HeartbeatEvent.Pause()]
    ]).state
    const failed = step(paused, ping("/fail"), at(120))
    expect(failed.state.verdict).toBe("up")
    expect(failed.state.last_fail_at).toEqual(at(120))
    expect(failed.state.last_ping_at).toEqual(at(120))
    expect(tags(failed.effects)).toEqual(["PingRecorded"])

    const succeeded = step(paused, ping(""), at(120))
    expect(succeeded.state.last_success_at).toEqual(at(120))
    // The clock is left for the resume to re-arm.
    expect(succeeded.state.window_from).toEqual(at(0))
  })

  it("a paused monitor is not evaluated", () => {
    const paused = run([
      [0, ping("")],
      [60, HeartbeatEvent.Pause()]
    ]).state
    expect(step(paused, evaluate(), at(999_999))).toEqual({ state: paused, effects: [] })
  })

  it("a first ping during a pause makes the monitor 'pinged before': it resumes up", () => {
    const paused = initial({ enabled: false })
    const pinged = step(paused, ping(""), at(10)).state
    expect(pinged.first_ping_at).toEqual(at(10))
    expect(pinged.verdict).toBe("pending")
    const resumed = step(pinged, HeartbeatEvent.Resume(), at(100))
    expect(resumed.state.verdict).toBe("up")
    expect(resumed.state.window_from).toEqual(at(100))
  })

  it("the resume forgets a run begun before it, so max_runtime cannot cut the resume's window short", () => {
    const paused = run([
      [0, ping("")],
      [10, ping("/start")],
      [20, HeartbeatEvent.Pause()]
    ]).state
    const resumed = step(paused, HeartbeatEvent.Resume(), at(5000)).state
    expect(resumed.run_started_at).toBeNull()
    expect(step(resumed, evaluate(), at(5000 + 3900)).state.verdict).toBe("up")
  })

  it("pause and resume are idempotent", () => {
    const up = upAt(0)
    expect(step(up, HeartbeatEvent.Resume(), at(10))).toEqual({ state: up, effects: [] })
    const paused = step(up, HeartbeatEvent.Pause(), at(10)).state
    expect(step(paused, HeartbeatEvent.Pause(), at(20))).toEqual({ state: paused, effects: [] })
  })
})
