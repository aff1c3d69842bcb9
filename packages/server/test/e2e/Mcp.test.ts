/**
 * The MCP server over HTTP, driven by the official SDK's client (`Client` + `StreamableHTTPClientTransport` with the
 * token in `Authorization`) against the real server: initialize, the tools a token's scopes show, every tool called
 * on data made through the REST API (a heartbeat and a manual monitor give results and an incident without any
 * network; an HTTP monitor on a loopback origin is run now), refusals as tool errors carrying the API's code and
 * field, the same 401 as `/api/v1` for a missing or revoked token, the `api_reads` budget shared with `/api/v1`, the
 * Origin check, GET 405, and the server card on the MCP host (`mcp.origin`) with the redirect from this host.
 */
import * as NodeHttp from "node:http"
import { assert, expect } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { type CallToolResult, CallToolResultSchema, McpError } from "@modelcontextprotocol/sdk/types.js"
import * as ApiError from "@signalman/core/ApiError"
import { IncidentDetail, IncidentPage, IncidentUpdate } from "@signalman/core/api/Incidents"
import { LatencySeries, ResultPage, Uptime } from "@signalman/core/api/Results"
import { StatusPageList } from "@signalman/core/api/StatusPages"
import { TargetPage } from "@signalman/core/api/Targets"
import { CheckResult } from "@signalman/core/CheckResult"
import { HeartbeatRecord } from "@signalman/core/heartbeat/HeartbeatRecord"
import { CreatedApiToken } from "@signalman/core/Identity"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { MonitorStatus } from "../../src/mcp/MonitorStatus.js"
import { awayFromMinuteEdge } from "../support/Eventually.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import { mintToken } from "../support/Identity.js"
import * as ProbeOrigin from "../support/ProbeOrigin.js"
import * as TestDatabase from "../support/TestDatabase.js"

/** The MCP host named by `mcp.origin`: another host name for this same server. */
const MCP_HOST = "mcp.signalman.test"

/** The `api_reads` budget of the pro plan in this file; only the budget test's person is on that plan. */
const TINY_READS = 4

const READ_TOOLS = [
  "list_monitors",
  "get_monitor_status",
  "get_monitor_results",
  "get_monitor_uptime",
  "get_monitor_latency",
  "list_open_incidents",
  "get_incident",
  "list_status_pages"
]
const WRITE_TOOLS = ["pause_monitor", "resume_monitor", "run_check_now", "acknowledge_incident", "post_incident_update"]

/** An SDK client connected (initialize and its notification done) with this token, closed with the scope. */
const connect = (baseUrl: string, token: string, headers: Record<string, string> = {}) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "signalman-test", version: "1.0.0" })
      const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } }
      })
      await client.connect(transport)
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  Effect.promise(
    (): Promise<CallToolResult> => client.callTool({ name, arguments: args }, CallToolResultSchema) as never
  )

/** A successful call's answer, read by the contract's schema; its text content says the same as the structure. */
const answer = <A, I>(result: CallToolResult, schema: Schema.Schema<A, I>): A => {
  expect(result.isError, JSON.stringify(result.content)).toBe(false)
  const text = result.content[0]
  assert(text?.type === "text")
  expect(JSON.parse(text.text)).toEqual(result.structuredContent)
  return Schema.decodeUnknownSync(schema)(result.structuredContent)
}

/** A refused call's envelope (the API's `error` object). */
const refusal = (result: CallToolResult) => {
  expect(result.isError).toBe(true)
  return Schema.decodeUnknownSync(ApiError.ErrorEnvelope)(result.structuredContent).error
}

/** A raw JSON-RPC post to /mcp, as a client without the SDK sends it. */
const post = (
  baseUrl: string,
  headers: Record<string, string>,
  message: unknown = { jsonrpc: "2.0", id: 1, method: "ping" }
) =>
  Http.request(`${baseUrl}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(message)
  })

/** A GET with a Host header of our choosing (fetch does not let one be set). */
const getWithHost = (baseUrl: string, path: string, host: string) =>
  Effect.async<{ status: number; headers: NodeHttp.IncomingHttpHeaders; body: string }>((resume) => {
    const url = new URL(path, baseUrl)
    const request = NodeHttp.request(
      { host: url.hostname, port: url.port, path: url.pathname, headers: { host } },
      (response) => {
        let body = ""
        response.setEncoding("utf8")
        response.on("data", (chunk: string) => {
          body += chunk
        })
        response.on("end", () =>
          resume(Effect.succeed({ status: response.statusCode ?? 0, headers: response.headers, body }))
        )
      }
    )
    request.on("error", (error) => resume(Effect.die(error)))
    request.end()
  })

const json = (person: Fixture.Person, path: string, body: unknown, method = "POST") =>
  person.browser.request(path, { method, json: body })

Fixture.describe(
  `MCP server (${TestDatabase.kind} database)`,
  {
    // No scheduler: every result below is one the test caused.
    env: { ROLE: "api", CHECKER__ALLOW_PRIVATE_TARGETS: "true", MCP__ORIGIN: `http://${MCP_HOST}` },
    sql: [
      `UPDATE plans SET api_reads_per_minute = ${TINY_READS} WHERE id = 'pro'`,
      "UPDATE plans SET check_now_per_minute = 1 WHERE id = 'founding'"
    ]
  },
  (it) => {
    it.scoped("a full-access token lists every tool and each one answers on real data", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const origin = yield* ProbeOrigin.make
        // Founding: the plan allows incident narration, which a timeline update needs.
        const alice = yield* Fixture.person({ plan: "founding" })
        const heartbeat = Http.expectOk(
          yield* json(alice, "/api/v1/targets", {
            name: "Nightly backup",
            tags: ["batch"],
            check: { type: "heartbeat", period: 3600, grace: 300 }
          }),
          Target,
          201
        )
        const manual = Http.expectOk(
          yield* json(alice, "/api/v1/targets", { name: "Office wifi", check: { type: "manual" } }),
          Target,
          201
        )
        const web = Http.expectOk(
          yield* json(alice, "/api/v1/targets", { name: "Web", check: { type: "http", url: `${origin.base}/now` } }),
          Target,
          201
        )
        const record = Http.decode(
          yield* alice.browser.request(`/api/v1/targets/${heartbeat.id}/heartbeat`),
          HeartbeatRecord
        )
        for (const suffix of ["", "/fail", ""]) {
          const ping = yield* Http.request(`${server.baseUrl}${new URL(record.ping_url).pathname}${suffix}`, {
            method: "POST"
          })
          expect(ping.status).toBe(200)
        }
        expect((yield* json(alice, `/api/v1/targets/${manual.id}/state`, { status: "down" }, "PUT")).status).toBe(200)
        const page = yield* json(alice, "/api/v1/status-pages", { slug: `mcp-${Date.now()}`, name: "Acme status" })
        expect(page.status, page.text).toBe(201)

        const client = yield* connect(server.baseUrl, alice.token)
        expect(client.getServerVersion()).toMatchObject({ name: "signalman" })
        expect(client.getServerCapabilities()?.tools).toBeDefined()
        const { tools } = yield* Effect.promise(() => client.listTools())
        expect(tools.map((t) => t.name)).toEqual([...READ_TOOLS, ...WRITE_TOOLS])
        for (const tool of tools) {
          expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(20)
          expect(tool.inputSchema.type).toBe("object")
          expect(tool.annotations?.readOnlyHint, tool.name).toBe(READ_TOOLS.includes(tool.name))
        }
        const results = tools.find((t) => t.name === "get_monitor_results")
        expect(results?.inputSchema.required).toEqual(["monitor_id"])
        expect(Object.keys(results?.inputSchema.properties ?? {}).sort()).toEqual(
          ["from", "limit", "monitor_id", "offset", "region", "to"].sort()
        )

        // Reads.
        const listed = answer(yield* call(client, "list_monitors"), TargetPage)
        expect(listed.total).toBe(3)
        expect(listed.data.map((t) => t.name)).toEqual(["Web", "Office wifi", "Nightly backup"])
        const searched = answer(yield* call(client, "list_monitors", { q: "off", limit: 1 }), TargetPage)
        expect(searched.data.map((t) => t.id)).toEqual([manual.id])
        const tagged = answer(yield* call(client, "list_monitors", { tag: "batch" }), TargetPage)
        expect(tagged.data.map((t) => t.id)).toEqual([heartbeat.id])
        const paged = answer(yield* call(client, "list_monitors", { limit: 2, offset: 2 }), TargetPage)
        expect({ total: paged.total, ids: paged.data.map((t) => t.id) }).toEqual({ total: 3, ids: [heartbeat.id] })

        const status = answer(yield* call(client, "get_monitor_status", { monitor_id: heartbeat.id }), MonitorStatus)
        expect(status.monitor.id).toBe(heartbeat.id)
        expect(status.status).toBe("up")
        expect(status.regions.map((r) => [r.region, r.status])).toEqual([["local", "up"]])
        const unknown = answer(yield* call(client, "get_monitor_status", { monitor_id: web.id }), MonitorStatus)
        expect({ status: unknown.status, since: unknown.since }).toEqual({ status: "unknown", since: null })

        const history = answer(yield* call(client, "get_monitor_results", { monitor_id: heartbeat.id }), ResultPage)
        expect(history.data.map((r) => r.status)).toEqual(["up", "down", "up"])
        const newest = answer(
          yield* call(client, "get_monitor_results", { monitor_id: heartbeat.id, limit: 1, offset: 1 }),
          ResultPage
        )
        expect({ total: newest.total, statuses: newest.data.map((r) => r.status) }).toEqual({
          total: 3,
          statuses: ["down"]
        })
        // The same figures the REST endpoint answers over the same range.
        const range = { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date().toISOString() }
        const query = `from=${encodeURIComponent(range.from)}&to=${encodeURIComponent(range.to)}`
        const restUptime = yield* alice.api(`/api/v1/targets/${heartbeat.id}/uptime?${query}`)
        const uptime = yield* call(client, "get_monitor_uptime", { monitor_id: heartbeat.id, ...range })
        expect(answer(uptime, Uptime)).toMatchObject({ checks: 3, up: 2, down: 1 })
        expect(uptime.structuredContent).toEqual(restUptime.json)

        const open = answer(yield* call(client, "list_open_incidents"), IncidentPage)
        expect(open.data.map((i) => i.target_id)).toEqual([manual.id])
        const ofHeartbeat = answer(
          yield* call(client, "list_open_incidents", { monitor_id: heartbeat.id }),
          IncidentPage
        )
        expect(ofHeartbeat.total).toBe(0)
        const incidentId = open.data[0]!.id
        const detail = answer(yield* call(client, "get_incident", { incident_id: incidentId }), IncidentDetail)
        expect(detail.status).toBe("open")
        expect(detail.updates.length).toBeGreaterThan(0)

        const pages = answer(yield* call(client, "list_status_pages"), StatusPageList)
        expect(pages.data.map((p) => p.name)).toEqual(["Acme status"])

        // Writes.
        const paused = answer(yield* call(client, "pause_monitor", { monitor_id: heartbeat.id }), Target)
        expect(paused.enabled).toBe(false)
        const pausedStatus = answer(
          yield* call(client, "get_monitor_status", { monitor_id: heartbeat.id }),
          MonitorStatus
        )
        expect(pausedStatus.status).toBe("paused")
        const rest = Http.expectOk(yield* alice.api(`/api/v1/targets/${heartbeat.id}`), Target)
        expect({ enabled: rest.enabled, write_source: rest.write_source }).toEqual({
          enabled: false,
          write_source: "api"
        })
        const resumed = answer(yield* call(client, "resume_monitor", { monitor_id: heartbeat.id }), Target)
        expect(resumed.enabled).toBe(true)

        // The founding plan allows one check-now a minute here: the second run is refused by that budget.
        yield* awayFromMinuteEdge(15)
        const ran = answer(yield* call(client, "run_check_now", { monitor_id: web.id }), CheckResult)
        expect({ status: ran.status, region: ran.region }).toEqual({ status: "up", region: "local" })
        const again = refusal(yield* call(client, "run_check_now", { monitor_id: web.id }))
        expect(again).toMatchObject({ code: "RATE_LIMITED", details: { scope: "per_account_check_now" } })
        expect(origin.of("/now").length).toBe(1)
        const stored = Http.expectOk(yield* alice.api(`/api/v1/targets/${web.id}/results`), ResultPage)
        expect(stored.total).toBe(1)
        const latency = yield* call(client, "get_monitor_latency", { monitor_id: web.id, from: range.from })
        const series = answer(latency, LatencySeries)
        expect(series.buckets.map((b) => b.checks)).toEqual([1])
        expect(series.buckets[0]?.mean_ms).toBe(ran.duration_ms)
        const restLatency = yield* alice.api(`/api/v1/targets/${web.id}/latency?from=${encodeURIComponent(range.from)}`)
        expect(Http.wire(restLatency, LatencySeries).buckets).toEqual(Schema.encodeSync(LatencySeries)(series).buckets)

        const acknowledged = answer(
          yield* call(client, "acknowledge_incident", { incident_id: incidentId }),
          IncidentDetail
        )
        expect(acknowledged.acknowledged_at).not.toBeNull()
        expect(acknowledged.acknowledged_by).toBe(alice.userId)
        const update = answer(
          yield* call(client, "post_incident_update", {
            incident_id: incidentId,
            phase: "identified",
            message: "  The access point lost power.  "
          }),
          IncidentUpdate
        )
        expect({ phase: update.phase, message: update.message, by: update.created_by }).toEqual({
          phase: "identified",
          message: "The access point lost power.",
          by: alice.userId
        })
        const timeline = Http.expectOk(yield* alice.api(`/api/v1/incidents/${incidentId}`), IncidentDetail)
        expect(timeline.updates.map((u) => u.id)).toContain(update.id)
      })
    )

    it.scoped("refusals are tool errors with the API's code and field; an unknown tool is a protocol error", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const alice = yield* Fixture.person()
        const bob = yield* Fixture.person()
        const manual = Http.expectOk(
          yield* json(alice, "/api/v1/targets", { name: "Door sensor", check: { type: "manual" } }),
          Target,
          201
        )
        expect((yield* json(alice, `/api/v1/targets/${manual.id}/state`, { status: "down" }, "PUT")).status).toBe(200)
        const incident = Http.decode(yield* alice.api("/api/v1/incidents?status=open"), IncidentPage).data[0]
        assert.isDefined(incident)

        // Another org's monitor and incident look like none at all, as the API answers them.
        const outsider = yield* connect(server.baseUrl, bob.token)
        for (const [tool, args] of [
          ["get_monitor_status", { monitor_id: manual.id }],
          ["get_monitor_results", { monitor_id: manual.id }],
          ["pause_monitor", { monitor_id: manual.id }],
          ["get_incident", { incident_id: incident.id }],
          ["acknowledge_incident", { incident_id: incident.id }]
        ] as const) {
          const error = refusal(yield* call(outsider, tool, args))
          expect(error.code, tool).toBe("NOT_FOUND")
        }
        expect(answer(yield* call(outsider, "list_monitors"), TargetPage).total).toBe(0)

        // A read-only token is shown no write tool, and calling one anyway is refused as the REST route refuses it.
        const reader = yield* mintToken(alice, {
          scopes: ["targets:read", "incidents:read", "status_page:read"],
          org_id: alice.org.id
        })
        const readOnly = yield* connect(server.baseUrl, reader.token)
        const { tools } = yield* Effect.promise(() => readOnly.listTools())
        expect(tools.map((t) => t.name)).toEqual(READ_TOOLS)
        const scoped = refusal(yield* call(readOnly, "pause_monitor", { monitor_id: manual.id }))
        expect(scoped).toMatchObject({ code: "INSUFFICIENT_SCOPE", details: { required: "targets:write" } })
        expect(refusal(yield* call(readOnly, "run_check_now", { monitor_id: manual.id })).code).toBe(
          "INSUFFICIENT_SCOPE"
        )
        const still = Http.expectOk(yield* alice.api(`/api/v1/targets/${manual.id}`), Target)
        expect(still.enabled).toBe(true)
        // A token with incidents only sees the incident reads.
        const incidentsOnly = yield* mintToken(alice, { scopes: ["incidents:read"], org_id: alice.org.id })
        const narrow = yield* connect(server.baseUrl, incidentsOnly.token)
        const narrowTools = yield* Effect.promise(() => narrow.listTools())
        expect(narrowTools.tools.map((t) => t.name)).toEqual(["list_open_incidents", "get_incident"])
        expect(refusal(yield* call(narrow, "list_monitors")).code).toBe("INSUFFICIENT_SCOPE")

        // The org binding as on /api/v1: a token bound to no org acts on none until X-Signalman-Org names one.
        const unbound = yield* mintToken(alice, { scopes: ["targets:read"] })
        const nowhere = yield* connect(server.baseUrl, unbound.token)
        expect(refusal(yield* call(nowhere, "list_monitors")).code).toBe("ORG_REQUIRED")
        const named = yield* connect(server.baseUrl, unbound.token, { "x-signalman-org": alice.org.slug })
        expect(answer(yield* call(named, "list_monitors"), TargetPage).data.map((t) => t.id)).toEqual([manual.id])
        const mismatch = yield* post(server.baseUrl, {
          authorization: `Bearer ${alice.token}`,
          "x-signalman-org": bob.org.slug
        })
        expect(mismatch.status).toBe(403)
        expect(Http.envelope(mismatch).code).toBe("ORG_HEADER_MISMATCH")

        // The same rules as the REST handlers: a monitor without a probe, the plan's narration gate (free).
        const writer = yield* connect(server.baseUrl, alice.token)
        expect(refusal(yield* call(writer, "run_check_now", { monitor_id: manual.id })).code).toBe(
          "HEARTBEAT_NOT_PROBEABLE"
        )
        const gated = refusal(
          yield* call(writer, "post_incident_update", { incident_id: incident.id, phase: "identified", message: "x" })
        )
        expect(gated.code).toBe("INCIDENT_NARRATION_DISABLED")

        // Bad arguments name the field.
        const badId = refusal(yield* call(writer, "get_monitor_results", { monitor_id: "nope" }))
        expect({ code: badId.code, field: badId.field }).toEqual({ code: "VALIDATION_FAILED", field: "monitor_id" })
        const missing = refusal(yield* call(writer, "get_monitor_uptime", {}))
        expect({ code: missing.code, field: missing.field }).toEqual({ code: "VALIDATION_FAILED", field: "monitor_id" })
        const badLimit = refusal(yield* call(writer, "list_monitors", { limit: 0 }))
        expect({ code: badLimit.code, field: badLimit.field }).toEqual({ code: "VALIDATION_FAILED", field: "limit" })
        const badFrom = refusal(yield* call(writer, "get_monitor_latency", { monitor_id: manual.id, from: "soon" }))
        expect(badFrom.field).toBe("from")
        const badPhase = refusal(
          yield* call(writer, "post_incident_update", { incident_id: incident.id, phase: "sideways", message: "x" })
        )
        expect(badPhase.field).toBe("phase")
        const extra = refusal(yield* call(writer, "list_monitors", { colour: "red" }))
        expect({ code: extra.code, field: extra.field }).toEqual({ code: "INVALID_JSON", field: "colour" })

        // A name that is no tool is the protocol's error, as the SDK answers it.
        const unknown = yield* Effect.flip(
          Effect.tryPromise(() => writer.callTool({ name: "drop_database", arguments: {} }))
        )
        assert(unknown.error instanceof McpError)
        expect(unknown.error.code).toBe(-32602)
      })
    )

    it.scoped("a missing, malformed or revoked token is 401 as on /api/v1; a bad Origin is 403; GET is 405", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const alice = yield* Fixture.person()
        const none = yield* post(server.baseUrl, {})
        expect(none.status).toBe(401)
        expect(Http.envelope(none).code).toBe("UNAUTHENTICATED")
        const malformed = yield* post(server.baseUrl, { authorization: "Bearer sm_live_nope" })
        expect(Http.envelope(malformed).code).toBe("UNAUTHENTICATED")

        const reply = yield* alice.browser.request("/api/v1/me/api-tokens", {
          json: { name: "mcp", scopes: ["full_access"], org_id: alice.org.id }
        })
        const token = Http.expectOk(reply, CreatedApiToken, 201)
        const ping = yield* post(server.baseUrl, { authorization: `Bearer ${token.token}` })
        expect(ping.status, ping.text).toBe(200)
        expect(ping.json).toEqual({ jsonrpc: "2.0", id: 1, result: {} })
        expect((yield* alice.browser.request(`/api/v1/me/api-tokens/${token.id}`, { method: "DELETE" })).status).toBe(
          204
        )
        const revoked = yield* post(server.baseUrl, { authorization: `Bearer ${token.token}` })
        expect(revoked.status).toBe(401)
        expect(Http.envelope(revoked).code).toBe("UNAUTHENTICATED")
        // The SDK's client sees the refusal too.
        const refusedClient = yield* Effect.flip(
          Effect.tryPromise(() => {
            const client = new Client({ name: "signalman-test", version: "1.0.0" })
            return client.connect(
              new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
                requestInit: { headers: { authorization: `Bearer ${token.token}` } }
              })
            )
          })
        )
        assert(refusedClient.error instanceof StreamableHTTPError)
        expect(refusedClient.error.code).toBe(401)
        expect(refusedClient.error.message).toContain("UNAUTHENTICATED")

        // A browser page of another origin is refused before anything else; the MCP host's own origin is not.
        const foreign = yield* post(server.baseUrl, {
          authorization: `Bearer ${alice.token}`,
          origin: "http://evil.example"
        })
        expect(foreign.status).toBe(403)
        expect(Http.envelope(foreign)).toMatchObject({ code: "ORIGIN_NOT_ALLOWED", field: "Origin" })
        const own = yield* post(server.baseUrl, {
          authorization: `Bearer ${alice.token}`,
          origin: `http://${MCP_HOST}`
        })
        expect(own.status).toBe(200)

        const get = yield* Http.request(`${server.baseUrl}/mcp`, {
          headers: { authorization: `Bearer ${alice.token}` }
        })
        expect(get.status).toBe(405)
        expect(get.headers.get("allow")).toBe("POST")
        const del = yield* Http.request(`${server.baseUrl}/mcp`, { method: "DELETE" })
        expect(del.status).toBe(405)

        // A body that is not JSON-RPC is the protocol's error, answered by the SDK.
        const garbage = yield* post(server.baseUrl, { authorization: `Bearer ${alice.token}` }, { hello: "world" })
        expect(garbage.status).toBe(400)
        expect(garbage.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } })
      })
    )

    it.scoped("every /mcp request spends from the account's api_reads budget, shared with /api/v1: 429 then", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        // Alone on the pro plan, whose api_reads budget this file makes tiny.
        yield* awayFromMinuteEdge(20)
        const carol = yield* Fixture.person({ plan: "pro" })
        const statuses: Array<number> = []
        let limited: Http.Reply | undefined
        for (let i = 0; i < TINY_READS + 2; i++) {
          const reply = yield* post(server.baseUrl, { authorization: `Bearer ${carol.token}` })
          statuses.push(reply.status)
          if (reply.status === 429 && limited === undefined) limited = reply
        }
        // Signing in read /me from the same budget, so at most the rest were admitted.
        expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(TINY_READS - 1)
        expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0)
        assert.isDefined(limited)
        const error = Http.envelope(limited)
        expect(error.code).toBe("RATE_LIMITED")
        expect(error.details["scope"]).toBe("per_account_api_reads")
        const retry = Number(limited.headers.get("retry-after"))
        expect(retry).toBeGreaterThanOrEqual(1)
        expect(retry).toBeLessThanOrEqual(60)
        // The REST API's reads come from the same budget, now spent.
        expect((yield* carol.api("/api/v1/targets")).status).toBe(429)
      })
    )

    it.effect("the server card is served on the MCP host, and this host redirects its card path there", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const here = yield* Http.request(`${server.baseUrl}/.well-known/mcp/server-card.json`, { redirect: "manual" })
        expect(here.status).toBe(308)
        expect(here.headers.get("location")).toBe(`http://${MCP_HOST}/.well-known/mcp/server-card.json`)

        const served = yield* getWithHost(server.baseUrl, "/.well-known/mcp/server-card.json", MCP_HOST)
        expect(served.status).toBe(200)
        expect(served.headers["content-type"]).toContain("application/json")
        const card = Schema.decodeUnknownSync(
          Schema.Struct({
            protocolVersion: Schema.String,
            serverInfo: Schema.Struct({ name: Schema.Literal("signalman"), version: Schema.String }),
            transport: Schema.Struct({ type: Schema.Literal("streamable-http"), endpoint: Schema.Literal("/mcp") }),
            authentication: Schema.Struct({
              required: Schema.Literal(true),
              schemes: Schema.Tuple(Schema.Literal("bearer"))
            }),
            documentationUrl: Schema.String,
            capabilities: Schema.Struct({ tools: Schema.Struct({}) }),
            tools: Schema.Array(
              Schema.Struct({
                name: Schema.String,
                description: Schema.String,
                inputSchema: Schema.Struct({ type: Schema.Literal("object") }),
                _meta: Schema.Struct({ "signalman/scope": Schema.String })
              })
            )
          })
        )(JSON.parse(served.body))
        expect(card.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/)
        // The documentation is on the service's own origin (no public base URL here: localhost and the bound port).
        expect(card.documentationUrl).toBe(`http://localhost:${new URL(server.baseUrl).port}/docs/mcp`)
        expect(card.tools.map((t) => t.name)).toEqual([...READ_TOOLS, ...WRITE_TOOLS])
        // The page it names is there (the docs folder's mcp.md).
        const page = yield* Http.request(`${server.baseUrl}/docs/mcp`, { headers: { accept: "text/markdown" } })
        expect(page.status).toBe(200)
        expect(page.text).toContain("# The MCP server")
        expect(card.tools.find((t) => t.name === "pause_monitor")?._meta["signalman/scope"]).toBe("targets:write")
        expect(card.tools.find((t) => t.name === "acknowledge_incident")?._meta["signalman/scope"]).toBe(
          "incidents:execute"
        )
      })
    )
  }
)
