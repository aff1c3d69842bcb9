/**
 * The monitoring engine end to end: the worker in the test server (role all) runs real checks against a loopback
 * server on their schedule, stores them, and the reads answer from what was stored; check-now runs and stores one.
 */
import { expect } from "@effect/vitest"
import { DashboardSummary, LatencyByRegion, LatencySeries, ResultPage, Uptime } from "@signalman/core/api/Results"
import { CheckResult } from "@signalman/core/CheckResult"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as CountingOrigin from "../support/CountingOrigin.js"
import { awayFromMinuteEdge, eventually } from "../support/Eventually.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import { bearer, mintToken } from "../support/Identity.js"
import * as TestDatabase from "../support/TestDatabase.js"

/** Results as sent (`checked_at` as the server wrote it, so two compare as strings). */
const asResults = (reply: Http.Body) => Http.wire(reply, ResultPage)

/** Uptime as sent. */
const asUptime = (reply: Http.Body) => Http.wire(reply, Uptime)

const settings = {
  CHECKER__ALLOW_PRIVATE_TARGETS: "true",
  SCHEDULER__POLL_INTERVAL_MS: "100",
  SCHEDULER__REFRESH_SECS: "1",
  PLAN_CACHE_TTL_SECS: "1"
}

// Each test has a server of its own, as before the fixture: the worker's scheduler is the server's, monitors a
// test leaves on a 1-second interval keep it busy, and the tests count runs, schedule rows and checks in flight.
// Check-now tests run an api-only server (ROLE api), so no scheduled run of the new monitor (its first slot falls
// anywhere in its 180 s interval, possibly within the test) adds to what they count.
const alone = (name: string, env: Record<string, string>, tests: Fixture.Tests) =>
  Fixture.describe(
    `monitoring engine: ${name} (${TestDatabase.kind} database)`,
    { env: { ...settings, ...env } },
    tests
  )

// The origin is the test's (it closes with the test's scope); the server and person are the fixture's.
const setup = Effect.gen(function* () {
  const origin = yield* CountingOrigin.make
  const server = yield* Fixture.server
  const alice = yield* Fixture.person()
  const create = (body: Record<string, unknown>) =>
    Effect.gen(function* () {
      const reply = yield* alice.browser.request("/api/v1/targets", { json: body })
      if (reply.status !== 201) return yield* Effect.dieMessage(`create failed: ${reply.status} ${reply.text}`)
      return Http.decode(reply, Target).id
    })
  // The plan floor keeps an API-made interval at minutes; a test moves the row to a 1-second interval by hand, which
  // the schedule trigger follows like any other write.
  const everySecond = (id: string) => server.sql`UPDATE targets SET interval_secs = 1 WHERE id = ${id}`
  // Changes a schedule row only while no worker holds it: the scheduler claims a row up to a second before its due
  // time, and a run claimed before the change would still land after it. Retried (bounded) until the row is free.
  const whileUnleased = (id: string, set: (target: string) => Effect.Effect<ReadonlyArray<unknown>, unknown>) =>
    Effect.gen(function* () {
      const changed = yield* eventually(set(id), (rows) => rows.length === 1, { intervalMs: 50 })
      expect(changed, "the schedule row stayed leased").toHaveLength(1)
    })
  const scheduleOf = (id: string) =>
    server.sql<{ leased_by: string | null; later: boolean; held: boolean }>`
      SELECT leased_by, next_run_at > now() AS later, held FROM schedules WHERE target_id = ${id}
    `
  // Makes monitors due now (to the millisecond, as the scheduler keeps due times), each row changed only while no
  // worker holds it (see whileUnleased), all in one statement so they share the due time. Answers the due time
  // as the database has it.
  const dueNow = (...ids: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      const rows = yield* eventually(
        server.sql<{ due: string; due_ms: number }>`
            UPDATE schedules SET next_run_at = date_trunc('milliseconds', now())
            WHERE target_id IN ${server.sql.in([...ids])}
              AND NOT EXISTS (SELECT 1 FROM schedules l WHERE l.target_id IN ${server.sql.in([...ids])}
                AND l.leased_by IS NOT NULL)
            RETURNING next_run_at::text AS due, (extract(epoch FROM next_run_at) * 1000)::float8 AS due_ms
          `,
        (changed) => changed.length === ids.length,
        { intervalMs: 50 }
      )
      expect(rows, "a schedule row stayed leased").toHaveLength(ids.length)
      return { due: rows[0]?.due ?? "", dueMs: rows[0]?.due_ms ?? 0 }
    })
  const storedCount = (id: string) =>
    Effect.map(
      server.sql<{ n: number }>`SELECT count(*)::int AS n FROM check_results WHERE target_id = ${id}`,
      (rows) => rows[0]?.n ?? 0
    )
  return { origin, server, alice, create, everySecond, whileUnleased, scheduleOf, dueNow, storedCount }
})

alone("scheduled checks", {}, (it) => {
  it.scoped("scheduled checks run on their interval and show in results, latency, uptime and the summary", () =>
    Effect.gen(function* () {
      const { origin, server, alice, create } = yield* setup
      // A new monitor's first slot falls anywhere in its 180 s interval; if a claim (up to a second ahead) took it
      // before the move to 1 s, that run weighs 180 s and up_secs below would not equal checks. Such a monitor (about
      // one in 180) is deleted for another: the move is made only with the row locked, unleased and nothing stored.
      const moveToOneSecond = (target: string) =>
        server.sql.withTransaction(
          Effect.gen(function* () {
            const rows = yield* server.sql<{ leased_by: string | null }>`
              SELECT leased_by FROM schedules WHERE target_id = ${target} FOR UPDATE
            `
            const [stored] = yield* server.sql<{ n: number }>`
              SELECT count(*)::int AS n FROM check_results WHERE target_id = ${target}
            `
            if (rows.length !== 1 || rows[0]?.leased_by !== null || (stored?.n ?? 0) > 0) return false
            yield* server.sql`UPDATE targets SET interval_secs = 1 WHERE id = ${target}`
            return true
          })
        )
      let id = ""
      let since = 0
      for (let attempt = 0; attempt < 5; attempt++) {
        if (id !== "") {
          expect((yield* alice.browser.request(`/api/v1/targets/${id}`, { method: "DELETE" })).status).toBe(204)
        }
        id = yield* create({ name: "Site", check: { type: "http", url: `${origin.base}/site` } })
        const [schedule] = yield* server.sql<{ region: string; interval_secs: number }>`
          SELECT region, interval_secs FROM schedules WHERE target_id = ${id}
        `
        expect(schedule).toEqual({ region: "local", interval_secs: 180 })
        since = Date.now()
        if (yield* moveToOneSecond(id)) break
      }
      const before = origin.count("/site")
      // Two runs stored (the origin sees a request before its result is written), however slow the machine.
      const page = yield* eventually(
        alice.browser.request(`/api/v1/targets/${id}/results?limit=2`),
        (reply) => reply.status === 200 && asResults(reply).total >= 2
      )
      const runs = origin.count("/site") - before
      const elapsedSecs = (Date.now() - since) / 1000
      expect(runs).toBeGreaterThanOrEqual(2)
      // Never more than one run per 1-second slot, none before its due time: at most one per slot of the wait.
      expect(runs).toBeLessThanOrEqual(Math.floor(elapsedSecs) + 2)
      expect(page.status).toBe(200)
      const results = asResults(page)
      expect(results.total).toBeGreaterThanOrEqual(2)
      expect(results.limit).toBe(2)
      expect(results.data).toHaveLength(2)
      expect(results.data[0]).toMatchObject({ status: "up", region: "local", error: null })
      expect(results.data[0]!.checked_at > results.data[1]!.checked_at).toBe(true)
      const none = yield* alice.browser.request(`/api/v1/targets/${id}/results?region=elsewhere`)
      expect(asResults(none).total).toBe(0)

      const latency = Http.decode(yield* alice.browser.request(`/api/v1/targets/${id}/latency`), LatencySeries)
      expect(latency.bucket_secs).toBe(300)
      expect(latency.region).toBeNull()
      const checks = latency.buckets.reduce((n, b) => n + b.checks, 0)
      expect(checks).toBeGreaterThanOrEqual(2)
      expect(latency.buckets[0]!.p50_ms).toBeGreaterThan(0)
      // A missing p50 (already failed above) compares as infinity, so this fails too rather than passing.
      expect(latency.buckets[0]!.p99_ms).toBeGreaterThanOrEqual(latency.buckets[0]!.p50_ms ?? Number.POSITIVE_INFINITY)
      expect(latency.buckets[0]!.phases.connect_ms).toBeGreaterThanOrEqual(0)
      // A week's range reads the hourly rollups, which the same writes filled.
      const week = new Date(Date.now() - 7 * 86_400_000).toISOString()
      const hourly = Http.decode(
        yield* alice.browser.request(`/api/v1/targets/${id}/latency?from=${week}`),
        LatencySeries
      )
      expect(hourly.bucket_secs).toBe(900)
      const month = new Date(Date.now() - 29 * 86_400_000).toISOString()
      const rolled = Http.decode(
        yield* alice.browser.request(`/api/v1/targets/${id}/latency?from=${month}`),
        LatencySeries
      )
      expect(rolled.bucket_secs).toBe(3600)
      expect(rolled.buckets.reduce((n, b) => n + b.checks, 0)).toBeGreaterThanOrEqual(checks)
      expect(rolled.buckets[0]!.p50_ms).toBeGreaterThan(0)

      const byRegion = Http.decode(
        yield* alice.browser.request(`/api/v1/targets/${id}/latency/by-region`),
        LatencyByRegion
      )
      expect(byRegion.regions.map((r) => r.region)).toEqual(["local"])

      const uptime = asUptime(yield* alice.browser.request(`/api/v1/targets/${id}/uptime`))
      expect(uptime).toMatchObject({ uptime_pct: 100, down_secs: 0, excluded_secs: 0, down: 0, region: null })
      expect(uptime.up_secs).toBe(uptime.checks)

      const summary = yield* alice.browser.request("/api/v1/dashboard/summary")
      expect(summary.status).toBe(200)
      expect(summary.headers.get("cache-control")).toBe("private, max-age=5")
      expect(Http.wire(summary, DashboardSummary)).toMatchObject({
        targets: { total: 1, enabled: 1, paused: 0, held: 0 },
        status: { up: 1, down: 0, unknown: 0 },
        last_24h: { uptime_pct: 100 }
      })
    })
  )
})

alone("downtime", {}, (it) => {
  it.scoped("a down target counts as downtime; from after to is 400; another org's target is 404", () =>
    Effect.gen(function* () {
      const { origin, server, alice, create } = yield* setup
      // Made paused and resumed on a 1-second interval in one write: it is never scheduled on its 180 s grid, where
      // a first slot claimed just before a move to 1 s would run weighing 180 s (down_secs would not equal down).
      const id = yield* create({
        name: "Broken",
        enabled: false,
        check: { type: "http", url: `${origin.base}/status/500` }
      })
      yield* server.sql`UPDATE targets SET interval_secs = 1, enabled = true WHERE id = ${id}`
      const uptime = yield* eventually(
        Effect.map(alice.browser.request(`/api/v1/targets/${id}/uptime`), asUptime),
        (u) => u.down >= 1
      )
      expect(uptime.uptime_pct).toBe(0)
      expect(uptime.down).toBeGreaterThanOrEqual(1)
      expect(uptime.down_secs).toBe(uptime.down)

      const backwards = yield* alice.browser.request(
        `/api/v1/targets/${id}/results?from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z`
      )
      expect(backwards.status).toBe(400)
      expect(Http.envelope(backwards)).toMatchObject({ code: "VALIDATION_FAILED", field: "from" })
      const bob = yield* Fixture.person({ label: "bob" })
      for (const path of ["results", "latency", "latency/by-region", "uptime"]) {
        const foreign = yield* bob.browser.request(`/api/v1/targets/${id}/${path}`)
        expect(foreign.status).toBe(404)
        expect(Http.envelope(foreign).code).toBe("NOT_FOUND")
      }
      const foreignNow = yield* bob.browser.request(`/api/v1/targets/${id}/check-now`, { method: "POST" })
      expect(foreignNow.status).toBe(404)
    })
  )
})

alone("unscheduled kinds", {}, (it) => {
  it.scoped("paused, heartbeat and manual monitors are not scheduled; resuming schedules again", () =>
    Effect.gen(function* () {
      const { origin, server, alice, create, everySecond } = yield* setup
      const paused = yield* create({ name: "Paused", enabled: false, check: { type: "http", url: `${origin.base}/p` } })
      yield* create({ name: "Beat", check: { type: "heartbeat", period: 3600, grace: 60 } })
      yield* create({ name: "Hand", check: { type: "manual" } })
      yield* everySecond(paused)
      const rows = yield* server.sql<{ n: number }>`SELECT count(*)::int AS n FROM schedules`
      expect(rows[0]?.n).toBe(0)
      yield* Effect.sleep("2000 millis")
      expect(origin.count("/p")).toBe(0)

      const resumed = yield* alice.browser.request(`/api/v1/targets/${paused}`, {
        method: "PATCH",
        json: { enabled: true }
      })
      expect(resumed.status).toBe(200)
      // The PATCH wrote the plan floor back; the hand-made 1 s interval goes on the row again.
      yield* everySecond(paused)
      expect(
        yield* eventually(
          Effect.sync(() => origin.count("/p")),
          (n) => n >= 1
        )
      ).toBeGreaterThanOrEqual(1)

      const bulk = yield* alice.browser.request("/api/v1/targets/bulk-action", {
        json: { action: "disable", ids: [paused] }
      })
      expect(bulk.status).toBe(200)
      const after = yield* server.sql<{ n: number }>`SELECT count(*)::int AS n FROM schedules`
      expect(after[0]?.n).toBe(0)
    })
  )
})

alone("held monitors", {}, (it) => {
  it.scoped("a held monitor (over the plan's max_targets) does not run", () =>
    Effect.gen(function* () {
      const { origin, server, alice, create, everySecond, scheduleOf } = yield* setup
      const kept = yield* create({ name: "Old", check: { type: "http", url: `${origin.base}/old` } })
      const over = yield* create({ name: "New", check: { type: "http", url: `${origin.base}/new` } })
      // Each test server has a database of its own, so the plan row is this test's to change.
      yield* server.sql`UPDATE plans SET max_targets = 1 WHERE id = 'free'`
      // The refresh runs every second (SCHEDULER__REFRESH_SECS); wait for it, boundedly.
      let held: ReadonlyArray<{ target_id: string; held: boolean }> = []
      for (let i = 0; i < 50 && !held.some((r) => r.held); i++) {
        yield* Effect.sleep("100 millis")
        held = yield* server.sql<{ target_id: string; held: boolean }>`SELECT target_id, held FROM schedules`
      }
      expect(Object.fromEntries(held.map((r) => [r.target_id, r.held]))).toEqual({ [kept]: false, [over]: true })
      // The new monitor's first slot on its 180 s grid may have come before the refresh held it, and a claim made
      // just before the hold (up to a second ahead of the slot) still runs: wait until no worker holds the row (a
      // lease is released only after its run reached the origin), then count only what starts afterwards.
      const free = yield* eventually(scheduleOf(over), (rows) => rows[0]?.leased_by === null)
      expect(free[0]).toMatchObject({ leased_by: null, held: true })
      const before = origin.count("/new")
      yield* everySecond(kept)
      yield* everySecond(over)
      // Two runs of the kept monitor on its 1-second grid: the held one had the same slots and took none.
      yield* eventually(
        Effect.sync(() => origin.count("/old")),
        (n) => n >= 2
      )
      expect(origin.count("/old")).toBeGreaterThanOrEqual(2)
      expect(origin.count("/new")).toBe(before)
      const summary = Http.decode(yield* alice.browser.request("/api/v1/dashboard/summary"), DashboardSummary)
      expect(summary.targets.held).toBe(1)
    })
  )
})

alone("lapsed leases", {}, (it) => {
  it.scoped("a lease left by a crashed worker lapses and the check is picked up", () =>
    Effect.gen(function* () {
      const { origin, server, create, whileUnleased, scheduleOf } = yield* setup
      const id = yield* create({ name: "Orphan", check: { type: "http", url: `${origin.base}/orphan` } })
      // As a worker that died mid-run leaves it: due in the past, leased to someone else, the lease now lapsed. (Made
      // while this worker holds no lease on the row, so its own first slot cannot run on top: see whileUnleased.)
      yield* whileUnleased(
        id,
        (target) => server.sql`
          UPDATE schedules SET next_run_at = now() - interval '10 seconds', leased_by = 'dead-worker',
            leased_until = now() - interval '1 second'
          WHERE target_id = ${target} AND leased_by IS NULL
          RETURNING target_id
        `
      )
      const before = origin.count("/orphan")
      // Picked up, run and released onto its next slot.
      const [row] = yield* eventually(scheduleOf(id), (rows) => rows[0]?.later === true)
      expect(row).toEqual({ leased_by: null, later: true, held: false })
      expect(origin.count("/orphan")).toBe(before + 1)
      // A lease still running is left alone.
      yield* whileUnleased(
        id,
        (target) => server.sql`
          UPDATE schedules SET next_run_at = now() - interval '10 seconds', leased_by = 'live-worker',
            leased_until = now() + interval '1 minute'
          WHERE target_id = ${target} AND leased_by IS NULL
          RETURNING target_id
        `
      )
      yield* Effect.sleep("1500 millis")
      expect(origin.count("/orphan")).toBe(before + 1)
    })
  )

  it.scoped("an interval changed while its run is in flight applies when the run ends, not one old interval on", () =>
    Effect.gen(function* () {
      const { origin, server, create, everySecond } = yield* setup
      const id = yield* create({ name: "Changing", check: { type: "http", url: `${origin.base}/hold/c`, timeout: 60 } })
      // Due now, unless its own first slot has been claimed already: either way one run is soon in flight, held.
      yield* server.sql`
        UPDATE schedules SET next_run_at = date_trunc('milliseconds', now())
        WHERE target_id = ${id} AND leased_by IS NULL
      `
      expect(
        yield* eventually(
          Effect.sync(() => origin.count("/hold/c")),
          (n) => n === 1
        )
      ).toBe(1)
      // 180 s to 1 s while the run holds its lease: the row keeps the due time of the run (it is sooner than the new
      // grid's first slot), so only the release can put it on the new grid.
      yield* everySecond(id)
      origin.release()
      // The old interval would bring the next run 180 s after this one.
      expect(
        yield* eventually(
          Effect.sync(() => origin.count("/hold/c")),
          (n) => n >= 2,
          { timeoutMs: 10_000 }
        )
      ).toBeGreaterThanOrEqual(2)
      origin.release()
    })
  )
})

alone("per-host cap", { CHECKER__PER_HOST_MAX_INFLIGHT: "1" }, (it) => {
  it.scoped("a check over checker.per_host_max_inflight is dropped: nothing sent or stored, the row moves on", () =>
    Effect.gen(function* () {
      const { origin, server, create, dueNow, storedCount } = yield* setup
      // Two monitors of one org on one host and port: while the first is in flight (its answer held back by the
      // origin), the second is over the cap of 1.
      const holder = yield* create({
        name: "Holder",
        check: { type: "http", url: `${origin.base}/hold/a`, timeout: 60 }
      })
      // Due now, unless its own first slot (anywhere in its 180 s interval) has already been claimed: that run
      // holds the host just the same.
      yield* server.sql`
        UPDATE schedules SET next_run_at = date_trunc('milliseconds', now())
        WHERE target_id = ${holder} AND leased_by IS NULL
      `
      expect(
        yield* eventually(
          Effect.sync(() => origin.count("/hold/a")),
          (n) => n === 1
        )
      ).toBe(1)
      // Made only now, so no run of it can come before the host is at the cap.
      const throttled = yield* create({ name: "Throttled", check: { type: "http", url: `${origin.base}/x` } })
      const { due } = yield* dueNow(throttled)
      // Claimed, refused by the throttle at its due time, and released onto its next slot on the grid (the due
      // time plus its interval), the lease cleared and its last status untouched.
      const slot = server.sql<{ leased_by: string | null; next_slot: boolean; last_status: string | null }>`
        SELECT leased_by, next_run_at = ${due}::timestamptz + make_interval(secs => interval_secs) AS next_slot,
          last_status
        FROM schedules WHERE target_id = ${throttled}
      `
      const [row] = yield* eventually(slot, (rows) => rows[0]?.leased_by === null && rows[0]?.next_slot === true)
      expect(row).toEqual({ leased_by: null, next_slot: true, last_status: null })
      expect(origin.count("/x"), "a dropped check sends nothing").toBe(0)
      expect(yield* storedCount(throttled), "a dropped check writes no result").toBe(0)
      expect(yield* storedCount(holder), "the holder is still in flight").toBe(0)

      // Once the holder's check has its answer the host is under the cap again: the same monitor runs and is stored.
      origin.release()
      expect(yield* eventually(storedCount(holder), (n) => n === 1)).toBe(1)
      yield* dueNow(throttled)
      expect(yield* eventually(storedCount(throttled), (n) => n === 1)).toBe(1)
      expect(origin.count("/x")).toBe(1)
    })
  )
})

alone(
  "process bound",
  {
    CHECKER__MAX_CONCURRENCY: "1",
    // Not the per-host cap: the monitors share a host, and this test is about the process's bound.
    CHECKER__PER_HOST_MAX_INFLIGHT: "10"
  },
  (it) => {
    it.scoped("checker.max_concurrency bounds the scheduled checks in flight; those over it wait, none dropped", () =>
      Effect.gen(function* () {
        const { origin, create, dueNow, storedCount } = yield* setup
        // Each answer takes 300 ms, so three checks due together overlap at the origin unless they are held apart.
        const ids: Array<string> = []
        for (let i = 0; i < 3; i++) {
          ids.push(yield* create({ name: `Slow ${i}`, check: { type: "http", url: `${origin.base}/slow/300/${i}` } }))
        }
        yield* dueNow(...ids)
        // (A monitor's own first slot, anywhere in its 180 s interval, may add a run: at least one each.)
        const stored = yield* eventually(Effect.forEach(ids, storedCount), (counts) => counts.every((n) => n >= 1))
        expect(stored.every((n) => n >= 1)).toBe(true)
        expect(ids.every((_, i) => origin.count(`/slow/300/${i}`) >= 1)).toBe(true)
        expect(origin.peak(), "one check in flight at a time").toBe(1)
      })
    )
  }
)

alone("unprepared runs", {}, (it) => {
  it.scoped("a scheduled run that cannot be prepared stores its error result at its due time, and moves on", () =>
    Effect.gen(function* () {
      const { origin, server, alice, create, dueNow } = yield* setup
      const made = yield* alice.browser.request("/api/v1/variables", { json: { key: "page", value: "v" } })
      expect(made.status).toBe(201)
      // Made paused, so no run of it can come before its variable is gone.
      const id = yield* create({
        name: "Vars",
        enabled: false,
        check: { type: "http", url: `${origin.base}/{{page}}` }
      })
      // The API refuses to delete a variable in use; one gone anyway (a hand edit) leaves the reference dangling.
      yield* server.sql`DELETE FROM variables WHERE key = 'page'`
      yield* server.sql`UPDATE targets SET enabled = true WHERE id = ${id}`
      const { due, dueMs } = yield* dueNow(id)
      const page = yield* eventually(
        alice.browser.request(`/api/v1/targets/${id}/results`),
        (reply) => asResults(reply).total >= 1
      )
      const [result] = asResults(page).data
      expect(result).toMatchObject({
        status: "error",
        error: "unresolved variable: {{page}} does not name a variable of this org",
        region: "local"
      })
      expect(Date.parse(result?.checked_at ?? "")).toBeGreaterThanOrEqual(dueMs)
      expect(origin.count("/v")).toBe(0)
      const [row] = yield* eventually(
        server.sql<{ leased_by: string | null; next_slot: boolean; last_status: string | null }>`
          SELECT leased_by, next_run_at = ${due}::timestamptz + make_interval(secs => interval_secs) AS next_slot,
            last_status
          FROM schedules WHERE target_id = ${id}
        `,
        (rows) => rows[0]?.leased_by === null
      )
      expect(row).toEqual({ leased_by: null, next_slot: true, last_status: "error" })
    })
  )
})

alone("check-now", { ROLE: "api" }, (it) => {
  it.scoped("check-now runs the stored check with its credentials, stores and answers the result", () =>
    Effect.gen(function* () {
      const { origin, alice, create } = yield* setup
      const id = yield* create({
        name: "Secret",
        check: { type: "http", url: `${origin.base}/now`, bearer_token: "s3cret" }
      })
      const reply = yield* alice.browser.request(`/api/v1/targets/${id}/check-now`, { method: "POST" })
      expect(reply.status).toBe(200)
      expect(reply.headers.get("cache-control")).toBe("no-store")
      // As sent: the keys below are the wire's own, not what a decode keeps.
      const result = Http.wire(reply, CheckResult)
      expect(result).toMatchObject({ status: "up", region: "local", error: null })
      expect(Object.keys(result).sort()).toEqual(
        ["checked_at", "details", "duration_ms", "error", "phases", "region", "status"].sort()
      )
      expect(origin.count("/now")).toBe(1)
      expect(origin.authorization.get("/now")).toBe("Bearer s3cret")
      const stored = asResults(yield* alice.browser.request(`/api/v1/targets/${id}/results`))
      expect(stored.total).toBe(1)
      expect(stored.data[0]!.checked_at).toBe(result.checked_at)
      // An extra check covers no stretch of the timeline.
      const uptime = asUptime(yield* alice.browser.request(`/api/v1/targets/${id}/uptime`))
      expect(uptime).toMatchObject({ checks: 1, up: 1, up_secs: 0, uptime_pct: null })
    })
  )
})

alone("check-now refusals", { ROLE: "api" }, (it) => {
  it.scoped("check-now refuses heartbeat and manual (422), a read-only token (403) and past the budget (429)", () =>
    Effect.gen(function* () {
      const { origin, server, alice, create } = yield* setup
      for (const check of [{ type: "heartbeat", period: 3600, grace: 60 }, { type: "manual" }]) {
        const id = yield* create({ name: "No probe", check })
        const reply = yield* alice.browser.request(`/api/v1/targets/${id}/check-now`, { method: "POST" })
        expect(reply.status).toBe(422)
        expect(Http.envelope(reply).code).toBe("HEARTBEAT_NOT_PROBEABLE")
      }
      const id = yield* create({ name: "Budget", check: { type: "http", url: `${origin.base}/budget` } })
      const reader = yield* mintToken(alice, { scopes: ["targets:read"] })
      const refused = yield* bearer(server, reader.token, `/api/v1/targets/${id}/check-now`, { method: "POST" })
      expect(refused.status).toBe(403)
      expect(origin.count("/budget")).toBe(0)

      yield* server.sql`UPDATE plans SET check_now_per_minute = 2 WHERE id = 'free'`
      yield* Effect.sleep("1100 millis")
      // The budget counts per wall-clock minute: the four calls below must fall in one window.
      yield* awayFromMinuteEdge(10)
      const statuses: Array<number> = []
      for (let i = 0; i < 3; i++) {
        statuses.push((yield* alice.browser.request(`/api/v1/targets/${id}/check-now`, { method: "POST" })).status)
      }
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1)
      const limited = yield* alice.browser.request(`/api/v1/targets/${id}/check-now`, { method: "POST" })
      expect(limited.status).toBe(429)
      expect(Http.envelope(limited).code).toBe("RATE_LIMITED")
      expect(origin.count("/budget")).toBe(statuses.filter((s) => s === 200).length)
    })
  )
})
