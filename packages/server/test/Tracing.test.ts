/**
 * The pure pieces of tracing: which environment turns it on (and which it refuses), the sampler's choice and its
 * rule for background queries, the caller's trace read from the headers, the envelope's trace_id, the route a
 * span is named by, that with tracing off no span is made anywhere, and that a trace the sampler does not record
 * makes no span either (its root's decision taken before any span, `RootSampling`).
 */

import * as OtelTracer from "@effect/opentelemetry/Tracer"
import * as Headers from "@effect/platform/Headers"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { assert, describe, expect, it } from "@effect/vitest"
import * as Otel from "@opentelemetry/api"
import { InMemorySpanExporter, SamplingDecision, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import { currentTraceId, traceIdIn } from "../src/http/RequestContext.js"
import * as RequestSpan from "../src/http/RequestSpan.js"
import { routeOf } from "../src/http/RequestSpan.js"
import * as RouteTable from "../src/http/RouteTable.js"
import * as Propagation from "../src/tracing/Propagation.js"
import * as Spans from "../src/tracing/Spans.js"
import * as TraceSampler from "../src/tracing/TraceSampler.js"
import * as Tracing from "../src/tracing/Tracing.js"
import * as TracingSettings from "../src/tracing/TracingSettings.js"

const on = (env: Record<string, string>) => Either.getOrThrow(TracingSettings.fromEnv(env))

describe("TracingSettings.fromEnv", () => {
  it("is off with no endpoint, whatever else is set", () => {
    expect(on({})).toBeNull()
    expect(
      on({ OTEL_SERVICE_NAME: "x", OTEL_EXPORTER_OTLP_HEADERS: "a=b", OTEL_EXPORTER_OTLP_ENDPOINT: " " })
    ).toBeNull()
  })

  it("is on with either endpoint; the per-signal one is used as is, the general one gets /v1/traces", () => {
    expect(on({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" })?.endpoint).toBe(
      "http://collector:4318/v1/traces"
    )
    expect(
      on({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://b:9/traces" })
        ?.endpoint
    ).toBe("http://b:9/traces")
    expect(on({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318" })?.sampler).toEqual(TraceSampler.defaultChoice)
  })

  it("OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none turn it off even with an endpoint", () => {
    expect(on({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318", OTEL_SDK_DISABLED: "TRUE" })).toBeNull()
    expect(on({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318", OTEL_TRACES_EXPORTER: "none" })).toBeNull()
    expect(on({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318", OTEL_SDK_DISABLED: "false" })).not.toBeNull()
  })

  it("refuses what this build cannot do, naming the variable", () => {
    const refusal = (env: Record<string, string>) =>
      Either.getLeft(TracingSettings.fromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318", ...env }))
    expect(refusal({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf" })).toEqual(
      Option.some("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf is not supported; traces are sent as http/json")
    )
    expect(refusal({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" })).toEqual(Option.none())
    expect(refusal({ OTEL_TRACES_EXPORTER: "otlp,console" })).toEqual(
      Option.some("OTEL_TRACES_EXPORTER=console is not supported; use otlp (or none)")
    )
    expect(refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toEqual(
      Option.some("the OTLP traces endpoint collector:4318/v1/traces is not an http:// or https:// URL")
    )
  })
})

describe("TraceSampler", () => {
  it("reads the specification's samplers and their ratio", () => {
    expect(TraceSampler.fromEnv("traceidratio", "0.25")).toEqual(Either.right({ _tag: "traceidratio", ratio: 0.25 }))
    expect(TraceSampler.fromEnv("ParentBased_TraceIdRatio", undefined)).toEqual(
      Either.right({ _tag: "parentbased_traceidratio", ratio: 1 })
    )
    expect(TraceSampler.fromEnv("always_off", undefined)).toEqual(Either.right({ _tag: "always_off" }))
    expect(Either.isLeft(TraceSampler.fromEnv("traceidratio", "-0.1"))).toBe(true)
    expect(TraceSampler.fromEnv("jaeger_remote", undefined)).toEqual(
      Either.left(
        "OTEL_TRACES_SAMPLER=jaeger_remote is not supported; use always_on, always_off, traceidratio, " +
          "parentbased_always_on, parentbased_always_off or parentbased_traceidratio"
      )
    )
  })

  const traceId = "0af7651916cd43dd8448eb211c80319c"
  const decide = (choice: TraceSampler.Choice, name: string, parent?: Otel.SpanContext) =>
    TraceSampler.make(choice).shouldSample(
      parent === undefined ? Otel.ROOT_CONTEXT : Otel.trace.setSpanContext(Otel.ROOT_CONTEXT, parent),
      traceId,
      name,
      Otel.SpanKind.CLIENT,
      {},
      []
    ).decision
  const sampledParent: Otel.SpanContext = { traceId, spanId: "b7ad6b7169203331", traceFlags: Otel.TraceFlags.SAMPLED }

  it("never records a query that would be a trace's root; a query inside a sampled span is recorded", () => {
    const always = TraceSampler.defaultChoice
    expect(decide(always, "sql.execute")).toBe(SamplingDecision.NOT_RECORD)
    expect(decide(always, "sql.transaction")).toBe(SamplingDecision.NOT_RECORD)
    expect(decide(always, "sql.execute", sampledParent)).toBe(SamplingDecision.RECORD_AND_SAMPLED)
    expect(decide(always, Spans.DELIVERY)).toBe(SamplingDecision.RECORD_AND_SAMPLED)
    expect(decide({ _tag: "always_off" }, "GET /api/v1/me")).toBe(SamplingDecision.NOT_RECORD)
    expect(decide({ _tag: "parentbased_always_off" }, "sql.execute", sampledParent)).toBe(
      SamplingDecision.RECORD_AND_SAMPLED
    )
  })
})

describe("Propagation.parentOf", () => {
  it("keeps the caller's sampling decision and trace state where the OpenTelemetry bridge reads them", () => {
    const unsampled = Propagation.parentOf(
      Headers.fromInput({
        traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00",
        tracestate: "vendor=abc"
      })
    )
    assert.isDefined(unsampled)
    expect(unsampled.sampled).toBe(false)
    expect(Context.unsafeGet(unsampled.context, OtelTracer.OtelTraceFlags)).toBe(Otel.TraceFlags.NONE)
    expect(Context.unsafeGet(unsampled.context, OtelTracer.OtelTraceState).get("vendor")).toBe("abc")
    const sampled = Propagation.parentOf(
      Headers.fromInput({ traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" })
    )
    expect(sampled && Context.unsafeGet(sampled.context, OtelTracer.OtelTraceFlags)).toBe(Otel.TraceFlags.SAMPLED)
    expect(Propagation.parentOf(Headers.fromInput({ traceparent: "00-nothex-b7ad6b7169203331-01" }))).toBeUndefined()
    expect(Propagation.parentOf(Headers.empty)).toBeUndefined()
  })
})

describe("the envelope's trace_id", () => {
  const request = HttpServerRequest.fromWeb(new Request("http://x/api", { headers: { "x-request-id": "req-1" } }))
  const withRequest = Context.make(HttpServerRequest.HttpServerRequest, request)
  const span = (traceId: string, sampled: boolean): Tracer.AnySpan =>
    Tracer.externalSpan({ traceId, spanId: "b7ad6b7169203331", sampled })

  it("is the trace id of a recorded trace, else the request id", () => {
    const traceId = "0af7651916cd43dd8448eb211c80319c"
    expect(traceIdIn(withRequest)).toBe("req-1")
    expect(traceIdIn(Context.add(withRequest, Tracer.ParentSpan, span(traceId, true)))).toBe(traceId)
    expect(traceIdIn(Context.add(withRequest, Tracer.ParentSpan, span(traceId, false)))).toBe("req-1")
    // Effect's no-op span (tracing off) is never taken for a trace.
    expect(traceIdIn(Context.add(withRequest, Tracer.ParentSpan, span("noop", true)))).toBe("req-1")
    expect(traceIdIn(Context.empty())).toBeNull()
  })
})

describe("routeOf", () => {
  const routes = RouteTable.make([
    { method: "GET", path: "/api/v1/targets/:id", body: "none" },
    { method: "POST", path: "/api/v1/targets", body: "json" }
  ])
  it("names the template a request matches, HEAD by its GET route, nothing for an unknown path", () => {
    expect(routeOf(routes, "GET", "/api/v1/targets/123?x=1")).toBe("/api/v1/targets/:id")
    expect(routeOf(routes, "HEAD", "/api/v1/targets/123")).toBe("/api/v1/targets/:id")
    expect(routeOf(routes, "POST", "/api/v1/targets")).toBe("/api/v1/targets")
    expect(routeOf(routes, "DELETE", "/api/v1/targets")).toBeUndefined()
  })
})

describe("Tracing.layer", () => {
  const spanUnder = (layer: Layer.Layer<never>) =>
    Effect.useSpan("probe", (span) => Effect.succeed(span)).pipe(Effect.provide(layer))

  it.effect("with tracing off, no span is made: Effect hands out its shared no-op span", () =>
    Effect.gen(function* () {
      const span = yield* spanUnder(Tracing.layer(null))
      expect(span.spanId).toBe("noop")
      expect(span.sampled).toBe(false)
      // The helpers around background work do not even ask for a no-op span.
      const current = yield* Effect.currentSpan.pipe(
        Spans.withBackgroundSpan(Spans.DELIVERY, {}),
        Effect.option,
        Effect.provide(Tracing.layer(null))
      )
      expect(current).toEqual(Option.none())
    })
  )

  it.effect("with settings, spans are OpenTelemetry spans of the configured service", () =>
    Effect.gen(function* () {
      const settings = on({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" })
      assert.isNotNull(settings)
      // Sampled off, so nothing is ever sent to the (closed) port above.
      const span = yield* spanUnder(Tracing.layer({ ...settings, sampler: { _tag: "always_off" } }))
      expect(span.spanId).toMatch(/^[0-9a-f]{16}$/)
      expect(span.sampled).toBe(false)
    })
  )
})

describe("root sampling: a trace the sampler will not record makes no span at all", () => {
  const routes = RouteTable.make([{ method: "GET", path: "/api/v1/me", body: "none" }])
  const traceId = "0af7651916cd43dd8448eb211c80319c"
  const callerSpan = "b7ad6b7169203331"

  /** A handler with one child span (as a query is), answering the envelope's trace_id. */
  const handler = Effect.gen(function* () {
    yield* Effect.withSpan(Effect.void, "sql.execute", { kind: "client" })
    return HttpServerResponse.text((yield* currentTraceId) ?? "none")
  })
  const served = RequestSpan.middleware(routes)(handler)

  /**
   * Runs `self` under tracing sampled as `choice`, exporting in memory, its tracer counting every span it is asked
   * to make (recorded or not): what it answered, the spans made and the spans exported.
   */
  const traced = <A, E>(choice: TraceSampler.Choice, self: Effect.Effect<A, E>) =>
    Effect.gen(function* () {
      const exporter = new InMemorySpanExporter()
      let made = 0
      // Read before the provider shuts down: the in-memory exporter forgets its spans on shutdown.
      const [value, exported] = yield* Effect.tracerWith((tracer) =>
        Effect.withTracer(
          self,
          Tracer.make({
            span: (...args) => {
              made++
              return tracer.span(...args)
            },
            context: tracer.context
          })
        )
      ).pipe(
        Effect.map((value) => [value, exporter.getFinishedSpans()] as const),
        Effect.provide(Tracing.recording(choice, () => new SimpleSpanProcessor(exporter)))
      )
      return { value, made, exported }
    })

  const request = (id: string, traceparent?: string) =>
    Effect.flatMap(
      served.pipe(
        Effect.provideService(
          HttpServerRequest.HttpServerRequest,
          HttpServerRequest.fromWeb(
            new Request("http://x/api/v1/me", {
              headers: { "x-request-id": id, ...(traceparent === undefined ? {} : { traceparent }) }
            })
          )
        )
      ),
      (response) =>
        Effect.succeed(response.body._tag === "Uint8Array" ? new TextDecoder().decode(response.body.body) : "")
    )

  it.effect("sampled out at the root or by the caller: neither the request span nor its child is made", () =>
    Effect.gen(function* () {
      const never = yield* traced({ _tag: "parentbased_traceidratio", ratio: 0 }, request("req-1"))
      expect(never).toEqual({ value: "req-1", made: 0, exported: [] })
      const refusedByCaller = yield* traced(
        TraceSampler.defaultChoice,
        request("req-2", `00-${traceId}-${callerSpan}-00`)
      )
      expect(refusedByCaller).toEqual({ value: "req-2", made: 0, exported: [] })
    })
  )

  it.effect("sampled: the request span and its child are made and exported, trace_id names the trace", () =>
    Effect.gen(function* () {
      const root = yield* traced(TraceSampler.defaultChoice, request("req-3"))
      expect(root.made).toBe(2)
      const server = root.exported.find((s) => s.kind === Otel.SpanKind.SERVER)
      assert.isDefined(server)
      expect(server.name).toBe("GET /api/v1/me")
      expect(server.parentSpanContext).toBeUndefined()
      expect(root.value).toBe(server.spanContext().traceId)
      const child = root.exported.find((s) => s.name === "sql.execute")
      expect(child?.parentSpanContext?.spanId).toBe(server.spanContext().spanId)

      // A caller's sampled trace is followed even where new traces are never sampled.
      const continued = yield* traced(
        { _tag: "parentbased_traceidratio", ratio: 0 },
        request("req-4", `00-${traceId}-${callerSpan}-01`)
      )
      expect(continued.made).toBe(2)
      expect(continued.value).toBe(traceId)
      expect(continued.exported.map((s) => s.spanContext().traceId)).toEqual([traceId, traceId])
      expect(continued.exported.find((s) => s.kind === Otel.SpanKind.SERVER)?.parentSpanContext?.spanId).toBe(
        callerSpan
      )
    })
  )

  it.effect("a ratio decides each root once, on the trace id its span then carries", () =>
    Effect.gen(function* () {
      // Not parent-based: the SDK decides the child on its trace id alone, so a root decided on one id and made
      // with another would lose its children about half the time.
      const ids = Array.from({ length: 40 }, (_, i) => `req-${i}`)
      const run = yield* traced(
        { _tag: "traceidratio", ratio: 0.5 },
        Effect.forEach(ids, (id) => request(id))
      )
      const servers = run.exported.filter((s) => s.kind === Otel.SpanKind.SERVER)
      expect(servers.length).toBeGreaterThan(0)
      expect(servers.length).toBeLessThan(ids.length)
      expect(run.made).toBe(2 * servers.length)
      expect(run.exported.length).toBe(2 * servers.length)
      for (const server of servers) {
        const { traceId: id, spanId } = server.spanContext()
        expect(run.exported.some((s) => s.name === "sql.execute" && s.parentSpanContext?.spanId === spanId)).toBe(true)
        expect(run.value).toContain(id)
      }
      expect(run.value.filter((answer) => ids.includes(answer)).length).toBe(ids.length - servers.length)
    })
  )

  it.effect("background roots (a delivery, a results write) are decided the same way", () =>
    Effect.gen(function* () {
      const work = Effect.withSpan(Effect.void, "sql.execute").pipe(Spans.withBackgroundSpan(Spans.DELIVERY, {}))
      expect(yield* traced({ _tag: "traceidratio", ratio: 0 }, work)).toEqual({
        value: undefined,
        made: 0,
        exported: []
      })
      const recorded = yield* traced(TraceSampler.defaultChoice, work)
      expect(recorded.made).toBe(2)
      expect(recorded.exported.map((s) => s.name).sort()).toEqual([Spans.DELIVERY, "sql.execute"])
      // With no span around it, withSpan starts a trace, decided as a root.
      const alone = Effect.withSpan(Effect.void, "sql.execute").pipe(Spans.withSpan(Spans.AGENT_RESULTS, {}))
      expect((yield* traced({ _tag: "traceidratio", ratio: 0 }, alone)).made).toBe(0)
    })
  )
})
