/**
 * The server side of probe agents end to end (docs/agent-protocol.md), driven by a small typed agent
 * (`support/AgentClient.ts`) over HTTP and the WebSocket stream: authentication and its refusals, the welcome and
 * what the operator sees, leases of a region's due checks (near their due time, ready to run, never one slot to
 * two connections, lapsing to a sibling), results taken exactly once, revocation closing the stream, the browser
 * capability of regions, and the instance's default regions.
 *
 * One server for the file; each test works in regions of its own (regions are the server's, not an account's), so
 * no test's agents can take another test's jobs. Monitors are made due by moving their schedule row by hand.
 */
import { assert, expect } from "@effect/vitest"
import { Welcome } from "@signalman/core/api/Agent"
import { Agent, CreatedAgent, OperatorRegion } from "@signalman/core/api/Operator"
import { ResultPage } from "@signalman/core/api/Results"
import { Target } from "@signalman/core/Target"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as AgentClient from "../support/AgentClient.js"
import * as CountingOrigin from "../support/CountingOrigin.js"
import { eventually } from "../support/Eventually.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import * as TestDatabase from "../support/TestDatabase.js"

const ADMIN = "operator-secret-for-agent-tests-0123456789"
const LEASE_SECS = 2
const LOOKAHEAD_MS = 500
const RECHECK_MS = 200

const Agents = Schema.Struct({ data: Schema.Array(Agent) })
const Regions = Schema.Struct({ data: Schema.Array(OperatorRegion) })

Fixture.describe(
  `probe agents: the server side (${TestDatabase.kind} database)`,
  {
    env: {
      OPERATOR__ADMIN_TOKEN: ADMIN,
      CHECKER__ALLOW_PRIVATE_TARGETS: "true",
      AGENTS__LEASE_SECS: String(LEASE_SECS),
      AGENTS__LOOKAHEAD_MS: String(LOOKAHEAD_MS),
      AGENTS__RECHECK_MS: String(RECHECK_MS),
      AGENTS__POLL_INTERVAL_MS: "100",
      // No region of that name exists until the default-regions test makes it; every other test names its regions.
      CHECKER__DEFAULT_REGIONS: "dflt",
      // The local region's browser is not what these tests are about; the machine's must not decide any of them.
      CHECKER__BROWSER_PATH: "none"
    }
  },
  (it) => {
    const operator = (path: string, init: { readonly method?: string; readonly json?: unknown } = {}) =>
      Effect.flatMap(Fixture.server, (server) =>
        Http.request(`${server.baseUrl}/operator${path}`, {
          method: init.method ?? (init.json === undefined ? "GET" : "POST"),
          headers: { authorization: `Bearer ${ADMIN}` },
          ...(init.json === undefined ? {} : { json: init.json })
        })
      )

    /** A region of the test's own (a unique id from `label`). */
    const region = (label: string) =>
      Effect.gen(function* () {
        const id = `${label}-${Math.random().toString(36).slice(2, 8)}`
        Http.expectOk(yield* operator("/regions", { json: { id, name: label } }), OperatorRegion, 201)
        return id
      })

    /** A new agent of the region, with a client for it. */
    const agentOf = (regionId: string, name = "probe") =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const created = Http.expectOk(
          yield* operator("/agents", { json: { region_id: regionId, name } }),
          CreatedAgent,
          201
        )
        return { created, client: AgentClient.make(server.baseUrl, created.token) }
      })

    const revoke = (agentId: string) =>
      Effect.map(operator(`/agents/${agentId}`, { method: "DELETE" }), (reply) => expect(reply.status).toBe(204))

    const listedAgent = (id: string) =>
      Effect.map(operator("/agents"), (reply) => Http.decode(reply, Agents).data.find((a) => a.id === id))

    /** A person who may make flows, and a create that answers the monitor's id. */
    const person = Effect.gen(function* () {
      const alice = yield* Fixture.person()
      expect(
        (yield* operator(`/accounts/${alice.accountId}/overrides`, { method: "PUT", json: { max_flow_checks: 5 } }))
          .status
      ).toBe(200)
      const create = (body: Record<string, unknown>) =>
        Effect.gen(function* () {
          const reply = yield* alice.api("/api/v1/targets", { json: { name: "m", ...body } })
          if (reply.status !== 201) return yield* Effect.dieMessage(`create failed: ${reply.status} ${reply.text}`)
          return Http.decode(reply, Target)
        })
      return { alice, create }
    })

    /** Moves the monitors' rows in `regionId` to be due `inMs` from now (all at once); answers the due text. */
    const dueIn = (regionId: string, ids: ReadonlyArray<string>, inMs = 0) =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const rows = yield* server.sql<{ due: string }>`
          UPDATE schedules SET next_run_at = date_trunc('milliseconds', now()) + make_interval(secs => ${inMs / 1000})
          WHERE region = ${regionId} AND target_id IN ${server.sql.in([...ids])}
          RETURNING next_run_at::text AS due
        `.pipe(Effect.orDie)
        expect(rows).toHaveLength(ids.length)
        return rows[0]?.due ?? ""
      })

    const storedCount = (targetId: string) =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const rows = yield* server.sql<{ n: number }>`
          SELECT count(*)::int AS n FROM check_results WHERE target_id = ${targetId}
        `.pipe(Effect.orDie)
        return rows[0]?.n ?? 0
      })

    const scheduleOf = (targetId: string, regionId: string) =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const rows = yield* server.sql<{ due: string; leased_by: string | null }>`
          SELECT next_run_at::text AS due, leased_by FROM schedules WHERE target_id = ${targetId} AND region = ${regionId}
        `.pipe(Effect.orDie)
        return rows[0]
      })

    const http = (url: string) => ({ type: "http", url })

    it.scoped(
      "hello and the stream refuse a missing, malformed, unknown or revoked token with a 401 that says which",
      () =>
        Effect.gen(function* () {
          const server = yield* Fixture.server
          const { created, client } = yield* agentOf(yield* region("auth"))
          const hello = (headers: Record<string, string>) =>
            Http.request(`${server.baseUrl}/api/agent/v1/hello`, { headers, json: AgentClient.defaultHello })
          const refused = (reply: Http.Body) => {
            expect(reply.status).toBe(401)
            const error = Http.envelope(reply)
            expect(error.code).toBe("UNAUTHENTICATED")
            return error.message
          }
          expect(refused(yield* hello({}))).toMatch(/No agent token/)
          expect(refused(yield* hello({ authorization: "Bearer sm_api_notanagenttoken" }))).toMatch(
            /not an agent token/
          )
          const unknown = `sm_agent_${"A".repeat(43)}`
          expect(refused(yield* hello({ authorization: `Bearer ${unknown}` }))).toMatch(/Unknown agent token/)
          // A token of the right prefix with one character changed is unknown too (the hash decides, not the prefix).
          const tampered = `${created.token.slice(0, -1)}${created.token.endsWith("A") ? "B" : "A"}`
          expect(refused(yield* hello({ authorization: `Bearer ${tampered}` }))).toMatch(/Unknown agent token/)

          const upgrade = yield* AgentClient.make(server.baseUrl, unknown).open
          expect("_tag" in upgrade && upgrade.status).toBe(401)
          if ("_tag" in upgrade) expect(Http.envelope(upgrade.body).code).toBe("UNAUTHENTICATED")

          expect((yield* client.hello()).status).toBe(200)
          yield* revoke(created.id)
          // Refused within agents.recheck_ms of the revocation, however recently the token was verified.
          const afterRevoke = yield* eventually(client.hello(), (reply) => reply.status === 401, { timeoutMs: 5_000 })
          expect(refused(afterRevoke)).toMatch(/revoked/)
          // Opening a stream reads the agent's standing afresh: refused at once.
          const stream = yield* client.open
          expect("_tag" in stream && stream.status).toBe(401)
          if ("_tag" in stream) expect(Http.envelope(stream.body).message).toMatch(/revoked/)
          const results = yield* eventually(client.results([]), (reply) => reply.status === 401, { timeoutMs: 5_000 })
          expect(refused(results)).toMatch(/revoked/)
        })
    )

    it.scoped("the welcome names the agent, its region and the figures; the operator sees what it reported", () =>
      Effect.gen(function* () {
        const regionId = yield* region("welcome")
        const { created, client } = yield* agentOf(regionId, "fra-1")
        expect(yield* listedAgent(created.id)).toMatchObject({ last_seen_at: null, version: null, connected: false })
        const welcome = Http.expectOk(
          yield* client.hello({ version: "1.2.3", browser: "Chromium 153.0.0", concurrency: 50 }),
          Welcome
        )
        expect(welcome).toMatchObject({
          agent_id: created.id,
          name: "fra-1",
          region: regionId,
          server_version: "0.1.0",
          lease_secs: LEASE_SECS,
          poll_ms: 100,
          lookahead_ms: LOOKAHEAD_MS
        })
        const listed = yield* listedAgent(created.id)
        expect(listed).toMatchObject({
          version: "1.2.3",
          browser: "Chromium 153.0.0",
          concurrency: 50,
          connected: false
        })
        expect(listed?.last_seen_at).not.toBeNull()

        const stream = yield* client.connect
        const connected = yield* eventually(listedAgent(created.id), (a) => a?.connected === true)
        expect(connected?.connected).toBe(true)
        yield* stream.close
        const gone = yield* eventually(listedAgent(created.id), (a) => a?.connected === false)
        expect(gone?.connected).toBe(false)
      })
    )

    it.scoped("a monitor in region eu is leased near its due time, ready to run; its result shows by region", () =>
      Effect.gen(function* () {
        const origin = yield* CountingOrigin.make
        const regionId = "eu"
        Http.expectOk(yield* operator("/regions", { json: { id: regionId, name: "Europe" } }), OperatorRegion, 201)
        const { client } = yield* agentOf(regionId)
        const { alice, create } = yield* person
        const variable = yield* alice.api("/api/v1/variables", { json: { key: "probe_token", value: "s3cret-value" } })
        expect(variable.status).toBe(201)
        const monitor = yield* create({
          check: { type: "http", url: `${origin.base}/eu`, headers: { Authorization: "Bearer {{probe_token}}" } },
          regions: [regionId]
        })
        const stream = yield* client.connect
        const due = yield* dueIn(regionId, [monitor.id], 1_500)
        const jobs = yield* stream.pullUntil((jobs) => jobs.length > 0)
        const leasedAt = Date.now()
        expect(jobs).toHaveLength(1)
        const job = jobs[0]!
        expect(job).toMatchObject({ target_id: monitor.id, org_id: alice.org.id, due, error: null })
        // Handed out within the lookahead of its due time, never earlier, and leased lease_secs past it.
        expect(job.due_ms - leasedAt).toBeLessThanOrEqual(LOOKAHEAD_MS)
        expect(job.deadline_ms - job.due_ms).toBe(LEASE_SECS * 1000)
        // The check is ready: its variable filled in on the server.
        expect(job.check).toMatchObject({ type: "http", headers: { Authorization: "Bearer s3cret-value" } })
        // Nothing else is handed out for it while the lease holds.
        expect(yield* stream.pull(10)).toEqual([])

        // The agent runs it (here: the test fetches it as the job says) and delivers.
        const url = job.check?.type === "http" ? job.check.url : ""
        const response = yield* Effect.promise(() =>
          fetch(url, { headers: job.check?.type === "http" ? { ...job.check.headers } : {} })
        )
        expect(response.status).toBe(200)
        expect(origin.authorization.get("/eu")).toBe("Bearer s3cret-value")
        const run = AgentClient.outcome("up", { durationMs: 42 })
        const result = AgentClient.ran(job, run)
        expect(yield* stream.deliver([result])).toEqual([result.id])

        const page = Http.expectOk(
          yield* alice.api(`/api/v1/targets/${monitor.id}/results?region=${regionId}`),
          ResultPage
        )
        expect(page.data).toHaveLength(1)
        expect(page.data[0]).toMatchObject({ region: regionId, status: "up", duration_ms: 42 })
        expect(DateTime.toEpochMillis(page.data[0]!.checked_at)).toBe(DateTime.toEpochMillis(run.checked_at))
        const local = Http.expectOk(yield* alice.api(`/api/v1/targets/${monitor.id}/results?region=local`), ResultPage)
        expect(local.data).toHaveLength(0)
        // The row moved on to its next slot, released.
        const after = yield* scheduleOf(monitor.id, regionId)
        expect(after?.leased_by).toBeNull()
        expect(after?.due).not.toBe(due)
      })
    )

    it.scoped("the same result delivered twice (stream, then HTTP) is stored once and acknowledged both times", () =>
      Effect.gen(function* () {
        const regionId = yield* region("twice")
        const { created, client } = yield* agentOf(regionId)
        const { create } = yield* person
        const monitor = yield* create({ check: http("https://example.com/twice"), regions: [regionId] })
        const stream = yield* client.connect
        yield* dueIn(regionId, [monitor.id])
        const [job] = yield* stream.pullUntil((jobs) => jobs.length > 0)
        const result = AgentClient.ran(job!, AgentClient.outcome("down", { error: "HTTP 503" }))
        expect(yield* stream.deliver([result, result])).toEqual([result.id])
        const again = yield* client.results([result])
        expect(Http.decode(again, Schema.Struct({ acknowledged: Schema.Array(Schema.String) })).acknowledged).toEqual([
          result.id
        ])
        // Another result for the same slot (an agent that ran it twice) is acknowledged and not stored either.
        const other = AgentClient.ran(job!, AgentClient.outcome("up"))
        expect(yield* stream.deliver([other])).toEqual([other.id])
        expect(yield* storedCount(monitor.id)).toBe(1)
        // Sent once more after the row moved on and the agent leased its next slot: acknowledged, and the lease of
        // the next slot is left alone.
        yield* dueIn(regionId, [monitor.id])
        const [next] = yield* stream.pullUntil((jobs) => jobs.length > 0)
        expect(next?.due).not.toBe(job!.due)
        expect(yield* stream.deliver([result])).toEqual([result.id])
        expect((yield* scheduleOf(monitor.id, regionId))?.leased_by).toBe(`agent:${created.id}`)
        expect(yield* storedCount(monitor.id)).toBe(1)
      })
    )

    it.scoped(
      "a pull is answered once the results sent before it are stored: a slot run while its lease lapsed is not leased again",
      () =>
        Effect.gen(function* () {
          const server = yield* Fixture.server
          const regionId = yield* region("order")
          const { client } = yield* agentOf(regionId)
          const { create } = yield* person
          const monitor = yield* create({ check: http("https://example.com/order"), regions: [regionId] })
          const stream = yield* client.connect
          yield* dueIn(regionId, [monitor.id])
          const [job] = yield* stream.pullUntil((jobs) => jobs.length > 0)
          assert(job !== undefined)
          // An outage longer than the lease: the row still waits on the slot the agent ran, and may be leased again.
          yield* server.sql`
            UPDATE schedules SET leased_until = now() - interval '1 second'
            WHERE target_id = ${monitor.id} AND region = ${regionId}
          `
          // Back, the agent sends what it buffered and pulls at once, without waiting for the ack.
          const result = AgentClient.ran(job, AgentClient.outcome("up"))
          yield* stream.send({ _tag: "results", results: [result] })
          yield* stream.send({ _tag: "pull", room: 10 })
          const answers = [yield* stream.next, yield* stream.next]
          expect(answers.map((a) => a._tag).sort()).toEqual(["ack", "jobs"])
          const leased = answers.flatMap((a) => (a._tag === "jobs" ? a.jobs : []))
          expect(leased.filter((j) => j.target_id === monitor.id && j.due === job.due)).toEqual([])
          expect(yield* storedCount(monitor.id)).toBe(1)
        })
    )

    it.scoped("two connections of one region never get the same slot, and between them they get every one", () =>
      Effect.gen(function* () {
        const regionId = yield* region("pair")
        const first = yield* agentOf(regionId, "one")
        const second = yield* agentOf(regionId, "two")
        const { create } = yield* person
        const ids: Array<string> = []
        for (let i = 0; i < 8; i++) {
          ids.push((yield* create({ check: http(`https://example.com/pair/${i}`), regions: [regionId] })).id)
        }
        const streams = [yield* first.client.connect, yield* second.client.connect]
        yield* dueIn(regionId, ids)
        const leased: Array<string> = []
        const deadline = Date.now() + AgentClient.WAIT_MS
        while (leased.length < ids.length && Date.now() < deadline) {
          const answers = yield* Effect.all(
            streams.map((s) => s.pull(3)),
            { concurrency: "unbounded" }
          )
          for (const jobs of answers) for (const job of jobs) leased.push(`${job.target_id}|${job.due}`)
        }
        expect(new Set(leased).size).toBe(leased.length)
        expect(new Set(leased.map((slot) => slot.split("|")[0])).size).toBe(ids.length)
      })
    )

    it.scoped("a lease that lapses goes to a sibling; the slot is stored once whoever delivers", () =>
      Effect.gen(function* () {
        const regionId = yield* region("lapse")
        const silent = yield* agentOf(regionId, "silent")
        const sibling = yield* agentOf(regionId, "sibling")
        const { create } = yield* person
        const monitor = yield* create({ check: http("https://example.com/lapse"), regions: [regionId] })
        const a = yield* silent.client.connect
        const b = yield* sibling.client.connect
        yield* dueIn(regionId, [monitor.id])
        const [taken] = yield* a.pullUntil((jobs) => jobs.length > 0)
        expect(yield* b.pull(10)).toEqual([])
        // The silent agent never answers; once its lease has run out the sibling gets the same slot.
        const [retaken] = yield* b.pullUntil((jobs) => jobs.length > 0, { timeoutMs: LEASE_SECS * 1000 + 10_000 })
        expect(retaken).toMatchObject({ target_id: monitor.id, due: taken!.due })
        expect(Date.now()).toBeGreaterThanOrEqual(taken!.deadline_ms)
        const stored = AgentClient.ran(retaken!, AgentClient.outcome("up"))
        expect(yield* b.deliver([stored])).toEqual([stored.id])
        const moved = yield* scheduleOf(monitor.id, regionId)
        expect(moved).toMatchObject({ leased_by: null })
        expect(moved?.due).not.toBe(taken!.due)
        // The silent agent's late result for the slot is acknowledged, not stored, and does not move the row.
        const late = AgentClient.ran(taken!, AgentClient.outcome("down", { error: "late" }))
        expect(yield* a.deliver([late])).toEqual([late.id])
        expect(yield* storedCount(monitor.id)).toBe(1)
        expect(yield* scheduleOf(monitor.id, regionId)).toEqual(moved)
      })
    )

    it.scoped(
      "a slot overdue past its lease (after an outage) is leased from the claim: no sibling takes it at once",
      () =>
        Effect.gen(function* () {
          const regionId = yield* region("late")
          const first = yield* agentOf(regionId, "first")
          const second = yield* agentOf(regionId, "second")
          const { create } = yield* person
          const monitor = yield* create({ check: http("https://example.com/late"), regions: [regionId] })
          const a = yield* first.client.connect
          const b = yield* second.client.connect
          const due = yield* dueIn(regionId, [monitor.id], -3_600_000)
          const before = Date.now()
          const [job] = yield* a.pullUntil((jobs) => jobs.length > 0)
          expect(job?.due).toBe(due)
          // Its lease runs lease_secs from the claim, not from the due time an hour ago (already over).
          expect(job!.deadline_ms).toBeGreaterThanOrEqual(before + LEASE_SECS * 1000 - 1000)
          expect(yield* b.pull(10)).toEqual([])
        })
    )

    it.scoped("a result without an outcome stores nothing and moves the slot on", () =>
      Effect.gen(function* () {
        const regionId = yield* region("skip")
        const { client } = yield* agentOf(regionId)
        const { create } = yield* person
        const monitor = yield* create({ check: http("https://example.com/skip"), regions: [regionId] })
        const stream = yield* client.connect
        const due = yield* dueIn(regionId, [monitor.id])
        const [job] = yield* stream.pullUntil((jobs) => jobs.length > 0)
        const skipped = AgentClient.ran(job!, null)
        expect(yield* stream.deliver([skipped])).toEqual([skipped.id])
        expect(yield* storedCount(monitor.id)).toBe(0)
        const after = yield* scheduleOf(monitor.id, regionId)
        expect(after?.leased_by).toBeNull()
        expect(after?.due).not.toBe(due)
        // No receipt stands in the way of a real result for that slot (a sibling that did run it); two results for
        // the slot in one batch (an agent that ran it twice) are one.
        const real = AgentClient.ran(job!, AgentClient.outcome("up"))
        const again = AgentClient.ran(job!, AgentClient.outcome("down", { error: "second run" }))
        expect(yield* stream.deliver([real, again])).toEqual([real.id, again.id])
        expect(yield* storedCount(monitor.id)).toBe(1)
      })
    )

    it.scoped("revoking an agent closes its open stream with 4401 within seconds", () =>
      Effect.gen(function* () {
        const { created, client } = yield* agentOf(yield* region("revoke"))
        const stream = yield* client.connect
        expect(yield* stream.pull(1)).toEqual([])
        const revokedAt = Date.now()
        yield* revoke(created.id)
        const closed = yield* stream.closed(5_000)
        expect(Option.getOrUndefined(closed)).toEqual({
          code: 4401,
          reason: "This agent token was revoked by the operator; mint a new one"
        })
        expect(Date.now() - revokedAt).toBeLessThan(5_000)
      })
    )

    it.scoped("a message that does not decode is answered with refused, and the stream goes on", () =>
      Effect.gen(function* () {
        const { client } = yield* agentOf(yield* region("refuse"))
        const stream = yield* client.connect
        yield* stream.sendText("{not json")
        expect(yield* stream.next).toMatchObject({ _tag: "refused", code: "INVALID_JSON" })
        yield* stream.sendText(JSON.stringify({ _tag: "pull", room: -1 }))
        expect(yield* stream.next).toMatchObject({ _tag: "refused", code: "VALIDATION_FAILED" })
        yield* stream.sendText(JSON.stringify({ _tag: "pull", room: 1001 }))
        expect(yield* stream.next).toMatchObject({ _tag: "refused", code: "VALIDATION_FAILED" })
        yield* stream.sendText(JSON.stringify({ _tag: "launch" }))
        expect(yield* stream.next).toMatchObject({ _tag: "refused", code: "VALIDATION_FAILED" })
        yield* stream.sendBinary(new Uint8Array([1, 2, 3]))
        expect(yield* stream.next).toMatchObject({ _tag: "refused", code: "INVALID_JSON" })
        expect(yield* stream.pull(1)).toEqual([])
      })
    )

    it.scoped("results for a monitor deleted meanwhile are acknowledged and dropped; absurd times are refused", () =>
      Effect.gen(function* () {
        const regionId = yield* region("gone")
        const { client } = yield* agentOf(regionId)
        const { alice, create } = yield* person
        const deleted = yield* create({ check: http("https://example.com/deleted"), regions: [regionId] })
        const kept = yield* create({ check: http("https://example.com/kept"), regions: [regionId] })
        const stream = yield* client.connect
        yield* dueIn(regionId, [deleted.id, kept.id])
        const jobs = yield* stream.pullUntil((jobs) => jobs.length === 2, { room: 2 })
        expect(jobs).toHaveLength(2)
        expect((yield* alice.api(`/api/v1/targets/${deleted.id}`, { method: "DELETE" })).status).toBe(204)
        const forDeleted = jobs.find((j) => j.target_id === deleted.id)!
        const forKept = jobs.find((j) => j.target_id === kept.id)!
        const dropped = AgentClient.ran(forDeleted, AgentClient.outcome("up"))
        // A clock an hour ahead of the server's: acknowledged (so it is not sent again) and not stored.
        const future = AgentClient.ran(
          forKept,
          AgentClient.outcome("up", { checkedAt: DateTime.add(DateTime.unsafeNow(), { hours: 1 }) })
        )
        expect(yield* stream.deliver([dropped, future])).toEqual([dropped.id, future.id])
        expect(yield* storedCount(deleted.id)).toBe(0)
        expect(yield* storedCount(kept.id)).toBe(0)
      })
    )

    it.scoped("a disabled region's agents stay connected and get no jobs until it is enabled again", () =>
      Effect.gen(function* () {
        const regionId = yield* region("off")
        const { client } = yield* agentOf(regionId)
        const { create } = yield* person
        const monitor = yield* create({ check: http("https://example.com/off"), regions: [regionId] })
        const patch = (enabled: boolean) =>
          Effect.map(operator(`/regions/${regionId}`, { method: "PATCH", json: { enabled } }), (reply) =>
            expect(reply.status).toBe(200)
          )
        // Disabled before the stream opens, which reads the region's state (later changes reach it within a recheck).
        yield* patch(false)
        const stream = yield* client.connect
        yield* dueIn(regionId, [monitor.id])
        // Several rechecks pass with the job due: nothing is handed out, and the stream stays open.
        const idle = yield* stream.pullUntil((jobs) => jobs.length > 0, { timeoutMs: RECHECK_MS * 5 })
        expect(idle).toEqual([])
        expect(Option.isNone(yield* stream.closed(1))).toBe(true)
        yield* patch(true)
        const jobs = yield* stream.pullUntil((jobs) => jobs.length > 0)
        expect(jobs.map((j) => j.target_id)).toEqual([monitor.id])
      })
    )

    it.scoped(
      "a region runs flows while an agent of it with a browser was seen lately: NO_FLOW_CAPABLE_AGENT otherwise",
      () =>
        Effect.gen(function* () {
          const server = yield* Fixture.server
          const flowy = yield* region("flowy")
          const plain = yield* region("plain")
          const withBrowser = yield* agentOf(flowy)
          const without = yield* agentOf(plain)
          expect(
            (yield* withBrowser.client.hello({ version: "1", browser: "Chromium 153.0.0", concurrency: 4 })).status
          ).toBe(200)
          expect((yield* without.client.hello({ version: "1", browser: null, concurrency: 4 })).status).toBe(200)
          const capability = Effect.map(operator("/regions"), (reply) => {
            const regions = Http.decode(reply, Regions).data
            return (id: string) => regions.find((r) => r.id === id)?.flow_capable
          })
          const capable = yield* capability
          expect([capable(flowy), capable(plain)]).toEqual([true, false])

          const { alice, create } = yield* person
          const flow = {
            type: "flow",
            start_url: "https://example.com/login",
            steps: [{ action: "assert_text", text: "Welcome" }]
          }
          const made = yield* create({ check: flow, regions: [flowy] })
          const refused = yield* alice.api("/api/v1/targets", { json: { name: "f", check: flow, regions: [plain] } })
          expect(Http.refusal(refused)).toEqual({ status: 422, code: "NO_FLOW_CAPABLE_AGENT", field: "regions" })
          const moved = yield* alice.api(`/api/v1/targets/${made.id}/regions`, {
            method: "PUT",
            json: { regions: [plain] }
          })
          expect(Http.refusal(moved)).toEqual({ status: 422, code: "NO_FLOW_CAPABLE_AGENT", field: "regions" })

          // Not seen for more than 5 minutes: no longer capable.
          yield* server.sql`
          UPDATE agents SET last_seen_at = now() - interval '6 minutes' WHERE id = ${withBrowser.created.id}
        `.pipe(Effect.orDie)
          expect((yield* capability)(flowy)).toBe(false)
          expect(
            (yield* withBrowser.client.hello({ version: "1", browser: "Chromium 153.0.0", concurrency: 4 })).status
          ).toBe(200)
          expect((yield* capability)(flowy)).toBe(true)
          // Revoked: no longer capable, and a flow there is refused.
          yield* revoke(withBrowser.created.id)
          expect((yield* capability)(flowy)).toBe(false)
          const afterRevoke = yield* alice.api("/api/v1/targets", {
            json: { name: "f", check: flow, regions: [flowy] }
          })
          expect(Http.refusal(afterRevoke).code).toBe("NO_FLOW_CAPABLE_AGENT")
          // flow_capable is computed: an operator cannot set it.
          const set = yield* operator(`/regions/${plain}`, { method: "PATCH", json: { flow_capable: true } })
          expect(Http.refusal(set)).toEqual({ status: 422, code: "INVALID_JSON", field: "flow_capable" })
        })
    )

    it.scoped(
      "a flow needs every region flow-capable; in a region with agents of both kinds only one with a browser takes flows",
      () =>
        Effect.gen(function* () {
          const mixed = yield* region("mixed")
          const plain = yield* region("bare")
          const browsing = yield* agentOf(mixed, "browsing")
          const browserless = yield* agentOf(mixed, "browserless")
          const bare = yield* agentOf(plain, "bare")
          expect(
            (yield* browsing.client.hello({ version: "1", browser: "Chromium 153.0.0", concurrency: 4 })).status
          ).toBe(200)
          expect((yield* browserless.client.hello({ version: "1", browser: null, concurrency: 4 })).status).toBe(200)
          expect((yield* bare.client.hello({ version: "1", browser: null, concurrency: 4 })).status).toBe(200)

          const { alice, create } = yield* person
          const flow = {
            type: "flow",
            start_url: "https://example.com/login",
            steps: [{ action: "assert_text", text: "Welcome" }]
          }
          // One region of the two cannot run it: refused, naming that one.
          const refused = yield* alice.api("/api/v1/targets", {
            json: { name: "f", check: flow, regions: [mixed, plain] }
          })
          expect(Http.refusal(refused)).toEqual({ status: 422, code: "NO_FLOW_CAPABLE_AGENT", field: "regions" })
          expect(refused.json).toMatchObject({ error: { details: { regions: [plain] } } })

          const made = yield* create({ check: flow, regions: [mixed] })
          const probe = yield* create({ check: http("https://example.com/mixed"), regions: [mixed] })
          const without = yield* browserless.client.connect
          const withBrowser = yield* browsing.client.connect
          yield* dueIn(mixed, [made.id, probe.id])
          // The browserless agent takes the http check and never the flow, however often it asks.
          const taken: Array<string> = []
          for (let i = 0; i < 5; i++) for (const job of yield* without.pull(10)) taken.push(job.target_id)
          expect(taken).toEqual([probe.id])
          const flows = yield* withBrowser.pullUntil((jobs) => jobs.length > 0)
          expect(flows.map((job) => [job.target_id, job.check?.type])).toEqual([[made.id, "flow"]])
        })
    )

    it.effect("a probe monitor created without regions runs in checker.default_regions; heartbeats stay local", () =>
      Effect.gen(function* () {
        const { alice, create } = yield* person
        const before = yield* alice.api("/api/v1/targets", {
          json: { name: "d", check: http("https://example.com/d") }
        })
        expect(Http.refusal(before)).toEqual({ status: 422, code: "REGION_INVALID", field: "regions" })
        expect(Http.envelope(before).message).toMatch(/checker\.default_regions/)
        Http.expectOk(yield* operator("/regions", { json: { id: "dflt", name: "Default" } }), OperatorRegion, 201)
        const made = yield* create({ check: http("https://example.com/d") })
        expect(made.regions).toEqual(["dflt"])
        const beat = yield* create({ check: { type: "heartbeat", period: 3600, grace: 300 } })
        expect(beat.regions).toEqual(["local"])
        const named = yield* create({ check: http("https://example.com/d"), regions: ["local"] })
        expect(named.regions).toEqual(["local"])
      })
    )
  }
)
