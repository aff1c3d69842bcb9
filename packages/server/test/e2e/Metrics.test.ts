/**
 * `GET /metrics` end to end: the bearer secret refused and accepted, then scrapes taken after real checks ran
 * (scheduled and check-now, against a loopback origin, one monitor up and one failing) and read back with an
 * independent parser: the checks series agree with what the database stored, the HTTP series carry route
 * templates and nothing in any label is an id, an address or a URL, the process metrics are there, and every
 * metric the Grafana dashboard and the alert rules of docs/operations.md query exists. (The 404 while
 * `metrics.enabled` is off is in Operations.test.ts, on a server with the default settings.)
 */
import { readFileSync } from "node:fs"
import { expect } from "@effect/vitest"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Yaml from "yaml"
import * as CountingOrigin from "../support/CountingOrigin.js"
import { eventually } from "../support/Eventually.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import * as Prometheus from "../support/Prometheus.js"
import * as TestDatabase from "../support/TestDatabase.js"

const TOKEN = "metrics-scrape-secret-0123456789"

const settings = {
  METRICS__ENABLED: "true",
  METRICS__TOKEN: TOKEN,
  CHECKER__ALLOW_PRIVATE_TARGETS: "true",
  SCHEDULER__POLL_INTERVAL_MS: "100",
  SCHEDULER__REFRESH_SECS: "1"
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i

const docs = new URL("../../../../docs/", import.meta.url)

/** What the test reads of the dashboard: every panel's PromQL. */
const Dashboard = Schema.Struct({
  schemaVersion: Schema.Number,
  templating: Schema.Struct({ list: Schema.Array(Schema.Struct({ name: Schema.String, type: Schema.String })) }),
  panels: Schema.Array(
    Schema.Struct({
      title: Schema.String,
      targets: Schema.optional(Schema.Array(Schema.Struct({ expr: Schema.String })))
    })
  )
})

/** What the test reads of the alert rules: each rule's PromQL. */
const Rules = Schema.Struct({
  groups: Schema.Array(
    Schema.Struct({ rules: Schema.Array(Schema.Struct({ alert: Schema.String, expr: Schema.String })) })
  )
})

/** The metric names a PromQL expression reads (the service's, the process's), as families: suffixes stripped. */
const metricNames = (expr: string): ReadonlyArray<string> =>
  [...expr.matchAll(/\b(?:signalman|process|nodejs)_[a-z0-9_]+/g)].map(([name]) =>
    name.replace(/_(bucket|sum|count)$/, "")
  )

const scrape = (baseUrl: string) =>
  Effect.map(Http.request(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } }), (reply) => {
    if (reply.status !== 200) throw new Error(`scrape answered ${reply.status}: ${reply.text}`)
    return Prometheus.parseScrape(reply.text)
  })

Fixture.describe(`metrics (${TestDatabase.kind} database)`, { env: settings }, (it) => {
  it.effect(
    "GET /metrics without the token, or with a wrong one, is 401 UNAUTHENTICATED; with it, Prometheus text",
    () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Fixture.server
        const bare = yield* Http.request(`${baseUrl}/metrics`)
        expect(bare.status).toBe(401)
        expect(Http.envelope(bare).code).toBe("UNAUTHENTICATED")
        expect(bare.text).not.toContain("signalman_")
        for (const authorization of [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, `Basic ${TOKEN}`, TOKEN]) {
          const wrong = yield* Http.request(`${baseUrl}/metrics`, { headers: { authorization } })
          expect(wrong.status, authorization).toBe(401)
          expect(Http.envelope(wrong).code).toBe("UNAUTHENTICATED")
        }
        const ok = yield* Http.request(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
        expect(ok.status).toBe(200)
        expect(ok.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
        expect(ok.headers.get("cache-control")).toBe("no-store")
        expect(Prometheus.parseText(ok.text).length).toBeGreaterThan(10)
        const post = yield* Http.request(`${baseUrl}/metrics`, {
          method: "POST",
          headers: { authorization: `Bearer ${TOKEN}` }
        })
        expect(post.status).toBe(405)
      })
  )

  it.scoped("checks that ran are counted by kind, status and region, as stored, with their durations and lag", () =>
    Effect.gen(function* () {
      const origin = yield* CountingOrigin.make
      const { baseUrl, sql } = yield* Fixture.server
      const alice = yield* Fixture.person()
      const create = (name: string, path: string) =>
        Effect.map(
          alice.browser.request("/api/v1/targets", {
            json: { name, check: { type: "http", url: `${origin.base}${path}` } }
          }),
          (reply) => Http.expectOk(reply, Target, 201).id
        )
      const up = yield* create("Up", "/up")
      const failing = yield* create("Failing", "/status/503")
      // Two check-now runs each (stored with weight 0)...
      for (const id of [up, failing, up, failing]) {
        const reply = yield* alice.browser.request(`/api/v1/targets/${id}/check-now`, { method: "POST" })
        expect(reply.status).toBe(200)
      }
      // ...and one scheduled run each: the rows made due now (changed only while no worker holds them).
      const due = yield* eventually(
        sql`
          UPDATE schedules SET next_run_at = date_trunc('milliseconds', now())
          WHERE target_id IN (${up}, ${failing}) AND leased_by IS NULL
          RETURNING target_id
        `,
        (rows) => rows.length === 2,
        { intervalMs: 50 }
      )
      expect(due).toHaveLength(2)
      const stored = () =>
        sql<{ status: string; scheduled: boolean; n: number; seconds: number }>`
          SELECT r.status, r.weight_secs > 0 AS scheduled, count(*)::int AS n,
            COALESCE(sum(r.duration_ms), 0)::float8 / 1000 AS seconds
          FROM check_results r JOIN targets t ON t.id = r.target_id
          WHERE t.kind = 'http' AND r.region = 'local'
          GROUP BY 1, 2
        `
      const count = (rows: ReadonlyArray<{ status: string; scheduled: boolean; n: number }>, status?: string) =>
        rows.filter((r) => status === undefined || r.status === status).reduce((sum, r) => sum + r.n, 0)
      const scheduled = yield* eventually(stored(), (rows) => count(rows.filter((r) => r.scheduled)) >= 2)
      expect(count(scheduled.filter((r) => r.scheduled))).toBeGreaterThanOrEqual(2)

      // A scheduled run may land between a scrape and the read of the database (its lag is recorded as its write
      // begins, its count once the write commits): read both until they agree on the counts and the lags.
      const lagCount = (metrics: Prometheus.Scrape) =>
        metrics.samples.some((f) => f.name === "signalman_scheduler_lag_seconds_count")
          ? Prometheus.total(metrics.samples, "signalman_scheduler_lag_seconds_count", { region: "local" })
          : 0
      const agreed = yield* eventually(
        Effect.all({ rows: stored(), metrics: scrape(baseUrl) }),
        ({ rows, metrics }) =>
          Prometheus.total(metrics.families, "signalman_checks_total", { kind: "http", region: "local" }) ===
            count(rows) && lagCount(metrics) === count(rows.filter((r) => r.scheduled)),
        { timeoutMs: 10_000 }
      )
      const { rows, metrics } = agreed
      const checks = (status: string) =>
        Prometheus.total(metrics.families, "signalman_checks_total", { kind: "http", status, region: "local" })
      for (const status of ["up", "degraded", "down", "error"]) expect(checks(status), status).toBe(count(rows, status))
      expect(checks("up")).toBeGreaterThanOrEqual(3)
      // The failing origin's runs (a 503: the check's verdict is not up), under their own status.
      expect(count(rows) - checks("up")).toBeGreaterThanOrEqual(3)

      const durations = Prometheus.histogram(metrics, "signalman_check_duration_seconds", {
        kind: "http",
        region: "local"
      })
      expect(durations.count).toBe(count(rows))
      expect(durations.buckets["+Inf"]).toBe(count(rows))
      expect(durations.sum).toBeCloseTo(
        rows.reduce((sum, r) => sum + r.seconds, 0),
        3
      )
      // Buckets are cumulative: never fewer at a wider bound.
      const bounds = Object.entries(durations.buckets)
        .map(([le, n]) => [le === "+Inf" ? Number.POSITIVE_INFINITY : Number(le), n] as const)
        .sort(([a], [b]) => a - b)
      for (let i = 1; i < bounds.length; i++) expect(bounds[i]![1]).toBeGreaterThanOrEqual(bounds[i - 1]![1])

      // Every scheduled run's start was measured against its slot; check-now runs have no slot.
      const lag = Prometheus.histogram(metrics, "signalman_scheduler_lag_seconds", { region: "local" })
      expect(lag.count).toBe(count(rows.filter((r) => r.scheduled)))
    })
  )

  it.effect(
    "HTTP requests are counted by route template; no label of the whole scrape holds an id, address or URL",
    () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Fixture.server
        const alice = yield* Fixture.person()
        const created = yield* alice.browser.request("/api/v1/targets", {
          json: { name: "Labelled", check: { type: "http", url: "https://labelled.example.com/x?y=1" } }
        })
        const id = Http.expectOk(created, Target, 201).id
        for (let i = 0; i < 3; i++) {
          expect((yield* alice.browser.request(`/api/v1/targets/${id}`)).status).toBe(200)
        }
        expect((yield* alice.browser.request(`/api/v1/targets/${crypto.randomUUID()}`)).status).toBe(404)
        expect((yield* Http.request(`${baseUrl}/no/such/${crypto.randomUUID()}/page`)).status).toBe(404)
        const metrics = yield* scrape(baseUrl)
        const requests = (labels: Record<string, string>) =>
          Prometheus.total(metrics.families, "signalman_http_requests_total", labels)
        expect(requests({ route: "/api/v1/targets/:id", method: "GET", status: "200" })).toBeGreaterThanOrEqual(3)
        expect(requests({ route: "/api/v1/targets/:id", method: "GET", status: "404" })).toBeGreaterThanOrEqual(1)
        expect(requests({ route: "/api/v1/targets", method: "POST", status: "201" })).toBeGreaterThanOrEqual(1)
        expect(requests({ route: "unmatched", method: "GET", status: "404" })).toBeGreaterThanOrEqual(1)
        // The 401s of the first test, under the route's own template.
        expect(requests({ route: "/metrics", status: "401" })).toBeGreaterThanOrEqual(1)
        const timed = Prometheus.histogram(metrics, "signalman_http_request_duration_seconds", {
          route: "/api/v1/targets/:id",
          method: "GET"
        })
        expect(timed.count).toBe(requests({ route: "/api/v1/targets/:id", method: "GET" }))

        const values = metrics.samples.flatMap((family) =>
          family.metrics.flatMap((sample) => Object.entries(sample.labels ?? {}))
        )
        expect(values.length).toBeGreaterThan(20)
        for (const [name, value] of values) {
          expect(value, name).not.toMatch(UUID)
          expect(value, name).not.toMatch(/:\/\/|@|127\.0\.0\.1|example\.com|\?/)
        }
        const routes = new Set(values.filter(([name]) => name === "route").map(([, value]) => value))
        for (const route of routes) expect(route === "unmatched" || route.startsWith("/"), route).toBe(true)
      })
  )

  it.effect(
    "process metrics, the outbox and the agents' gauges are in the scrape, and no family is written twice",
    () =>
      Effect.gen(function* () {
        const { baseUrl, sql } = yield* Fixture.server
        const metrics = yield* scrape(baseUrl)
        const names = metrics.families.map((f) => f.name)
        expect(new Set(names).size).toBe(names.length)
        for (const name of [
          "process_cpu_seconds_total",
          "process_resident_memory_bytes",
          "nodejs_heap_size_used_bytes",
          "nodejs_eventloop_lag_seconds",
          "signalman_passkey_counter_stalled_total",
          "signalman_credential_changes_total"
        ]) {
          expect(names, name).toContain(name)
        }
        expect(Prometheus.total(metrics.families, "process_resident_memory_bytes")).toBeGreaterThan(0)
        const [pending] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM deliveries WHERE status = 'pending'`
        expect(Prometheus.total(metrics.families, "signalman_outbox_pending", { stage: "deliveries" })).toBe(
          pending?.n ?? -1
        )
        expect(Prometheus.family(metrics.families, "signalman_agents_connected").type).toBe("GAUGE")
      })
  )

  it.effect(
    "every metric the Grafana dashboard and the alert rules of docs/operations.md query is in a real scrape",
    () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Fixture.server
        const metrics = yield* scrape(baseUrl)
        const present = new Set(metrics.families.map((f) => f.name))

        const dashboard = Schema.decodeUnknownSync(Dashboard)(
          JSON.parse(readFileSync(new URL("grafana/signalman-dashboard.json", docs), "utf8"))
        )
        expect(dashboard.templating.list.some((v) => v.type === "datasource")).toBe(true)
        const panelExprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => [p.title, t.expr] as const))
        expect(panelExprs.length).toBeGreaterThan(10)

        const operations = readFileSync(new URL("operations.md", docs), "utf8")
        const block = /```yaml\n([\s\S]*?)```/.exec(operations)?.[1]
        expect(block, "docs/operations.md has the alert rules in a yaml block").toBeDefined()
        const rules = Schema.decodeUnknownSync(Rules)(Yaml.parse(block ?? ""))
        const ruleExprs = rules.groups.flatMap((g) => g.rules.map((r) => [r.alert, r.expr] as const))
        expect(ruleExprs.length).toBeGreaterThanOrEqual(7)

        for (const [where, expr] of [...panelExprs, ...ruleExprs]) {
          for (const name of metricNames(expr)) expect(present.has(name), `${where}: ${name}`).toBe(true)
        }
      })
  )
})
