/**
 * Fault: the clock of one worker 30 s off (issue 20; docs/faults.md, "One worker's clock 30 s off").
 *
 * Two worker processes share one PostgreSQL (and an api process signs the test's person in and serves the reads).
 * One worker runs with its clock shifted 30 s ahead, or 30 s behind, by a preload (`support/ShiftedClock.mjs`):
 * `Date` and so Effect's `Clock` read the shifted time in the whole process, as on a machine whose NTP failed.
 * The database's clock and the other worker's are right. Under load (40 monitors on a 2 s interval for 14 s, on a
 * loopback origin that records when each request came, on the test's own clock, which is right), the test asserts:
 * - leases stay exclusive: no monitor's slot is run twice (two runs of a monitor never fall in one slot of its grid);
 * - every slot in the window runs (a skipped slot is at most one per monitor, and rare: the machine is loaded);
 * - each run has exactly one stored result, stamped within a quarter second before to 2 s after the origin saw it
 *   (not 30 s off);
 * - both workers ran checks (each one's `signalman_checks_total`), and between them exactly the stored results;
 * - heartbeats are judged on the database's time: those pinged within their window (period 4 s + grace 2 s, a
 *   ping every 1.5 s) stay up, and one pinged once goes down no sooner than 6 s after that ping and within a few
 *   evaluation passes of it (a worker 30 s ahead judging by its own clock turned every one of them down at once).
 *
 * No time scaling: the skew is the real 30 s, the intervals are short so that the window holds many slots.
 */

import type * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { ResultPage } from "@signalman/core/api/Results"
import { TargetBatch } from "@signalman/core/api/Targets"
import { HeartbeatRecord } from "@signalman/core/heartbeat/HeartbeatRecord"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Slots from "../../src/engine/Slots.js"
import { eventually } from "../support/Eventually.js"
import * as Http from "../support/Http.js"
import type { Person } from "../support/Identity.js"
import * as ProbeOrigin from "../support/ProbeOrigin.js"
import * as Prometheus from "../support/Prometheus.js"
import type * as ServerProcess from "../support/ServerProcess.js"
import * as TestDatabase from "../support/TestDatabase.js"
import * as Deployment from "./support/Deployment.js"
import * as ShiftedClock from "./support/ShiftedClock.js"

const SKEW_MS = 30_000
const MONITORS = 40
const INTERVAL_SECS = 2
const WINDOW_MS = 14_000
/** Heartbeats: a window of period + grace far below the API's floors (set by hand), pinged well inside it. */
const BEAT_PERIOD_SECS = 4
const BEAT_GRACE_SECS = 2
const STEADY_BEATS = 3
const PING_EVERY = "1500 millis"
/** Evaluation passes come every 5 s on each worker; a late one on a loaded machine, and the observer's read. */
const BEAT_DOWN_WITHIN_MS = (BEAT_PERIOD_SECS + BEAT_GRACE_SECS) * 1000 + 5000 + 4000

/** The first line a server process logs, as far as this test reads it: when, on the process's clock. */
const UpLine = Schema.parseJson(Schema.Struct({ timestamp: Schema.String, message: Schema.String }))

/** The worker's clock as its own "up" log line shows it, less the test's clock when that line was read. */
const loggedSkew = (server: ServerProcess.ServerProcess, readAt: number) => {
  const line = server
    .stdout()
    .split("\n")
    .find((l) => l.includes("Signalman is up"))
  const up = Schema.decodeUnknownSync(UpLine)(line)
  return Date.parse(up.timestamp) - readAt
}

/** Scheduled http checks this worker ran and stored (its own scrape: every process keeps its own counters; its
 * heartbeat evaluations count there too, as kind heartbeat). */
const checksRun = (server: ServerProcess.ServerProcess) =>
  Effect.map(Http.request(`${server.baseUrl}/metrics`), (reply) => {
    expect(reply.status, reply.text).toBe(200)
    return Prometheus.total(Prometheus.parseText(reply.text), "signalman_checks_total", {
      region: "local",
      kind: "http"
    })
  })

/**
 * The heartbeats of a run: `STEADY_BEATS` to ping through the window and one to leave silent, each with its ping on
 * the api process, their windows and evaluation cadence (1 s) set by hand below the API's floors.
 */
const heartbeats = (person: Person, api: ServerProcess.ServerProcess, sql: SqlClient.SqlClient) =>
  Effect.gen(function* () {
    const names = [...Array.from({ length: STEADY_BEATS }, (_, i) => `steady-${i}`), "silent"]
    const made = Http.expectOk(
      yield* person.browser.request("/api/v1/targets/bulk", {
        json: { targets: names.map((name) => ({ name, check: { type: "heartbeat", period: 3600, grace: 300 } })) }
      }),
      TargetBatch,
      201
    )
    const ids = made.data.map((t) => t.id)
    yield* sql`
      UPDATE targets SET interval_secs = 1,
        check_spec = check_spec || jsonb_build_object('period', ${BEAT_PERIOD_SECS}::int, 'grace', ${BEAT_GRACE_SECS}::int)
      WHERE id IN ${sql.in(ids)}
    `
    const beats = yield* Effect.forEach(ids, (id) =>
      Effect.map(person.browser.request(`/api/v1/targets/${id}/heartbeat`), (reply) => {
        const record = Http.expectOk(reply, HeartbeatRecord)
        const url = `${api.baseUrl}${new URL(record.ping_url).pathname}`
        return { id, ping: Effect.map(Http.request(url), (r) => r.status) }
      })
    )
    const silent = beats[beats.length - 1]
    if (silent === undefined) return yield* Effect.die("no heartbeats made")
    return { steady: beats.slice(0, -1), silent }
  })

const skewed = (skewMs: number) =>
  Effect.gen(function* () {
    const db = yield* TestDatabase.acquire
    const origin = yield* ProbeOrigin.make
    // The fault suite's settings, and the metrics each worker's checks are counted by.
    const deployment = yield* Deployment.open(db.url ?? TestDatabase.adminUrl, { METRICS__ENABLED: "true" })
    const sql = deployment.sql
    const api = yield* deployment.api()
    // The preload took: each worker's "up" line, read as soon as it came, is stamped `skewMs` off the test's clock
    // for the shifted one and on it for the other (give or take the time the line took to come through).
    const right = yield* deployment.worker()
    expect(Math.abs(loggedSkew(right, Date.now()))).toBeLessThan(3000)
    const off = yield* deployment.worker(ShiftedClock.env(skewMs))
    expect(Math.abs(loggedSkew(off, Date.now()) - skewMs)).toBeLessThan(3000)
    // On the pro plan: room for the monitors.
    const person = yield* deployment.signIn(api)
    const paths = Array.from({ length: MONITORS }, (_, i) => `/m/skew-${i}`)
    const made = Http.expectOk(
      yield* person.browser.request("/api/v1/targets/bulk", {
        json: {
          targets: paths.map((path) => ({
            name: path,
            enabled: false,
            check: { type: "http", url: `${origin.base}${path}`, timeout: 10 }
          }))
        }
      }),
      TargetBatch,
      201
    )
    const monitors = made.data.map((target, i) => ({ id: target.id, path: paths[i] ?? "" }))
    const ids = monitors.map((m) => m.id)

    // Heartbeats: the steady ones pinged every 1.5 s through the api process (whose clock is right) while the window
    // lasts, the silent one once; every first ping turns its monitor up.
    const beats = yield* heartbeats(person, api, sql)
    const silentPingedAt = Date.now()
    for (const beat of [...beats.steady, beats.silent]) expect(yield* beat.ping).toBe(200)
    const beatIds = [...beats.steady, beats.silent].map((b) => b.id)
    const downAt = new Map<string, number>()
    const observe = Effect.gen(function* () {
      const rows = yield* sql<{ target_id: string; verdict: string }>`
        SELECT target_id::text AS target_id, verdict FROM heartbeat_states WHERE target_id IN ${sql.in(beatIds)}
      `
      const seenAt = Date.now()
      for (const row of rows)
        if (row.verdict === "down" && !downAt.has(row.target_id)) downAt.set(row.target_id, seenAt)
    })
    const observer = yield* Effect.forkScoped(Effect.repeat(observe, Schedule.spaced("200 millis")))
    const pinger = yield* Effect.forkScoped(
      Effect.repeat(
        Effect.forEach(beats.steady, (beat) => beat.ping, { discard: true }),
        Schedule.spaced(PING_EVERY)
      )
    )

    // An interval far below the API's floor, by hand.
    const enabledAt = Date.now()
    yield* sql`UPDATE targets SET interval_secs = ${INTERVAL_SECS}, enabled = true WHERE id IN ${sql.in(ids)}`
    // Real time must pass for the slots to come due; the two workers claim and run meanwhile.
    yield* Effect.sleep(`${WINDOW_MS} millis`)
    yield* sql`UPDATE targets SET enabled = false WHERE id IN ${sql.in(ids)}`
    const disabledAt = Date.now()

    const stored = (id: string) =>
      Effect.map(person.browser.request(`/api/v1/targets/${id}/results?region=local&limit=500`), (reply) =>
        Http.expectOk(reply, ResultPage)
          .data.map((r) => DateTime.toEpochMillis(r.checked_at))
          .sort((a, b) => a - b)
      )
    const storedAll = Effect.forEach(monitors, (m) => Effect.map(stored(m.id), (t) => [m.path, t] as const), {
      concurrency: 8
    }).pipe(Effect.map((entries) => new Map(entries)))
    // Runs claimed before the disable (a second ahead at most) still run and are stored: wait until every run the
    // origin saw has its result, and no run is open.
    const results = yield* eventually(
      storedAll,
      (r) =>
        Date.now() > disabledAt + 2000 &&
        origin.open().length === 0 &&
        monitors.every((m) => r.get(m.path)?.length === origin.of(m.path).length),
      { timeoutMs: 30_000, intervalMs: 500 }
    )

    // The silent heartbeat's silence is noticed, on the database's time; the steady ones never went down meanwhile.
    yield* eventually(
      Effect.sync(() => downAt.get(beats.silent.id)),
      (at) => at !== undefined,
      { timeoutMs: Math.max(0, silentPingedAt + BEAT_DOWN_WITHIN_MS - Date.now()) + 2000, intervalMs: 200 }
    )
    yield* observe
    yield* Fiber.interrupt(pinger)
    yield* Fiber.interrupt(observer)
    const silentDown = (downAt.get(beats.silent.id) ?? Number.POSITIVE_INFINITY) - silentPingedAt
    expect(silentDown, "the silent heartbeat went down (ms after its ping)").toBeGreaterThanOrEqual(
      (BEAT_PERIOD_SECS + BEAT_GRACE_SECS) * 1000
    )
    expect(silentDown, "the silent heartbeat went down (ms after its ping)").toBeLessThanOrEqual(BEAT_DOWN_WITHIN_MS)
    for (const beat of beats.steady)
      expect(downAt.get(beat.id), `steady heartbeat ${beat.id} went down`).toBeUndefined()

    const period = INTERVAL_SECS * 1000
    let runs = 0
    let skipped = 0
    for (const m of monitors) {
      const arrivals = origin.of(m.path).map((a) => a.at)
      runs += arrivals.length
      const phase = Slots.phaseMs(m.id, INTERVAL_SECS)
      // The slot a run belongs to: the last slot of its grid at or before it (a timer may fire a few ms early).
      const slots = arrivals.map((at) => Math.floor((at + 50 - phase) / period))
      // Exclusive: two runs of a monitor never share a slot (a release follows its run, so runs one after another
      // fall in different slots however late each is; two workers running one slot would share it).
      expect(new Set(slots).size, `${m.path}: ${arrivals}`).toBe(arrivals.length)
      // Every slot from the first to the last ran: a skipped one is a run late by a whole interval.
      const first = slots[0] ?? 0
      const last = slots[slots.length - 1] ?? 0
      skipped += last - first + 1 - slots.length
      // The slots of the window ran: a worker 30 s behind would hold its claims for 30 s, one 30 s ahead would
      // move its rows 30 s on; either shows as runs missing here.
      expect(arrivals.length, `${m.path}: ${arrivals}`).toBeGreaterThanOrEqual(Math.floor(WINDOW_MS / period) - 2)
      expect(arrivals.length, m.path).toBeLessThanOrEqual(Math.ceil((disabledAt - enabledAt) / period) + 2)
      // One result per run, stamped when it ended on the database's time, not the skewed worker's own: give or
      // take the width of the worker's estimate of the offset (a claim's round trip at worst; a loaded machine's
      // can be a tenth of a second or more).
      const times = results.get(m.path) ?? []
      expect(times, m.path).toHaveLength(arrivals.length)
      times.forEach((checkedAt, i) => {
        const at = arrivals[i] ?? 0
        expect(checkedAt - at, `${m.path} run ${i}`).toBeGreaterThanOrEqual(-250)
        expect(checkedAt - at, `${m.path} run ${i}`).toBeLessThan(2000)
      })
    }
    expect(skipped).toBeLessThanOrEqual(Math.ceil(runs / 40))
    // Both workers took part, and between them ran exactly the stored results.
    const byRight = yield* checksRun(right)
    const byOff = yield* checksRun(off)
    expect(byOff, "runs on the skewed worker").toBeGreaterThan(runs / 10)
    expect(byRight, "runs on the other worker").toBeGreaterThan(runs / 10)
    expect(byRight + byOff).toBe(runs)
  })

describe("one worker's clock 30 s off, two workers on one PostgreSQL", () => {
  it.scopedLive("30 s ahead: leases stay exclusive, every slot runs once, results keep the right time", () =>
    skewed(SKEW_MS)
  )
  it.scopedLive("30 s behind: leases stay exclusive, every slot runs once, results keep the right time", () =>
    skewed(-SKEW_MS)
  )
})
