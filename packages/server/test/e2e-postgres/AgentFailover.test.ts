/**
 * Probe agents failing over, end to end (issue 14, "How to test"), with real agent processes (`packages/agent`,
 * from source) and the server in a process of its own, on PostgreSQL: two agents of one region share its work with
 * no slot run or stored twice; an agent killed with SIGKILL mid-check loses its leases to its sibling once they
 * lapse, with no slot left without a result and none stored twice; the server restarted under running agents gets
 * every result they made while it was down, once, with the time it was made; an agent sent SIGTERM finishes and
 * delivers what it runs, then exits 0.
 *
 * The monitored service is a loopback origin the test runs (`ProbeOrigin`): it records every request (the monitor's
 * path, `X-Signalman-Region`, when it came and was answered, whether the prober vanished first), so the test compares
 * the runs the origin saw with the results stored (`/results`) and their receipts (`agent_receipts`: one per stored
 * result, naming the agent and the slot). Monitors get their short intervals by a hand edit (the API's floor is far
 * above what a test can wait for).
 */

import * as net from "node:net"
import * as Reactivity from "@effect/experimental/Reactivity"
import type * as SqlClient from "@effect/sql/SqlClient"
import { PgClient } from "@effect/sql-pg"
import { describe, expect, it, layer } from "@effect/vitest"
import { CreatedAgent, OperatorRegion } from "@signalman/core/api/Operator"
import { ResultPage } from "@signalman/core/api/Results"
import { TargetBatch } from "@signalman/core/api/Targets"
import * as Context from "effect/Context"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as AgentProcess from "../support/AgentProcess.js"
import { eventually } from "../support/Eventually.js"
import * as Http from "../support/Http.js"
import { type Person, signIn, uniqueEmail } from "../support/Identity.js"
import * as ProbeOrigin from "../support/ProbeOrigin.js"
import * as ServerProcess from "../support/ServerProcess.js"
import * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TcpProxy from "../support/TcpProxy.js"
import * as TestDatabase from "../support/TestDatabase.js"

const ADMIN = "operator-secret-for-failover-tests-0123456789"

/** The agents' settings for every test: loopback targets, and no per-host cap (every monitor is on one origin). */
// No browser (these are http checks), loopback origins, and reconnection capped at a second so an outage's end is
// seen at once; the support module's base adds quick first retries and debug logs.
const AGENT_ENV = {
  AGENT__PER_HOST_MAX_INFLIGHT: "1000",
  AGENT__BROWSER_PATH: "none",
  AGENT__ALLOW_PRIVATE_TARGETS: "true",
  AGENT__RECONNECT_MAX_MS: "1000"
}

interface World {
  readonly baseUrl: string
  readonly port: number
  readonly sql: SqlClient.SqlClient
  readonly person: Person
}

/** A loopback port free now, for a server that must come back on the same address. */
const freePort = Effect.promise(
  () =>
    new Promise<number>((resolve, reject) => {
      const probe = net.createServer()
      probe.on("error", reject)
      probe.listen(0, "127.0.0.1", () => {
        const address = probe.address()
        const port = address !== null && typeof address === "object" ? address.port : 0
        probe.close(() => resolve(port))
      })
    })
)

/**
 * A database, a mail catcher and the server as its own process on a fixed port, with a signed-in person on the pro
 * plan (room for the monitors). Answers the world and how to start the server again on the same address.
 */
const open = (settings: Record<string, string>) =>
  Effect.gen(function* () {
    const smtp = yield* SmtpCatcher.make
    const db = yield* TestDatabase.acquire
    const port = yield* freePort
    const env = {
      ...db.env,
      PORT: String(port),
      LOG__LEVEL: "info",
      MAIL__SMTP_URL: smtp.url,
      AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0",
      OPERATOR__ADMIN_TOKEN: ADMIN,
      CHECKER__ALLOW_PRIVATE_TARGETS: "true",
      CHECKER__BROWSER_PATH: "none",
      SERVER__SHUTDOWN_GRACE_SECS: "2",
      AGENTS__POLL_INTERVAL_MS: "100",
      AGENTS__RECHECK_MS: "1000",
      ...settings
    }
    const start = ServerProcess.start([], env)
    const server = yield* start
    const sql = yield* PgClient.make({ url: Redacted.make(db.url ?? TestDatabase.adminUrl), maxConnections: 2 }).pipe(
      Effect.provide(Reactivity.layer)
    )
    const email = uniqueEmail("failover")
    const person = yield* signIn(server, smtp, email)
    // Before the first /api/v1 request reads (and caches) the plan.
    yield* sql`UPDATE accounts SET plan_id = 'pro' WHERE id = (SELECT account_id FROM users WHERE email = ${email})`
    const world: World = { baseUrl: server.baseUrl, port, sql, person }
    return { world, server, start }
  })

const operator = (world: World, path: string, json?: unknown) =>
  Http.request(`${world.baseUrl}/operator${path}`, {
    headers: { authorization: `Bearer ${ADMIN}` },
    ...(json === undefined ? {} : { json })
  })

/** A region of the test's own, and agents' tokens for it. */
const region = (world: World, label: string) =>
  Effect.gen(function* () {
    const id = `${label}-${Math.random().toString(36).slice(2, 8)}`
    Http.expectOk(yield* operator(world, "/regions", { id, name: label }), OperatorRegion, 201)
    return id
  })

const agentToken = (world: World, regionId: string, name: string) =>
  Effect.map(operator(world, "/agents", { region_id: regionId, name }), (reply) =>
    Http.expectOk(reply, CreatedAgent, 201)
  )

/** An agent process for the token, dialing `url` (the server, or a proxy in front of it); waits for its welcome. */
const agent = (created: CreatedAgent, url: string, env: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const process = yield* AgentProcess.start({
      ...AGENT_ENV,
      ...env,
      SIGNALMAN_URL: url,
      SIGNALMAN_AGENT_TOKEN: created.token
    })
    const welcomed = yield* eventually(
      Effect.sync(() => AgentProcess.lines(process, "Connected").length),
      (n) => n > 0
    )
    expect(welcomed, `${created.name} never connected: ${process.stderr()}`).toBeGreaterThan(0)
    return { id: created.id, name: created.name, process }
  })

interface Monitor {
  readonly id: string
  /** The path it requests at the origin. */
  readonly path: string
}

/** Monitors of the region, made disabled (the test enables them on the interval it needs). */
const monitors = (
  world: World,
  regionId: string,
  origin: ProbeOrigin.ProbeOrigin,
  paths: ReadonlyArray<string>,
  timeoutSecs = 10
) =>
  Effect.gen(function* () {
    const targets = paths.map((path) => ({
      name: path,
      enabled: false,
      check: { type: "http", url: `${origin.base}${path}`, timeout: timeoutSecs },
      regions: [regionId]
    }))
    const made = Http.expectOk(
      yield* world.person.browser.request("/api/v1/targets/bulk", { json: { targets } }),
      TargetBatch,
      201
    )
    return made.data.map((target, i): Monitor => ({ id: target.id, path: paths[i] ?? "" }))
  })

const idsOf = (list: ReadonlyArray<Monitor>) => list.map((m) => m.id)

const enable = (world: World, list: ReadonlyArray<Monitor>, intervalSecs: number) =>
  world.sql`UPDATE targets SET interval_secs = ${intervalSecs}, enabled = true WHERE id IN ${world.sql.in(idsOf(list))}`

const disable = (world: World, list: ReadonlyArray<Monitor>) =>
  world.sql`UPDATE targets SET enabled = false WHERE id IN ${world.sql.in(idsOf(list))}`

/** Moves the monitors' rows to be due `inMs` from now. */
const dueIn = (world: World, list: ReadonlyArray<Monitor>, inMs: number) =>
  world.sql`
    UPDATE schedules SET next_run_at = date_trunc('milliseconds', now()) + make_interval(secs => ${inMs / 1000})
    WHERE target_id IN ${world.sql.in(idsOf(list))}
  `

interface Receipt {
  readonly target_id: string
  readonly due_ms: number
  readonly agent_id: string
  readonly received_ms: number
}

/** The receipts of the region's stored results: which agent's result was stored for which slot, and when. */
const receipts = (world: World, regionId: string) =>
  Effect.map(
    world.sql<Receipt>`
      SELECT target_id::text AS target_id, agent_id::text AS agent_id,
        round(extract(epoch FROM due) * 1000)::float8 AS due_ms,
        round(extract(epoch FROM received_at) * 1000)::float8 AS received_ms
      FROM agent_receipts WHERE region = ${regionId}
      ORDER BY due
    `,
    (rows) => rows.map((row) => ({ ...row, due_ms: Number(row.due_ms), received_ms: Number(row.received_ms) }))
  )

/** The rows an agent holds leased now: each slot (`due_ms`) and the end of its lease. */
const leasedBy = (world: World, agentId: string) =>
  Effect.map(
    world.sql<{ target_id: string; due_ms: number; until_ms: number }>`
      SELECT target_id::text AS target_id,
        round(extract(epoch FROM next_run_at) * 1000)::float8 AS due_ms,
        round(extract(epoch FROM leased_until) * 1000)::float8 AS until_ms
      FROM schedules WHERE leased_by = ${`agent:${agentId}`}
    `,
    (rows) => rows.map((row) => ({ ...row, due_ms: Number(row.due_ms), until_ms: Number(row.until_ms) }))
  )

/** The results stored for a monitor in the region, as `/results` shows them (oldest first). */
const stored = (world: World, monitor: Monitor, regionId: string) =>
  Effect.gen(function* () {
    const page = Http.expectOk(
      yield* world.person.browser.request(`/api/v1/targets/${monitor.id}/results?region=${regionId}&limit=500`),
      ResultPage
    )
    // Read while checks go on, `total` may count a result stored after the page was read: the page is what counts.
    expect(page.data.length).toBeLessThan(500)
    return page.data.map((result) => DateTime.toEpochMillis(result.checked_at)).sort((a, b) => a - b)
  })

/** Stored results per monitor, by id, through `/results`. */
const storedAll = (world: World, list: ReadonlyArray<Monitor>, regionId: string) =>
  Effect.map(
    Effect.forEach(list, (m) => Effect.map(stored(world, m, regionId), (times) => [m.id, times] as const), {
      concurrency: 8
    }),
    (entries) => new Map(entries)
  )

/** Whether every monitor has exactly as many results stored as the origin saw runs. */
const allStored = (
  origin: ProbeOrigin.ProbeOrigin,
  list: ReadonlyArray<Monitor>,
  results: ReadonlyMap<string, ReadonlyArray<number>>
) => list.every((m) => origin.of(m.path).length === results.get(m.id)?.length)

const range = (n: number) => Array.from({ length: n }, (_, i) => i)

const byTarget = <A extends { readonly target_id: string }>(rows: ReadonlyArray<A>) => {
  const grouped = new Map<string, Array<A>>()
  for (const row of rows) grouped.set(row.target_id, [...(grouped.get(row.target_id) ?? []), row])
  return grouped
}

// One server for the tests that do not restart it. A lease ends LEASE_SECS past its slot: long enough for any
// check here to run and deliver well inside it (so no slot is run twice while its agent lives), short enough that
// a killed agent's leases lapse within the test.
const LEASE_SECS = 6
const LOOKAHEAD_MS = 2000
/** The SIGKILL test's fast monitors and its agents' concurrency (why these, there). */
const KILL_FAST = 28
const KILL_ENV = { AGENT__CONCURRENCY: "6" }

class Shared extends Context.Tag("test/AgentFailover/Shared")<Shared, World>() {}

const shared = Layer.scoped(
  Shared,
  Effect.map(
    open({ AGENTS__LEASE_SECS: String(LEASE_SECS), AGENTS__LOOKAHEAD_MS: String(LOOKAHEAD_MS) }),
    ({ world }) => world
  )
)

layer(shared, { excludeTestServices: true, timeout: 120_000 })("probe agents failing over (PostgreSQL)", (it) => {
  it.scoped(
    "two agents of one region share its work: every slot of 50 monitors runs once and is stored once",
    () =>
      Effect.gen(function* () {
        const world = yield* Shared
        const origin = yield* ProbeOrigin.make
        const regionId = yield* region(world, "share")
        const list = yield* monitors(
          world,
          regionId,
          origin,
          range(50).map((i) => `/m/share-${i}`)
        )
        const agents = [
          yield* agent(yield* agentToken(world, regionId, "share-a"), world.baseUrl),
          yield* agent(yield* agentToken(world, regionId, "share-b"), world.baseUrl)
        ]
        const intervalSecs = 2
        const windowMs = 8_000
        yield* enable(world, list, intervalSecs)
        // Real time must pass for the slots to come due.
        yield* Effect.sleep(`${windowMs} millis`)
        yield* disable(world, list)
        const disabledAt = Date.now()
        // The jobs leased before the disable (up to the lookahead ahead) still run and are delivered; then every run
        // the origin saw has its result.
        const results = yield* eventually(
          storedAll(world, list, regionId),
          (results) => Date.now() > disabledAt + LOOKAHEAD_MS + 1000 && allStored(origin, list, results),
          { timeoutMs: 30_000, intervalMs: 500 }
        )
        const slots = byTarget(yield* receipts(world, regionId))
        let runs = 0
        let skipped = 0
        for (const m of list) {
          const arrivals = origin.of(m.path)
          runs += arrivals.length
          expect(arrivals.every((a) => a.region === regionId && a.answeredAt !== undefined)).toBe(true)
          // As many results stored as runs, and one receipt (one slot) per stored result: nothing ran twice,
          // nothing was stored twice, nothing that ran was lost.
          expect(results.get(m.id)?.length, m.path).toBe(arrivals.length)
          const dues = (slots.get(m.id) ?? []).map((r) => r.due_ms)
          expect(dues, m.path).toHaveLength(arrivals.length)
          // Runs and slots pair up in order: each run started at its slot's due time (not before), well inside the
          // lease, so no sibling could have been handed the slot while it ran.
          dues.forEach((due, i) => {
            const at = arrivals[i]?.at ?? 0
            expect(at - due, `${m.path} run ${i}`).toBeGreaterThanOrEqual(-50)
            expect(at - due, `${m.path} run ${i}`).toBeLessThan(LEASE_SECS * 1000)
          })
          // The slots that ran are the consecutive slots of the monitor's grid: a slot is skipped only when the row
          // was released after the next one had passed (a run late by a whole interval).
          const first = dues[0] ?? 0
          const last = dues[dues.length - 1] ?? 0
          skipped += (last - first) / (intervalSecs * 1000) + 1 - dues.length
          expect(dues.length, m.path).toBeGreaterThanOrEqual(windowMs / (intervalSecs * 1000) - 1)
        }
        expect(skipped).toBeLessThanOrEqual(Math.ceil(runs / 50))
        // Both agents did their share.
        const perAgent = new Map<string, number>()
        for (const r of yield* receipts(world, regionId)) perAgent.set(r.agent_id, (perAgent.get(r.agent_id) ?? 0) + 1)
        for (const a of agents) expect(perAgent.get(a.id) ?? 0, a.name).toBeGreaterThan(runs / 10)
      }),
    60_000
  )

  it.scoped(
    "an agent killed with SIGKILL mid-check: its leases lapse to the sibling; no slot is left without a result, none stored twice",
    () =>
      Effect.gen(function* () {
        const world = yield* Shared
        const origin = yield* ProbeOrigin.make
        const regionId = yield* region(world, "kill")
        // More rows than one agent may hold: an agent pulls for at most `HELD_PER_SLOT` (4) times
        // AGENT__CONCURRENCY jobs, and takes back at once the rows its own results free, so without a bound the fast
        // monitors can all stay with one agent, and the victim (chosen by the held monitors below) would hold none
        // of them when its link stalls (a CI run failed so). With 6, neither holds more than 24 of the 32 rows: the
        // victim holds at least 4 fast ones beside its held checks, and has at least 2 runner slots left for them.
        const fast = yield* monitors(
          world,
          regionId,
          origin,
          range(KILL_FAST).map((i) => `/m/kill-${i}`)
        )
        const holdNames = range(4).map((i) => `kill-${i}`)
        const held = yield* monitors(
          world,
          regionId,
          origin,
          holdNames.map((name) => `/hold/${name}`),
          30
        )
        const all = [...fast, ...held]
        // Each agent dials the server through a proxy of its own, so the test can cut one off from the server.
        const proxies = [yield* TcpProxy.make("127.0.0.1", world.port), yield* TcpProxy.make("127.0.0.1", world.port)]
        const agents = [
          yield* agent(yield* agentToken(world, regionId, "kill-a"), `http://127.0.0.1:${proxies[0]?.port}`, KILL_ENV),
          yield* agent(yield* agentToken(world, regionId, "kill-b"), `http://127.0.0.1:${proxies[1]?.port}`, KILL_ENV)
        ]
        yield* enable(world, fast, 1)
        // Both at work before anything happens.
        const working = yield* eventually(receipts(world, regionId), (rows) =>
          agents.every((a) => rows.some((r) => r.agent_id === a.id))
        )
        for (const a of agents) expect(working.some((r) => r.agent_id === a.id)).toBe(true)

        // The held monitors come due once (a long interval: one slot each here), and whoever takes one keeps its
        // check in flight: the origin does not answer.
        yield* enable(world, held, 3600)
        yield* dueIn(world, held, 200)
        const holding = yield* eventually(
          Effect.sync(() => origin.open().filter((a) => a.path.startsWith("/hold/"))),
          (open) => open.length === held.length
        )
        expect(holding).toHaveLength(held.length)
        const holders = yield* world.sql<{ target_id: string; leased_by: string | null }>`
          SELECT target_id::text AS target_id, leased_by FROM schedules WHERE target_id IN ${world.sql.in(idsOf(held))}
        `
        const holdsOf = (a: { readonly id: string }) =>
          held.filter((m) => holders.some((h) => h.target_id === m.id && h.leased_by === `agent:${a.id}`))
        // The victim is whichever agent has more of them in flight (at least two of the four).
        const victimAt = holdsOf(agents[0]!).length >= holdsOf(agents[1]!).length ? 0 : 1
        const victim = agents[victimAt]!
        const sibling = agents[1 - victimAt]!
        const victimProxy = proxies[victimAt]!
        const victimHolds = holdsOf(victim)
        expect(victimHolds.length).toBeGreaterThanOrEqual(2)
        const nameOf = (m: Monitor) => m.path.replace(/^\/hold\//, "")
        // The sibling's held checks end now; only the victim's stay in flight.
        origin.release(held.filter((m) => !victimHolds.includes(m)).map(nameOf))

        // The victim's link to the server stalls (nothing it sends arrives any more); it goes on running the jobs it
        // holds. Wait until it has finished some that it cannot deliver, then kill it. The stall comes once it holds
        // fast jobs to finish meanwhile (the bound on what its sibling may take makes it hold some, soon).
        const fastHeld = yield* eventually(
          Effect.map(leasedBy(world, victim.id), (leases) =>
            leases.filter((l) => fast.some((m) => m.id === l.target_id))
          ),
          (leases) => leases.length >= 2,
          { timeoutMs: 10_000, intervalMs: 50 }
        )
        expect(fastHeld.length, "fast jobs the victim holds before its link stalls").toBeGreaterThanOrEqual(2)
        victimProxy.pause()
        const pausedAt = Date.now()
        const pausedLeases = yield* leasedBy(world, victim.id)
        const finishedUndelivered = () =>
          fast.filter(
            (m) =>
              pausedLeases.some((l) => l.target_id === m.id) &&
              origin.of(m.path).some((a) => a.at >= pausedAt && a.answeredAt !== undefined)
          )
        expect(
          (yield* eventually(Effect.sync(finishedUndelivered), (list) => list.length >= 2, { timeoutMs: 10_000 }))
            .length,
          `the victim's leases at the pause: ${pausedLeases.length}, of fast monitors: ${
            pausedLeases.filter((l) => fast.some((m) => m.id === l.target_id)).length
          }; its log's end: ${victim.process.stderr().slice(-3000)}`
        ).toBeGreaterThanOrEqual(2)
        victim.process.child.kill("SIGKILL")
        // What the stalled link still held is gone with the process.
        yield* Effect.promise(() => victimProxy.cut())
        expect((yield* AgentProcess.waitExit(victim.process)).signal).toBe("SIGKILL")

        // What the victim held when it died: every slot it had leased and not answered (its held checks, the checks
        // it finished and could not deliver, and the jobs it had taken and not started).
        const lost = yield* leasedBy(world, victim.id)
        for (const m of victimHolds) expect(lost.some((l) => l.target_id === m.id)).toBe(true)
        // The kill landed mid-check: its held requests were cut off at the origin, unanswered.
        const cutOff = yield* eventually(
          Effect.sync(() => victimHolds.filter((m) => origin.of(m.path).some((a) => a.aborted))),
          (list) => list.length === victimHolds.length,
          { timeoutMs: 5_000 }
        )
        expect(cutOff).toHaveLength(victimHolds.length)
        origin.release(victimHolds.map(nameOf))

        // Once their leases lapse, the sibling takes every one of those slots, runs it and stores it.
        const retaken = yield* eventually(
          receipts(world, regionId),
          (rows) => lost.every((l) => rows.some((r) => r.target_id === l.target_id && r.due_ms === l.due_ms)),
          { timeoutMs: LEASE_SECS * 1000 + LOOKAHEAD_MS + 15_000, intervalMs: 250 }
        )
        for (const slot of lost) {
          const receipt = retaken.find((r) => r.target_id === slot.target_id && r.due_ms === slot.due_ms)
          expect(receipt?.agent_id, `${slot.target_id} ${slot.due_ms}`).toBe(sibling.id)
          // Not before the victim's lease ended.
          expect(receipt?.received_ms ?? 0).toBeGreaterThanOrEqual(slot.until_ms - 50)
        }

        yield* disable(world, all)
        const disabledAt = Date.now()
        // The runs lost with the victim: for a slot it held, a run that came while its lease lasted (at most one).
        // Not "before the kill": a request the victim sent just before it died can reach this process's origin
        // after the test noted the kill. No other run of the monitor can come in that window: the row was the
        // victim's until the lease's end, and the sibling's rerun was claimed after it (checked above).
        const victimRuns = (m: Monitor) => {
          const slot = lost.find((l) => l.target_id === m.id)
          return slot === undefined
            ? []
            : origin.of(m.path).filter((a) => a.at >= slot.due_ms - 50 && a.at < slot.until_ms)
        }
        const results = yield* eventually(
          storedAll(world, all, regionId),
          (results) =>
            Date.now() > disabledAt + LOOKAHEAD_MS + 1000 &&
            all.every((m) => results.get(m.id)?.length === origin.of(m.path).length - victimRuns(m).length),
          { timeoutMs: 30_000, intervalMs: 500 }
        )
        const slots = byTarget(yield* receipts(world, regionId))
        let doubled = 0
        for (const m of all) {
          const runs = origin.of(m.path)
          const gone = victimRuns(m)
          expect(gone.length, m.path).toBeLessThanOrEqual(1)
          // Every run has its result stored, once, except the victim's last one, whose slot the sibling ran again.
          expect(results.get(m.id)?.length, m.path).toBe(runs.length - gone.length)
          expect(slots.get(m.id)?.length ?? 0, m.path).toBe(runs.length - gone.length)
          if (gone.length === 1) doubled++
        }
        // The victim's lost runs were of two kinds, both made good by the sibling: checks cut off mid-run (its held
        // ones at least), and checks it finished and never delivered.
        const lostRuns = all.flatMap(victimRuns)
        expect(lostRuns).toHaveLength(doubled)
        expect(lostRuns.every((a) => a.aborted !== (a.answeredAt !== undefined))).toBe(true)
        expect(victimHolds.every((m) => victimRuns(m).some((a) => a.aborted))).toBe(true)
        expect(lostRuns.filter((a) => a.answeredAt !== undefined).length).toBeGreaterThanOrEqual(2)
        expect(origin.arrivals.every((a) => a.region === regionId)).toBe(true)
      }),
    90_000
  )

  it.scoped(
    "an agent sent SIGTERM mid-check drains: it finishes what it runs, delivers every result, and exits 0",
    () =>
      Effect.gen(function* () {
        const world = yield* Shared
        const origin = yield* ProbeOrigin.make
        const regionId = yield* region(world, "drain")
        const list = yield* monitors(
          world,
          regionId,
          origin,
          range(8).map((i) => `/slow/1500/drain-${i}`)
        )
        const drained = yield* agent(yield* agentToken(world, regionId, "drain"), world.baseUrl)
        yield* enable(world, list, 2)
        expect(
          yield* eventually(
            Effect.sync(() => origin.open().length),
            (n) => n >= 3
          )
        ).toBeGreaterThanOrEqual(3)
        drained.process.child.kill("SIGTERM")
        const signalledAt = Date.now()
        const inFlight = origin.open()
        const exit = yield* AgentProcess.waitExit(drained.process)
        expect(exit.code, exit.stderr).toBe(0)
        const draining = AgentProcess.lines(drained.process, "Draining: taking no more checks, finishing those taken")
        expect(draining).toHaveLength(1)
        expect(draining[0]?.fields["inflight"]).toBeGreaterThan(0)
        expect(AgentProcess.lines(drained.process, "Drained: every result delivered")).toHaveLength(1)

        // The checks in flight at the signal ran to their end...
        expect(inFlight.length).toBeGreaterThanOrEqual(3)
        for (const run of inFlight) expect(run.answeredAt ?? 0).toBeGreaterThan(signalledAt)
        // ...and every run's result is stored, once.
        const results = yield* storedAll(world, list, regionId)
        for (const m of list) expect(results.get(m.id)?.length, m.path).toBe(origin.of(m.path).length)
        const after = [...results.values()].flat().filter((at) => at > signalledAt)
        expect(after.length).toBeGreaterThanOrEqual(inFlight.length)
        // No job was taken once the drain began: every run was of a job leased before (due within the lookahead).
        expect(origin.arrivals.filter((a) => a.at > signalledAt + LOOKAHEAD_MS + 1000)).toEqual([])
        // Every job it took was answered: it holds no lease.
        expect(yield* leasedBy(world, drained.id)).toEqual([])
        yield* disable(world, list)
      }),
    60_000
  )
})

describe("probe agents and a server restart (PostgreSQL)", () => {
  it.scopedLive(
    "agents under a restarted server (stopped, then crashed) run their leased checks meanwhile, reconnect, and deliver each result once with its time",
    () =>
      Effect.gen(function* () {
        // A lookahead as long as the interval: every monitor's next slot is always leased, so the slots that come
        // due while the server is down run on the agents all the same.
        const intervalSecs = 10
        // The default lease (90 s): the two outages back to back, a restart each, keep the server away for more
        // than 30 s on a loaded machine, and a slot whose lease lapses while its result waits in one agent's buffer
        // may go to the other agent and run twice, as it should: that is the lapse tests' subject, not this one's.
        const { world, server, start } = yield* open({
          AGENTS__LEASE_SECS: "90",
          AGENTS__LOOKAHEAD_MS: String(intervalSecs * 1000)
        })
        const origin = yield* ProbeOrigin.make
        const regionId = yield* region(world, "restart")
        const list = yield* monitors(
          world,
          regionId,
          origin,
          range(30).map((i) => `/m/restart-${i}`)
        )
        const agents = [
          yield* agent(yield* agentToken(world, regionId, "restart-a"), world.baseUrl),
          yield* agent(yield* agentToken(world, regionId, "restart-b"), world.baseUrl)
        ]
        yield* enable(world, list, intervalSecs)
        const leased = world.sql<{ n: number }>`
          SELECT count(*)::int AS n FROM schedules WHERE target_id IN ${world.sql.in(idsOf(list))} AND leased_by IS NOT NULL
        `
        expect((yield* eventually(leased, (rows) => rows[0]?.n === list.length))[0]?.n).toBe(list.length)

        // Two outages: a stop (SIGTERM: the streams are closed with 1012) and a crash (SIGKILL: they just drop, and
        // results in flight may have been stored without their ack going out).
        const outages: Array<{ readonly downAt: number; readonly restartAt: number; readonly upAt: number }> = []
        let running = server
        // What the agents hold for the time ahead: slots leased and not yet due. Right after a restart the agents
        // deliver what they kept and only then pull again, so an outage begun at "Connected" would find them holding
        // little to run.
        const held = world.sql<{ n: number }>`
          SELECT count(*)::int AS n FROM schedules
          WHERE target_id IN ${world.sql.in(idsOf(list))} AND leased_by IS NOT NULL AND next_run_at > now()
        `
        const enough = Math.ceil((list.length * 2) / 3)
        for (const signal of ["SIGTERM", "SIGKILL"] as const) {
          const holding = (yield* eventually(held, (rows) => (rows[0]?.n ?? 0) >= enough, { timeoutMs: 20_000 }))[0]?.n
          expect(holding, `slots held before the ${signal}`).toBeGreaterThanOrEqual(enough)
          running.child.kill(signal)
          const exit = yield* Effect.promise(() => running.exited)
          if (signal === "SIGTERM") expect(exit.code).toBe(0)
          else expect(exit.signal).toBe("SIGKILL")
          const downAt = Date.now()
          // Down: the agents run the checks they hold as they come due, keep the results, and keep trying to reach
          // the server, waiting longer after each failure up to the cap (AGENT__RECONNECT_MAX_MS).
          const retries = (a: (typeof agents)[number]) =>
            AgentProcess.lines(a.process, "Cannot reach the service; retrying").filter(
              (line) => Date.parse(line.time) >= downAt
            )
          yield* eventually(
            Effect.sync(
              () =>
                origin.arrivals.filter((a) => a.at > downAt).length >= 6 && agents.every((a) => retries(a).length >= 2)
            ),
            (done) => done,
            { timeoutMs: 20_000 }
          )
          for (const a of agents) {
            expect(a.process.child.exitCode, a.name).toBeNull()
            const attempts = retries(a).map((line) => Number(line.fields["attempt"]))
            expect(attempts, a.name).toEqual(range(attempts.length).map((i) => (attempts[0] ?? 0) + i))
            for (const line of retries(a)) expect(Number(line.fields["retry_in_ms"])).toBeLessThanOrEqual(1000)
          }
          const restartAt = Date.now()
          running = yield* start
          outages.push({ downAt, restartAt, upAt: Date.now() })
          // Back within a retry or two (the delay is capped at a second here), not after a request left hanging.
          for (const a of agents) {
            const welcomed = yield* eventually(
              Effect.sync(() => AgentProcess.lines(a.process, "Connected").length),
              (n) => n >= outages.length + 1,
              { timeoutMs: 8_000 }
            )
            expect(welcomed, a.name).toBe(outages.length + 1)
          }
        }
        // The outage each run fell in, when it did, a second clear of the restart (the server's "up" line is read a
        // little after it serves).
        const outageOf = (at: number) => outages.findIndex((o) => at > o.downAt && at < o.upAt - 1000)

        // Every run the origin saw, before, during and after the outages, has its result stored once...
        const results = yield* eventually(
          storedAll(world, list, regionId),
          (results) => allStored(origin, list, results),
          { timeoutMs: 30_000, intervalMs: 300 }
        )
        const slots = byTarget(yield* receipts(world, regionId))
        const keptTime = outages.map(() => 0)
        for (const m of list) {
          const runs = origin.of(m.path)
          const times = results.get(m.id) ?? []
          expect(times, m.path).toHaveLength(runs.length)
          expect(slots.get(m.id)?.length ?? 0, m.path).toBe(runs.length)
          // ...with the time it ran: the run ended right after the request reached the origin (inside an outage for
          // those made while the server was down), however late it was delivered.
          runs.forEach((run, i) => {
            const checkedAt = times[i] ?? 0
            expect(checkedAt - run.at, `${m.path} run ${i}`).toBeGreaterThanOrEqual(-5)
            expect(checkedAt - run.at, `${m.path} run ${i}`).toBeLessThan(2000)
            const index = outageOf(run.at)
            const outage = outages[index]
            if (outage === undefined) return
            expect(checkedAt, `${m.path} run ${i}`).toBeLessThan(outage.upAt)
          })
          // The runs waited for before each restart (made while the server was surely down), kept with their time.
          runs.forEach((run, i) => {
            const index = outages.findIndex((o) => run.at > o.downAt && run.at <= o.restartAt)
            if (index === -1) return
            expect(times[i] ?? 0, `${m.path} run ${i}`).toBeLessThan(outages[index]?.upAt ?? 0)
            keptTime[index] = (keptTime[index] ?? 0) + 1
          })
        }
        // Each outage saw at least the runs waited for above.
        for (const kept of keptTime) expect(kept).toBeGreaterThanOrEqual(6)
        // Those results reached the server only once it was back.
        for (const { downAt, upAt } of outages) {
          const made = [...slots.values()].flat().filter((r) => r.due_ms > downAt && r.due_ms < upAt - 1000)
          expect(made.length).toBeGreaterThan(0)
          for (const r of made) expect(r.received_ms).toBeGreaterThan(upAt - 1000)
        }
      }),
    100_000
  )
})
