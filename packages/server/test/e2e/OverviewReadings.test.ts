/**
 * The engine's batched reads behind the monitors overview and its live stream, on the server's database: many
 * monitors' states in one statement (the worst region's scheduled verdict, else the latest result; heartbeat and
 * manual monitors from their own state rows; paused; held), their figures in three (the latest results, hourly
 * response times, uptime over 24 hours and 30 days from the rollups the result store writes), and which monitors of
 * some orgs changed since a moment.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { expect } from "@effect/vitest"
import { CheckResult, type CheckStatus } from "@signalman/core/CheckResult"
import { Target } from "@signalman/core/Target"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { EvidenceRepo } from "../../src/engine/EvidenceRepo.js"
import { Readings } from "../../src/engine/Readings.js"
import { ResultObservers } from "../../src/engine/ResultObservers.js"
import { type Pending, ResultStore } from "../../src/engine/ResultStore.js"
import { UptimeExclusions } from "../../src/engine/UptimeExclusions.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import * as TestDatabase from "../support/TestDatabase.js"

const MINUTE = 60_000
const HOUR = 60 * MINUTE

// No scheduler runs (role api): the results are the test's alone.
const settings = { ROLE: "api" }

/** The server's own readings and result store on its database client, uptime excluding nothing. */
const engineOn = (sql: SqlClient.SqlClient) =>
  Layer.mergeAll(Readings.Default, ResultStore.Default, EvidenceRepo.Default).pipe(
    Layer.provide(Layer.succeed(ResultObservers, { observe: () => Effect.void })),
    Layer.provide(Layer.succeed(UptimeExclusions, { periods: () => Effect.succeed([]) })),
    Layer.provide(Layer.succeed(SqlClient.SqlClient, sql))
  )

const setup = Effect.gen(function* () {
  const server = yield* Fixture.server
  const alice = yield* Fixture.person()
  const create = (body: Record<string, unknown>) =>
    Effect.map(alice.api("/api/v1/targets", { json: body }), (reply) => Http.expectOk(reply, Target, 201).id)
  const result = (
    targetId: string,
    at: number,
    status: CheckStatus,
    extra: { readonly region?: string; readonly durationMs?: number; readonly weightSecs?: number } = {}
  ): Pending => ({
    targetId,
    orgId: alice.org.id,
    kind: "http",
    source: "scheduled",
    blocked: false,
    weightSecs: extra.weightSecs ?? 60,
    result: new CheckResult({
      status,
      duration_ms: extra.durationMs ?? 100,
      error: status === "up" ? null : `went ${status}`,
      details: {},
      phases: null,
      checked_at: DateTime.unsafeMake(at),
      region: extra.region ?? "local"
    })
  })
  return { server, alice, create, result, engine: engineOn(server.sql) }
})

Fixture.describe(`overview readings (${TestDatabase.kind} database)`, { env: settings }, (it) => {
  it.effect("figures of many monitors at once: latest results oldest first, hourly means, uptime from rollups", () =>
    Effect.gen(function* () {
      const { create, result, engine } = yield* setup
      const a = yield* create({ name: "A", check: { type: "http", url: "https://a.example.com" } })
      const b = yield* create({ name: "B", check: { type: "http", url: "https://b.example.com" } })
      const c = yield* create({ name: "C", check: { type: "http", url: "https://c.example.com" } })
      const now = Date.now()
      // A: 40 results a minute apart over two regions, the newest down; B: three hours ago, 300 ms and 100 ms; C: none.
      const batch = [
        ...Array.from({ length: 40 }, (_, i) =>
          result(a, now - (40 - i) * MINUTE, i === 39 ? "down" : "up", {
            region: i % 2 === 0 ? "local" : "eu",
            durationMs: 100 + i
          })
        ),
        result(b, now - 3 * HOUR, "up", { durationMs: 300, weightSecs: 300 }),
        result(b, now - 3 * HOUR + MINUTE, "up", { durationMs: 100, weightSecs: 300 }),
        // Forty days ago: outside both windows.
        result(b, now - 40 * 24 * HOUR, "down", { weightSecs: 300 })
      ]
      const figures = yield* Effect.gen(function* () {
        const store = yield* ResultStore
        yield* store.write(batch)
        return yield* (yield* Readings).figures([a, b, c], new Date(now))
      }).pipe(Effect.provide(engine))

      const ofA = figures.get(a)
      expect(ofA?.recent).toHaveLength(30)
      const times = ofA?.recent.map((r) => r.at.getTime()) ?? []
      expect(times).toEqual([...times].sort((x, y) => x - y))
      expect(times.at(-1)).toBe(now - MINUTE)
      expect(ofA?.recent.at(-1)).toMatchObject({ status: "down", error: "went down", durationMs: 139 })
      expect(new Set(ofA?.recent.map((r) => r.region))).toEqual(new Set(["local", "eu"]))
      // 39 minutes up, one down, all within the day.
      expect(ofA?.uptimeDay).toBeCloseTo((100 * 39) / 40)
      expect(ofA?.uptimeMonth).toBeCloseTo((100 * 39) / 40)

      const ofB = figures.get(b)
      // The bar shows what is recent: the last 32 intervals per region, at least a day; the forty-day-old result is not.
      expect(ofB?.recent.map((r) => r.status)).toEqual(["up", "up"])
      expect(ofB?.uptimeDay).toBe(100)
      expect(ofB?.uptimeMonth).toBe(100)
      const measured = ofB?.hours.filter((h) => h.meanMs !== null) ?? []
      // Both fall in one hour, or in two when the three-hours-ago minute straddles an hour.
      expect(measured.reduce((sum, h) => sum + (h.meanMs ?? 0), 0)).toBeGreaterThanOrEqual(200)
      expect(ofB?.hours).toHaveLength(25)

      expect(figures.get(c)).toMatchObject({ recent: [], uptimeDay: null, uptimeMonth: null })
      expect(figures.get(c)?.hours.every((h) => h.meanMs === null)).toBe(true)
    })
  )

  it.effect("states of many monitors at once, each kind read where it is kept", () =>
    Effect.gen(function* () {
      const { server, alice, create, result, engine } = yield* setup
      const worst = yield* create({ name: "worst", check: { type: "http", url: "https://w.example.com" } })
      const fresh = yield* create({ name: "fresh", check: { type: "http", url: "https://f.example.com" } })
      const nowOnly = yield* create({ name: "now only", check: { type: "http", url: "https://n.example.com" } })
      const paused = yield* create({
        name: "paused",
        check: { type: "http", url: "https://p.example.com" },
        enabled: false
      })
      const beat = yield* create({ name: "beat", check: { type: "heartbeat", period: 3600, grace: 60 } })
      const hand = yield* create({ name: "hand", check: { type: "manual" } })
      const set = yield* create({ name: "set", check: { type: "manual" } })
      // Two regions' verdicts: the worst stands for the monitor.
      yield* server.sql`
        INSERT INTO schedules (target_id, region, interval_secs, next_run_at, last_status)
        VALUES (${worst}, 'eu', 300, now() + interval '5 minutes', 'degraded')
      `.pipe(Effect.orDie)
      yield* server.sql`UPDATE schedules SET last_status = 'up' WHERE target_id = ${worst} AND region = 'local'`.pipe(
        Effect.orDie
      )
      yield* server.sql`UPDATE schedules SET held = true WHERE target_id = ${fresh}`.pipe(Effect.orDie)
      const put = yield* alice.api(`/api/v1/targets/${set}/state`, { method: "PUT", json: { status: "down" } })
      expect(put.status, put.text).toBe(200)
      const [states, ofOrg] = yield* Effect.gen(function* () {
        yield* (yield* ResultStore).write([result(nowOnly, Date.now() - MINUTE, "error")])
        const readings = yield* Readings
        return [
          yield* readings.states([worst, fresh, nowOnly, paused, beat, hand, set, crypto.randomUUID()]),
          yield* readings.statesOfOrg(alice.org.id)
        ] as const
      }).pipe(Effect.provide(engine))
      // The org's every monitor, read by org, says the same.
      expect(ofOrg).toEqual(states)
      expect(Object.fromEntries([...states.values()].map((s) => [s.id, [s.kind, s.state, s.held]]))).toEqual({
        [worst]: ["http", "degraded", false],
        [fresh]: ["http", "pending", true],
        [nowOnly]: ["http", "error", false],
        [paused]: ["http", "paused", false],
        [beat]: ["heartbeat", "pending", false],
        [hand]: ["manual", "up", false],
        [set]: ["manual", "down", false]
      })
    })
  )

  it.effect("changes: the org's monitors with a result or a row change after the floor, and no other", () =>
    Effect.gen(function* () {
      const { alice, create, result, engine } = yield* setup
      const other = yield* Fixture.person()
      const recent = yield* create({ name: "recent", check: { type: "http", url: "https://r.example.com" } })
      const old = yield* create({ name: "old", check: { type: "http", url: "https://o.example.com" } })
      const floor = Date.now() - 2 * MINUTE
      const foreign = Http.expectOk(
        yield* other.api("/api/v1/targets", { json: { name: "theirs", check: { type: "manual" } } }),
        Target,
        201
      ).id
      const changes = yield* Effect.gen(function* () {
        yield* (yield* ResultStore).write([
          result(recent, Date.now() - 3 * MINUTE, "up"),
          result(recent, Date.now() - MINUTE, "down"),
          result(old, Date.now() - 10 * MINUTE, "up")
        ])
        return yield* (yield* Readings).changes([alice.org.id], new Date(floor))
      }).pipe(Effect.provide(engine))
      const byId = new Map(changes.map((c) => [c.id, c]))
      // Both were created after the floor (their rows changed then); only one has a result after it.
      expect(byId.get(recent)?.latest?.getTime()).toBeGreaterThan(floor)
      expect(byId.get(old)?.latest).toBeNull()
      expect(byId.has(foreign)).toBe(false)
      expect(changes.every((c) => c.org_id === alice.org.id)).toBe(true)
      // A floor after every change leaves nothing.
      const later = yield* Effect.flatMap(Readings, (r) =>
        r.changes([alice.org.id], new Date(Date.now() + MINUTE))
      ).pipe(Effect.provide(engine))
      expect(later).toEqual([])
    })
  )
})
