/**
 * One-off checks in remote regions end to end (decisions.md, "On-call", last bullet; docs/agent-protocol.md,
 * "One-off checks"): `POST /targets/test` with a `region` runs on a connected agent of it and answers its outcome,
 * check-now runs in every region of a monitor and stores each result once, and every refusal and bound: an unknown,
 * disabled or agentless region, a flow where no connected agent has a browser, an agent that never answers.
 * A small typed agent (`support/AgentClient.ts`) plays the agents.
 *
 * One api-only server for the file (no worker: no scheduled run adds results the tests count); each test works in
 * regions of its own. `agents.one_off_poll_ms` is long (2 s), so a test answered well within it shows that a request
 * and a stream on the same process wake each other rather than wait for a poll; the two tests that write or answer
 * a run in the database behind the process's back show the polls, as another API process would meet them.
 */
import { expect } from "@effect/vitest"
import type { OneOffJob } from "@signalman/core/api/Agent"
import { Agent, CreatedAgent, OperatorRegion } from "@signalman/core/api/Operator"
import { ResultPage } from "@signalman/core/api/Results"
import { CheckResult } from "@signalman/core/CheckResult"
import { Target } from "@signalman/core/Target"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as AgentClient from "../support/AgentClient.js"
import * as CountingOrigin from "../support/CountingOrigin.js"
import { eventually } from "../support/Eventually.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import * as TestDatabase from "../support/TestDatabase.js"

const ADMIN = "operator-secret-for-one-off-tests-012345"
const GRACE_MS = 1000
const POLL_MS = 2000

Fixture.describe(
  `one-off checks in remote regions (${TestDatabase.kind} database)`,
  {
    env: {
      ROLE: "api",
      OPERATOR__ADMIN_TOKEN: ADMIN,
      CHECKER__ALLOW_PRIVATE_TARGETS: "true",
      CHECKER__BROWSER_PATH: "none",
      AGENTS__RECHECK_MS: "200",
      AGENTS__ONE_OFF_GRACE_MS: String(GRACE_MS),
      AGENTS__ONE_OFF_POLL_MS: String(POLL_MS)
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

    /** An agent of the region that said hello (with a browser or not) and holds its stream open. */
    const connected = (regionId: string, browser: string | null = null) =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const created = Http.expectOk(
          yield* operator("/agents", { json: { region_id: regionId, name: "probe" } }),
          CreatedAgent,
          201
        )
        const client = AgentClient.make(server.baseUrl, created.token)
        expect((yield* client.hello({ version: "0.2.0", browser, concurrency: 4 })).status).toBe(200)
        const stream = yield* client.connect
        // The socket opens before the server has stamped the agent as streaming: a request made in between would
        // find no agent connected. Wait for the operator's view, as a person would see it.
        const agents = yield* eventually(
          Effect.map(
            operator("/agents"),
            (reply) => Http.decode(reply, Schema.Struct({ data: Schema.Array(Agent) })).data
          ),
          (list) => list.some((agent) => agent.id === created.id && agent.connected)
        )
        expect(agents.find((agent) => agent.id === created.id)?.connected).toBe(true)
        return { created, stream }
      })

    const http = (url: string, extra: Record<string, unknown> = {}) => ({ type: "http", url, ...extra })

    /** Runs `effect` in the background: a request the test answers as the agent meanwhile. */
    const inBackground = <A>(effect: Effect.Effect<A>) =>
      Effect.map(Effect.fork(effect), (fiber) => ({ done: Fiber.join(fiber) }))

    const stored = (targetId: string) =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        return yield* server.sql<{ region: string; status: string; weight_secs: number }>`
          SELECT region, status, weight_secs FROM check_results WHERE target_id = ${targetId} ORDER BY region
        `.pipe(Effect.orDie)
      })

    const runsLeft = Effect.gen(function* () {
      const server = yield* Fixture.server
      const rows = yield* server.sql<{ n: number }>`SELECT count(*)::int AS n FROM one_off_runs`.pipe(Effect.orDie)
      return rows[0]?.n ?? 0
    })

    it.scoped(
      "a test with a region runs on its agent, with the secret filled in and sealed at rest, and answers its outcome",
      () =>
        Effect.gen(function* () {
          const server = yield* Fixture.server
          const eu = yield* region("eu")
          const agent = yield* connected(eu)
          const alice = yield* Fixture.person()
          const secret = "s3cret-token-for-the-agent-only"
          expect(
            (yield* alice.api("/api/v1/variables", { json: { key: "api_token", value: secret, is_secret: true } }))
              .status
          ).toBe(201)

          const started = Date.now()
          const check = http("https://example.com/health", { headers: { authorization: "Bearer {{api_token}}" } })
          const asked = yield* inBackground(alice.api("/api/v1/targets/test", { json: { check, region: eu } }))
          const [job] = yield* agent.stream.nextOneOff
          // Pushed at once on this process's stream: no poll (2 s) was waited for.
          expect(Date.now() - started).toBeLessThan(POLL_MS)
          expect(job?.org_id).toBe(alice.org.id)
          expect(job?.check).toMatchObject({ type: "http", headers: { authorization: `Bearer ${secret}` } })
          // The agent must start it within the grace, not once the check's own timeout (10 s) could have passed.
          expect(job!.deadline_ms).toBeGreaterThan(started)
          expect(job!.deadline_ms).toBeLessThan(started + 5_000)
          // While the run waits, its ready check is sealed in the database, never in plain text.
          const rows = yield* server.sql<{ check_sealed: string | null; requested_by: string; region: string }>`
            SELECT check_sealed, requested_by, region FROM one_off_runs WHERE id = ${job!.id}
          `.pipe(Effect.orDie)
          expect(rows).toHaveLength(1)
          expect(rows[0]?.check_sealed).toMatch(/^v1\./)
          expect(rows[0]?.check_sealed).not.toContain(secret)
          expect(rows[0]).toMatchObject({ requested_by: alice.userId, region: eu })

          const checkedAt = DateTime.unsafeMake(Date.now() - 5)
          const ack = yield* agent.stream.answer([
            AgentClient.answered(job!, {
              ...AgentClient.outcome("degraded", { checkedAt, durationMs: 321 }),
              details: { status_code: 200 }
            })
          ])
          expect(ack).toEqual([job!.id])
          const reply = yield* asked.done
          // The request heard the answer at once too (its own poll is 2 s).
          expect(Date.now() - started).toBeLessThan(POLL_MS)
          const result = Http.expectOk(reply, CheckResult)
          expect(result).toMatchObject({
            status: "degraded",
            duration_ms: 321,
            region: eu,
            details: { status_code: 200 }
          })
          expect(DateTime.toEpochMillis(result.checked_at)).toBe(DateTime.toEpochMillis(checkedAt))
          // A test stores nothing, and its run is gone once answered.
          const kept = yield* server.sql<{ n: number }>`
            SELECT count(*)::int AS n FROM check_results WHERE region = ${eu}
          `.pipe(Effect.orDie)
          expect(kept[0]?.n).toBe(0)
          expect(yield* runsLeft).toBe(0)
        })
    )

    it.scoped("without a region a test runs here, in local, and no agent is asked", () =>
      Effect.gen(function* () {
        const eu = yield* region("eu")
        const agent = yield* connected(eu)
        const origin = yield* CountingOrigin.make
        const alice = yield* Fixture.person()
        const reply = yield* alice.api("/api/v1/targets/test", { json: { check: http(`${origin.base}/here`) } })
        expect(Http.expectOk(reply, CheckResult)).toMatchObject({ status: "up", region: "local" })
        expect(origin.count("/here")).toBe(1)
        const named = yield* alice.api("/api/v1/targets/test", {
          json: { check: http(`${origin.base}/here`), region: "local" }
        })
        expect(Http.expectOk(named, CheckResult).region).toBe("local")
        expect(Option.isNone(yield* agent.stream.oneOffWithin(100))).toBe(true)
      })
    )

    it.scoped("an unknown, disabled or agentless region is 422 REGION_INVALID on region, and nothing is asked", () =>
      Effect.gen(function* () {
        const alice = yield* Fixture.person()
        const test = (where: string) =>
          alice.api("/api/v1/targets/test", { json: { check: http("https://example.com/"), region: where } })
        const invalid = { status: 422, code: "REGION_INVALID", field: "region" }
        expect(Http.refusal(yield* test("nowhere"))).toEqual(invalid)

        const empty = yield* region("empty")
        expect(Http.refusal(yield* test(empty))).toEqual(invalid)
        expect(Http.envelope(yield* test(empty)).message).toMatch(/no agent connected/)
        // An agent that said hello but holds no stream is not connected either.
        const created = Http.expectOk(
          yield* operator("/agents", { json: { region_id: empty, name: "idle" } }),
          CreatedAgent,
          201
        )
        const server = yield* Fixture.server
        expect((yield* AgentClient.make(server.baseUrl, created.token).hello()).status).toBe(200)
        expect(Http.refusal(yield* test(empty))).toEqual(invalid)

        const off = yield* region("off")
        const agent = yield* connected(off)
        expect((yield* operator(`/regions/${off}`, { method: "PATCH", json: { enabled: false } })).status).toBe(200)
        expect(Http.refusal(yield* test(off))).toEqual(invalid)
        expect(Http.envelope(yield* test(off)).message).toMatch(/disabled/)
        expect(Option.isNone(yield* agent.stream.oneOffWithin(100))).toBe(true)
        expect(yield* runsLeft).toBe(0)
      })
    )

    it.scoped(
      "a flow goes only to a connected agent with a browser: none in the region is 422 NO_FLOW_CAPABLE_AGENT",
      () =>
        Effect.gen(function* () {
          const alice = yield* Fixture.person()
          expect(
            (yield* operator(`/accounts/${alice.accountId}/overrides`, { method: "PUT", json: { max_flow_checks: 5 } }))
              .status
          ).toBe(200)
          const plain = yield* region("plain")
          const browserless = yield* connected(plain)
          const flow = {
            type: "flow",
            start_url: "https://example.com/login",
            steps: [{ action: "assert_text", text: "Welcome" }],
            // The request waits this (plus the grace) for its agent: long enough for a loaded machine, and the test
            // answers at once, so it costs nothing when all is well.
            timeout: 10
          }
          const test = () => alice.api("/api/v1/targets/test", { json: { check: flow, region: plain } })
          expect(Http.refusal(yield* test())).toEqual({ status: 422, code: "NO_FLOW_CAPABLE_AGENT", field: "region" })

          // An agent with a browser joins the region: the flow goes to it, never to its browserless sibling.
          const browsing = yield* connected(plain, "Chromium 153.0.0")
          const asked = yield* inBackground(test())
          const [job] = yield* browsing.stream.nextOneOff
          expect(job?.check.type).toBe("flow")
          yield* browsing.stream.answer([
            AgentClient.answered(job!, AgentClient.outcome("down", { error: "assert_text: Welcome not found" }))
          ])
          expect(Http.expectOk(yield* asked.done, CheckResult)).toMatchObject({ status: "down", region: plain })
          expect(Option.isNone(yield* browserless.stream.oneOffWithin(100))).toBe(true)
        })
    )

    it.scoped("an agent that never answers: 503 NOT_READY once the check's timeout and the grace have passed", () =>
      Effect.gen(function* () {
        const silent = yield* region("silent")
        const agent = yield* connected(silent)
        const alice = yield* Fixture.person()
        const started = Date.now()
        const asked = yield* inBackground(
          alice.api("/api/v1/targets/test", {
            json: { check: http("https://example.com/slow", { timeout: 1 }), region: silent }
          })
        )
        const [job] = yield* agent.stream.nextOneOff
        const reply = yield* asked.done
        const waited = Date.now() - started
        expect(Http.refusal(reply)).toEqual({ status: 503, code: "NOT_READY", field: "region" })
        expect(Http.envelope(reply).details).toMatchObject({ region: silent })
        // Bounded by the check's 1 s timeout plus the 1 s grace, and not answered before.
        expect(waited).toBeGreaterThanOrEqual(1000 + GRACE_MS - 50)
        expect(waited).toBeLessThan(1000 + GRACE_MS + 3000)
        // An answer after the request gave up is acknowledged and taken nowhere.
        expect(yield* agent.stream.answer([AgentClient.answered(job!, AgentClient.outcome("up"))])).toEqual([job!.id])
        expect(yield* runsLeft).toBe(0)
      })
    )

    it.scoped("check-now on [local, eu] stores one result per region and answers local's; on [eu, local], eu's", () =>
      Effect.gen(function* () {
        const eu = yield* region("eu")
        const agent = yield* connected(eu)
        const origin = yield* CountingOrigin.make
        const alice = yield* Fixture.person()
        const made = yield* alice.api("/api/v1/targets", {
          json: { name: "both", check: http(`${origin.base}/both`), regions: ["local", eu] }
        })
        const target = Http.expectOk(made, Target, 201)
        const checkNow = () => alice.api(`/api/v1/targets/${target.id}/check-now`, { method: "POST" })

        const answer = (job: OneOffJob | undefined, status: "up" | "down") =>
          agent.stream.answer([AgentClient.answered(job!, AgentClient.outcome(status, { error: status }))])

        const first = yield* inBackground(checkNow())
        const [job] = yield* agent.stream.nextOneOff
        expect(job?.check).toMatchObject({ type: "http", url: `${origin.base}/both` })
        // Answered twice (a lost ack, say): acknowledged both times, stored once.
        expect(yield* answer(job, "down")).toEqual([job!.id])
        expect(yield* answer(job, "down")).toEqual([job!.id])
        expect(Http.expectOk(yield* first.done, CheckResult)).toMatchObject({ status: "up", region: "local" })
        expect(origin.count("/both")).toBe(1)
        // Ordered by region: eu-... before local.
        expect(yield* stored(target.id)).toEqual([
          { region: eu, status: "down", weight_secs: 0 },
          { region: "local", status: "up", weight_secs: 0 }
        ])
        // The results read back by region, as check-now results.
        const page = Http.expectOk(yield* alice.api(`/api/v1/targets/${target.id}/results?region=${eu}`), ResultPage)
        expect(page.data.map((r) => [r.region, r.status])).toEqual([[eu, "down"]])

        const moved = yield* alice.api(`/api/v1/targets/${target.id}/regions`, {
          method: "PUT",
          json: { regions: [eu, "local"] }
        })
        expect(moved.status).toBe(200)
        const second = yield* inBackground(checkNow())
        const [again] = yield* agent.stream.nextOneOff
        // The same answer sent twice in one batch counts once too.
        const twice = AgentClient.answered(again!, AgentClient.outcome("down", { error: "503 from eu" }))
        expect(yield* agent.stream.answer([twice, twice])).toEqual([again!.id, again!.id])
        expect(Http.expectOk(yield* second.done, CheckResult)).toMatchObject({
          status: "down",
          error: "503 from eu",
          region: eu
        })
        const all = yield* stored(target.id)
        expect(all.filter((r) => r.region === eu)).toHaveLength(2)
        expect(all.filter((r) => r.region === "local")).toHaveLength(2)
        expect(yield* runsLeft).toBe(0)
      })
    )

    it.scoped(
      "check-now: the first region without an agent is 422 on regions; another one is left out, and its silence does not fail the answer",
      () =>
        Effect.gen(function* () {
          const eu = yield* region("eu")
          const origin = yield* CountingOrigin.make
          const alice = yield* Fixture.person()
          const create = (regions: ReadonlyArray<string>, extra: Record<string, unknown> = {}) =>
            Effect.map(
              alice.api("/api/v1/targets", {
                json: { name: "m", check: http(`${origin.base}/m`, extra), regions }
              }),
              (reply) => Http.expectOk(reply, Target, 201)
            )
          const checkNow = (id: string) => alice.api(`/api/v1/targets/${id}/check-now`, { method: "POST" })
          const euFirst = yield* create([eu, "local"])
          expect(Http.refusal(yield* checkNow(euFirst.id))).toEqual({
            status: 422,
            code: "REGION_INVALID",
            field: "regions"
          })
          expect(origin.count("/m")).toBe(0)
          expect(yield* stored(euFirst.id)).toEqual([])

          const localFirst = yield* create(["local", eu])
          expect(Http.expectOk(yield* checkNow(localFirst.id), CheckResult).region).toBe("local")
          expect((yield* stored(localFirst.id)).map((r) => r.region)).toEqual(["local"])

          // With an agent that never answers, the answer is still local's, after eu's run ran out.
          const agent = yield* connected(eu)
          const slow = yield* create(["local", eu], { timeout: 1 })
          const asked = yield* inBackground(checkNow(slow.id))
          yield* agent.stream.nextOneOff
          expect(Http.expectOk(yield* asked.done, CheckResult).region).toBe("local")
          expect((yield* stored(slow.id)).map((r) => r.region)).toEqual(["local"])
        })
    )

    it.scoped("runs asked or answered by another process are found by the polls of streams and requests", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const far = yield* region("far")
        const agent = yield* connected(far)
        const alice = yield* Fixture.person()
        const asked = yield* inBackground(
          alice.api("/api/v1/targets/test", { json: { check: http("https://example.com/far"), region: far } })
        )
        const [job] = yield* agent.stream.nextOneOff

        // Two runs written behind this process's back, as another API process would write them (its requests
        // share the sealing key): this process hears no wake-up, and its streams' poll finds them. One carries a
        // check sealed as the server seals; the other's cannot be opened, and is closed so its request stops waiting.
        const copied = crypto.randomUUID()
        const unreadable = crypto.randomUUID()
        yield* server.sql`
          INSERT INTO one_off_runs (id, region, kind, org_id, requested_by, check_sealed, start_by, deadline)
          SELECT ${copied}, region, kind, org_id, requested_by, check_sealed, now() + interval '5 seconds',
            now() + interval '10 seconds'
          FROM one_off_runs WHERE id = ${job!.id}
        `.pipe(Effect.orDie)
        yield* server.sql`
          INSERT INTO one_off_runs (id, region, kind, org_id, requested_by, check_sealed, start_by, deadline)
          VALUES (${unreadable}, ${far}, 'http', ${alice.org.id}, ${alice.userId}, 'v1.not.sealed.here',
            now() + interval '5 seconds', now() + interval '10 seconds')
        `.pipe(Effect.orDie)
        const [polled, ...more] = yield* agent.stream.nextOneOff
        expect(more).toEqual([])
        expect(polled?.id).toBe(copied)
        expect(polled?.check).toEqual(job?.check)
        const closed = yield* server.sql<{ answered: boolean }>`
          SELECT answered_at IS NOT NULL AS answered FROM one_off_runs WHERE id = ${unreadable}
        `.pipe(Effect.orDie)
        expect(closed).toEqual([{ answered: true }])
        // The agent's answer to the copied run is recorded like any.
        yield* agent.stream.answer([AgentClient.answered(polled!, AgentClient.outcome("up"))])
        const recorded = yield* server.sql<{ answered: boolean }>`
          SELECT answered_at IS NOT NULL AS answered FROM one_off_runs WHERE id = ${copied}
        `.pipe(Effect.orDie)
        expect(recorded).toEqual([{ answered: true }])
        yield* server.sql`DELETE FROM one_off_runs WHERE id IN (${copied}, ${unreadable})`.pipe(Effect.orDie)

        // The first run's answer is taken by another process: the request, hearing nothing, reads it at its poll.
        const result = new CheckResult({
          status: "up",
          duration_ms: 7,
          error: null,
          details: null,
          phases: null,
          checked_at: DateTime.unsafeNow(),
          region: far
        })
        const answered = yield* server.sql`
          UPDATE one_off_runs SET answered_at = now(), result = ${JSON.stringify(Schema.encodeSync(CheckResult)(result))}::jsonb
          WHERE id = ${job!.id} AND answered_at IS NULL RETURNING id
        `.pipe(Effect.orDie)
        expect(answered).toHaveLength(1)
        expect(Http.expectOk(yield* asked.done, CheckResult)).toMatchObject({
          status: "up",
          duration_ms: 7,
          region: far
        })
        // The agent's own answer, late, is acknowledged and changes nothing.
        expect(yield* agent.stream.answer([AgentClient.answered(job!, AgentClient.outcome("down"))])).toEqual([job!.id])
        expect(yield* runsLeft).toBe(0)
      })
    )
  }
)
