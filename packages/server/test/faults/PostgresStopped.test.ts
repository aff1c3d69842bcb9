/**
 * PostgreSQL stopped for 30 seconds under load (issue 20, docs/faults.md "PostgreSQL stopped"). An api process and a
 * worker process on a PostgreSQL cluster of the test's own (PrivatePostgres), which the test stops with
 * `pg_ctl stop -m fast` (every connection closed, new ones refused) and starts again on the same port 30 s later,
 * while http monitors on a loopback origin run every 2 s (one of them answered 500, down throughout) and heartbeat
 * monitors are pinged about once a second.
 *
 * What the test holds the service to: `/readyz` answers 503 while the database is away and 200 after, with no
 * restart; the worker runs no check while it is away and runs every monitor on its grid again after; every result
 * stored before the stop is still there, and every run the origin saw is stored exactly once (the runs that ended
 * while the database was away are written when it is back); every ping answered 2xx (before, during or after the
 * outage) is stored exactly once and no other is; the pings that must be written before they are answered (a first
 * ping, a failure) are answered 500 while it is away; the monitor down throughout has one incident, opened before
 * the outage and still open after it.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as CountingOrigin from "../support/CountingOrigin.js"
import { eventually } from "../support/Eventually.js"
import * as Http from "../support/Http.js"
import * as Deployment from "./support/Deployment.js"
import * as Monitors from "./support/Monitors.js"
import * as PingLoad from "./support/PingLoad.js"
import * as PrivatePostgres from "./support/PrivatePostgres.js"

const INTERVAL_SECS = 2
const OUTAGE_MS = 30_000

const status = (url: string) =>
  Effect.promise(() =>
    fetch(url, { signal: AbortSignal.timeout(5_000) }).then(
      (r) => r.status,
      () => 0
    )
  )

describe("PostgreSQL stopped for 30 s under load", () => {
  it.scopedLive("readyz 503 then 200, workers pause and resume, nothing acknowledged lost or doubled", (context) => {
    PrivatePostgres.skipUnless(context)
    return Effect.gen(function* () {
      const pg = yield* PrivatePostgres.make
      const origin = yield* CountingOrigin.make
      // Connections give up after a second, so a request or claim during the outage fails fast instead of waiting.
      const deployment = yield* Deployment.open(pg.url, { DATABASE__CONNECT_TIMEOUT_SECS: "1" })
      // The api first: it migrates the empty cluster; the worker then finds the schema in place.
      const api = yield* deployment.api()
      const worker = yield* deployment.worker()
      const person = yield* deployment.signIn(api)

      const up = yield* Monitors.http(
        person,
        origin.base,
        Array.from({ length: 12 }, (_, i) => `/ok/${i}`)
      )
      const [down] = yield* Monitors.http(person, origin.base, ["/status/500/down"])
      if (down === undefined) return yield* Effect.dieMessage("no down monitor")
      const http = [...up, down]
      const beats = yield* Monitors.heartbeats(person, 5)
      // Pinged for the first time while the database is away: its first ping changes the verdict (pending to up).
      const [fresh] = yield* Monitors.heartbeats(person, 1)
      if (fresh === undefined) return yield* Effect.dieMessage("no fresh heartbeat")

      const load = yield* PingLoad.start(() => [api.baseUrl], beats, { everyMs: 1100, maxSecs: 150, maxPings: 1000 })
      yield* Monitors.enable(deployment.sql, http, INTERVAL_SECS)

      // Under way: every monitor has results, and the down one's incident is open (confirmations take a few runs).
      const warmed = yield* eventually(
        Effect.all([Monitors.results(deployment.sql, http), Monitors.incidents(deployment.sql, [down])]),
        ([rows, opened]) => [...Monitors.countBy(http, rows).values()].every((n) => n >= 3) && opened.length === 1,
        { timeoutMs: 60_000, intervalMs: 250 }
      )
      expect(warmed[1], "the down monitor's incident opened before the outage").toHaveLength(1)
      expect(yield* status(`${api.baseUrl}/readyz`)).toBe(200)

      const before = yield* Monitors.results(deployment.sql, http)
      const stoppedAt = Date.now()
      yield* pg.stop
      const stopped = Date.now()

      // While it is away: readiness says so on both processes (the worker serves /readyz too), and stays so.
      const readyDown = yield* eventually(status(`${api.baseUrl}/readyz`), (s) => s === 503, { timeoutMs: 10_000 })
      expect(readyDown).toBe(503)
      const downReply = yield* Http.request(`${api.baseUrl}/readyz`)
      expect(Http.envelope(downReply).details).toEqual({ checks: { database: "unreachable" } })
      expect(yield* status(`${worker.baseUrl}/readyz`)).toBe(503)
      // Liveness is not readiness: both processes are alive and stay up through the outage.
      expect(yield* status(`${api.baseUrl}/healthz`)).toBe(200)

      // Pings that must be written before they are answered cannot be: a first ping, and a failure after successes.
      const firstPing = yield* Effect.promise(() => PingLoad.ping(api.baseUrl, fresh.id, fresh.pingPath))
      const [failing] = beats
      if (failing === undefined) return yield* Effect.dieMessage("no heartbeat")
      const failPing = yield* Effect.promise(() => PingLoad.ping(api.baseUrl, failing.id, `${failing.pingPath}/fail`))

      // Readiness sampled through the rest of the outage: 503 every time.
      const samples: Array<number> = []
      while (Date.now() < stoppedAt + OUTAGE_MS) {
        samples.push(yield* status(`${api.baseUrl}/readyz`))
        yield* Effect.sleep("1 second")
      }
      const restartedAt = Date.now()
      yield* pg.start
      const restarted = Date.now()

      expect(firstPing.status, firstPing.body).toBe(500)
      expect(Http.envelope(Http.body(firstPing.status, firstPing.body)).code).toBe("INTERNAL_ERROR")
      expect(failPing.status, failPing.body).toBe(500)
      expect(new Set(samples), `readyz during the outage: ${samples}`).toEqual(new Set([503]))

      // Back without a restart of either process.
      expect(yield* eventually(status(`${api.baseUrl}/readyz`), (s) => s === 200, { timeoutMs: 30_000 })).toBe(200)
      expect(yield* eventually(status(`${worker.baseUrl}/readyz`), (s) => s === 200, { timeoutMs: 30_000 })).toBe(200)
      expect(api.child.exitCode).toBeNull()
      expect(worker.child.exitCode).toBeNull()

      // Workers paused: no run reached the origin while the database was away, past the runs claimed before the
      // stop (a claim reaches a second ahead; a check started then may still arrive a moment after its due time).
      const pausedFrom = stopped + 2_000
      const duringOutage = [...origin.hits.values()].flat().filter((at) => at > pausedFrom && at < restartedAt)
      expect(duringOutage, "runs that reached the origin while the database was stopped").toEqual([])

      // Workers resumed: every monitor runs on its grid again (a few runs each after the restart).
      const resumed = yield* eventually(
        Effect.sync(() => http.map((m) => (origin.hits.get(m.path) ?? []).filter((at) => at > restarted).length)),
        (counts) => counts.every((n) => n >= 3),
        { timeoutMs: 60_000, intervalMs: 250 }
      )
      expect(
        resumed.every((n) => n >= 3),
        `runs after the restart: ${resumed}`
      ).toBe(true)

      // The pings after the outage are answered and counted like those before it; one more round of each monitor.
      const pingsAfter = yield* eventually(
        Effect.sync(() => load.answers.filter((a) => a.sentAt > restarted && a.status === 200).length),
        (n) => n >= beats.length * 3,
        { timeoutMs: 30_000 }
      )
      expect(pingsAfter).toBeGreaterThanOrEqual(beats.length * 3)
      yield* load.stop
      yield* Monitors.disable(deployment.sql, http)

      // Every result stored before the stop is still there.
      const after = yield* Monitors.results(deployment.sql, http)
      const kept = new Set(after.map((r) => `${r.target_id}@${r.checked_ms}`))
      const missing = before.filter((r) => !kept.has(`${r.target_id}@${r.checked_ms}`))
      expect(missing, "results stored before the stop and gone after").toEqual([])

      // Every run the origin saw is stored once: none lost (the runs that ended while the database was away are
      // written once it is back) and none doubled. Read until the last runs' writes land (the disable cut none short:
      // a run in flight still writes its result).
      const ran = () => new Map(http.map((m) => [m.id, origin.count(m.path)]))
      const settled = yield* eventually(
        Monitors.results(deployment.sql, http),
        (rows) => {
          const counts = Monitors.countBy(http, rows)
          return [...ran()].every(([id, n]) => counts.get(id) === n)
        },
        { timeoutMs: 20_000, intervalMs: 250 }
      )
      expect(Object.fromEntries(Monitors.countBy(http, settled))).toEqual(Object.fromEntries(ran()))
      // And no slot ran twice on the origin.
      for (const m of http) {
        expect(Monitors.doubledSlots(m.id, INTERVAL_SECS, origin.hits.get(m.path) ?? []), m.path).toEqual([])
      }

      // Every ping answered 2xx is stored once, and none other: the routine pings answered during the outage (from
      // memory) were written once the database was back; the ones answered 500 were not.
      const acknowledged = load.acknowledged()
      const duringPings = load.answers.filter((a) => a.sentAt > stopped && a.answeredAt < restartedAt)
      expect(duringPings.length, "pings sent while the database was away").toBeGreaterThan(10)
      const storedPings = yield* eventually(
        Monitors.storedPings(deployment.sql, [...beats, fresh]),
        (stored) => beats.every((b) => stored.get(b.id) === acknowledged.get(b.id)),
        { timeoutMs: 20_000, intervalMs: 250 }
      )
      expect(Object.fromEntries(storedPings)).toEqual(Object.fromEntries([...acknowledged, [fresh.id, 0]]))
      // The load's pings answered otherwise than 2xx were all sent while the database was away (after the /fail
      // that could not be written, that monitor has no hint in memory, so its routine pings need the database too).
      const refused = load.answers.filter((a) => a.status < 200 || a.status >= 300)
      for (const a of refused) {
        expect(a.sentAt > stoppedAt - 1_000 && a.sentAt < restarted + 5_000, `${a.status} ${a.body}`).toBe(true)
      }

      // The monitor down throughout has its one incident, still open; no other monitor has any.
      const opened = yield* Monitors.incidents(deployment.sql, http)
      expect(opened.map((i) => [i.target_id, i.open])).toEqual([[down.id, true]])
      expect(Monitors.countBy(http, opened).get(down.id)).toBe(1)
      yield* Effect.logInfo("PostgreSQL outage").pipe(
        Effect.annotateLogs({
          outage_ms: restartedAt - stoppedAt,
          pings_during: duringPings.length,
          pings_refused: refused.length,
          results: settled.length
        })
      )
    })
  })
})
