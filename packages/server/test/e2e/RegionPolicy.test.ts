/**
 * Region policy across regions, end to end on the server's own database: results of several regions (in one batch
 * and in separate ones, out of order across regions, folded by two writers at once) open exactly one incident with
 * one notice, the incident records which regions were down and is found by `?region=`, a monitor whose failing
 * regions do not meet its policy carries per-region `advisories` on `GET /targets/{id}` and the list, and a region
 * falling silent is judged from the clock alone (a tick at `wake_at`).
 *
 * The agents that deliver remote regions' results are not needed: their results reach the incident writer through
 * the same `ResultStore` as the local scheduler's, so the tests write results through a `ResultStore` (or fold them
 * into the writer with explicit clock times) built over the server's database client. The three regions are the
 * operator's (made once for the server); none has an agent, and the server probes none of them itself.
 */
import { assert, expect } from "@effect/vitest"
import { IncidentDetail, IncidentPage, IncidentPeriodPage } from "@signalman/core/api/Incidents"
import { TargetPage } from "@signalman/core/api/Targets"
import type { CheckStatus } from "@signalman/core/CheckResult"
import { CheckResult } from "@signalman/core/CheckResult"
import { Target } from "@signalman/core/Target"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ResultStore } from "../../src/engine/ResultStore.js"
import { IncidentWriter, type ObservedResult } from "../../src/incidents/IncidentWriter.js"
import * as Monitoring from "../../src/Monitoring.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import type { Person } from "../support/Identity.js"
import * as IncidentWriting from "../support/IncidentWriting.js"
import * as TestDatabase from "../support/TestDatabase.js"
import type * as TestServer from "../support/TestServer.js"

const REGIONS = ["eu-west", "us-east", "ap-south"]

// No background clock: the tests say when time moves.
const options = {
  env: { INCIDENTS__TICK_INTERVAL_SECS: "0" },
  sql: [`INSERT INTO regions (id, name) VALUES ${REGIONS.map((r) => `('${r}', '${r}')`).join(", ")}`]
}

const setup = Effect.gen(function* () {
  const server = yield* Fixture.server
  const alice = yield* Fixture.person({ label: "alice" })
  // The writer the worker runs and a result store observed by it, built over the server's own database client.
  const services = ResultStore.Default.pipe(
    Layer.provide(Monitoring.resultObservers),
    Layer.provideMerge(IncidentWriting.writerLayer),
    Layer.provide(IncidentWriting.over(server))
  )
  const { writer, store } = yield* Effect.provide(Effect.all({ writer: IncidentWriter, store: ResultStore }), services)
  return { server, alice, writer, store }
})

/** A monitor probing from the three regions under `policy`, every 180 s (silent after 540 s), confirming at once. */
const createMonitor = (person: Person, policy: unknown) =>
  Effect.gen(function* () {
    const reply = yield* person.browser.request("/api/v1/targets", {
      json: {
        name: "shop",
        check: { type: "http", url: "https://shop.example.com" },
        interval: 180,
        regions: REGIONS,
        region_policy: policy,
        alert_confirmations: 1,
        renotify_interval_secs: 0,
        recovery_period_secs: 0
      }
    })
    expect(reply.status, reply.text).toBe(201)
    return Http.decode(reply, Target).id
  })

const getTarget = (person: Person, id: string) =>
  Effect.map(person.browser.request(`/api/v1/targets/${id}`), (reply) => Http.wire(reply, Target))

const listed = (person: Person, id: string) =>
  Effect.map(person.browser.request("/api/v1/targets?limit=100"), (reply) =>
    Http.wire(reply, TargetPage).data.find((t) => t.id === id)
  )

const incidents = (person: Person, query = "") =>
  Effect.map(person.browser.request(`/api/v1/incidents${query}`), (reply) => {
    expect(reply.status, reply.text).toBe(200)
    return Http.wire(reply, IncidentPage)
  })

const notices = (server: TestServer.Running, targetId: string) =>
  Effect.map(
    server.sql<{ kind: string }>`SELECT kind FROM notices WHERE target_id = ${targetId} ORDER BY created_at`,
    (rows) => rows.map((r) => r.kind)
  )

const wakeAt = (server: TestServer.Running, targetId: string) =>
  Effect.map(
    server.sql<{ wake_at: Date | null }>`SELECT wake_at FROM incident_engine WHERE target_id = ${targetId}`,
    (rows) => rows[0]?.wake_at?.toISOString() ?? null
  )

Fixture.describe(`region policy across regions (${TestDatabase.kind} database)`, options, (it) => {
  it.effect(
    "majority of three: results of several regions, in one batch and in several, out of order, folded by two writers, open one incident and one notice; regions_down and ?region=",
    () =>
      Effect.gen(function* () {
        const { server, alice, writer } = yield* setup
        const T0 = DateTime.unsafeMake("2025-05-01T10:00:00.000Z")
        const at = (seconds: number) => DateTime.add(T0, { seconds })
        const iso = (seconds: number) => DateTime.formatIso(at(seconds))
        const id = yield* createMonitor(alice, "majority")
        const result = (region: string, status: CheckStatus, seconds: number): ObservedResult => ({
          target_id: id,
          region,
          status,
          error: status === "up" ? null : "connection refused",
          checked_at: at(seconds)
        })
        const fold = (batch: ReadonlyArray<ObservedResult>, nowSecs: number) =>
          writer.observeResults(batch, { now: at(nowSecs) })

        // One batch, several results per region, out of order across regions: eu-west alone is down.
        yield* fold(
          [
            result("us-east", "up", 1),
            result("eu-west", "up", 0),
            result("ap-south", "up", 2),
            result("eu-west", "down", 60),
            result("us-east", "up", 61),
            result("ap-south", "up", 62)
          ],
          62
        )
        expect((yield* incidents(alice)).total).toBe(0)
        const advised = [{ region: "eu-west", status: "down", since: iso(60) }]
        expect((yield* getTarget(alice, id)).advisories).toEqual(advised)
        expect((yield* listed(alice, id))?.advisories).toEqual(advised)
        const patched = yield* alice.browser.request(`/api/v1/targets/${id}`, {
          method: "PATCH",
          json: { name: "shop (renamed)" }
        })
        expect(Http.wire(patched, Target).advisories).toEqual(advised)

        // us-east turns down in a batch of its own; the other regions' results of that round come in a second batch
        // (ap-south's before eu-west's), and two writers fold each batch at once.
        const usDown = [result("us-east", "down", 120)]
        const rest = [result("ap-south", "up", 122), result("eu-west", "down", 121)]
        yield* Effect.all([fold(usDown, 122), fold(usDown, 122)], { concurrency: "unbounded" })
        yield* Effect.all([fold(rest, 123), fold(rest, 123)], { concurrency: "unbounded" })
        const opened = yield* incidents(alice)
        expect(opened.total).toBe(1)
        const incident = opened.data[0]
        assert.isDefined(incident)
        expect(incident).toMatchObject({
          status: "open",
          target_id: id,
          impact: "partial_outage",
          started_at: iso(120),
          regions_down: ["eu-west", "us-east"]
        })
        expect(yield* notices(server, id)).toEqual(["opened"])
        expect((yield* getTarget(alice, id)).advisories).toEqual([])
        expect((yield* listed(alice, id))?.advisories).toEqual([])

        // The third region joins: the list grows and the impact rises; still one incident and one notice.
        yield* fold([result("ap-south", "down", 180), result("eu-west", "down", 181)], 181)
        const raised = Http.wire(yield* alice.browser.request(`/api/v1/incidents/${incident.id}`), IncidentDetail)
        expect(raised).toMatchObject({ impact: "major_outage", regions_down: ["ap-south", "eu-west", "us-east"] })
        expect(raised.updates.map((u) => u.message)).toEqual([
          "Incident opened: partial outage",
          "Impact changed to major outage"
        ])

        // Every region passes: the incident closes once, keeping the regions that were down.
        yield* fold([result("us-east", "up", 240), result("eu-west", "up", 241), result("ap-south", "up", 242)], 242)
        const closed = yield* incidents(alice, `?target_id=${id}`)
        expect(closed.data.map((i) => [i.status, i.ended_at, i.regions_down])).toEqual([
          ["closed", iso(241), ["ap-south", "eu-west", "us-east"]]
        ])
        expect(yield* notices(server, id)).toEqual(["opened", "recovered"])

        // History by region: the org's incidents and the monitor's periods filter on regions_down.
        expect((yield* incidents(alice, "?region=us-east")).data.map((i) => i.id)).toEqual([incident.id])
        expect((yield* incidents(alice, "?region=local")).total).toBe(0)
        const periods = (query: string) =>
          Effect.map(alice.browser.request(`/api/v1/targets/${id}/incidents${query}`), (reply) => {
            expect(reply.status, reply.text).toBe(200)
            return Http.wire(reply, IncidentPeriodPage)
          })
        expect((yield* periods("?region=ap-south")).data.map((p) => p.incident_ids)).toEqual([[incident.id]])
        expect((yield* periods("?region=local")).total).toBe(0)
        for (const bad of ["EU-WEST", "eu_west", "-eu", "a".repeat(33), ""]) {
          const query = `?region=${encodeURIComponent(bad)}`
          expect(Http.refusal(yield* alice.browser.request(`/api/v1/incidents${query}`)), bad).toEqual({
            status: 400,
            code: "VALIDATION_FAILED",
            field: "region"
          })
          expect(Http.refusal(yield* alice.browser.request(`/api/v1/targets/${id}/incidents${query}`)), bad).toEqual({
            status: 400,
            code: "VALIDATION_FAILED",
            field: "region"
          })
        }
      })
  )

  it.effect(
    "a silent region abstains, judged on a tick at wake_at: an up region falling silent brings agreement, a down one's silence clears its advisory",
    () =>
      Effect.gen(function* () {
        const { server, alice, writer } = yield* setup
        const T0 = DateTime.unsafeMake("2025-06-01T10:00:00.000Z")
        const at = (seconds: number) => DateTime.add(T0, { seconds })
        const iso = (seconds: number) => DateTime.formatIso(at(seconds))
        const id = yield* createMonitor(alice, "all")
        const round = (seconds: number, statuses: Readonly<Record<string, CheckStatus>>) =>
          writer.observeResults(
            Object.entries(statuses).map(([region, status]) => ({
              target_id: id,
              region,
              status,
              error: status === "up" ? null : "connection refused",
              checked_at: at(seconds)
            })),
            { now: at(seconds) }
          )

        // eu-west and us-east fail; ap-south answers once and then falls quiet (its agent is gone).
        yield* round(0, { "eu-west": "down", "us-east": "down", "ap-south": "up" })
        yield* round(180, { "eu-west": "down", "us-east": "down" })
        yield* round(360, { "eu-west": "down", "us-east": "down" })
        expect((yield* incidents(alice, `?target_id=${id}`)).total).toBe(0)
        expect((yield* getTarget(alice, id)).advisories).toEqual([
          { region: "eu-west", status: "down", since: iso(0) },
          { region: "us-east", status: "down", since: iso(0) }
        ])
        // ap-south falls silent three intervals after its last result: the clock is to tick the monitor then.
        expect(yield* wakeAt(server, id)).toBe(iso(540))
        yield* writer.tickDue({ now: at(539) })
        expect((yield* incidents(alice, `?target_id=${id}`)).total).toBe(0)
        yield* writer.tickDue({ now: at(540) })
        const [opened] = (yield* incidents(alice, `?target_id=${id}`)).data
        expect(opened).toMatchObject({
          status: "open",
          started_at: iso(540),
          impact: "major_outage",
          regions_down: ["eu-west", "us-east"]
        })
        expect(yield* notices(server, id)).toEqual(["opened"])
        expect((yield* getTarget(alice, id)).advisories).toEqual([])

        // ap-south reports up again: all needs every reporting region, so the incident ends then.
        yield* round(600, { "ap-south": "up" })
        const [closed] = (yield* incidents(alice, `?target_id=${id}`)).data
        expect(closed).toMatchObject({ status: "closed", ended_at: iso(600) })
        // eu-west and us-east are still down, short of all: advisories again, until they fall silent at 10:15.
        expect((yield* getTarget(alice, id)).advisories?.map((a) => a.region)).toEqual(["eu-west", "us-east"])
        expect(yield* wakeAt(server, id)).toBe(iso(900))
        yield* writer.tickDue({ now: at(900) })
        expect((yield* getTarget(alice, id)).advisories).toEqual([])
        expect(yield* notices(server, id)).toEqual(["opened", "recovered"])
      })
  )

  it.effect(
    "results written through the result store (as agents' and the local scheduler's are) carry advisories and open one incident",
    () =>
      Effect.gen(function* () {
        const { server, alice, store } = yield* setup
        const id = yield* createMonitor(alice, { count: 2 })
        const org = alice.org.id
        const now = yield* DateTime.now
        const write = (rows: ReadonlyArray<[string, CheckStatus, number]>) =>
          store.write(
            rows.map(([region, status, secondsAgo]) => ({
              targetId: id,
              orgId: org,
              kind: "http" as const,
              source: "scheduled" as const,
              blocked: false,
              weightSecs: 60,
              result: new CheckResult({
                status,
                duration_ms: 12,
                error: status === "up" ? null : "connection refused",
                details: null,
                phases: null,
                checked_at: DateTime.subtract(now, { seconds: secondsAgo }),
                region
              })
            }))
          )
        // One batch of three regions: us-east alone is down (two regions are needed).
        yield* write([
          ["eu-west", "up", 5],
          ["us-east", "down", 4],
          ["ap-south", "up", 5]
        ])
        expect((yield* getTarget(alice, id)).advisories?.map((a) => [a.region, a.status])).toEqual([
          ["us-east", "down"]
        ])
        // ap-south degrades in a batch of its own: two regions agree.
        yield* write([["ap-south", "degraded", 2]])
        const page = yield* incidents(alice, `?target_id=${id}`)
        expect(page.data.map((i) => [i.status, i.impact, i.regions_down])).toEqual([
          ["open", "partial_outage", ["ap-south", "us-east"]]
        ])
        expect((yield* getTarget(alice, id)).advisories).toEqual([])
        expect(yield* notices(server, id)).toEqual(["opened"])
        // The results were stored with their regions, like any monitor's.
        const stored = yield* server.sql<{ region: string }>`
          SELECT DISTINCT region FROM check_results WHERE target_id = ${id} ORDER BY region
        `
        expect(stored.map((r) => r.region)).toEqual(["ap-south", "eu-west", "us-east"])
      })
  )
})
