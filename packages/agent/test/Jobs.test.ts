import { assert, describe, it } from "@effect/vitest"
import * as Probe from "@signalman/checks/Probe"
import * as Throttle from "@signalman/checks/Throttle"
import * as Protocol from "@signalman/core/api/Agent"
import { CheckSpec } from "@signalman/core/CheckSpec"
import * as Cause from "effect/Cause"
import * as DateTime from "effect/DateTime"
import * as Schema from "effect/Schema"
import * as Jobs from "../src/Jobs.js"

const check = (raw: Record<string, unknown>) => Schema.decodeUnknownSync(CheckSpec)(raw)
const http = check({ type: "http", url: "https://example.com/health" })

const job = new Protocol.Job({
  target_id: "0b9f6a3e-1c2d-4e5f-8a7b-000000000001",
  org_id: "7d3e1a2b-4c5d-4e6f-9a8b-0c1d2e3f4a5b",
  due: "2026-01-01T00:00:10.000Z",
  due_ms: Date.UTC(2026, 0, 1, 0, 0, 10),
  deadline_ms: Date.UTC(2026, 0, 1, 0, 0, 40),
  interval_secs: 60,
  check: http,
  error: null
})
const id = "3c1f9a2e-5b6d-4e7f-8a9b-0c1d2e3f4a5b"
const at = Date.UTC(2026, 0, 1, 0, 0, 11)

describe("Jobs", () => {
  it("a leased job runs on the agent's clock: due time and lease end shifted by the offset", () => {
    const leased = Jobs.leased(job, http, 3000)
    assert.strictEqual(leased.org, job.org_id)
    assert.strictEqual(leased.dueMs, job.due_ms - 3000)
    assert.strictEqual(leased.deadlineMs, job.deadline_ms - 3000)
    assert.strictEqual(leased.job, job)
  })

  it("Ran: the outcome, stamped, its evidence carried beside it", () => {
    const leased = Jobs.leased(job, http, 0)
    const png = new Uint8Array([137, 80, 78, 71])
    const result = Jobs.resultOf(
      {
        _tag: "Ran",
        job: leased,
        outcome: {
          status: "down",
          duration_ms: 12,
          error: "HTTP 500",
          details: { status_code: 500 },
          phases: null,
          evidence: { screenshot_png: png }
        }
      },
      id,
      at
    )
    assert.strictEqual(result.id, id)
    assert.strictEqual(result.target_id, job.target_id)
    assert.strictEqual(result.due, job.due)
    assert.strictEqual(DateTime.toEpochMillis(result.outcome!.checked_at), at)
    assert.deepStrictEqual(
      { status: result.outcome?.status, error: result.outcome?.error, details: result.outcome?.details },
      { status: "down", error: "HTTP 500", details: { status_code: 500 } }
    )
    assert.deepStrictEqual(result.outcome?.evidence?.screenshot_png, png)
    // It encodes for the wire (the screenshot as base64).
    const encoded = Schema.encodeSync(Protocol.Result)(result)
    assert.strictEqual(encoded.outcome?.evidence?.screenshot_png, Buffer.from(png).toString("base64"))
  })

  it("Unprobeable: an error outcome with the reason", () => {
    const result = Jobs.resultOf(
      {
        _tag: "Unprobeable",
        job: Jobs.leased(job, http, 0),
        error: new Probe.Unprobeable({ kind: "manual", message: "A manual monitor has no probe" })
      },
      id,
      at
    )
    assert.deepStrictEqual(
      { status: result.outcome?.status, error: result.outcome?.error },
      { status: "error", error: "A manual monitor has no probe" }
    )
  })

  it("Dropped, Expired and Died: no outcome, so the service only moves the slot on", () => {
    const leased = Jobs.leased(job, http, 0)
    for (const ran of [
      { _tag: "Dropped", job: leased, key: Throttle.key(job.org_id, "example.com", 443) } as const,
      { _tag: "Expired", job: leased } as const,
      { _tag: "Died", job: leased, cause: Cause.die(new Error("bug")) } as const
    ]) {
      const result = Jobs.resultOf(ran, id, at)
      assert.strictEqual(result.outcome, null, ran._tag)
      assert.strictEqual(result.due, job.due)
    }
  })

  it("failed: the error result of a job that could not be run", () => {
    const result = Jobs.failed(job, "{{token}} is not defined", id, at)
    assert.deepStrictEqual(
      { status: result.outcome?.status, error: result.outcome?.error, duration: result.outcome?.duration_ms },
      { status: "error", error: "{{token}} is not defined", duration: 0 }
    )
  })

  it("secretsOf: credentials, header values, a body, URL passwords and fill values, longest first", () => {
    assert.deepStrictEqual(
      Jobs.secretsOf(
        check({
          type: "http",
          url: "https://user:p%40ss@example.com/",
          headers: { "x-key": "header-value" },
          body: '{"secret":1}',
          bearer_token: "bearer-value",
          basic_auth: { username: "u", password: "basic-password" }
        })
      ),
      ["basic-password", "header-value", '{"secret":1}', "bearer-value", "p%40ss", "p@ss"]
    )
    assert.deepStrictEqual(
      Jobs.secretsOf(
        check({
          type: "flow",
          start_url: "https://example.com/login",
          steps: [
            { action: "fill", selector: "#user", value: "alice" },
            { action: "fill", selector: "#password", value: "hunter2-long" },
            { action: "goto", url: "https://a:gotopass@example.com/" },
            { action: "assert_text", text: "Welcome" }
          ]
        })
      ),
      ["hunter2-long", "gotopass", "alice"]
    )
    assert.deepStrictEqual(Jobs.secretsOf(check({ type: "tcp", host: "example.com", port: 22 })), [])
  })
})
