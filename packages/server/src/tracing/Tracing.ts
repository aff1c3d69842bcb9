/**
 * The process's tracing, one switch for everything: with settings (`TracingSettings`), Effect's tracer is the
 * OpenTelemetry one, exporting over OTLP/HTTP (JSON) through a batch span processor; without, Effect's tracing is
 * turned off, so no span anywhere (a request's, a check's, a query's) is more than a shared no-op object, and no
 * exporter, processor or provider exists.
 *
 * Provided outermost (`App.layer`), so it is released last: after the HTTP drain and the workers have stopped and
 * the database is closed, the provider flushes what is left in the batch (bounded by `FLUSH_TIMEOUT`), so the spans
 * of the last requests are not lost on SIGTERM.
 */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import * as OtelResource from "@effect/opentelemetry/Resource"
import * as OtelTracer from "@effect/opentelemetry/Tracer"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources"
import { BatchSpanProcessor, type SpanProcessor } from "@opentelemetry/sdk-trace-base"
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as EffectTracer from "effect/Tracer"
import * as RootSampling from "./RootSampling.js"
import * as TraceSampler from "./TraceSampler.js"
import type { Settings } from "./TracingSettings.js"

/** `service.name` when neither `OTEL_SERVICE_NAME` nor `OTEL_RESOURCE_ATTRIBUTES` names one. */
export const DEFAULT_SERVICE_NAME = "signalman"

/** How long the last flush on shutdown may take before the process exits without it. */
export const FLUSH_TIMEOUT = Duration.seconds(5)

/**
 * The process's resource: the SDK's own attributes, `service.name` defaulting to `signalman`, then whatever the
 * environment says (the env detector reads `OTEL_RESOURCE_ATTRIBUTES`, percent-decoded, and `OTEL_SERVICE_NAME`,
 * which wins over both, as the specification orders them).
 */
const resource = () =>
  defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: DEFAULT_SERVICE_NAME }))
    .merge(detectResources({ detectors: [envDetector] }))

/**
 * Effect's tracer making OpenTelemetry spans, without the bridge's hook that sets OpenTelemetry's active context
 * around every slice of every fiber that runs inside a span. That hook is for libraries instrumented through the
 * OpenTelemetry API itself (none here: no context manager is even registered), and on the request path it was an
 * allocation per fiber step: the tracing benchmark found it a sizeable share of the cost of a traced request.
 * A root whose sampling was decided before its span (`RootSampling`) gets the trace id it was decided on.
 */
const tracer = (ids: RootSampling.ChosenIds) =>
  Layer.unwrapEffect(
    Effect.map(OtelTracer.make, (otel) =>
      Layer.setTracer(
        EffectTracer.make({
          span: (name, parent, context, links, startTime, kind, options) =>
            ids.making(context, () => otel.span(name, parent, context, links, startTime, kind, options)),
          context: (execution) => execution()
        })
      )
    )
  ).pipe(Layer.provide(OtelTracer.layerTracer))

/**
 * Tracing through `processor`, sampled as `choice` says: the tracer, the provider (released last, flushing what is
 * left, bounded by `FLUSH_TIMEOUT`) and the roots' sampling decided before their spans are made, all asking the
 * same sampler. The process exports through the OTLP exporter; a test may hand a processor of its own.
 */
export const recording = (choice: TraceSampler.Choice, processor: () => SpanProcessor): Layer.Layer<never> =>
  Layer.unwrapEffect(
    Effect.sync(() => {
      const sampler = TraceSampler.make(choice)
      const ids = new RootSampling.ChosenIds()
      return Layer.merge(tracer(ids), RootSampling.layer(RootSampling.make(sampler))).pipe(
        Layer.provide(
          Layer.suspend(() =>
            NodeSdk.layerTracerProvider(processor(), {
              sampler,
              idGenerator: ids,
              shutdownTimeout: FLUSH_TIMEOUT
            })
          )
        ),
        Layer.provide(Layer.sync(OtelResource.Resource, resource))
      )
    })
  )

/**
 * Exports to the endpoint the environment names. The exporter is built with no options, so it reads the endpoint,
 * `OTEL_EXPORTER_OTLP_HEADERS`, the timeout and the compression itself, exactly as the specification says.
 */
const exporting = (settings: Settings) =>
  recording(settings.sampler, () => new BatchSpanProcessor(new OTLPTraceExporter()))

/** Effect's tracing for the whole process: exported when `settings` are given, off otherwise. */
export const layer = (settings: Settings | null): Layer.Layer<never> =>
  settings === null ? Layer.setTracerEnabled(false) : exporting(settings)
