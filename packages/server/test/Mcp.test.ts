/**
 * The MCP server's pure parts: the Origin rule, where the server card is answered, a monitor's status, the tools'
 * argument decoding and answers, and the scopes the tools take from the contract.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import * as ApiError from "@signalman/core/ApiError"
import type { CallerShape } from "@signalman/core/api/Authentication"
import type { AccountId, ApiTokenId, OrgId, UserId } from "@signalman/core/Identity"
import { Target } from "@signalman/core/Target"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Schema from "effect/Schema"
import * as MonitorStatus from "../src/mcp/MonitorStatus.js"
import * as Origins from "../src/mcp/Origins.js"
import * as ServerCard from "../src/mcp/ServerCard.js"
import * as Tool from "../src/mcp/Tool.js"
import * as Tools from "../src/mcp/Tools.js"

const caller = (credential: CallerShape["credential"]): CallerShape => ({
  user: {
    id: "u" as UserId,
    email: "a@example.com",
    accountId: "a" as AccountId,
    emailVerified: true,
    deleted: false
  },
  credential,
  org: null
})

const token = (scopes: ReadonlyArray<string>) =>
  caller({ kind: "token", tokenId: "t" as ApiTokenId, scopes, boundOrgId: null as OrgId | null })

describe("Origins", () => {
  const allowed = Origins.own(["https://status.example.com/", undefined, "http://localhost:8080/x", "not a url"])

  it("the own origins are the configured URLs' origins, unset and malformed ones left out", () => {
    expect([...allowed].sort()).toEqual(["http://localhost:8080", "https://status.example.com"])
  })

  it("no Origin (not a browser) and an own origin pass; another, an opaque or a malformed one is 403", () => {
    expect(Origins.refusal(undefined, allowed)).toBeUndefined()
    expect(Origins.refusal("https://status.example.com", allowed)).toBeUndefined()
    expect(Origins.refusal("HTTPS://STATUS.EXAMPLE.COM", allowed)).toBeUndefined()
    for (const origin of ["https://evil.example", "http://status.example.com", "null", "garbage", "http://localhost"]) {
      const refused = Origins.refusal(origin, allowed)
      expect(refused?.code, origin).toBe("ORIGIN_NOT_ALLOWED")
      expect(refused?.status).toBe(403)
      expect(refused?.field).toBe("Origin")
    }
  })
})

describe("ServerCard.redirectFor", () => {
  it("without mcp.origin the card is answered here", () => {
    expect(ServerCard.redirectFor("localhost:8080", undefined)).toBeUndefined()
  })

  it("on the MCP host it is answered; any other host is sent there", () => {
    expect(ServerCard.redirectFor("mcp.example.com", "https://mcp.example.com")).toBeUndefined()
    expect(ServerCard.redirectFor("MCP.example.com", "https://mcp.example.com/")).toBeUndefined()
    expect(ServerCard.redirectFor("example.com", "https://mcp.example.com")).toBe(
      "https://mcp.example.com/.well-known/mcp/server-card.json"
    )
    expect(ServerCard.redirectFor(undefined, "https://mcp.example.com:8443")).toBe(
      "https://mcp.example.com:8443/.well-known/mcp/server-card.json"
    )
  })
})

describe("MonitorStatus.of", () => {
  const at = (iso: string) => new Date(iso)
  const monitor = (enabled: boolean) =>
    new Target({
      id: "0190f5a8-0000-7000-8000-000000000001" as Target["id"],
      org_id: "0190f5a8-0000-7000-8000-000000000002" as Target["org_id"],
      created_at: DateTime.unsafeMake("2026-01-01T00:00:00Z"),
      updated_at: DateTime.unsafeMake("2026-01-02T00:00:00Z"),
      write_source: "api",
      managed_by: null,
      name: "Web",
      check: { type: "http" },
      interval: 60,
      enabled,
      tags: [],
      group: null,
      alerts: [],
      alert_confirmations: 1,
      notify_recovery: true,
      renotify_interval_secs: 0,
      recovery_period_secs: 0,
      region_policy: "any",
      regions: ["local"],
      advisories: []
    })
  const state = {
    status: "down" as const,
    since: at("2026-01-03T00:00:00Z"),
    last_at: at("2026-01-03T00:05:00Z"),
    regions: [
      {
        region: "local",
        status: "down" as const,
        since: at("2026-01-03T00:00:00Z"),
        last_at: at("2026-01-03T00:05:00Z")
      }
    ]
  }

  it("a running monitor is its state, since when, with its regions", () => {
    const status = MonitorStatus.of(monitor(true), state)
    expect(status.status).toBe("down")
    expect(status.since && DateTime.formatIso(status.since)).toBe("2026-01-03T00:00:00.000Z")
    expect(status.last_check_at && DateTime.formatIso(status.last_check_at)).toBe("2026-01-03T00:05:00.000Z")
    expect(status.regions.map((r) => [r.region, r.status])).toEqual([["local", "down"]])
  })

  it("no result yet is unknown; a paused monitor is paused whatever it last said, with no since", () => {
    expect(MonitorStatus.of(monitor(true), undefined)).toMatchObject({ status: "unknown", since: null, regions: [] })
    const paused = MonitorStatus.of(monitor(false), state)
    expect({ status: paused.status, since: paused.since }).toEqual({ status: "paused", since: null })
    expect(paused.last_check_at).not.toBeNull()
  })
})

describe("Tool.make", () => {
  const echo = Tool.make({
    name: "echo",
    title: "Echo",
    description: "Answers its count doubled",
    endpoint: { method: "GET", path: "/api/v1/targets" },
    input: Tool.Arguments({ count: Schema.Int, when: Schema.optional(Schema.DateTimeUtc) }),
    output: Schema.Struct({ doubled: Schema.Int, at: Schema.NullOr(Schema.DateTimeUtc) }),
    run: ({ count, when }) =>
      count === 13
        ? Effect.dieMessage('relation "secret_table" does not exist')
        : count < 0
          ? Effect.fail(ApiError.make("VALIDATION_FAILED", "count must not be negative", { field: "count" }))
          : Effect.succeed({ doubled: count * 2, at: when ?? null })
  })

  it("the input schema is the arguments' JSON Schema, an object without $schema", () => {
    expect(echo.inputSchema).toMatchObject({ type: "object", required: ["count"], additionalProperties: false })
    expect("$schema" in echo.inputSchema).toBe(false)
  })

  it.effect("an answer is the output encoded as JSON", () =>
    Effect.gen(function* () {
      const outcome = yield* echo.call({ count: 2, when: "2026-01-01T00:00:00Z" })
      expect(outcome).toEqual({ isError: false, structured: { doubled: 4, at: "2026-01-01T00:00:00.000Z" } })
    })
  )

  it.effect("a defect is INTERNAL_ERROR without its message", () =>
    Effect.gen(function* () {
      const outcome = yield* echo.call({ count: 13 }).pipe(Logger.withMinimumLogLevel(LogLevel.None))
      expect(outcome.isError).toBe(true)
      expect(outcome.structured).toMatchObject({ error: { code: "INTERNAL_ERROR" } })
      expect(JSON.stringify(outcome.structured)).not.toContain("secret_table")
    })
  )

  it.effect("bad arguments and a refusal are the API's envelope, naming the field", () =>
    Effect.gen(function* () {
      const wrong = yield* echo.call({ count: "two" })
      expect(wrong.isError).toBe(true)
      expect(wrong.structured).toMatchObject({ error: { code: "VALIDATION_FAILED", field: "count" } })
      const missing = yield* echo.call(undefined)
      expect(missing.structured).toMatchObject({ error: { code: "VALIDATION_FAILED", field: "count" } })
      const unknown = yield* echo.call({ count: 1, colour: "red" })
      expect(unknown.structured).toMatchObject({ error: { code: "INVALID_JSON", field: "colour" } })
      const refused = yield* echo.call({ count: -1 })
      expect(refused).toEqual({
        isError: true,
        structured: {
          error: {
            code: "VALIDATION_FAILED",
            message: "count must not be negative",
            field: "count",
            details: {},
            trace_id: null
          }
        }
      })
    })
  )
})

describe("Tools", () => {
  const tools = Tools.catalogue()
  const byName = new Map(tools.map((t) => [t.name, t]))

  it("every tool takes its REST endpoint's scope from the contract", () => {
    expect(Object.fromEntries(tools.map((t) => [t.name, t.scope]))).toEqual({
      list_monitors: "targets:read",
      get_monitor_status: "targets:read",
      get_monitor_results: "targets:read",
      get_monitor_uptime: "targets:read",
      get_monitor_latency: "targets:read",
      list_open_incidents: "incidents:read",
      get_incident: "incidents:read",
      list_status_pages: "status_page:read",
      pause_monitor: "targets:write",
      resume_monitor: "targets:write",
      run_check_now: "targets:execute",
      acknowledge_incident: "incidents:execute",
      post_incident_update: "incidents:write"
    })
  })

  it("names are snake_case and unique; a write is marked so", () => {
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length)
    for (const tool of tools) expect(tool.name).toMatch(/^[a-z]+(_[a-z]+)+$/)
    expect(tools.filter((t) => t.writes).map((t) => t.name)).toEqual([
      "pause_monitor",
      "resume_monitor",
      "run_check_now",
      "acknowledge_incident",
      "post_incident_update"
    ])
  })

  it("a caller sees the tools its scopes allow: write implies read, full_access and a session all", () => {
    const names = (c: CallerShape) => Tools.visibleTo(tools, c).map((t) => t.name)
    expect(names(token(["full_access"]))).toHaveLength(tools.length)
    expect(names(caller({ kind: "session", sessionId: "s" as never }))).toHaveLength(tools.length)
    expect(names(token(["incidents:write"]))).toEqual(["list_open_incidents", "get_incident", "post_incident_update"])
    expect(names(token(["targets:execute"]))).toEqual(["run_check_now"])
    expect(names(token([]))).toEqual([])
  })

  it("calling a tool the scopes do not allow is refused with INSUFFICIENT_SCOPE naming the scope", () => {
    const pause = byName.get("pause_monitor")
    assert.isDefined(pause)
    expect(Tools.refusalFor(pause, token(["targets:read"]))).toMatchObject({
      code: "INSUFFICIENT_SCOPE",
      status: 403,
      details: { required: "targets:write" }
    })
    expect(Tools.refusalFor(pause, token(["targets:write"]))).toBeUndefined()
  })
})
