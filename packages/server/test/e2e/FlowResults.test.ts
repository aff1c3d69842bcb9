/**
 * The server side of flow results: a failed flow's screenshot stored beside its result and served at
 * `details.screenshot_url` until it is pruned, and `/flow-steps`, the per-step series read from the results' details.
 *
 * No flow runs here (the browser probe and the agents are other parts of the work): results are written through
 * the server's own `ResultStore`, on the server's database client, exactly as the scheduler and the agents' ingest
 * write them, so the stored rows, the evidence and its `screenshot_url` are the store's own doing.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { expect } from "@effect/vitest"
import { FlowSteps, ResultPage } from "@signalman/core/api/Results"
import { CheckResult, type CheckStatus } from "@signalman/core/CheckResult"
import { Target } from "@signalman/core/Target"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { EvidenceRepo } from "../../src/engine/EvidenceRepo.js"
import { ResultObservers } from "../../src/engine/ResultObservers.js"
import { type Pending, ResultStore } from "../../src/engine/ResultStore.js"
import { pruneEvidence } from "../../src/engine/Upkeep.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import { bearer, mintToken } from "../support/Identity.js"
import * as TestDatabase from "../support/TestDatabase.js"

// A 1x1 PNG.
const PNG = Uint8Array.from(
  Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "base64"
  )
)

const MINUTE = 60_000
const HOUR = 60 * MINUTE

type StepStatus = "passed" | "failed" | "skipped"

/** One seeded flow run: when, where, its verdict and its steps as `[action, status, duration_ms]`. */
interface Run {
  readonly at: number
  readonly region: string
  readonly status: CheckStatus
  readonly steps: ReadonlyArray<readonly [string, StepStatus, number]>
  readonly screenshot?: Uint8Array
  /** Details of another shape, to see that a read leaves them out. */
  readonly details?: Record<string, unknown>
}

const flowCheck = {
  type: "flow",
  start_url: "https://example.com/login",
  steps: [
    { action: "goto", url: "https://example.com/login" },
    { action: "click", selector: "#sign-in" },
    { action: "assert_text", text: "Welcome" }
  ]
}

// The server's own result store on the server's database client; the incident writer is not told (no observer),
// which these tests do not need.
const storeOn = (sql: SqlClient.SqlClient) =>
  Layer.mergeAll(ResultStore.Default, EvidenceRepo.Default).pipe(
    Layer.provide(Layer.succeed(ResultObservers, { observe: () => Effect.void })),
    Layer.provide(Layer.succeed(SqlClient.SqlClient, sql))
  )

const setup = Effect.gen(function* () {
  const server = yield* Fixture.server
  const alice = yield* Fixture.person({ label: "alice" })
  const store = storeOn(server.sql)
  const create = (body: Record<string, unknown>) =>
    Effect.gen(function* () {
      const reply = yield* alice.browser.request("/api/v1/targets", { json: body })
      if (reply.status !== 201) return yield* Effect.dieMessage(`create failed: ${reply.status} ${reply.text}`)
      return Http.decode(reply, Target).id
    })
  const flow = () => create({ name: "Sign-in", check: flowCheck, regions: ["eu-flow", "us-flow"] })
  const seed = (targetId: string, runs: ReadonlyArray<Run>) =>
    Effect.gen(function* () {
      const batch = runs.map(
        (run): Pending => ({
          targetId,
          orgId: alice.org.id,
          kind: "flow",
          source: "scheduled",
          blocked: false,
          weightSecs: 300,
          result: new CheckResult({
            status: run.status,
            duration_ms: run.steps.reduce((sum, [, , ms]) => sum + ms, 0),
            error: run.status === "up" ? null : "step 1 (click): no element matches #sign-in",
            details: run.details ?? {
              steps: run.steps.map(([action, status, duration_ms], index) => ({
                index,
                action,
                status,
                duration_ms,
                error: status === "failed" ? "no element matches #sign-in" : null
              })),
              final_url: "https://example.com/login"
            },
            phases: null,
            checked_at: DateTime.unsafeMake(run.at),
            region: run.region
          }),
          evidence: run.screenshot === undefined ? undefined : { screenshot_png: run.screenshot }
        })
      )
      yield* Effect.flatMap(ResultStore, (s) => s.write(batch)).pipe(Effect.provide(store))
    })
  const results = (targetId: string) =>
    Effect.map(alice.api(`/api/v1/targets/${targetId}/results?limit=100`), (reply) => Http.decode(reply, ResultPage))
  return { server, alice, store, create, flow, seed, results }
})

/** A GET with a bearer token, the body kept as bytes. */
const getBytes = (baseUrl: string, token: string, path: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } })
    return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) }
  })

const envelopeOf = (bytes: Uint8Array, status: number) =>
  Http.envelope(Http.body(status, Buffer.from(bytes).toString("utf8")))

Fixture.describe(
  `flow results (${TestDatabase.kind} database)`,
  {
    // No worker: nothing here is scheduled, and the pruning sweep is run by the tests themselves.
    env: { ROLE: "api" },
    sql: [
      // Flows are off on the free plan (max_flow_checks 0); two regions per monitor.
      "UPDATE plans SET max_flow_checks = 5, max_regions = 5",
      // Flow-capable for the next five minutes (a browser seen now), which outlasts the file.
      "INSERT INTO regions (id, name, browser_seen_at) VALUES ('eu-flow', 'EU flows', now()), ('us-flow', 'US flows', now())"
    ]
  },
  (it) => {
    it.effect(
      "a failed flow's screenshot is stored with its result, served as image/png to its org only, and 404 once pruned",
      () =>
        Effect.gen(function* () {
          const { server, alice, flow, seed, results } = yield* setup
          const id = yield* flow()
          const at = Date.now() - 10 * MINUTE
          yield* seed(id, [
            {
              at,
              region: "eu-flow",
              status: "down",
              steps: [
                ["goto", "passed", 120],
                ["click", "failed", 900],
                ["assert_text", "skipped", 0]
              ],
              screenshot: PNG
            },
            {
              at: at + MINUTE,
              region: "eu-flow",
              status: "up",
              steps: [
                ["goto", "passed", 100],
                ["click", "passed", 80],
                ["assert_text", "passed", 20]
              ]
            }
          ])
          const page = yield* results(id)
          expect(page.total).toBe(2)
          const [passed, failed] = page.data
          // Only the result that kept a screenshot names one; its other details are as the probe wrote them.
          expect(passed!.details?.["screenshot_url"]).toBeUndefined()
          const url = failed!.details?.["screenshot_url"]
          expect(typeof url).toBe("string")
          expect(url).toMatch(new RegExp(`^/api/v1/targets/${id}/results/[0-9a-f-]{36}/screenshot$`))
          expect(failed!.details?.["final_url"]).toBe("https://example.com/login")
          const evidenceId = String(url).split("/")[6]!

          // Stored in the result's transaction, kept for the plan's evidence_days (7 on the free plan) from the result.
          const [row] = yield* server.sql<{ target_id: string; region: string; kept_ms: number }>`
            SELECT target_id::text, region, (extract(epoch FROM expires_at - checked_at) * 1000)::float8 AS kept_ms
            FROM result_evidence WHERE id = ${evidenceId}
          `
          expect(row).toEqual({ target_id: id, region: "eu-flow", kept_ms: 7 * 24 * HOUR })

          const shot = yield* getBytes(server.baseUrl, alice.token, String(url))
          expect(shot.status).toBe(200)
          expect(shot.headers.get("content-type")).toBe("image/png")
          expect(shot.bytes).toEqual(PNG)
          const cache = shot.headers.get("cache-control") ?? ""
          expect(cache).toMatch(/^private, max-age=\d+, immutable$/)
          // A browser keeps it no longer than the server does.
          const maxAge = Number(/max-age=(\d+)/.exec(cache)?.[1])
          expect(maxAge).toBeGreaterThan(7 * 24 * 3600 - 15 * 60)
          expect(maxAge).toBeLessThanOrEqual(7 * 24 * 3600 - 10 * 60)
          expect(shot.headers.get("x-content-type-options")).toBe("nosniff")
          expect(shot.headers.get("content-disposition")).toBe(`inline; filename="${evidenceId}.png"`)
          // The session sees it too.
          const bySession = yield* alice.browser.request(String(url))
          expect(bySession.status).toBe(200)
          expect(bySession.headers.get("content-type")).toBe("image/png")

          // Another org's caller, an id of no screenshot, and the id under another of the org's monitors: 404.
          const bob = yield* Fixture.person({ label: "bob" })
          const foreign = yield* getBytes(server.baseUrl, bob.token, String(url))
          expect(foreign.status).toBe(404)
          expect(envelopeOf(foreign.bytes, foreign.status).code).toBe("NOT_FOUND")
          const unknown = yield* getBytes(
            server.baseUrl,
            alice.token,
            `/api/v1/targets/${id}/results/${crypto.randomUUID()}/screenshot`
          )
          expect(unknown.status).toBe(404)
          const other = yield* flow()
          const elsewhere = yield* getBytes(
            server.baseUrl,
            alice.token,
            `/api/v1/targets/${other}/results/${evidenceId}/screenshot`
          )
          expect(elsewhere.status).toBe(404)
          const notAnId = yield* getBytes(server.baseUrl, alice.token, `/api/v1/targets/${id}/results/nope/screenshot`)
          expect(notAnId.status).toBe(400)

          // Scope targets:read, as the other results routes: a token without it is refused, one with it served.
          const { token: incidentsOnly } = yield* mintToken(alice, { scopes: ["incidents:read"], org_id: alice.org.id })
          const refused = yield* getBytes(server.baseUrl, incidentsOnly, String(url))
          expect(refused.status).toBe(403)
          expect(envelopeOf(refused.bytes, refused.status).code).toBe("INSUFFICIENT_SCOPE")
          const { token: reader } = yield* mintToken(alice, { scopes: ["targets:read"], org_id: alice.org.id })
          expect((yield* getBytes(server.baseUrl, reader, String(url))).status).toBe(200)

          // Past its expiry it is 404 at once; the upkeep's sweep then deletes it, and those of deleted monitors, and
          // keeps the rest.
          yield* seed(other, [
            { at, region: "us-flow", status: "down", steps: [["goto", "failed", 3000]], screenshot: PNG }
          ])
          const gone = yield* flow()
          yield* seed(gone, [
            { at, region: "eu-flow", status: "down", steps: [["goto", "failed", 10]], screenshot: PNG }
          ])
          expect((yield* alice.browser.request(`/api/v1/targets/${gone}`, { method: "DELETE" })).status).toBe(204)
          yield* server.sql`UPDATE result_evidence SET expires_at = now() - interval '1 second' WHERE id = ${evidenceId}`
          expect((yield* getBytes(server.baseUrl, alice.token, String(url))).status).toBe(404)
          const count = (target: string) =>
            Effect.map(
              server.sql<{ n: number }>`SELECT count(*)::int AS n FROM result_evidence WHERE target_id = ${target}`,
              (rows) => rows[0]?.n
            )
          expect([yield* count(id), yield* count(other), yield* count(gone)]).toEqual([1, 1, 1])
          const pruned = yield* pruneEvidence.pipe(
            Effect.provide(EvidenceRepo.Default),
            Effect.provideService(SqlClient.SqlClient, server.sql)
          )
          expect(pruned).toBe(2)
          expect([yield* count(id), yield* count(other), yield* count(gone)]).toEqual([0, 1, 0])
          const after = yield* getBytes(server.baseUrl, alice.token, String(url))
          expect(after.status).toBe(404)
          expect(envelopeOf(after.bytes, after.status).code).toBe("NOT_FOUND")
          // The result itself stays, still naming the screenshot that is gone.
          expect((yield* results(id)).total).toBe(2)
        })
    )

    it.effect("flow-steps: per-step runs, failures, mean and p95 per bucket, by region, over a checked range", () =>
      Effect.gen(function* () {
        const { alice, create, flow, seed } = yield* setup
        const id = yield* flow()
        // Two 5-minute buckets, A and B, a couple of hours back.
        const a = Math.floor((Date.now() - 2 * HOUR) / (5 * MINUTE)) * 5 * MINUTE
        const b = a + 5 * MINUTE
        yield* seed(id, [
          {
            at: a + 10_000,
            region: "eu-flow",
            status: "up",
            steps: [
              ["goto", "passed", 100],
              ["click", "passed", 200],
              ["assert_text", "passed", 300]
            ]
          },
          {
            at: a + 70_000,
            region: "eu-flow",
            status: "up",
            steps: [
              ["goto", "passed", 200],
              ["click", "passed", 400],
              ["assert_text", "passed", 500]
            ]
          },
          // A failed step counts with its duration; the skipped one after it is no sample.
          {
            at: a + 130_000,
            region: "eu-flow",
            status: "down",
            steps: [
              ["goto", "passed", 300],
              ["click", "failed", 1000],
              ["assert_text", "skipped", 0]
            ]
          },
          {
            at: a + 20_000,
            region: "us-flow",
            status: "up",
            steps: [
              ["goto", "passed", 1000],
              ["click", "passed", 1000],
              ["assert_text", "passed", 1000]
            ]
          },
          {
            at: b + 10_000,
            region: "eu-flow",
            status: "up",
            steps: [
              ["goto", "passed", 400],
              ["click", "passed", 100],
              ["assert_text", "passed", 50]
            ]
          },
          // A run that could not judge (error) measured nothing; details of another shape are left out.
          { at: a + 30_000, region: "eu-flow", status: "error", steps: [["goto", "failed", 5]] },
          { at: a + 40_000, region: "eu-flow", status: "up", steps: [], details: { steps: "not a list" } },
          {
            at: a + 50_000,
            region: "eu-flow",
            status: "up",
            steps: [],
            details: {
              steps: [
                { index: "x", action: "goto", status: "passed", duration_ms: 1 },
                { index: 0, action: 7, status: "passed", duration_ms: 1 }
              ]
            }
          }
        ])
        const range = `from=${new Date(a - 12 * HOUR).toISOString()}&to=${new Date(a + 12 * HOUR).toISOString()}`
        const read = (query: string) =>
          Effect.map(alice.api(`/api/v1/targets/${id}/flow-steps?${query}`), (reply) => {
            expect(reply.status).toBe(200)
            return Http.wire(reply, FlowSteps)
          })
        const at = (ms: number) => new Date(ms).toISOString()

        const all = yield* read(range)
        expect(all).toMatchObject({ from: at(a - 12 * HOUR), to: at(a + 12 * HOUR), region: null, bucket_secs: 300 })
        expect(all.steps.map((s) => [s.index, s.action])).toEqual([
          [0, "goto"],
          [1, "click"],
          [2, "assert_text"]
        ])
        const [goto, click, assert] = all.steps
        // p95 interpolates between the two nearest durations (percentile_cont).
        expect(goto!.series).toEqual([
          { at: at(a), count: 4, failures: 0, mean_ms: 400, p95_ms: expect.closeTo(895, 6) },
          { at: at(b), count: 1, failures: 0, mean_ms: 400, p95_ms: 400 }
        ])
        expect(click!.series).toEqual([
          { at: at(a), count: 4, failures: 1, mean_ms: 650, p95_ms: 1000 },
          { at: at(b), count: 1, failures: 0, mean_ms: 100, p95_ms: 100 }
        ])
        expect(assert!.series).toEqual([
          { at: at(a), count: 3, failures: 0, mean_ms: 600, p95_ms: expect.closeTo(950, 6) },
          { at: at(b), count: 1, failures: 0, mean_ms: 50, p95_ms: 50 }
        ])

        const eu = yield* read(`${range}&region=eu-flow`)
        expect(eu.region).toBe("eu-flow")
        expect(eu.steps.map((s) => s.series[0])).toEqual([
          { at: at(a), count: 3, failures: 0, mean_ms: 200, p95_ms: expect.closeTo(290, 6) },
          { at: at(a), count: 3, failures: 1, mean_ms: expect.closeTo(1600 / 3, 6), p95_ms: expect.closeTo(940, 6) },
          { at: at(a), count: 2, failures: 0, mean_ms: 400, p95_ms: expect.closeTo(490, 6) }
        ])
        const us = yield* read(`${range}&region=us-flow`)
        expect(us.steps.map((s) => s.series)).toEqual(
          [0, 1, 2].map(() => [{ at: at(a), count: 1, failures: 0, mean_ms: 1000, p95_ms: 1000 }])
        )
        expect((yield* read(`${range}&region=elsewhere`)).steps).toEqual([])

        // The default range is the last 24 hours, in the same buckets.
        const recent = yield* read("")
        expect(recent.bucket_secs).toBe(300)
        expect(recent.steps.map((s) => s.series.length)).toEqual([2, 2, 2])
        // A longer range has wider buckets.
        const week = yield* read(`from=${at(a - 6 * 24 * HOUR)}&to=${at(a + 12 * HOUR)}`)
        expect(week.bucket_secs).toBe(900)

        // The range rules of the other reads.
        const backwards = yield* alice.api(`/api/v1/targets/${id}/flow-steps?from=${at(b)}&to=${at(a)}`)
        expect(backwards.status).toBe(400)
        expect(Http.envelope(backwards)).toMatchObject({ code: "VALIDATION_FAILED", field: "from" })
        expect((yield* alice.api(`/api/v1/targets/${id}/flow-steps?from=yesterday`)).status).toBe(400)

        // Another kind of monitor has no steps.
        const site = yield* create({ name: "Site", check: { type: "http", url: "https://example.com/" } })
        const none = yield* alice.api(`/api/v1/targets/${site}/flow-steps`)
        expect(none.status).toBe(200)
        expect(Http.wire(none, FlowSteps)).toMatchObject({ region: null, bucket_secs: 300, steps: [] })

        // Another org's monitor is 404; a token without targets:read is refused.
        const bob = yield* Fixture.person({ label: "bob" })
        const foreign = yield* bob.api(`/api/v1/targets/${id}/flow-steps`)
        expect(foreign.status).toBe(404)
        expect(Http.envelope(foreign).code).toBe("NOT_FOUND")
        const { token } = yield* mintToken(alice, { scopes: ["incidents:read"], org_id: alice.org.id })
        const refused = yield* bearer(yield* Fixture.server, token, `/api/v1/targets/${id}/flow-steps`)
        expect(refused.status).toBe(403)
        expect(Http.envelope(refused).code).toBe("INSUFFICIENT_SCOPE")
      })
    )
  }
)
