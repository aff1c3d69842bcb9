/**
 * SIGTERM to every process under load (issue 20, docs/faults.md "SIGTERM to every process"). Two api processes and
 * two worker processes on one PostgreSQL; 16 http monitors every 2 s against a loopback origin that records every
 * request (ProbeOrigin) and answers after 500 ms, so checks are in flight when the signal comes; heartbeat pings
 * spread over both api processes; and one ping whose POST body is still arriving when the signal comes. All four
 * get SIGTERM at once; then one api and one worker start again on the same database.
 *
 * What the test holds the service to:
 * - each process drains and exits 0: the request in flight is answered (200) and its ping stored;
 * - every ping answered 2xx is stored, once; none that was not answered 2xx is;
 * - each worker drains its checks: no more claims, the runs it had claimed finish (within
 *   `server.shutdown_grace_secs`) and are stored, and it gives back every row it still held, so no row is left
 *   leased when the workers are gone and every monitor runs again as soon as a worker is back, not after its lease
 *   (`scheduler.lease_secs`, the default 120 s here) lapses;
 * - every run the origin answered is stored once, and none was cut short at the origin;
 * - no slot has two stored results (the runs are in distinct slots of the grid), after the restart too.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { eventually } from "../support/Eventually.js"
import * as ProbeOrigin from "../support/ProbeOrigin.js"
import * as TestDatabase from "../support/TestDatabase.js"
import * as Deployment from "./support/Deployment.js"
import * as Leases from "./support/Leases.js"
import * as Monitors from "./support/Monitors.js"
import * as PingLoad from "./support/PingLoad.js"

const INTERVAL_SECS = 2

const completed = (arrivals: ReadonlyArray<ProbeOrigin.Arrival>) =>
  arrivals.filter((a) => a.answeredAt !== undefined && !a.aborted)

describe("SIGTERM to every process under load", () => {
  it.scopedLive("each drains and exits 0; nothing acknowledged is lost, no slot doubled after the restart", () =>
    Effect.gen(function* () {
      const db = yield* TestDatabase.acquire
      const origin = yield* ProbeOrigin.make
      const deployment = yield* Deployment.open(db.url ?? TestDatabase.adminUrl, {
        SERVER__SHUTDOWN_GRACE_SECS: "10"
      })
      const first = yield* deployment.api()
      const apis = [first, yield* deployment.api()]
      const workers = [yield* deployment.worker(), yield* deployment.worker()]
      const everyone = [...apis, ...workers]
      const person = yield* deployment.signIn(first)
      const monitors = yield* Monitors.http(
        person,
        origin.base,
        Array.from({ length: 16 }, (_, i) => `/slow/500/m${i}`)
      )
      const beats = yield* Monitors.heartbeats(person, 6)
      const [slow] = yield* Monitors.heartbeats(person, 1)
      if (slow === undefined) return yield* Effect.dieMessage("no heartbeat for the slow ping")

      let bases = apis.map((p) => p.baseUrl)
      const load = yield* PingLoad.start(() => bases, beats, { everyMs: 1100, maxSecs: 120, maxPings: 1000 })
      yield* Monitors.enable(deployment.sql, monitors, INTERVAL_SECS)
      yield* eventually(
        Effect.sync(() => ({
          ran: monitors.every((m) => completed(origin.of(m.path)).length >= 3),
          open: origin.open().length,
          pinged: load.answers.filter((a) => a.status === 200).length
        })),
        (w) => w.ran && w.open >= 2 && w.pinged >= beats.length * 3,
        { timeoutMs: 60_000, intervalMs: 50 }
      )

      // A request in flight: its ping counted (the first ping of a monitor is written before its body is read, so
      // its row says it arrived) and its body still arriving.
      const inFlight = yield* Effect.promise(() => PingLoad.trickle(first.baseUrl, slow.id, slow.pingPath))
      yield* eventually(Monitors.storedPings(deployment.sql, [slow]), (n) => n.get(slow.id) === 1, {
        timeoutMs: 10_000,
        intervalMs: 20
      })

      const signalAt = Date.now()
      for (const p of everyone) p.child.kill("SIGTERM")
      // The api stops taking new connections while it drains: the load's pings go nowhere until the restart.
      bases = []
      const answer = yield* Effect.promise(() => inFlight.finish())
      const exits = yield* Effect.promise(() => Promise.all(everyone.map((p) => p.exited)))
      const goneAt = Date.now()
      yield* load.stop

      expect(answer.status, `the in-flight request: ${answer.body}`).toBe(200)
      expect(
        exits.map((e) => e.code),
        exits.map((e) => e.stderr.slice(-2000)).join("\n")
      ).toEqual([0, 0, 0, 0])
      for (const e of exits.slice(0, 2)) expect(e.stdout).toContain("Shutting down: draining requests")
      // Warnings and errors of the shutdowns, for the failure messages below.
      const troubles = exits
        .flatMap((e) => `${e.stdout}\n${e.stderr}`.split("\n"))
        .filter((line) => /level=(WARN|ERROR|FATAL)|"level":"(WARN|ERROR|FATAL)"/i.test(line))
        .join("\n")
        .slice(-4000)
      for (const e of exits) expect(`${e.stdout}${e.stderr}`, troubles).not.toContain("Heartbeat pings lost")

      // Drained: nothing was cut short at the origin, and no row is left leased with every worker gone.
      const leftover = yield* Leases.leased(deployment.sql)
      expect(leftover, "rows left leased after the drain").toEqual([])
      expect(
        origin.arrivals.filter((a) => a.aborted),
        "checks cut short"
      ).toEqual([])

      // Pings: every 2xx stored once, none other (the in-flight one included).
      const acknowledged = load.acknowledged()
      const pings = yield* Monitors.storedPings(deployment.sql, [...beats, slow])
      const late = load.answers
        .filter((a) => a.sentAt > signalAt - 3_000)
        .map((a) => `${a.monitorId.slice(-4)} ${a.status} ${a.sentAt - signalAt}..${a.answeredAt - signalAt}`)
      expect(Object.fromEntries(pings), `${late.join("\n")}\n${troubles}`).toEqual(
        Object.fromEntries([...acknowledged, [slow.id, 1]])
      )
      const during = load.answers.filter((a) => a.sentAt < signalAt && a.answeredAt > signalAt)

      // Start again: one api, one worker. The cut-short slots run once their leases lapse; every monitor runs on.
      const api = yield* deployment.api()
      yield* deployment.worker()
      const restarted = Date.now()
      expect((yield* Effect.promise(() => PingLoad.ping(api.baseUrl, slow.id, slow.pingPath))).status).toBe(200)
      yield* eventually(
        Effect.sync(() => monitors.map((m) => completed(origin.of(m.path)).filter((a) => a.at > restarted).length)),
        (counts) => counts.every((n) => n >= 3),
        { timeoutMs: 60_000, intervalMs: 200 }
      )
      // Each monitor's first run after the restart came within a couple of its intervals, not after a lease lapsed.
      const firstAfter = monitors.map((m) => (origin.of(m.path).find((a) => a.at > restarted)?.at ?? 0) - restarted)
      expect(Math.max(...firstAfter), `first runs after the restart (ms): ${firstAfter}`).toBeLessThan(
        INTERVAL_SECS * 1000 * 3
      )
      yield* Monitors.disable(deployment.sql, monitors)
      yield* eventually(
        Effect.sync(() => origin.open().length),
        (n) => n === 0,
        { timeoutMs: 10_000 }
      )

      // Results: every run the origin answered is stored once, before the signal, during the drain and after.
      const counted = (m: Monitors.HttpMonitor) => completed(origin.of(m.path))
      const expected = new Map(monitors.map((m) => [m.id, counted(m).length]))
      const stored = yield* eventually(
        Effect.map(Monitors.results(deployment.sql, monitors), (rows) => Monitors.countBy(monitors, rows)),
        (counts) => monitors.every((m) => counts.get(m.id) === expected.get(m.id)),
        { timeoutMs: 20_000, intervalMs: 250 }
      )
      expect(Object.fromEntries(stored)).toEqual(Object.fromEntries(expected))
      for (const m of monitors) {
        expect(
          Monitors.doubledSlots(
            m.id,
            INTERVAL_SECS,
            counted(m).map((a) => a.at)
          ),
          `${m.path} doubled`
        ).toEqual([])
      }
      yield* Effect.logInfo("SIGTERM to every process").pipe(
        Effect.annotateLogs({
          drain_ms: goneAt - signalAt,
          runs_during_drain: monitors.flatMap((m) => origin.of(m.path)).filter((a) => a.at > signalAt && a.at < goneAt)
            .length,
          pings_in_flight_at_signal: during.length,
          pings_acknowledged: [...acknowledged.values()].reduce((a, b) => a + b, 0),
          results: [...stored.values()].reduce((a, b) => a + b, 0)
        })
      )
    })
  )
})
