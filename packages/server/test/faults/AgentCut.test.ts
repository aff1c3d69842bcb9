/**
 * Fault: an agent's network cut mid-stream (issue 20; docs/faults.md, "An agent's network cut mid-stream").
 *
 * The server runs as its own process; a real agent process (the run's bundle) reaches it only through a loopback
 * TCP proxy (`TcpProxy`), which the test cuts while the agent streams results: every open connection is dropped
 * and new ones are refused, as when the agent's network goes away. The agent's region has 30 monitors on a 3 s
 * interval, on a loopback origin that records each run (`ProbeOrigin`), with a lookahead as long as the interval,
 * so each monitor's next slot is always leased to the agent and comes due during the cut. The cut lasts 10 s
 * (well inside the lease, so no slot may go to anyone else), then the proxy accepts connections again.
 *
 * A second case stalls the path instead (the proxy stops forwarding bytes and keeps the connections open: a
 * network that black-holes traffic rather than refusing it): nothing tells the agent, its results go out and get
 * no ack, the server drops the silent socket after 6 rechecks (and the proxy the agent's side with it), and every
 * result not acknowledged is sent again once the path is back: a batch the server stored whose ack was held in the
 * stalled path comes twice and must be stored once.
 *
 * The test asserts that the agent kept running its leased checks while cut (results into its buffer), retried the
 * service, reconnected once the proxy was back and delivered its buffer once: every run the origin saw has exactly
 * one stored result (`/results`) and one receipt (`agent_receipts`: one per stored result), none doubled, each with
 * its original `checked_at` (when the run ended, inside the cut for those made then) though received after it.
 *
 * No time scaling: the intervals and the cut are seconds long so that the test takes about a minute.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { PgClient } from "@effect/sql-pg"
import { describe, expect, it } from "@effect/vitest"
import { CreatedAgent, OperatorRegion } from "@signalman/core/api/Operator"
import { ResultPage } from "@signalman/core/api/Results"
import { TargetBatch } from "@signalman/core/api/Targets"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as AgentProcess from "../support/AgentProcess.js"
import { eventually } from "../support/Eventually.js"
import * as Http from "../support/Http.js"
import { signIn, uniqueEmail } from "../support/Identity.js"
import * as ProbeOrigin from "../support/ProbeOrigin.js"
import * as ServerProcess from "../support/ServerProcess.js"
import * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TcpProxy from "../support/TcpProxy.js"
import * as TestDatabase from "../support/TestDatabase.js"

const ADMIN = "operator-secret-for-agent-cut-tests-0123456789"
const MONITORS = 30
const INTERVAL_SECS = 3
const BEFORE_CUT_MS = 6_000
const CUT_MS = 10_000
const LEASE_SECS = 60

interface Receipt {
  readonly target_id: string
  readonly due_ms: number
  readonly received_ms: number
}

/** How the path is broken: `cut` drops the connections and refuses new ones; `stall` forwards nothing. */
type Fault = "cut" | "stall"

const scenario = (fault: Fault) =>
  Effect.gen(function* () {
    const smtp = yield* SmtpCatcher.make
    const db = yield* TestDatabase.acquire
    const origin = yield* ProbeOrigin.make
    const server = yield* ServerProcess.start([], {
      ...db.env,
      LOG__LEVEL: "info",
      MAIL__SMTP_URL: smtp.url,
      AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0",
      OPERATOR__ADMIN_TOKEN: ADMIN,
      CHECKER__ALLOW_PRIVATE_TARGETS: "true",
      CHECKER__BROWSER_PATH: "none",
      AGENTS__POLL_INTERVAL_MS: "100",
      AGENTS__RECHECK_MS: "1000",
      AGENTS__LEASE_SECS: String(LEASE_SECS),
      // Each monitor's next slot is always leased: those that come due during the cut run on the agent.
      AGENTS__LOOKAHEAD_MS: String(INTERVAL_SECS * 1000)
    })
    const serverPort = Number(new URL(server.baseUrl).port)
    const proxy = yield* TcpProxy.make("127.0.0.1", serverPort)
    const sql = yield* PgClient.make({
      url: Redacted.make(db.url ?? TestDatabase.adminUrl),
      maxConnections: 2
    }).pipe(Effect.provide(Reactivity.layer))
    const email = uniqueEmail("cut")
    const person = yield* signIn(server, smtp, email)
    yield* sql`UPDATE accounts SET plan_id = 'pro' WHERE id = (SELECT account_id FROM users WHERE email = ${email})`

    const operator = (path: string, json: unknown) =>
      Http.request(`${server.baseUrl}/operator${path}`, { headers: { authorization: `Bearer ${ADMIN}` }, json })
    const regionId = `cut-${Math.random().toString(36).slice(2, 8)}`
    Http.expectOk(yield* operator("/regions", { id: regionId, name: "cut" }), OperatorRegion, 201)
    const created = Http.expectOk(
      yield* operator("/agents", { region_id: regionId, name: "cut-agent" }),
      CreatedAgent,
      201
    )
    const agent = yield* AgentProcess.start({
      AGENT__PER_HOST_MAX_INFLIGHT: "1000",
      AGENT__BROWSER_PATH: "none",
      AGENT__ALLOW_PRIVATE_TARGETS: "true",
      // Retries capped at a second, so the end of the cut is seen at once.
      AGENT__RECONNECT_MAX_MS: "1000",
      SIGNALMAN_URL: `http://127.0.0.1:${proxy.port}`,
      SIGNALMAN_AGENT_TOKEN: created.token
    })
    yield* AgentProcess.waitForLog(agent, "Connected")

    const paths = Array.from({ length: MONITORS }, (_, i) => `/m/cut-${i}`)
    const made = Http.expectOk(
      yield* person.browser.request("/api/v1/targets/bulk", {
        json: {
          targets: paths.map((path) => ({
            name: path,
            enabled: false,
            check: { type: "http", url: `${origin.base}${path}`, timeout: 10 },
            regions: [regionId]
          }))
        }
      }),
      TargetBatch,
      201
    )
    const monitors = made.data.map((target, i) => ({ id: target.id, path: paths[i] ?? "" }))
    const ids = monitors.map((m) => m.id)
    // An interval far below the API's floor, by hand.
    yield* sql`UPDATE targets SET interval_secs = ${INTERVAL_SECS}, enabled = true WHERE id IN ${sql.in(ids)}`

    // Streaming: results flow for a while, then the cut comes while they do.
    yield* Effect.sleep(`${BEFORE_CUT_MS} millis`)
    const before = origin.arrivals.length
    expect(before, "runs before the cut").toBeGreaterThanOrEqual(MONITORS)
    if (fault === "cut") yield* Effect.promise(() => proxy.cut())
    else proxy.pause()
    const cutAt = Date.now()
    // Cut: the agent runs the slots it holds as they come due, keeps the results and retries the service.
    const retries = () =>
      AgentProcess.lines(agent, "Cannot reach the service; retrying").filter((l) => Date.parse(l.time) >= cutAt)
    yield* Effect.sleep(`${CUT_MS} millis`)
    const ranWhileCut = origin.arrivals.filter((a) => a.at > cutAt).length
    const retried = retries().length
    if (fault === "cut") yield* Effect.promise(() => proxy.restore())
    else proxy.resume()
    const restoredAt = Date.now()
    expect(agent.child.exitCode, agent.stderr()).toBeNull()
    // Each monitor's leased slot ran during the cut (one each: its next is leased only once that one's result
    // is stored).
    expect(ranWhileCut, "runs during the cut").toBeGreaterThanOrEqual(MONITORS * 0.8)
    if (fault === "cut") {
      // Refused: it retries, then says hello again once the path is back, and delivers its buffer.
      expect(retried, "retries during the cut").toBeGreaterThanOrEqual(2)
      const connected = yield* eventually(
        Effect.sync(() => AgentProcess.lines(agent, "Connected").length),
        (n) => n >= 2,
        { timeoutMs: 15_000 }
      )
      expect(connected, agent.stdout()).toBe(2)
    } else {
      // Stalled: the server dropped the silent stream meanwhile; the agent is back on a new one.
      const connected = yield* eventually(
        Effect.sync(() => AgentProcess.lines(agent, "Connected").length),
        (n) => n >= 2,
        { timeoutMs: 20_000 }
      )
      expect(connected, agent.stdout()).toBeGreaterThanOrEqual(2)
    }
    // Let the stream run a while after the reconnect, then stop the monitors.
    yield* Effect.sleep(`${INTERVAL_SECS * 1000} millis`)
    yield* sql`UPDATE targets SET enabled = false WHERE id IN ${sql.in(ids)}`
    const disabledAt = Date.now()

    const stored = (id: string) =>
      Effect.map(person.browser.request(`/api/v1/targets/${id}/results?region=${regionId}&limit=500`), (reply) =>
        Http.expectOk(reply, ResultPage)
          .data.map((r) => DateTime.toEpochMillis(r.checked_at))
          .sort((a, b) => a - b)
      )
    const storedAll = Effect.map(
      Effect.forEach(monitors, (m) => Effect.map(stored(m.id), (times) => [m.path, times] as const), {
        concurrency: 8
      }),
      (entries) => new Map(entries)
    )
    // The jobs leased before the disable still run and are delivered; then every run has its result.
    const results = yield* eventually(
      storedAll,
      (r) =>
        Date.now() > disabledAt + INTERVAL_SECS * 1000 + 1000 &&
        origin.open().length === 0 &&
        monitors.every((m) => r.get(m.path)?.length === origin.of(m.path).length),
      { timeoutMs: 30_000, intervalMs: 500 }
    )
    const receipts = yield* sql<Receipt>`
          SELECT target_id::text AS target_id,
            round(extract(epoch FROM due) * 1000)::float8 AS due_ms,
            round(extract(epoch FROM received_at) * 1000)::float8 AS received_ms
          FROM agent_receipts WHERE region = ${regionId} ORDER BY due
        `
    const receiptsOf = new Map<string, Array<Receipt>>()
    for (const r of receipts) {
      const row = { ...r, due_ms: Number(r.due_ms), received_ms: Number(r.received_ms) }
      receiptsOf.set(row.target_id, [...(receiptsOf.get(row.target_id) ?? []), row])
    }

    let keptThroughCut = 0
    for (const m of monitors) {
      const runs = origin.of(m.path)
      const times = results.get(m.path) ?? []
      const slots = receiptsOf.get(m.id) ?? []
      expect(runs.every((a) => a.region === regionId && a.answeredAt !== undefined)).toBe(true)
      // Once: one stored result and one receipt (one slot) per run, no slot twice.
      expect(times, m.path).toHaveLength(runs.length)
      expect(slots, m.path).toHaveLength(runs.length)
      expect(new Set(slots.map((s) => s.due_ms)).size, m.path).toBe(runs.length)
      runs.forEach((run, i) => {
        // Its original time: when the run ended, right after the origin saw it, however late it was delivered.
        const checkedAt = times[i] ?? 0
        expect(checkedAt - run.at, `${m.path} run ${i}`).toBeGreaterThanOrEqual(-5)
        expect(checkedAt - run.at, `${m.path} run ${i}`).toBeLessThan(2000)
        // Runs made while cut: stamped inside the cut, received after it.
        if (run.at > cutAt + 100 && run.at < restoredAt - 2000) {
          expect(checkedAt, `${m.path} run ${i}`).toBeLessThan(restoredAt)
          const receipt = slots[i]
          expect(receipt?.received_ms ?? 0, `${m.path} run ${i}`).toBeGreaterThanOrEqual(restoredAt - 50)
          keptThroughCut++
        }
      })
    }
    expect(keptThroughCut, "results buffered through the cut").toBeGreaterThanOrEqual(MONITORS * 0.5)
  })

describe("an agent's network cut mid-stream", () => {
  it.scopedLive(
    "cut (connections dropped, new ones refused): the agent runs its leased checks into its buffer, reconnects, and each result is stored once with its time",
    () => scenario("cut"),
    180_000
  )
  it.scopedLive(
    "stalled (nothing forwarded, connections kept): results on the wire go out again once it is back, and each is stored once with its time",
    () => scenario("stall"),
    180_000
  )
})
