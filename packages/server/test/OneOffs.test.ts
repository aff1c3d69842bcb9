/**
 * The rules of one-off checks in remote regions, apart from the database: where a test or check-now may run now
 * (`oneoffs/OneOffs.refusal`), how long a run may take (`oneoffs/Budget`), which agent a process hands a region's
 * runs to (`agents/OneOffDispatch.assignments`), and an agent's answer as the result the person gets
 * (`agents/OneOffAnswers.resultOf`).
 */
import { describe, expect, it } from "@effect/vitest"
import type { Outcome } from "@signalman/core/api/Agent"
import { CheckSpec } from "@signalman/core/CheckSpec"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { resultOf } from "../src/agents/OneOffAnswers.js"
import { assignments, type Outlet } from "../src/agents/OneOffDispatch.js"
import * as Budget from "../src/oneoffs/Budget.js"
import { refusal } from "../src/oneoffs/OneOffs.js"

const check = Schema.decodeUnknownSync(CheckSpec)
const standing = (
  id: string,
  over: Partial<{ enabled: boolean; connected: boolean; flow_connected: boolean }> = {}
) => ({
  id,
  enabled: true,
  connected: true,
  flow_connected: false,
  ...over
})
const codeOf = (found: ReturnType<typeof refusal>) =>
  Option.match(found, {
    onNone: () => undefined,
    onSome: (error) => ({ status: error.status, code: error.code, field: error.field })
  })

describe("where a one-off check may run", () => {
  it("an unknown, disabled or agentless region is 422 REGION_INVALID on the field named", () => {
    const invalid = { status: 422, code: "REGION_INVALID", field: "region" }
    expect(codeOf(refusal("eu", undefined, "http", false, "region"))).toEqual(invalid)
    expect(codeOf(refusal("eu", standing("eu", { enabled: false }), "http", false, "region"))).toEqual(invalid)
    expect(codeOf(refusal("eu", standing("eu", { connected: false }), "http", false, "region"))).toEqual(invalid)
    expect(codeOf(refusal("eu", standing("eu", { connected: false }), "tcp", false, "regions"))?.field).toBe("regions")
    expect(codeOf(refusal("eu", standing("eu"), "http", false, "region"))).toBeUndefined()
  })

  it("local needs no agent, only to be enabled; a flow there needs this process's browser", () => {
    expect(codeOf(refusal("local", standing("local", { connected: false }), "http", false, "region"))).toBeUndefined()
    expect(codeOf(refusal("local", standing("local", { enabled: false }), "http", true, "region"))?.code).toBe(
      "REGION_INVALID"
    )
    expect(codeOf(refusal("local", standing("local"), "flow", false, "check.type"))).toEqual({
      status: 422,
      code: "NO_FLOW_CAPABLE_AGENT",
      field: "check.type"
    })
    expect(codeOf(refusal("local", standing("local"), "flow", true, "region"))).toBeUndefined()
  })

  it("a flow in a remote region needs a connected agent with a browser: 422 NO_FLOW_CAPABLE_AGENT otherwise", () => {
    const refused = refusal("eu", standing("eu"), "flow", true, "region")
    expect(codeOf(refused)).toEqual({ status: 422, code: "NO_FLOW_CAPABLE_AGENT", field: "region" })
    expect(Option.getOrThrow(refused).details).toEqual({ regions: ["eu"] })
    // No agent at all is the region's fault first.
    expect(codeOf(refusal("eu", standing("eu", { connected: false }), "flow", true, "region"))?.code).toBe(
      "REGION_INVALID"
    )
    expect(codeOf(refusal("eu", standing("eu", { flow_connected: true }), "flow", false, "region"))).toBeUndefined()
  })
})

describe("how long a one-off run may take", () => {
  it("its check's own timeout: each kind's `timeout`, a domain lookup's 60 s bound", () => {
    expect(Budget.timeoutMs(check({ type: "http", url: "https://example.com/", timeout: 2.5 }))).toBe(2500)
    expect(Budget.timeoutMs(check({ type: "tcp", host: "example.com", port: 443 }))).toBe(10_000)
    expect(Budget.timeoutMs(check({ type: "domain_expiry", domain: "example.com" }))).toBe(Budget.DOMAIN_EXPIRY_MS)
    expect(
      Budget.timeoutMs(
        check({ type: "flow", start_url: "https://example.com/", steps: [{ action: "assert_text", text: "x" }] })
      )
    ).toBe(60_000)
  })

  it("the request waits the timeout plus the grace; the agent must start in time to end before that", () => {
    const spec = check({ type: "http", url: "https://example.com/", timeout: 3 })
    expect(Budget.times(spec, 5000, 1_000_000)).toEqual({ startBy: 1_004_000, deadline: 1_008_000 })
    // A short grace keeps half of it for the answer's way back.
    expect(Budget.times(spec, 400, 0)).toEqual({ startBy: 200, deadline: 3400 })
    for (const grace of [200, 1000, 5000, 60_000]) {
      const { startBy, deadline } = Budget.times(spec, grace, 0)
      expect(startBy + Budget.timeoutMs(spec)).toBeLessThan(deadline)
      expect(startBy).toBeGreaterThan(0)
    }
  })
})

describe("which agent a process hands a region's one-off runs to", () => {
  const outlet = (agentId: string, region: string, browser = false): Outlet => ({
    agentId,
    region,
    browser,
    send: () => Effect.succeed(true)
  })

  it("one agent per region a pass, turning over with the passes; flows only to an agent with a browser", () => {
    const outlets = [outlet("a", "eu"), outlet("b", "eu", true), outlet("c", "us"), outlet("a", "eu")]
    expect(assignments(outlets, 0)).toEqual([
      { region: "eu", agent_id: "a", flow_agent_id: "b" },
      { region: "us", agent_id: "c", flow_agent_id: null }
    ])
    expect(assignments(outlets, 1)).toEqual([
      { region: "eu", agent_id: "b", flow_agent_id: "b" },
      { region: "us", agent_id: "c", flow_agent_id: null }
    ])
    // Two streams of one agent count as one agent.
    expect(assignments(outlets, 2)[0]?.agent_id).toBe("a")
    expect(assignments([], 0)).toEqual([])
  })
})

describe("an agent's answer as the result the person gets", () => {
  const agent = { id: "a", name: "fra-1", region: "eu", flows: false }
  const outcome = (checkedAtMs: number, durationMs = 12): Outcome => ({
    checked_at: DateTime.unsafeMake(checkedAtMs),
    status: "up",
    duration_ms: durationMs,
    error: null,
    details: { status_code: 200 },
    phases: null,
    evidence: null
  })
  const asked = new Date(1_000_000_000)

  it("keeps the agent's time and names the agent's region", () => {
    const { result, skewed } = resultOf(agent, { created_at: asked }, outcome(asked.getTime() + 500), 1_000_001_000)
    expect(skewed).toBeUndefined()
    expect(result.region).toBe("eu")
    expect(DateTime.toEpochMillis(result.checked_at)).toBe(asked.getTime() + 500)
    expect(result.details).toEqual({ status_code: 200 })
  })

  it("a time far off the server's clock, or a negative duration, is restamped with the server's time", () => {
    const now = asked.getTime() + 1000
    const ahead = resultOf(agent, { created_at: asked }, outcome(now + 6 * 60_000), now)
    expect(ahead.skewed).toMatch(/future/)
    expect(DateTime.toEpochMillis(ahead.result.checked_at)).toBe(now)
    const before = resultOf(agent, { created_at: asked }, outcome(asked.getTime() - 6 * 60_000), now)
    expect(before.skewed).toMatch(/before/)
    const negative = resultOf(agent, { created_at: asked }, outcome(asked.getTime(), -5), now)
    expect(negative.skewed).toMatch(/negative/)
    expect(negative.result.duration_ms).toBe(0)
  })
})
