import { assert, describe, it } from "@effect/vitest"
import * as Probe from "@signalman/checks/Probe"
import * as Throttle from "@signalman/checks/Throttle"
import * as Protocol from "@signalman/core/api/Agent"
import { CheckSpec } from "@signalman/core/CheckSpec"
import * as Cause from "effect/Cause"
import * as DateTime from "effect/DateTime"
import * as Schema from "effect/Schema"
import * as OneOffs from "../src/OneOffs.js"

const http = Schema.decodeUnknownSync(CheckSpec)({ type: "http", url: "https://example.com/health" })
const job = new Protocol.OneOffJob({
  id: "5a1e0c3d-2b4f-4e6a-8c9d-0e1f2a3b4c5d",
  org_id: "7d3e1a2b-4c5d-4e6f-9a8b-0c1d2e3f4a5b",
  deadline_ms: Date.UTC(2026, 0, 1, 0, 0, 5),
  check: http
})
const at = Date.UTC(2026, 0, 1, 0, 0, 6)

describe("OneOffs", () => {
  it("a one-off job runs at once (no due time), not after its deadline on the agent's clock", () => {
    const taken = OneOffs.taken(job, 2000)
    assert.strictEqual(taken.org, job.org_id)
    assert.strictEqual(taken.spec, job.check)
    assert.isUndefined(taken.dueMs)
    assert.strictEqual(taken.deadlineMs, job.deadline_ms - 2000)
    assert.strictEqual(taken.oneOff, job)
  })

  it("Ran: the outcome, stamped, answering the job's id, its evidence beside it", () => {
    const png = new Uint8Array([137, 80, 78, 71])
    const result = OneOffs.resultOf(
      {
        _tag: "Ran",
        job: OneOffs.taken(job, 0),
        outcome: {
          status: "down",
          duration_ms: 9,
          error: "HTTP 500",
          details: null,
          phases: null,
          evidence: { screenshot_png: png }
        }
      },
      at
    )
    assert.strictEqual(result.id, job.id)
    assert.deepStrictEqual(
      { status: result.outcome.status, error: result.outcome.error, duration: result.outcome.duration_ms },
      { status: "down", error: "HTTP 500", duration: 9 }
    )
    assert.strictEqual(DateTime.toEpochMillis(result.outcome.checked_at), at)
    assert.deepStrictEqual(result.outcome.evidence?.screenshot_png, png)
  })

  it("what did not run is still answered, with an error saying why: dropped, expired, unprobeable, died", () => {
    const taken = OneOffs.taken(job, 0)
    const errorOf = (result: Protocol.OneOffResult) => {
      assert.strictEqual(result.id, job.id)
      assert.strictEqual(result.outcome.status, "error")
      assert.strictEqual(result.outcome.duration_ms, 0)
      return result.outcome.error
    }
    const key = Throttle.key("org", "example.com", 443)
    assert.strictEqual(
      errorOf(OneOffs.resultOf({ _tag: "Dropped", job: taken, key }, at)),
      "not run: the agent already has its most checks in flight to example.com:443 (AGENT__PER_HOST_MAX_INFLIGHT)"
    )
    assert.match(errorOf(OneOffs.resultOf({ _tag: "Expired", job: taken }, at)) ?? "", /^not run: .*in time/)
    const unprobeable = new Probe.Unprobeable({ kind: "manual", message: "A manual monitor has no probe" })
    assert.strictEqual(
      errorOf(OneOffs.resultOf({ _tag: "Unprobeable", job: taken, error: unprobeable }, at)),
      "A manual monitor has no probe"
    )
    const died = OneOffs.resultOf({ _tag: "Died", job: taken, cause: Cause.die(new Error("boom secret")) }, at)
    assert.match(errorOf(died) ?? "", /failed to run on the agent/)
    assert.notInclude(errorOf(died) ?? "", "boom")
  })
})
