import { describe, expect, it } from "@effect/vitest"
import * as DateTime from "effect/DateTime"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { HeartbeatEvent, type HeartbeatState, initial, step } from "../../src/heartbeat/HeartbeatMachine.js"
import * as HeartbeatRecord from "../../src/heartbeat/HeartbeatRecord.js"
import * as PingSignal from "../../src/heartbeat/PingSignal.js"
import * as Rotation from "../../src/heartbeat/Rotation.js"

const created = DateTime.unsafeMake("2026-11-20T10:00:00.000Z")
const at = (seconds: number): DateTime.Utc => DateTime.unsafeMake(DateTime.toEpochMillis(created) + seconds * 1000)

const ping = (state: HeartbeatState, suffix: string, seconds: number): HeartbeatState =>
  step(state, HeartbeatEvent.Ping({ signal: Option.getOrThrow(PingSignal.fromSuffix(suffix)) }), at(seconds)).state

const sources = (overrides: Partial<HeartbeatRecord.Sources> = {}): HeartbeatRecord.Sources => ({
  public_base_url: "https://signalman.example/",
  token: "tok_abc",
  created_at: created,
  window: { period: 3600, grace: 300 },
  state: initial({ enabled: true }),
  tokens: Rotation.minted("tok_abc"),
  successes: [],
  last_failure_output: null,
  ...overrides
})

describe("HeartbeatRecord", () => {
  it("a new heartbeat is pending, with its ping URL and every 'until it occurs' field null", () => {
    const record = HeartbeatRecord.derive(sources(), at(10))
    expect(record).toEqual({
      ping_url: "https://signalman.example/ping/tok_abc",
      pending: true,
      first_ping_at: null,
      created_at: created,
      last_ping_at: null,
      last_start_at: null,
      last_fail_at: null,
      last_exit_code: null,
      last_failure_output: null,
      declared_period_secs: 3600,
      observed_period_secs: null,
      rotated_at: null
    })
    // The wire form: RFC 3339 with milliseconds, absent optional fields stay absent.
    expect(Schema.encodeSync(HeartbeatRecord.HeartbeatRecord)(record)).toMatchObject({
      created_at: "2026-11-20T10:00:00.000Z"
    })
    expect("cadence_advice" in record).toBe(false)
    expect("previous_url_expires_at" in record).toBe(false)
  })

  it("carries the last failure's time, exit code and output, and the observed period and advice", () => {
    let state = initial({ enabled: true })
    const successes: Array<DateTime.Utc> = []
    for (let i = 0; i < 6; i++) {
      state = ping(state, "", i * 600)
      successes.push(at(i * 600))
    }
    state = ping(state, "/start", 4000)
    state = ping(state, "/3", 4010)
    const record = HeartbeatRecord.derive(sources({ state, successes, last_failure_output: "disk full" }), at(4020))
    expect(record).toMatchObject({
      pending: false,
      first_ping_at: at(0),
      last_ping_at: at(4010),
      last_start_at: at(4000),
      last_fail_at: at(4010),
      last_exit_code: 3,
      last_failure_output: "disk full",
      observed_period_secs: 600,
      cadence_advice: { kind: "too_loose", suggested_period_secs: 600 }
    })
  })

  it("shows the rotation overlap while it lasts, and when it last rotated", () => {
    const tokens = Rotation.recordUse(
      Rotation.rotate(Rotation.minted("tok_abc"), { token: "tok_new" }, at(100)),
      "tok_abc",
      at(200)
    )
    const during = HeartbeatRecord.derive(sources({ token: "tok_new", tokens }), at(300))
    expect(during).toMatchObject({
      ping_url: "https://signalman.example/ping/tok_new",
      previous_url_expires_at: at(100 + 86_400),
      previous_url_last_used_at: at(200),
      rotated_at: at(100)
    })
    const after = HeartbeatRecord.derive(sources({ token: "tok_new", tokens }), at(100 + 86_400))
    expect("previous_url_expires_at" in after).toBe(false)
    expect(after.rotated_at).toEqual(at(100))
  })
})
