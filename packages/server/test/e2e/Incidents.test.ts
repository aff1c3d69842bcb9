/**
 * Incidents end to end: the incident writer driven with synthetic check results and explicit clock times (the
 * scheduler that will feed it is not part of this service yet), the rows and notices it writes, and the incident
 * endpoints with every refusal.
 */
import { assert, expect } from "@effect/vitest"
import {
  DeliveryLog,
  IncidentDetail,
  IncidentMetrics,
  IncidentPage,
  IncidentPeriodPage,
  IncidentUpdate,
  Postmortem
} from "@signalman/core/api/Incidents"
import type { CheckStatus } from "@signalman/core/CheckResult"
import { Target } from "@signalman/core/Target"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import type { IncidentWriter } from "../../src/incidents/IncidentWriter.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import { bearer, mintToken, type Person } from "../support/Identity.js"
import * as IncidentWriting from "../support/IncidentWriting.js"
import * as TestDatabase from "../support/TestDatabase.js"
import type * as TestServer from "../support/TestServer.js"

// A one-second plan cache, so a test can change a plan flag and see it take effect; no background clock
// passes, so the test alone says when time moves.
const settings = { PLAN_CACHE_TTL_SECS: "1", INCIDENTS__TICK_INTERVAL_SECS: "0" }

const setup = Effect.gen(function* () {
  const server = yield* Fixture.server
  const alice = yield* Fixture.person({ label: "alice" })
  // The writer the worker runs, built here over the server's own database client.
  const writer = yield* IncidentWriting.writer(server)
  return { server, alice, writer }
})

/** An incident with its timeline as sent (instants as the server wrote them, to compare with `iso`). */
const asIncident = (reply: Http.Body) => Http.wire(reply, IncidentDetail)

const T0 = DateTime.unsafeMake("2025-03-01T10:00:00.000Z")
const at = (seconds: number) => DateTime.add(T0, { seconds })
const iso = (seconds: number) => DateTime.formatIso(at(seconds))

const createTarget = (person: Person, body: Record<string, unknown> = {}) =>
  Effect.map(
    person.browser.request("/api/v1/targets", {
      json: { name: "shop", check: { type: "http", url: "https://shop.example.com" }, ...body }
    }),
    (reply) => {
      expect(reply.status, reply.text).toBe(201)
      return Http.wire(reply, Target)
    }
  )

const result = (status: CheckStatus, seconds: number) => ({
  _tag: "Result" as const,
  region: "local",
  status,
  error: status === "up" ? null : "connection refused",
  checked_at: at(seconds)
})

type Writer = Effect.Effect.Success<typeof IncidentWriter>

/** Folds a result taken at T0 + seconds, the clock standing at the same moment. */
const observe = (writer: Writer, targetId: string, status: CheckStatus, seconds: number) =>
  writer.observe(targetId, result(status, seconds), { now: at(seconds) })

const notices = (server: TestServer.Running, targetId: string) =>
  server.sql<{ kind: string; reminder: number; dedupe_key: string; incident_id: string }>`
    SELECT kind, (payload->>'reminder')::int AS reminder, dedupe_key, incident_id::text AS incident_id FROM notices
    WHERE target_id = ${targetId} ORDER BY created_at, reminder
  `

const list = (person: Person, query = "") =>
  Effect.map(person.browser.request(`/api/v1/incidents${query}`), (reply) => {
    expect(reply.status, reply.text).toBe(200)
    return Http.wire(reply, IncidentPage)
  })

const detail = (person: Person, id: string) =>
  Effect.map(person.browser.request(`/api/v1/incidents/${id}`), (reply) => {
    expect(reply.status, reply.text).toBe(200)
    return asIncident(reply)
  })

const post = (person: Person, path: string, json?: unknown) =>
  person.browser.request(path, json === undefined ? { method: "POST" } : { json })

const wakeAt = (server: TestServer.Running, targetId: string) =>
  Effect.map(
    server.sql<{ wake_at: Date | null }>`SELECT wake_at FROM incident_engine WHERE target_id = ${targetId}`,
    (rows) => rows[0]?.wake_at?.toISOString() ?? null
  )

// `tickDue` ticks every due monitor of the server and the tests share one synthetic clock (T0), so a test that
// counts what a tick did has a server of its own; so does one that changes a plan flag or runs the clock loop.
Fixture.describe(`incidents, reminders (${TestDatabase.kind} database)`, { env: settings }, (it) => {
  it.effect(
    "opens after alert_confirmations failures; reminders at wake_at with doubling gaps; acknowledge stops them; resolve closes and notifies",
    () =>
      Effect.gen(function* () {
        const { server, alice, writer } = yield* setup
        const target = yield* createTarget(alice, { alert_confirmations: 2, renotify_interval_secs: 600 })

        yield* observe(writer, target.id, "down", 0)
        expect((yield* list(alice)).total).toBe(0)
        yield* observe(writer, target.id, "down", 30)
        const opened = yield* list(alice, "?status=open")
        expect(opened.total).toBe(1)
        const incident = opened.data[0]
        assert.isDefined(incident)
        expect(incident).toMatchObject({
          origin: "monitor",
          status: "open",
          target_id: target.id,
          number: 1,
          title: "shop",
          impact: "major_outage",
          components: [target.id],
          started_at: iso(0),
          ended_at: null,
          acknowledged_at: null,
          recovering_since: null,
          recovered: []
        })
        expect((yield* detail(alice, incident.id)).updates).toEqual([
          expect.objectContaining({ kind: "note", phase: null, message: "Incident opened: major outage" })
        ])
        expect((yield* notices(server, target.id)).map((n) => n.kind)).toEqual(["opened"])
        expect((yield* notices(server, target.id))[0]).toMatchObject({
          dedupe_key: "incident/1/notify/opened",
          incident_id: incident.id
        })
        // The first reminder one interval after the open, counted from when the open was judged.
        expect(yield* wakeAt(server, target.id)).toBe(iso(630))

        expect(yield* writer.tickDue({ now: at(629) })).toBe(0)
        expect(yield* writer.tickDue({ now: at(630) })).toBe(1)
        expect((yield* notices(server, target.id)).map((n) => [n.kind, n.reminder])).toEqual([
          ["opened", 0],
          ["reminder", 1]
        ])
        // The gap doubles: 1200 s after the first reminder.
        expect(yield* wakeAt(server, target.id)).toBe(iso(1830))
        expect(yield* writer.tickDue({ now: at(1829) })).toBe(0)
        expect(yield* writer.tickDue({ now: at(1830) })).toBe(1)
        expect((yield* notices(server, target.id)).length).toBe(3)

        const acknowledged = yield* post(alice, `/api/v1/incidents/${incident.id}/acknowledge`)
        expect(acknowledged.status, acknowledged.text).toBe(200)
        const me = alice.userId
        expect(asIncident(acknowledged)).toMatchObject({ status: "open", acknowledged_by: me })
        expect(asIncident(acknowledged).acknowledged_at).not.toBeNull()
        expect(yield* wakeAt(server, target.id)).toBeNull()
        expect(yield* writer.tickDue({ now: at(100_000) })).toBe(0)
        expect((yield* notices(server, target.id)).length).toBe(3)
        // Acknowledging again changes nothing.
        const again = yield* post(alice, `/api/v1/incidents/${incident.id}/acknowledge`)
        expect(asIncident(again).acknowledged_at).toBe(asIncident(acknowledged).acknowledged_at)

        const resolved = yield* post(alice, `/api/v1/incidents/${incident.id}/resolve`)
        expect(resolved.status, resolved.text).toBe(200)
        expect(asIncident(resolved)).toMatchObject({ status: "closed", close_reason: "resolved", resolved_by: me })
        expect(asIncident(resolved).updates.map((u) => u.message)).toEqual([
          "Incident opened: major outage",
          "Acknowledged",
          "Resolved"
        ])
        expect((yield* notices(server, target.id)).map((n) => n.kind)).toEqual([
          "opened",
          "reminder",
          "reminder",
          "resolved"
        ])
        expect((yield* list(alice, "?status=open")).total).toBe(0)
        expect((yield* list(alice, "?status=closed")).total).toBe(1)

        // After a resolve, failures must confirm afresh: one more failure opens nothing, two open incident 2.
        yield* observe(writer, target.id, "down", 40_000)
        expect((yield* list(alice, "?status=open")).total).toBe(0)
        yield* observe(writer, target.id, "degraded", 40_060)
        const second = (yield* list(alice, "?status=open")).data[0]
        expect(second).toMatchObject({ number: 2, started_at: iso(40_000) })
      })
  )
})

Fixture.describe(`incidents, recovery (${TestDatabase.kind} database)`, { env: settings }, (it) => {
  it.effect(
    "recovery_period: recovering_since while waiting, a confirmed failure resumes and lists the stretch, the wait's end closes dated to the recovery",
    () =>
      Effect.gen(function* () {
        const { server, alice, writer } = yield* setup
        const target = yield* createTarget(alice, {
          alert_confirmations: 1,
          recovery_period_secs: 180,
          renotify_interval_secs: 0
        })
        yield* observe(writer, target.id, "down", 0)
        const id = (yield* list(alice)).data[0]?.id ?? ""
        yield* observe(writer, target.id, "up", 60)
        expect(yield* detail(alice, id)).toMatchObject({ status: "open", recovering_since: iso(60) })
        expect(yield* wakeAt(server, target.id)).toBe(iso(240))
        yield* observe(writer, target.id, "down", 120)
        expect(yield* detail(alice, id)).toMatchObject({
          status: "open",
          recovering_since: null,
          recovered: [{ from: iso(60), until: iso(120) }]
        })
        expect(yield* wakeAt(server, target.id)).toBeNull()
        yield* observe(writer, target.id, "up", 180)
        expect(yield* writer.tickDue({ now: at(359) })).toBe(0)
        expect((yield* detail(alice, id)).status).toBe("open")
        expect(yield* writer.tickDue({ now: at(360) })).toBe(1)
        const closed = yield* detail(alice, id)
        expect(closed).toMatchObject({
          status: "closed",
          close_reason: "recovered",
          ended_at: iso(180),
          resolved_by: null,
          recovering_since: null,
          recovered: [{ from: iso(60), until: iso(120) }]
        })
        expect(closed.updates?.map((u) => u.message)).toEqual([
          "Incident opened: major outage",
          `Recovering since ${iso(60)}`,
          "Failure confirmed again: the recovery ended and the incident continues",
          `Recovering since ${iso(180)}`,
          "Recovered"
        ])
        expect((yield* notices(server, target.id)).map((n) => n.kind)).toEqual(["opened", "recovered"])

        // notify_recovery false: the recovery closes silently.
        const quiet = yield* createTarget(alice, {
          name: "quiet",
          alert_confirmations: 1,
          recovery_period_secs: 0,
          notify_recovery: false
        })
        yield* observe(writer, quiet.id, "down", 0)
        yield* observe(writer, quiet.id, "up", 10)
        expect((yield* notices(server, quiet.id)).map((n) => n.kind)).toEqual(["opened"])
        expect((yield* list(alice, `?target_id=${quiet.id}`)).data[0]).toMatchObject({
          status: "closed",
          ended_at: iso(10)
        })
      })
  )
})

Fixture.describe(`incidents (${TestDatabase.kind} database)`, { env: settings }, (it) => {
  it.effect(
    "exactly once: the same result folded concurrently, and replayed in a batch, opens one incident and one notice",
    () =>
      Effect.gen(function* () {
        const { server, alice, writer } = yield* setup
        const target = yield* createTarget(alice, { alert_confirmations: 1 })
        yield* Effect.all(
          [
            observe(writer, target.id, "down", 0),
            observe(writer, target.id, "down", 0),
            observe(writer, target.id, "down", 0)
          ],
          { concurrency: "unbounded" }
        )
        const replay = { target_id: target.id, region: "local", status: "down" as const, error: "x", checked_at: at(0) }
        yield* writer.observeResults([replay, replay], { now: at(0) })
        expect((yield* list(alice)).total).toBe(1)
        expect((yield* notices(server, target.id)).length).toBe(1)
        // The org's monitors' engine rows: other tests' monitors share the server's table.
        const [rows] = yield* server.sql<{ n: number }>`
          SELECT count(*)::int AS n FROM incident_engine
          WHERE target_id IN (SELECT id FROM targets WHERE org_id = ${alice.org.id})
        `
        expect(rows?.n).toBe(1)
        // Two workers ticking at once share the due monitors: the reminder goes out once.
        yield* Effect.all([writer.tickDue({ now: at(3600) }), writer.tickDue({ now: at(3600) })], {
          concurrency: "unbounded"
        })
        expect((yield* notices(server, target.id)).map((n) => n.kind)).toEqual(["opened", "reminder"])
        // A batch folds each monitor's results in the order they were taken.
        const other = yield* createTarget(alice, { name: "other", alert_confirmations: 1, recovery_period_secs: 0 })
        yield* writer.observeResults(
          [
            { target_id: other.id, region: "local", status: "up", error: null, checked_at: at(20) },
            { target_id: other.id, region: "local", status: "down", error: "x", checked_at: at(10) }
          ],
          { now: at(20) }
        )
        expect((yield* list(alice, `?target_id=${other.id}`)).data[0]).toMatchObject({
          status: "closed",
          started_at: iso(10),
          ended_at: iso(20)
        })
      })
  )

  it.effect(
    "a batch of many monitors' results is folded at once: maintenance judged per monitor, overlapping batches " +
      "open one incident each, a monitor that cannot be folded does not hold the others",
    () =>
      Effect.gen(function* () {
        const { server, alice, writer } = yield* setup
        const now = DateTime.unsafeNow()
        const targets = yield* Effect.forEach(
          Array.from({ length: 6 }, (_, i) => i),
          // Disabled: the results are the test's alone. Enabled, the server's own scheduler would run each check
          // (an address that does not resolve here) at its first slot, and a real failure folded after the test's
          // recovery opened a second incident in one CI run.
          (i) =>
            createTarget(alice, {
              name: `batch-${i}`,
              alert_confirmations: 1,
              recovery_period_secs: 0,
              enabled: false
            }),
          { concurrency: 3 }
        )
        const [quiet, ...loud] = targets
        assert(quiet !== undefined)
        // A window running now keeps the first monitor's alerts quiet, and only its.
        const window = yield* alice.browser.request("/api/v1/maintenance", {
          json: {
            title: "Batch window",
            starts_at: DateTime.formatIso(DateTime.subtract(now, { minutes: 5 })),
            ends_at: DateTime.formatIso(DateTime.add(now, { hours: 1 })),
            components: [quiet.id]
          }
        })
        expect(window.status, window.text).toBe(201)
        const down = (targetId: string, secondsAgo: number) => ({
          target_id: targetId,
          region: "local",
          status: "down" as const,
          error: "connection refused",
          checked_at: DateTime.subtract(now, { seconds: secondsAgo })
        })
        const batch = targets.map((t) => down(t.id, 1))
        // Two workers folding overlapping batches at once, in different orders: they queue on the rows, and each
        // monitor opens one incident, once.
        yield* Effect.all(
          [writer.observeResults(batch, { now }), writer.observeResults([...batch].reverse(), { now })],
          { concurrency: "unbounded" }
        )
        for (const target of loud) {
          expect((yield* list(alice, `?target_id=${target.id}`)).total).toBe(1)
          expect((yield* notices(server, target.id)).map((n) => n.kind)).toEqual(["opened"])
        }
        expect((yield* list(alice, `?target_id=${quiet.id}`)).total).toBe(0)
        expect(yield* notices(server, quiet.id)).toEqual([])

        // A monitor whose stored engine state no longer reads fails the batch: the batch is rolled back and each
        // monitor folded alone, so the others still recover.
        const [broken, ...rest] = loud
        assert(broken !== undefined)
        yield* server.sql`UPDATE incident_engine SET state = '{"not":"a state"}'::jsonb WHERE target_id = ${broken.id}`
        const later = DateTime.add(now, { seconds: 1 })
        yield* writer.observeResults(
          loud.map((t) => ({
            target_id: t.id,
            region: "local",
            status: "up" as const,
            error: null,
            checked_at: later
          })),
          { now: DateTime.add(later, { minutes: 10 }) }
        )
        for (const target of rest) {
          expect((yield* notices(server, target.id)).map((n) => n.kind)).toEqual(["opened", "recovered"])
        }
        expect((yield* notices(server, broken.id)).map((n) => n.kind)).toEqual(["opened"])
      })
  )

  it.effect(
    "metrics: MTTA and MTTR over the incidents started in [from, to); a monitor's incident periods coalesced",
    () =>
      Effect.gen(function* () {
        const { alice, writer } = yield* setup
        const target = yield* createTarget(alice, { alert_confirmations: 1, recovery_period_secs: 0 })
        const me = alice.userId
        // Incident 1: 0 to 600, acknowledged after 120 s. Incident 2: 1000 to 1300, acknowledged after 60 s.
        yield* observe(writer, target.id, "down", 0)
        yield* writer.observe(target.id, { _tag: "Acknowledge", incident: 1, by: me }, { now: at(120) })
        yield* observe(writer, target.id, "up", 600)
        yield* observe(writer, target.id, "down", 1000)
        yield* writer.observe(target.id, { _tag: "Acknowledge", incident: 2, by: me }, { now: at(1060) })
        yield* observe(writer, target.id, "up", 1300)
        // Incident 3 starts later and stays open: counted, but neither acknowledged nor closed.
        yield* observe(writer, target.id, "down", 5000)

        const metrics = (query: string) =>
          Effect.map(alice.browser.request(`/api/v1/incidents/metrics${query}`), (reply) => {
            expect(reply.status, reply.text).toBe(200)
            return Http.wire(reply, IncidentMetrics)
          })
        expect(yield* metrics(`?from=${iso(0)}&to=${iso(3600)}`)).toEqual({
          from: iso(0),
          to: iso(3600),
          incidents: 2,
          acknowledged: 2,
          closed: 2,
          mtta_secs: 90,
          mttr_secs: 450
        })
        expect(yield* metrics(`?from=${iso(0)}&to=${iso(6000)}&target_id=${target.id}`)).toMatchObject({
          incidents: 3,
          acknowledged: 2,
          closed: 2,
          mtta_secs: 90,
          mttr_secs: 450
        })
        expect(yield* metrics(`?from=${iso(500)}&to=${iso(1000)}`)).toMatchObject({
          incidents: 0,
          mtta_secs: null,
          mttr_secs: null
        })
        const backwards = yield* alice.browser.request(`/api/v1/incidents/metrics?from=${iso(10)}&to=${iso(0)}`)
        expect(backwards.status).toBe(400)
        expect(Http.envelope(backwards)).toMatchObject({ code: "VALIDATION_FAILED", field: "from" })
        const badDate = yield* alice.browser.request("/api/v1/incidents/metrics?from=yesterday")
        expect(badDate.status).toBe(400)
        expect(Http.envelope(badDate)).toMatchObject({ code: "VALIDATION_FAILED", field: "from" })

        // The list's range keeps incidents overlapping [from, to), latest start first.
        const overlapping = yield* list(alice, `?from=${iso(500)}&to=${iso(1100)}`)
        expect(overlapping.data.map((i) => i.number)).toEqual([2, 1])
        expect((yield* list(alice, "?limit=1&offset=1")).data.map((i) => i.number)).toEqual([2])
        expect(Http.envelope(yield* alice.browser.request("/api/v1/incidents?status=stuck")).field).toBe("status")

        // A declared incident naming the monitor overlapping incident 3 merges with it into one period.
        const declared = yield* post(alice, "/api/v1/incidents", {
          title: "Provider trouble",
          impact: "degraded",
          components: [target.id]
        })
        expect(declared.status, declared.text).toBe(201)
        const declaredId = asIncident(declared).id
        const ids = (yield* list(alice, `?target_id=${target.id}`)).data
        const idOf = (n: number) => ids.find((i) => i.number === n)?.id
        const periods = (query = "") =>
          Effect.map(alice.browser.request(`/api/v1/targets/${target.id}/incidents${query}`), (reply) => {
            expect(reply.status, reply.text).toBe(200)
            return Http.wire(reply, IncidentPeriodPage)
          })
        const all = yield* periods()
        expect(all).toMatchObject({ total: 3, limit: 50, offset: 0 })
        expect(all.data).toEqual([
          { started_at: iso(5000), ended_at: null, ongoing: true, incident_ids: [idOf(3), declaredId] },
          { started_at: iso(1000), ended_at: iso(1300), ongoing: false, incident_ids: [idOf(2)] },
          { started_at: iso(0), ended_at: iso(600), ongoing: false, incident_ids: [idOf(1)] }
        ])
        expect((yield* periods("?ongoing_only=true")).data.map((p) => p.started_at)).toEqual([iso(5000)])
        expect((yield* periods(`?from=${iso(700)}&to=${iso(1200)}`)).data.map((p) => p.started_at)).toEqual([iso(1000)])
        expect(yield* periods("?limit=1&offset=2")).toMatchObject({ total: 3, data: [{ started_at: iso(0) }] })
      })
  )
})

Fixture.describe(`incident endpoints (${TestDatabase.kind} database)`, { env: settings }, (it) => {
  it.effect(
    "endpoints: scopes, uniform 404 for foreign ids, narration rules with field paths, the plan flag, declare, postmortem, deliveries",
    () =>
      Effect.gen(function* () {
        const { server, alice, writer } = yield* setup
        const bob = yield* Fixture.person({ label: "bob" })
        const target = yield* createTarget(alice, { alert_confirmations: 1 })
        yield* observe(writer, target.id, "down", 0)
        const monitor = (yield* list(alice)).data[0]
        assert.isDefined(monitor)
        const base = `/api/v1/incidents/${monitor.id}`
        const patch = (person: Person, id: string, json: unknown) =>
          person.browser.request(`/api/v1/incidents/${id}`, { method: "PATCH", json })
        const refusal = (reply: Http.Reply, status: number, code: string, field: string | null) => {
          expect(reply.status, reply.text).toBe(status)
          expect(Http.envelope(reply)).toMatchObject({ code, field })
        }

        // Without the plan's incident_narration_enabled (free): public narration is 403, the rest is allowed.
        refusal(
          yield* patch(alice, monitor.id, { public_title: "Checkout" }),
          403,
          "INCIDENT_NARRATION_DISABLED",
          "public_title"
        )
        refusal(
          yield* patch(alice, monitor.id, { public_description: null }),
          403,
          "INCIDENT_NARRATION_DISABLED",
          "public_description"
        )
        const update = { phase: "investigating", message: "Looking into it" }
        const gated = yield* post(alice, `${base}/updates`, update)
        refusal(gated, 403, "INCIDENT_NARRATION_DISABLED", null)
        expect(Http.envelope(gated).details).toEqual({ flag: "incident_narration_enabled", plan: "free" })
        refusal(
          yield* post(alice, "/api/v1/incidents", { title: "x", impact: "degraded", components: [], message: "hi" }),
          403,
          "INCIDENT_NARRATION_DISABLED",
          "message"
        )
        const internal = yield* patch(alice, monitor.id, { title: "Checkout down", severity: "major" })
        expect(internal.status, internal.text).toBe(200)
        expect(asIncident(internal)).toMatchObject({ title: "Checkout down", severity: "major" })
        // Clearing a monitor-opened incident's title shows the monitor's name again.
        expect(asIncident(yield* patch(alice, monitor.id, { title: null }))).toMatchObject({
          title: "shop",
          severity: "major"
        })

        yield* server.sql`UPDATE plans SET incident_narration_enabled = true WHERE id = 'free'`
        yield* Effect.sleep("1100 millis")
        const bobTarget = yield* createTarget(bob)

        // Narration rules, each with its status, code and field.
        refusal(
          yield* patch(alice, monitor.id, { counts_as_downtime: false }),
          422,
          "INCIDENT_NOT_DECLARED",
          "counts_as_downtime"
        )
        refusal(yield* patch(alice, monitor.id, { severity: "huge" }), 400, "VALIDATION_FAILED", "severity")
        refusal(yield* patch(alice, monitor.id, { title: "   " }), 400, "VALIDATION_FAILED", "title")
        refusal(yield* patch(alice, monitor.id, { title: "x".repeat(201) }), 400, "VALIDATION_FAILED", "title")
        refusal(yield* patch(alice, monitor.id, { impact: "degraded" }), 422, "INVALID_JSON", "impact")
        const narrated = yield* patch(alice, monitor.id, {
          public_title: "Checkout is slow",
          public_description: "Payments time out for some customers."
        })
        expect(narrated.status, narrated.text).toBe(200)
        expect(asIncident(narrated)).toMatchObject({
          public_title: "Checkout is slow",
          public_description: "Payments time out for some customers.",
          severity: "major",
          counts_as_downtime: true
        })
        expect(asIncident(yield* patch(alice, monitor.id, { public_description: null }))).toMatchObject({
          public_title: "Checkout is slow",
          public_description: null
        })

        const updates = `/api/v1/incidents/${monitor.id}/updates`
        refusal(
          yield* post(alice, updates, { phase: "investigating", message: "x".repeat(2001) }),
          400,
          "VALIDATION_FAILED",
          "message"
        )
        refusal(yield* post(alice, updates, { phase: "fixed", message: "ok" }), 400, "VALIDATION_FAILED", "phase")
        refusal(yield* post(alice, updates, { phase: "identified", message: "" }), 400, "VALIDATION_FAILED", "message")
        refusal(
          yield* post(alice, updates, { phase: "identified", message: "ok", public: true }),
          422,
          "INVALID_JSON",
          "public"
        )
        // 2000 characters counted as people count them: an emoji is one.
        const longest = yield* post(alice, updates, { phase: "identified", message: "🔥".repeat(2000) })
        expect(longest.status, longest.text).toBe(201)
        expect(Http.wire(longest, IncidentUpdate)).toMatchObject({
          kind: "update",
          phase: "identified",
          created_by: alice.userId
        })
        expect((yield* detail(alice, monitor.id)).updates?.map((u) => [u.kind, u.phase])).toEqual([
          ["note", null],
          ["update", "identified"]
        ])

        // Declaring: components must be the org's monitors; the declared title cannot be cleared.
        refusal(
          yield* post(alice, "/api/v1/incidents", { title: "Slow", impact: "degraded", components: [bobTarget.id] }),
          400,
          "VALIDATION_FAILED",
          "components[0]"
        )
        refusal(
          yield* post(alice, "/api/v1/incidents", {
            title: "Slow",
            impact: "degraded",
            components: [target.id, target.id]
          }),
          400,
          "VALIDATION_FAILED",
          "components[1]"
        )
        refusal(
          yield* post(alice, "/api/v1/incidents", { title: "Slow", impact: "bad", components: [] }),
          400,
          "VALIDATION_FAILED",
          "impact"
        )
        const declaredReply = yield* post(alice, "/api/v1/incidents", {
          title: "Payments provider degraded",
          impact: "partial_outage",
          components: [target.id],
          severity: "minor",
          public_title: "Payment delays",
          message: "Our payment provider reports delays."
        })
        expect(declaredReply.status, declaredReply.text).toBe(201)
        const declared = asIncident(declaredReply)
        expect(declaredReply.headers.get("location")).toBe(`/api/v1/incidents/${declared.id}`)
        const aliceId = alice.userId
        expect(declared).toMatchObject({
          origin: "declared",
          status: "open",
          target_id: null,
          number: null,
          title: "Payments provider degraded",
          public_title: "Payment delays",
          severity: "minor",
          impact: "partial_outage",
          counts_as_downtime: false,
          components: [target.id],
          acknowledged_by: aliceId,
          created_by: aliceId
        })
        expect(declared.acknowledged_at).toBe(declared.started_at)
        expect(declared.updates.map((u) => [u.kind, u.phase, u.message])).toEqual([
          ["note", null, "Incident declared"],
          ["update", "investigating", "Our payment provider reports delays."]
        ])
        refusal(yield* patch(alice, declared.id, { title: null }), 400, "VALIDATION_FAILED", "title")
        expect(asIncident(yield* patch(alice, declared.id, { counts_as_downtime: true }))).toMatchObject({
          counts_as_downtime: true
        })
        const resolvedDeclared = yield* post(alice, `/api/v1/incidents/${declared.id}/resolve`)
        expect(asIncident(resolvedDeclared)).toMatchObject({
          status: "closed",
          close_reason: "resolved",
          resolved_by: aliceId
        })
        const endedAt = asIncident(resolvedDeclared).ended_at
        const resolvedAgain = yield* post(alice, `/api/v1/incidents/${declared.id}/resolve`)
        expect(asIncident(resolvedAgain).ended_at).toBe(endedAt)
        expect((yield* list(alice, `?target_id=${target.id}`)).total).toBe(2)

        // Postmortem and the delivery log.
        const postmortem = `/api/v1/incidents/${monitor.id}/postmortem`
        refusal(yield* alice.browser.request(postmortem), 404, "NOT_FOUND", null)
        refusal(
          yield* alice.browser.request(postmortem, { method: "PUT", json: { body: "x".repeat(50_001) } }),
          400,
          "VALIDATION_FAILED",
          "body"
        )
        const written = yield* alice.browser.request(postmortem, { method: "PUT", json: { body: "## What happened" } })
        expect(written.status, written.text).toBe(200)
        expect(Http.wire(written, Postmortem)).toMatchObject({
          incident_id: monitor.id,
          body: "## What happened",
          created_by: aliceId
        })
        const rewritten = yield* alice.browser.request(postmortem, { method: "PUT", json: { body: "## Timeline" } })
        expect(Http.decode(rewritten, Postmortem).body).toBe("## Timeline")
        expect(Http.decode(yield* alice.browser.request(postmortem), Postmortem).body).toBe("## Timeline")
        const deliveries = yield* alice.browser.request(`/api/v1/incidents/${monitor.id}/deliveries`)
        expect(deliveries.status).toBe(200)
        expect(Http.wire(deliveries, DeliveryLog)).toEqual({ data: [] })

        // Foreign ids: bob sees none of alice's incident, on every route, the same 404 as an unknown id.
        const unknown = "0190f0f0-0000-7000-8000-000000000000"
        for (const id of [monitor.id, unknown]) {
          const path = `/api/v1/incidents/${id}`
          for (const reply of [
            yield* bob.browser.request(path),
            yield* patch(bob, id, { severity: "minor" }),
            yield* post(bob, `${path}/updates`, update),
            yield* post(bob, `${path}/acknowledge`),
            yield* post(bob, `${path}/resolve`),
            yield* bob.browser.request(`${path}/deliveries`),
            yield* bob.browser.request(`${path}/postmortem`),
            yield* bob.browser.request(`${path}/postmortem`, { method: "PUT", json: { body: "mine" } })
          ]) {
            refusal(reply, 404, "NOT_FOUND", null)
          }
        }
        refusal(yield* bob.browser.request(`/api/v1/targets/${target.id}/incidents`), 404, "NOT_FOUND", null)
        expect((yield* list(bob)).total).toBe(0)
        expect((yield* detail(alice, monitor.id)).status).toBe("open")

        // Scopes: read lists, write narrates and declares, execute acknowledges and resolves.
        const token = (scopes: Array<string>) =>
          Effect.map(mintToken(alice, { scopes, org_id: alice.org.id }), (t) => t.token)
        const reader = yield* token(["incidents:read"])
        const writerToken = yield* token(["incidents:write"])
        const executor = yield* token(["incidents:execute"])
        const targetsReader = yield* token(["targets:read"])
        const json = (body: unknown, method = "POST") => ({
          method,
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body)
        })
        const scope = (reply: Http.Reply, required: string) => {
          expect(reply.status, reply.text).toBe(403)
          expect(Http.envelope(reply)).toMatchObject({ code: "INSUFFICIENT_SCOPE", details: { required } })
        }
        expect((yield* bearer(server, reader, "/api/v1/incidents")).status).toBe(200)
        expect((yield* bearer(server, reader, base)).status).toBe(200)
        expect((yield* bearer(server, reader, `${base}/deliveries`)).status).toBe(200)
        expect((yield* bearer(server, reader, "/api/v1/incidents/metrics")).status).toBe(200)
        scope(yield* bearer(server, targetsReader, "/api/v1/incidents"), "incidents:read")
        scope(yield* bearer(server, reader, base, json({ severity: "minor" }, "PATCH")), "incidents:write")
        scope(
          yield* bearer(server, reader, "/api/v1/incidents", json({ title: "t", impact: "degraded", components: [] })),
          "incidents:write"
        )
        scope(yield* bearer(server, reader, `${base}/postmortem`, json({ body: "b" }, "PUT")), "incidents:write")
        scope(yield* bearer(server, reader, `${base}/acknowledge`, { method: "POST" }), "incidents:execute")
        scope(yield* bearer(server, writerToken, `${base}/acknowledge`, { method: "POST" }), "incidents:execute")
        scope(yield* bearer(server, writerToken, `${base}/resolve`, { method: "POST" }), "incidents:execute")
        scope(yield* bearer(server, executor, base, json({ severity: "minor" }, "PATCH")), "incidents:write")
        expect((yield* bearer(server, writerToken, base, json({ severity: "minor" }, "PATCH"))).status).toBe(200)
        scope(yield* bearer(server, reader, `/api/v1/targets/${target.id}/incidents`), "targets:read")
        expect((yield* bearer(server, targetsReader, `/api/v1/targets/${target.id}/incidents`)).status).toBe(200)
        const acknowledged = yield* bearer(server, executor, `${base}/acknowledge`, { method: "POST" })
        expect(acknowledged.status, acknowledged.text).toBe(200)
        const resolved = yield* bearer(server, executor, `${base}/resolve`, { method: "POST" })
        expect(asIncident(resolved)).toMatchObject({ status: "closed", close_reason: "resolved" })
      })
  )
})

Fixture.describe(
  `incidents, the server's clock loop (${TestDatabase.kind} database)`,
  { env: { ...settings, INCIDENTS__TICK_INTERVAL_SECS: "1" } },
  (it) => {
    it.effect("the server's own clock loop sends a due reminder; a paused monitor's reminder is skipped", () =>
      Effect.gen(function* () {
        const { server, alice, writer } = yield* setup
        const target = yield* createTarget(alice, { alert_confirmations: 1, renotify_interval_secs: 60 })
        const paused = yield* createTarget(alice, {
          name: "paused",
          alert_confirmations: 1,
          renotify_interval_secs: 60
        })
        const disabled = yield* alice.browser.request(`/api/v1/targets/${paused.id}`, {
          method: "PATCH",
          json: { enabled: false }
        })
        expect(disabled.status, disabled.text).toBe(200)
        // Opened two minutes ago by the real clock: the first reminder is already due.
        const past = DateTime.subtract(DateTime.unsafeNow(), { seconds: 120 })
        for (const id of [target.id, paused.id]) {
          yield* writer.observe(id, { ...result("down", 0), checked_at: past }, { now: past })
        }
        const kinds = (id: string) => Effect.map(notices(server, id), (rows) => rows.map((n) => n.kind))
        const pausedWake = Effect.map(wakeAt(server, paused.id), (at) => (at === null ? 0 : new Date(at).getTime()))
        // Wait for the loop's pass to have ticked both monitors (it claims them one transaction each).
        // Bounded by time, generously: the 1-second loop can be slow on a loaded machine.
        const deadline = Date.now() + 20_000
        while (Date.now() < deadline) {
          if ((yield* kinds(target.id)).length >= 2 && (yield* pausedWake) > Date.now()) break
          yield* Effect.sleep("100 millis")
        }
        expect(yield* kinds(target.id)).toEqual(["opened", "reminder"])
        // The paused monitor's reminder was skipped, and its cadence carried on to a time still to come.
        expect(yield* kinds(paused.id)).toEqual(["opened"])
        expect(yield* pausedWake).toBeGreaterThan(Date.now())
      })
    )
  }
)
