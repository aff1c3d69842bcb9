/**
 * OpenTelemetry traces from a real server process configured the way an operator configures it, through the OTel
 * environment variables, exporting to an OTLP/HTTP receiver this file runs on loopback (docs/operations.md,
 * "Reading a trace"): a request's server span with its route template, status and database query children (the
 * statement, never the values); a scheduled check run and a check-now with kind, region and status; a webhook
 * delivery with its outcome; an error envelope whose trace_id finds its trace; a caller's traceparent continued; the
 * resource and exporter headers from the environment; the spans still batched when SIGTERM arrives exported before
 * the process exits; and the variables this build cannot honour refused at start.
 */
import { randomBytes } from "node:crypto"
import { assert, expect } from "@effect/vitest"
import { CreatedChannel } from "@signalman/core/Channel"
import { Me } from "@signalman/core/Identity"
import { Target } from "@signalman/core/Target"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as CountingOrigin from "../support/CountingOrigin.js"
import * as FakeReceiver from "../support/FakeReceiver.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import * as Identity from "../support/Identity.js"
import * as OtlpReceiver from "../support/OtlpReceiver.js"
import * as ServerProcess from "../support/ServerProcess.js"
import * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TestDatabase from "../support/TestDatabase.js"

const ADMIN = randomBytes(32).toString("base64url")
// The lowest interval an http monitor takes (TargetRules.kindFloor), allowed to the test's account by override.
const INTERVAL = 10

/** What the server needs besides tracing: mail for sign-in, loopback targets, fast loops, the operator surface. */
const baseEnv = (smtp: SmtpCatcher.SmtpCatcher): Record<string, string> => ({
  MAIL__SMTP_URL: smtp.url,
  AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0",
  OPERATOR__ADMIN_TOKEN: ADMIN,
  CHECKER__ALLOW_PRIVATE_TARGETS: "true",
  SCHEDULER__POLL_INTERVAL_MS: "100",
  NOTIFIER__POLL_INTERVAL_MS: "100",
  INCIDENTS__TICK_INTERVAL_SECS: "1"
})

class Traced extends Context.Tag("test/Tracing/Traced")<
  Traced,
  {
    readonly server: ServerProcess.ServerProcess
    readonly smtp: SmtpCatcher.SmtpCatcher
    readonly receiver: OtlpReceiver.OtlpReceiver
    readonly hook: FakeReceiver.FakeReceiver
    readonly origin: CountingOrigin.CountingOrigin
  }
>() {}

// The file's server: tracing on through OTEL_EXPORTER_OTLP_ENDPOINT (the exporter adds /v1/traces), a service name
// and a percent-encoded resource attribute, a header for the collector, and a short batch delay so spans arrive
// while the tests wait for them.
const traced = Layer.scoped(
  Traced,
  Effect.gen(function* () {
    const smtp = yield* SmtpCatcher.make
    const receiver = yield* OtlpReceiver.make
    const hook = yield* FakeReceiver.make()
    const origin = yield* CountingOrigin.make
    const db = yield* TestDatabase.acquire
    const server = yield* ServerProcess.start([], {
      ...db.env,
      ...baseEnv(smtp),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: "signalman-e2e",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=test%20suite,service.name=overridden",
      OTEL_EXPORTER_OTLP_HEADERS: "x-collector-token=t0ken",
      OTEL_BSP_SCHEDULE_DELAY: "100"
    })
    return { server, smtp, receiver, hook, origin }
  })
)

/** A signed-in person with a token bound to their org, and 10 s http intervals allowed. */
const member = Effect.gen(function* () {
  const { server, smtp } = yield* Traced
  const signedIn = yield* Identity.signIn(server, smtp)
  const me = Http.expectOk(yield* signedIn.browser.request("/api/v1/me"), Me)
  const org = me.active_org ?? me.orgs[0]
  assert.isDefined(org)
  const { token } = yield* Identity.mintToken(signedIn, { name: "tracing", org_id: org.id })
  const overridden = yield* Http.request(`${server.baseUrl}/operator/accounts/${me.account_id}/overrides`, {
    method: "PUT",
    headers: { authorization: `Bearer ${ADMIN}` },
    json: { min_check_interval_secs: INTERVAL }
  })
  expect(overridden.status, overridden.text).toBe(200)
  const api = (path: string, init?: RequestInit & { readonly json?: unknown }) =>
    Identity.bearer(server, token, path, init)
  return { api }
})

const HEX32 = /^[0-9a-f]{32}$/
const isServerSpan = (span: OtlpReceiver.Span) => span.kind === OtlpReceiver.SERVER

Fixture.describeWith(`traces over OTLP (${TestDatabase.kind} database)`, traced, (it) => {
  it.scoped("a request is a server span named by its route template, with its queries as children", () =>
    Effect.gen(function* () {
      const { receiver, hook } = yield* Traced
      const alice = yield* member
      const name = `hook-${randomBytes(6).toString("hex")}`
      const reply = yield* alice.api("/api/v1/channels", {
        json: { name, kind: "webhook", config: { url: `${hook.url}/in` } }
      })
      const channel = Http.expectOk(reply, CreatedChannel, 201)
      const requestId = reply.headers.get("x-request-id")
      assert.isNotNull(requestId)

      const isTheRequest = (s: OtlpReceiver.Span) =>
        isServerSpan(s) && s.attributes["signalman.request_id"] === requestId
      const spans = yield* receiver.waitFor(isTheRequest)
      const request = spans.find(isTheRequest)
      assert.isDefined(request, "no server span for the request")
      expect(request.name).toBe("POST /api/v1/channels")
      expect(request.parentSpanId).toBeUndefined()
      expect(request.attributes).toMatchObject({
        "http.request.method": "POST",
        "http.route": "/api/v1/channels",
        "http.response.status_code": 201
      })
      // The span carries the route, never the path or the query, and no request header.
      expect(Object.keys(request.attributes).filter((k) => k.startsWith("url.") || k.includes("header"))).toEqual([])

      // Its queries arrive in the same batch or the next: wait for the insert of the channel.
      const withQueries = yield* receiver.waitFor(
        (s) =>
          s.traceId === request.traceId &&
          s.name === "sql.execute" &&
          /insert into channels/i.test(String(s.attributes["db.query.text"]))
      )
      const queries = OtlpReceiver.descendants(withQueries, request).filter((s) => s.name === "sql.execute")
      expect(queries.length).toBeGreaterThan(0)
      for (const query of queries) {
        expect(query.attributes["db.system.name"]).toBe("postgresql")
        const text = String(query.attributes["db.query.text"])
        // The statement with placeholders: neither the channel's name nor its URL is in any query's text.
        expect(text).not.toContain(name)
        expect(text).not.toContain(hook.url)
      }
      expect(channel.id).toMatch(/^[0-9a-f-]{36}$/)

      // The resource: OTEL_SERVICE_NAME wins over a service.name in OTEL_RESOURCE_ATTRIBUTES, values percent-decoded;
      // every export carried OTEL_EXPORTER_OTLP_HEADERS, and every body decoded as OTLP/JSON.
      expect(request.resource["service.name"]).toBe("signalman-e2e")
      expect(request.resource["deployment.environment.name"]).toBe("test suite")
      expect(receiver.headers().every((h) => h["x-collector-token"] === "t0ken")).toBe(true)
      expect(receiver.headers().every((h) => String(h["content-type"]).startsWith("application/json"))).toBe(true)
      expect(receiver.rejected()).toBe(0)
    })
  )

  it.scoped("an error's trace_id is the trace id of its request's trace, which carries the request id", () =>
    Effect.gen(function* () {
      const { receiver } = yield* Traced
      const alice = yield* member
      const missing = crypto.randomUUID()
      const reply = yield* alice.api(`/api/v1/targets/${missing}`)
      expect(reply.status).toBe(404)
      const traceId = Http.envelope(reply).trace_id
      const requestId = reply.headers.get("x-request-id")
      // With tracing on it is an OTel trace id, not the request id the header still carries.
      expect(traceId).toMatch(HEX32)
      expect(traceId).not.toBe(requestId)
      const spans = yield* receiver.waitFor((s) => s.traceId === traceId && isServerSpan(s))
      const request = spans.find((s) => s.traceId === traceId && isServerSpan(s))
      assert.isDefined(request)
      expect(request.name).toBe("GET /api/v1/targets/:id")
      expect(request.attributes).toMatchObject({
        "http.route": "/api/v1/targets/:id",
        "http.response.status_code": 404,
        "signalman.request_id": requestId
      })
      // A route nobody has: named by the method alone, no route attribute (semantic conventions).
      const unknown = yield* alice.api("/api/v1/no-such-thing")
      expect(unknown.status).toBe(404)
      const unknownTrace = Http.envelope(unknown).trace_id
      const lost = (yield* receiver.waitFor((s) => s.traceId === unknownTrace)).find((s) => s.traceId === unknownTrace)
      assert.isDefined(lost)
      expect(lost.name).toBe("GET")
      expect(lost.attributes["http.route"]).toBeUndefined()
    })
  )

  it.scoped("a traceparent sent in is continued: same trace, the caller's span as parent", () =>
    Effect.gen(function* () {
      const { receiver } = yield* Traced
      const alice = yield* member
      const traceId = randomBytes(16).toString("hex")
      const parentId = randomBytes(8).toString("hex")
      const reply = yield* alice.api("/api/v1/me", { headers: { traceparent: `00-${traceId}-${parentId}-01` } })
      expect(reply.status).toBe(200)
      const spans = yield* receiver.waitFor((s) => s.traceId === traceId && isServerSpan(s))
      const request = spans.find((s) => s.traceId === traceId && isServerSpan(s))
      assert.isDefined(request)
      expect(request.parentSpanId).toBe(parentId)
      expect(request.name).toBe("GET /api/v1/me")
      // An error answered in the caller's trace names that trace.
      const missing = yield* alice.api(`/api/v1/targets/${crypto.randomUUID()}`, {
        headers: { traceparent: `00-${traceId}-${parentId}-01` }
      })
      expect(missing.status).toBe(404)
      expect(Http.envelope(missing).trace_id).toBe(traceId)

      // A caller that did not sample its trace is followed (parent-based sampling): nothing is exported for it, and
      // the envelope's trace_id falls back to the request id, which is what the logs carry.
      const unsampled = randomBytes(16).toString("hex")
      const refused = yield* alice.api(`/api/v1/targets/${crypto.randomUUID()}`, {
        headers: { traceparent: `00-${unsampled}-${parentId}-00` }
      })
      expect(refused.status).toBe(404)
      expect(Http.envelope(refused).trace_id).toBe(refused.headers.get("x-request-id"))
      // A later request's span arriving shows the exporter has caught up; the unsampled trace is not among them.
      const marker = yield* alice.api("/api/v1/me")
      const markerId = marker.headers.get("x-request-id")
      const after = yield* receiver.waitFor((s) => s.attributes["signalman.request_id"] === markerId)
      expect(after.some((s) => s.traceId === unsampled)).toBe(false)
    })
  )

  it.scoped("check runs (scheduled and check-now) and a webhook delivery are spans with their attributes", () =>
    Effect.gen(function* () {
      const { receiver, hook, origin } = yield* Traced
      const alice = yield* member
      const channel = Http.expectOk(
        yield* alice.api("/api/v1/channels", {
          json: { name: "pager", kind: "webhook", config: { url: `${hook.url}/page` } }
        }),
        CreatedChannel,
        201
      )
      // An origin answering 500: the monitor is down at its first check, which opens an incident and pages.
      const created = yield* alice.api("/api/v1/targets", {
        json: {
          name: "Shop",
          interval: INTERVAL,
          check: { type: "http", url: `${origin.base}/status/500` },
          alert_confirmations: 1,
          recovery_period_secs: 0,
          alerts: [{ channel_id: channel.id }]
        }
      })
      const target = Http.expectOk(created, Target, 201)

      // check-now: a check span inside the request's trace.
      const now = yield* alice.api(`/api/v1/targets/${target.id}/check-now`, { method: "POST" })
      expect(now.status, now.text).toBe(200)
      const nowId = now.headers.get("x-request-id")
      const isNowRequest = (s: OtlpReceiver.Span) => isServerSpan(s) && s.attributes["signalman.request_id"] === nowId
      const afterNow = yield* receiver.waitFor(isNowRequest)
      const nowRequest = afterNow.find(isNowRequest)
      assert.isDefined(nowRequest)
      expect(nowRequest.name).toBe("POST /api/v1/targets/:id/check-now")
      const inRequest = OtlpReceiver.descendants(afterNow, nowRequest).find((s) => s.name === "signalman.check")
      assert.isDefined(inRequest, "no check span under the check-now request")
      expect(inRequest.attributes).toMatchObject({
        "signalman.check.kind": "http",
        "signalman.check.region": "local",
        "signalman.check.status": "down"
      })

      // The scheduler's run: a trace of its own, its result written under a span of the results' write.
      const isScheduled = (s: OtlpReceiver.Span) =>
        s.name === "signalman.check" &&
        s.parentSpanId === undefined &&
        s.attributes["signalman.target_id"] === target.id
      const scheduled = (yield* receiver.waitFor(isScheduled, 40_000)).find(isScheduled)
      assert.isDefined(scheduled, "no scheduled check span")
      expect(scheduled.attributes).toMatchObject({
        "signalman.check.kind": "http",
        "signalman.check.region": "local",
        "signalman.check.status": "down"
      })
      const writes = yield* receiver.waitFor(
        (s) => s.name === "signalman.check.results.write" && Number(s.attributes["signalman.check.results"]) > 0
      )
      const write = writes.find((s) => s.name === "signalman.check.results.write")
      assert.isDefined(write)
      const written = yield* receiver.waitFor(
        (s) =>
          s.traceId === write.traceId &&
          s.name === "sql.execute" &&
          /check_results/i.test(String(s.attributes["db.query.text"]))
      )
      expect(OtlpReceiver.descendants(written, write).some((s) => s.name === "sql.execute")).toBe(true)

      // The incident's page to the webhook: one delivery span, its outcome and the receiver's status.
      const [paged] = yield* hook.waitFor(1, 40_000)
      assert.isDefined(paged)
      const deliveryId = String(paged.headers["x-signalman-delivery"])
      const isDelivery = (s: OtlpReceiver.Span) =>
        s.name === "signalman.notification.delivery" && s.attributes["signalman.delivery.id"] === deliveryId
      const delivered = yield* receiver.waitFor(isDelivery)
      const delivery = delivered.find(isDelivery)
      assert.isDefined(delivery)
      expect(delivery.parentSpanId).toBeUndefined()
      expect(delivery.attributes).toMatchObject({
        "signalman.channel.kind": "webhook",
        "signalman.delivery.attempt": 1,
        "signalman.delivery.outcome": "delivered",
        "http.response.status_code": 200
      })
      // Its outcome's write is inside it.
      const recorded = yield* receiver.waitFor(
        (s) =>
          s.traceId === delivery.traceId &&
          s.name === "sql.execute" &&
          /deliveries/i.test(String(s.attributes["db.query.text"]))
      )
      expect(OtlpReceiver.descendants(recorded, delivery).length).toBeGreaterThan(0)

      // The background loops' own polls (claims, upkeep, sweeps) are not traces of their own.
      expect(receiver.spans().some((s) => s.name.startsWith("sql.") && s.parentSpanId === undefined)).toBe(false)
    })
  )
})

/** A server of its own with a receiver of its own, for tracing settings the file's server must not have. */
const serverBeside = (env: (receiver: OtlpReceiver.OtlpReceiver) => Record<string, string>) =>
  Effect.gen(function* () {
    const receiver = yield* OtlpReceiver.make
    const db = yield* TestDatabase.acquire
    const server = yield* ServerProcess.start([], { ...db.env, ...env(receiver) })
    return { server, receiver }
  })

Fixture.describeWith("traces at shutdown and refused settings", Layer.empty, (it) => {
  it.scoped("SIGTERM exports the spans still waiting in the batch before the process exits", () =>
    Effect.gen(function* () {
      // A batch delay far past the test's length: only the flush at shutdown can send these spans.
      const { server, receiver } = yield* serverBeside((receiver) => ({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
        OTEL_BSP_SCHEDULE_DELAY: "600000"
      }))
      const reply = yield* Http.request(`${server.baseUrl}/api/v1/me`)
      expect(reply.status).toBe(401)
      const requestId = reply.headers.get("x-request-id")
      expect(receiver.spans()).toEqual([])
      server.child.kill("SIGTERM")
      const exit = yield* Effect.promise(() => server.exited)
      expect(exit.code).toBe(0)
      const request = receiver.spans().find((s) => s.attributes["signalman.request_id"] === requestId)
      assert.isDefined(request, "the last request's span was not flushed at shutdown")
      expect(request.attributes["http.response.status_code"]).toBe(401)
      expect(request.resource["service.name"]).toBe("signalman")
    })
  )

  it.scoped(
    "off (OTEL_SDK_DISABLED, the same path as no endpoint): nothing is exported, trace_id is the request id",
    () =>
      Effect.gen(function* () {
        // The endpoint names a live receiver: had an exporter been built, the flush at shutdown would reach it.
        const { server, receiver } = yield* serverBeside((receiver) => ({
          LOG__LEVEL: "info",
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_SDK_DISABLED: "true"
        }))
        const upLine = server
          .stdout()
          .split("\n")
          .find((line) => line.includes("Signalman is up"))
        expect(upLine).toContain('"traces":"off"')
        const reply = yield* Http.request(`${server.baseUrl}/api/v1/no-such-thing`, {
          headers: { traceparent: `00-${randomBytes(16).toString("hex")}-${randomBytes(8).toString("hex")}-01` }
        })
        expect(reply.status).toBe(404)
        expect(Http.envelope(reply).trace_id).toBe(reply.headers.get("x-request-id"))
        server.child.kill("SIGTERM")
        expect((yield* Effect.promise(() => server.exited)).code).toBe(0)
        expect(receiver.headers()).toEqual([])
        expect(receiver.rejected()).toBe(0)
      })
  )

  it.effect("a protocol, exporter or sampler this build cannot honour refuses the start with one line", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<readonly [Record<string, string>, string]> = [
        [
          { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
          "signalman: OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported; traces are sent as http/json"
        ],
        [
          { OTEL_TRACES_EXPORTER: "zipkin" },
          "signalman: OTEL_TRACES_EXPORTER=zipkin is not supported; use otlp (or none)"
        ],
        [
          { OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "2" },
          "signalman: OTEL_TRACES_SAMPLER_ARG=2 is not a ratio between 0 and 1"
        ]
      ]
      for (const [env, line] of cases) {
        const exit = yield* ServerProcess.runToExit([], {
          DATA_DIR: "memory://",
          OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:1",
          ...env
        })
        expect(exit.code).toBe(1)
        expect(exit.stderr.trim()).toBe(line)
      }
    })
  )
})
