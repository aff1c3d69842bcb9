/**
 * The split deployment of `examples/split-deployment` under load (issue 20): the example started with its real
 * launcher on a fresh database (PostgreSQL: two api processes behind the example's balancer, two workers, two probe
 * agents registered through the operator surface), then driven only through the balancer, as users, agents and
 * heartbeat jobs reach a real deployment:
 *
 * 1. many people at once sign in (magic links, mail caught here), create monitors, read and ping heartbeats: every
 *    request is answered, none with a 5xx; both apis answered a fair share (each api's own `/metrics`); the
 *    address each person signed in from is the one the balancer forwarded (`X-Forwarded-For` believed from the
 *    trusted balancer, never the balancer's own address); every ping acknowledged is stored.
 * 2. those monitors, given a short interval (a hand edit: the API's floor is minutes), run every slot exactly once:
 *    the `local` ones across the two workers (each ran some, and their counters add up to the results stored), the
 *    agent region's ones on the two agents (one receipt per slot).
 * 3. one api sent SIGTERM in the middle of a load: it drains and the balancer routes around it; no request fails
 *    but those in flight at the signal (none, when the drain works), and the agents whose streams it held are back.
 * 4. the example's `stop` stops every process it started, each on SIGTERM, and removes its pid file.
 *
 * The monitored service is a loopback origin the test runs (`ProbeOrigin`, recording each request's path, time and
 * `X-Signalman-Region`).
 */
import { createHmac } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import type * as SqlClient from "@effect/sql/SqlClient"
import { PgClient } from "@effect/sql-pg"
import { expect, layer } from "@effect/vitest"
import { Agent } from "@signalman/core/api/Operator"
import { TargetBatch } from "@signalman/core/api/Targets"
import { HeartbeatRecord } from "@signalman/core/heartbeat/HeartbeatRecord"
import { Me } from "@signalman/core/Identity"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Browser from "../support/Browser.js"
import { eventually } from "../support/Eventually.js"
import * as Http from "../support/Http.js"
import { uniqueEmail } from "../support/Identity.js"
import * as ProbeOrigin from "../support/ProbeOrigin.js"
import * as Prometheus from "../support/Prometheus.js"
import * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TestDatabase from "../support/TestDatabase.js"
import * as SplitExample from "./support/SplitExample.js"

/** People signing in and working at once, and what each does. */
const CLIENTS = 16
const ROUNDS = 12
/** Heartbeat pings per person: within a token's burst (10), so none is refused 429. */
const PINGS = 8
/** The monitors' interval once edited, and how long they run. */
const INTERVAL_SECS = 4
const WINDOW_MS = 14_000
/** The load around the SIGTERM: how many people, when the signal goes, how long the load goes on after the exit. */
const KILL_CLIENTS = 8
const KILL_AFTER_MS = 4_000
const AFTER_EXIT_MS = 4_000
const KILL_PHASE_CAP_MS = 60_000
const KILL_PHASE_MAX_REQUESTS = 5_000

/**
 * What each phase measured, written to `test-artifacts/split-deployment.json` (git-ignored) after each test, for the
 * figures docs/deployment.md quotes: counts, the split between processes, latencies through the balancer.
 */
const figures: Record<string, unknown> = {}
const artifact = path.resolve(SplitExample.exampleDir, "../../test-artifacts/split-deployment.json")
const keepFigures = (phase: string, values: Record<string, unknown>) => {
  figures[phase] = values
  fs.mkdirSync(path.dirname(artifact), { recursive: true })
  fs.writeFileSync(artifact, `${JSON.stringify({ ...figures, load_average: os.loadavg() }, null, 2)}\n`)
}

/** The q-quantile (0..1) of some durations, in ms. */
const quantile = (values: ReadonlyArray<number>, q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
}

interface Outcome {
  readonly phase: "load" | "kill"
  readonly what: string
  readonly startedAt: number
  readonly endedAt: number
  /** The status answered, or null when no answer came (the connection failed). */
  readonly status: number | null
  readonly expected: number
  readonly error: string | null
}

const failed = (o: Outcome) => o.status !== o.expected

interface Person {
  readonly index: number
  readonly email: string
  /** The address this person's requests claim to come from (the X-Forwarded-For they send the balancer). */
  readonly forwardedFor: string
  readonly browser: Browser.Browser
  readonly local: ReadonlyArray<string>
  readonly remote: string
  readonly heartbeat: string
}

interface World {
  readonly example: SplitExample.SplitExample
  readonly smtp: SmtpCatcher.SmtpCatcher
  readonly origin: ProbeOrigin.ProbeOrigin
  readonly sql: SqlClient.SqlClient
  readonly outcomes: Array<Outcome>
  readonly people: Array<Person>
}

class Split extends Context.Tag("test/SplitDeployment")<Split, World>() {}

const world = Layer.scoped(
  Split,
  Effect.gen(function* () {
    const smtp = yield* SmtpCatcher.make
    const origin = yield* ProbeOrigin.make
    const db = yield* TestDatabase.acquire
    const url = db.url ?? TestDatabase.adminUrl
    const example = yield* SplitExample.start(url, {
      MAIL__SMTP_URL: smtp.url,
      // Many sign-ins at once, each to its own address: no wait between mails is needed, and none is tested here.
      AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0",
      // The monitored origin is on loopback, and every monitor is on it.
      CHECKER__ALLOW_PRIVATE_TARGETS: "true",
      AGENT__ALLOW_PRIVATE_TARGETS: "true",
      CHECKER__PER_HOST_MAX_INFLIGHT: "1000",
      AGENT__PER_HOST_MAX_INFLIGHT: "1000",
      // Four server processes on a PostgreSQL other test files share: 20 connections, not 40.
      DATABASE__MAX_CONNECTIONS: "5",
      // An agent whose stream's api went away is back within a second.
      AGENT__RECONNECT_MAX_MS: "1000"
    })
    const sql = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 2 }).pipe(
      Effect.provide(Reactivity.layer)
    )
    return { example, smtp, origin, sql, outcomes: [], people: [] }
  })
)

/** Runs a request and records how it went; answers the reply, or none when no answer came. */
const timed = (
  w: World,
  phase: Outcome["phase"],
  what: string,
  expected: number,
  call: Effect.Effect<Http.Reply>
): Effect.Effect<Http.Reply | undefined> =>
  Effect.gen(function* () {
    const startedAt = Date.now()
    const exit = yield* Effect.exit(call)
    const endedAt = Date.now()
    const reply = Exit.isSuccess(exit) ? exit.value : undefined
    w.outcomes.push({
      phase,
      what,
      startedAt,
      endedAt,
      expected,
      status: reply?.status ?? null,
      error: Exit.isFailure(exit) ? Cause.pretty(exit.cause).slice(0, 300) : null
    })
    return reply
  })

/** A request whose answer the next step needs: anything but `expected` fails the person's run. */
const must = (w: World, what: string, expected: number, call: Effect.Effect<Http.Reply>) =>
  Effect.flatMap(timed(w, "load", what, expected, call), (reply) =>
    reply?.status === expected
      ? Effect.succeed(reply)
      : Effect.fail(new Error(`${what}: expected ${expected}, got ${reply?.status ?? "no answer"}: ${reply?.text}`))
  )

/** Signs in through the balancer by magic link, claiming `forwardedFor` as the address in front of it. */
const signIn = (w: World, browser: Browser.Browser, email: string, forwardedFor: string) =>
  Effect.gen(function* () {
    const headers = { "x-forwarded-for": forwardedFor }
    const before = w.smtp.mails().filter((m) => m.to === email).length
    yield* must(
      w,
      "POST /auth/magic-link/request",
      200,
      browser.request("/auth/magic-link/request", { json: { email }, headers })
    )
    const mails = yield* Effect.promise(() => w.smtp.waitFor(email, before + 1))
    const mail = mails[before]
    if (mail === undefined) return yield* Effect.fail(new Error(`no sign-in mail for ${email}`))
    const link = new URL(SmtpCatcher.magicLinkOf(mail).link)
    // The link is built on the balancer's URL (auth.public_base_url), where people reach the service.
    expect(link.origin).toBe(new URL(w.example.state.balancer_url).origin)
    yield* must(w, "GET /auth/magic-link/verify", 303, browser.request(`${link.pathname}${link.search}`, { headers }))
  })

/** One person: signs in, makes monitors (two local, one in the agents' region, a heartbeat), reads and pings. */
const person = (w: World, index: number) =>
  Effect.gen(function* () {
    const email = uniqueEmail(`split-${index}`)
    const forwardedFor = `198.51.100.${index + 1}`
    const browser = Browser.make(w.example.state.balancer_url)
    yield* signIn(w, browser, email, forwardedFor)
    const http = (name: string, regions?: ReadonlyArray<string>) => ({
      name,
      enabled: false,
      interval: 300,
      check: { type: "http", url: `${w.origin.base}/m/${name}`, timeout: 10 },
      ...(regions === undefined ? {} : { regions })
    })
    const created = Http.decode(
      yield* must(
        w,
        "POST /api/v1/targets/bulk",
        201,
        browser.request("/api/v1/targets/bulk", {
          json: {
            targets: [
              http(`local-${index}-a`),
              http(`local-${index}-b`),
              http(`remote-${index}`, [w.example.state.region]),
              { name: `beat-${index}`, check: { type: "heartbeat", period: 3600, grace: 300 } }
            ]
          }
        })
      ),
      TargetBatch
    ).data.map((t) => t.id)
    const [a, b, remote, heartbeat] = created
    if (a === undefined || b === undefined || remote === undefined || heartbeat === undefined) {
      return yield* Effect.fail(new Error(`bulk create made ${created.length} monitors`))
    }
    const record = Http.decode(
      yield* must(w, "GET heartbeat", 200, browser.request(`/api/v1/targets/${heartbeat}/heartbeat`)),
      HeartbeatRecord
    )
    const ping = new URL(record.ping_url)
    expect(ping.origin).toBe(new URL(w.example.state.balancer_url).origin)
    const ids = [a, b, remote]
    for (let round = 0; round < ROUNDS; round++) {
      yield* must(w, "GET /api/v1/targets", 200, browser.request("/api/v1/targets?limit=20"))
      yield* must(w, "GET /api/v1/targets/:id", 200, browser.request(`/api/v1/targets/${ids[round % ids.length]}`))
      Http.decode(yield* must(w, "GET /api/v1/me", 200, browser.request("/api/v1/me")), Me)
      if (round < PINGS) yield* must(w, "GET /ping/:token", 200, browser.request(ping.pathname))
    }
    const made: Person = { index, email, forwardedFor, browser, local: [a, b], remote, heartbeat }
    w.people.push(made)
  })

/** Each process's `/metrics`, with the run's metrics token. */
const scrape = (w: World, name: string) =>
  Effect.gen(function* () {
    const url = w.example.process(name).url
    const reply = yield* Http.request(`${url}/metrics`, {
      headers: { authorization: `Bearer ${w.example.secrets.metrics_token}` }
    })
    expect(reply.status, `${name} /metrics`).toBe(200)
    return Prometheus.parseText(reply.text)
  })

const sumOf = (
  families: ReadonlyArray<Prometheus.Family>,
  name: string,
  keep: (labels: Readonly<Record<string, string>>) => boolean
) =>
  Prometheus.family(families, name)
    .metrics.filter((m) => keep(m.labels ?? {}))
    .reduce((sum, m) => sum + Number(m.value ?? "0"), 0)

/** Requests an api answered through its router, leaving out the balancer's health checks and the scrapes. */
const served = (families: ReadonlyArray<Prometheus.Family>) =>
  sumOf(families, "signalman_http_requests_total", (l) => l["route"] !== "/readyz" && l["route"] !== "/metrics")

const operator = (w: World, path: string) =>
  Http.request(`${w.example.state.balancer_url}/operator${path}`, {
    headers: { authorization: `Bearer ${w.example.secrets.admin_token}` }
  })

const Agents = Schema.Struct({ data: Schema.Array(Agent) })

/** The example balancer's `GET /__balancer` (examples/split-deployment/src/Balancer.ts). */
const BalancerView = Schema.Struct({
  draining: Schema.Boolean,
  upstreams: Schema.Array(
    Schema.Struct({
      address: Schema.String,
      healthy: Schema.Boolean,
      served: Schema.Int,
      refused: Schema.Int,
      cut: Schema.Int
    })
  )
})

layer(world, { excludeTestServices: true, timeout: 400_000 })("the split deployment example (PostgreSQL)", (it) => {
  it.effect(
    "many people through the balancer: every request answered without a 5xx, both apis serving, the client's address forwarded, every ping stored",
    () =>
      Effect.gen(function* () {
        const w = yield* Split
        // Everything the launcher promised is there: four server processes, the balancer, two agents.
        expect(w.example.state.processes.map((p) => `${p.name}:${p.role}`).sort()).toEqual(
          [
            "api-1:api",
            "api-2:api",
            "balancer:balancer",
            "split-agent-1:agent",
            "split-agent-2:agent",
            "worker-1:worker",
            "worker-2:worker"
          ].sort()
        )
        for (const p of w.example.state.processes) expect(SplitExample.alive(p.pid), p.name).toBe(true)
        const connected = (list: ReadonlyArray<Agent>) =>
          list.filter((a) => a.region_id === w.example.state.region && a.connected)
        const agents = yield* eventually(
          Effect.map(operator(w, "/agents"), (reply) => Http.expectOk(reply, Agents).data),
          (list) => connected(list).length === 2,
          { timeoutMs: 20_000, intervalMs: 250 }
        )
        expect(connected(agents)).toHaveLength(2)

        const before = {
          api1: served(yield* scrape(w, "api-1")),
          api2: served(yield* scrape(w, "api-2"))
        }
        yield* Effect.forEach(
          Array.from({ length: CLIENTS }, (_, i) => i),
          (i) => person(w, i),
          { concurrency: CLIENTS }
        )
        const load = w.outcomes.filter((o) => o.phase === "load")
        expect(load.filter(failed)).toEqual([])
        expect(load.length).toBeGreaterThanOrEqual(CLIENTS * (4 + 3 * ROUNDS + PINGS))

        // Both apis answered a fair share (round robin: about half each), counted by each api itself. Pings are
        // answered by the listener before the router and are not in this series.
        const viaRouter = load.filter((o) => o.what !== "GET /ping/:token").length
        const api1 = served(yield* scrape(w, "api-1")) - before.api1
        const api2 = served(yield* scrape(w, "api-2")) - before.api2
        expect(api1 + api2).toBeGreaterThanOrEqual(viaRouter)
        expect(api1).toBeGreaterThan(viaRouter / 4)
        expect(api2).toBeGreaterThan(viaRouter / 4)
        const latencies = load.map((o) => o.endedAt - o.startedAt)
        keepFigures("load", {
          clients: CLIENTS,
          requests: load.length,
          seconds: (Math.max(...load.map((o) => o.endedAt)) - Math.min(...load.map((o) => o.startedAt))) / 1000,
          served_by_router: { "api-1": api1, "api-2": api2 },
          latency_ms: { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), max: Math.max(...latencies) }
        })

        // The balancer appended the address it saw (127.0.0.1, a trusted proxy itself here) to what the client
        // sent; the api walked the header from the right past trusted hops and recorded the client's address.
        for (const p of w.people) {
          const rows = yield* w.sql<{ ip_hash: string | null }>`
            SELECT a.ip_hash FROM auth_attempts a JOIN users u ON u.id = a.user_id
            WHERE u.email = ${p.email} AND a.success AND a.method = 'magic_link'
          `
          const expected = createHmac("sha256", w.example.secrets.fingerprint_salt)
            .update(p.forwardedFor)
            .digest("base64url")
          expect(
            rows.map((r) => r.ip_hash),
            p.email
          ).toEqual([expected])
        }

        // Every ping acknowledged is stored once (routine pings are written within a second of their answer).
        const beats = w.people.map((p) => p.heartbeat)
        const pings = yield* eventually(
          w.sql<{ n: number }>`SELECT count(*)::int AS n FROM heartbeat_pings WHERE target_id IN ${w.sql.in(beats)}`,
          (rows) => rows[0]?.n === CLIENTS * PINGS,
          { timeoutMs: 15_000 }
        )
        expect(pings[0]?.n).toBe(CLIENTS * PINGS)
      }),
    200_000
  )

  it.effect(
    "the monitors made run every slot once: local ones across both workers, the agent region's on the agents",
    () =>
      Effect.gen(function* () {
        const w = yield* Split
        const region = w.example.state.region
        const local = w.people.flatMap((p) => p.local)
        const remote = w.people.map((p) => p.remote)
        const all = [...local, ...remote]
        expect(local).toHaveLength(CLIENTS * 2)
        const pathOf = new Map(
          w.people.flatMap((p) => [
            [p.local[0] ?? "", `/m/local-${p.index}-a`],
            [p.local[1] ?? "", `/m/local-${p.index}-b`],
            [p.remote, `/m/remote-${p.index}`]
          ])
        )
        const workersBefore = [
          sumOf(yield* scrape(w, "worker-1"), "signalman_checks_total", (l) => l["kind"] === "http"),
          sumOf(yield* scrape(w, "worker-2"), "signalman_checks_total", (l) => l["kind"] === "http")
        ]
        expect(workersBefore).toEqual([0, 0])

        yield* w.sql`UPDATE targets SET interval_secs = ${INTERVAL_SECS}, enabled = true WHERE id IN ${w.sql.in(all)}`
        // Real time must pass for the slots to come due.
        yield* Effect.sleep(`${WINDOW_MS} millis`)
        yield* w.sql`UPDATE targets SET enabled = false WHERE id IN ${w.sql.in(all)}`
        const disabledAt = Date.now()

        const stored = w.sql<{ target_id: string; region: string; n: number; slots: number }>`
          SELECT target_id::text AS target_id, region, count(*)::int AS n, count(DISTINCT checked_at)::int AS slots
          FROM check_results WHERE target_id IN ${w.sql.in(all)} GROUP BY target_id, region
        `
        const countOf = (rows: ReadonlyArray<{ target_id: string; region: string; n: number }>, id: string) =>
          rows.filter((r) => r.target_id === id).reduce((sum, r) => sum + r.n, 0)
        // What was claimed or leased ahead before the disable (a second for workers, two for agents) still runs;
        // then every run the origin saw has its result.
        const rows = yield* eventually(
          stored,
          (rows) =>
            Date.now() > disabledAt + 4_000 &&
            all.every((id) => countOf(rows, id) === w.origin.of(pathOf.get(id) ?? "").length),
          { timeoutMs: 40_000, intervalMs: 500 }
        )
        const phases = new Map(
          (yield* w.sql<{ id: string; phase: number }>`
            SELECT id::text AS id, engine_phase_ms(id, ${INTERVAL_SECS})::float8 AS phase
            FROM targets WHERE id IN ${w.sql.in(all)}
          `).map((r) => [r.id, Number(r.phase)])
        )
        const intervalMs = INTERVAL_SECS * 1000
        let localRuns = 0
        for (const id of all) {
          const path = pathOf.get(id) ?? ""
          const runs = w.origin.of(path)
          const isRemote = remote.includes(id)
          if (!isRemote) localRuns += runs.length
          // Each run happened on its own slot of the monitor's grid (never before the slot's due time, and well
          // within the interval after it), so two runs in one slot would share a slot number.
          const phase = phases.get(id) ?? 0
          const slots = runs.map((r) => Math.floor((r.at - phase) / intervalMs))
          expect(new Set(slots).size, path).toBe(runs.length)
          expect(runs.length, path).toBeGreaterThanOrEqual(WINDOW_MS / intervalMs - 1)
          // Runs from the right place: every probe names its region in X-Signalman-Region.
          for (const r of runs) expect(r.region, path).toBe(isRemote ? region : "local")
          // One stored result per run, each its own instant, in the region that ran it.
          const mine = rows.filter((r) => r.target_id === id)
          expect(
            mine.map((r) => r.region),
            path
          ).toEqual([isRemote ? region : "local"])
          expect(mine[0]?.n, path).toBe(runs.length)
          expect(mine[0]?.slots, path).toBe(runs.length)
        }

        // The local checks were shared by the two workers, and between them they stored exactly what ran.
        const workers = [
          sumOf(yield* scrape(w, "worker-1"), "signalman_checks_total", (l) => l["kind"] === "http"),
          sumOf(yield* scrape(w, "worker-2"), "signalman_checks_total", (l) => l["kind"] === "http")
        ]
        expect((workers[0] ?? 0) + (workers[1] ?? 0)).toBe(localRuns)
        for (const n of workers) expect(n).toBeGreaterThan(0)

        // The agent region's checks: one receipt per stored result, one per slot, by the run's two agents.
        const receipts = yield* w.sql<{ target_id: string; agent_id: string; due: string }>`
          SELECT target_id::text AS target_id, agent_id::text AS agent_id, due::text AS due
          FROM agent_receipts WHERE region = ${region}
        `
        const remoteRuns = remote.reduce((sum, id) => sum + w.origin.of(pathOf.get(id) ?? "").length, 0)
        expect(receipts).toHaveLength(remoteRuns)
        expect(new Set(receipts.map((r) => `${r.target_id} ${r.due}`)).size).toBe(remoteRuns)
        const agentIds = w.example.secrets.agents.map((a) => a.id).sort()
        expect([...new Set(receipts.map((r) => r.agent_id))].sort()).toEqual(agentIds)
        // What the run holds: each process's resident memory, and the database connections the deployment has open.
        const rss = Object.fromEntries(
          w.example.state.processes.map((p) => {
            const line = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${p.pid}/status`, "utf8"))?.[1]
            return [p.name, Math.round(Number(line ?? "0") / 1024)]
          })
        )
        const connections = yield* w.sql<{ n: number }>`
          SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
        `
        const rowBytes = yield* w.sql<{ bytes: number }>`
          SELECT avg(pg_column_size(r.*))::float8 AS bytes FROM check_results r WHERE target_id IN ${w.sql.in(all)}
        `
        keepFigures("checks", {
          rss_mb: rss,
          // The test's own pool (two at most) is among them.
          database_connections: connections[0]?.n,
          result_row_bytes: Math.round(Number(rowBytes[0]?.bytes ?? 0)),
          interval_secs: INTERVAL_SECS,
          window_ms: WINDOW_MS,
          local_runs: localRuns,
          by_worker: { "worker-1": workers[0], "worker-2": workers[1] },
          agent_runs: remoteRuns,
          by_agent: Object.fromEntries(
            w.example.secrets.agents.map((a) => [a.name, receipts.filter((r) => r.agent_id === a.id).length])
          )
        })
      }),
    120_000
  )

  it.effect(
    "api-2 sent SIGTERM under load: it drains, the balancer routes around it, no request fails but those in flight at the signal",
    () =>
      Effect.gen(function* () {
        const w = yield* Split
        const api2 = w.example.process("api-2")
        const begun = Date.now()
        let killAt: number | undefined
        let exitedAt: number | undefined
        let sent = 0
        const going = () =>
          Date.now() < begun + KILL_PHASE_CAP_MS &&
          sent < KILL_PHASE_MAX_REQUESTS &&
          (exitedAt === undefined || Date.now() < exitedAt + AFTER_EXIT_MS)
        const worker = (p: Person) =>
          Effect.gen(function* () {
            let n = 0
            while (going()) {
              const id = p.local[n % p.local.length] ?? ""
              sent += 3
              yield* timed(w, "kill", "GET /api/v1/targets/:id", 200, p.browser.request(`/api/v1/targets/${id}`))
              yield* timed(
                w,
                "kill",
                "PATCH /api/v1/targets/:id",
                200,
                p.browser.request(`/api/v1/targets/${id}`, { method: "PATCH", json: { name: `renamed-${n}` } })
              )
              yield* timed(w, "kill", "GET /api/v1/me", 200, p.browser.request("/api/v1/me"))
              n++
            }
          })
        const signal = Effect.gen(function* () {
          yield* Effect.sleep(`${KILL_AFTER_MS} millis`)
          killAt = Date.now()
          process.kill(api2.pid, "SIGTERM")
          const gone = yield* eventually(
            Effect.sync(() => !SplitExample.alive(api2.pid)),
            (g) => g,
            { timeoutMs: 40_000, intervalMs: 50 }
          )
          expect(gone, "api-2 exited").toBe(true)
          exitedAt = Date.now()
        })
        yield* Effect.all(
          [signal, Effect.forEach(w.people.slice(0, KILL_CLIENTS), worker, { concurrency: "unbounded" })],
          {
            concurrency: "unbounded"
          }
        )
        const at = killAt ?? 0
        const outcomes = w.outcomes.filter((o) => o.phase === "kill")
        const inFlightAtKill = (o: Outcome) => o.startedAt <= at && o.endedAt >= at
        // The load went on through the signal and after the exit.
        expect(outcomes.filter((o) => o.startedAt > (exitedAt ?? 0)).length).toBeGreaterThan(20)
        expect(outcomes.filter((o) => o.startedAt > at && o.startedAt < (exitedAt ?? 0)).length).toBeGreaterThan(0)
        // Nothing failed but what was in flight at the signal; the drain lets even those finish.
        expect(outcomes.filter((o) => failed(o) && !inFlightAtKill(o))).toEqual([])
        expect(outcomes.filter(failed)).toEqual([])

        // api-2 drained rather than died, and is out of rotation; the agents it held streams for are back (on api-1).
        expect(fs.readFileSync(api2.log, "utf8")).toContain("Shutting down: draining requests")
        // The balancer's view: api-2 out of rotation, and no api ever closed a connection under a request (api-2
        // stayed in service, not ready, until the balancer had taken it out: server.drain_delay_secs).
        const view = Http.expectOk(yield* Http.request(`${w.example.state.balancer_url}/__balancer`), BalancerView)
        const address = new URL(api2.url ?? "").host
        expect(view.upstreams.find((u) => u.address === address)?.healthy).toBe(false)
        expect(view.upstreams.map((u) => u.cut)).toEqual([0, 0])
        const agents = yield* eventually(
          Effect.map(operator(w, "/agents"), (reply) => Http.expectOk(reply, Agents).data),
          (list) => list.filter((a) => a.region_id === w.example.state.region && a.connected).length === 2,
          { timeoutMs: 20_000, intervalMs: 250 }
        )
        expect(agents.filter((a) => a.region_id === w.example.state.region && a.connected)).toHaveLength(2)
        keepFigures("sigterm", {
          requests: outcomes.length,
          in_flight_at_signal: outcomes.filter(inFlightAtKill).length,
          failed: outcomes.filter(failed).length,
          exit_after_signal_ms: (exitedAt ?? 0) - at,
          after_exit: outcomes.filter((o) => o.startedAt > (exitedAt ?? 0)).length,
          balancer: view.upstreams
        })
      }),
    120_000
  )

  it.effect("the example's stop command stops every process on SIGTERM and removes its pid file", () =>
    Effect.gen(function* () {
      const w = yield* Split
      const stopAt = Date.now()
      const stopped = yield* w.example.stop
      keepFigures("stop", { seconds: (Date.now() - stopAt) / 1000 })
      expect(stopped.code, stopped.output).toBe(0)
      for (const p of w.example.state.processes) {
        expect(SplitExample.alive(p.pid), p.name).toBe(false)
        // api-2 was stopped by the test already; every other process exited on the stop's SIGTERM.
        expect(stopped.output).toContain(`${p.name} (pid ${p.pid}): ${p.name === "api-2" ? "not running" : "exited"}`)
      }
      expect(w.example.stateFileExists()).toBe(false)
    })
  )
})
