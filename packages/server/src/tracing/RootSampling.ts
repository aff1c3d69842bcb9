/**
 * The sampling decision of a trace's root (a request's span, a delivery's, a results write's), taken once, before
 * its span is made, so a trace the sampler will not record costs nothing: the unit of work then runs with Effect's
 * tracer disabled, and neither its root span nor any child (its queries, a check-now's check) is made at all.
 * Without this, a request sampled out still made an Effect span and an OpenTelemetry non-recording span, and so did
 * each of its queries: at one trace in ten, most of the cost of tracing every request.
 *
 * The decision is the configured sampler's own (`TraceSampler.make`, the one the tracer provider uses), asked as
 * the SDK would ask it: under a caller's `traceparent`, with that remote parent (a parent-based sampler follows its
 * sampled flag); for a new trace, with the trace id the root span will carry. That id is chosen here and handed to
 * the provider's id generator (`ChosenIds`) while the span is made, so the SDK, asking the same sampler again, gets
 * the same answer, and a ratio sampler that is not parent-based decides the root's children on the same id too.
 */
import * as OtelTracer from "@effect/opentelemetry/Tracer"
import * as Otel from "@opentelemetry/api"
import { type IdGenerator, RandomIdGenerator, type Sampler, SamplingDecision } from "@opentelemetry/sdk-trace-base"
import * as Context from "effect/Context"
import type * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import { globalValue } from "effect/GlobalValue"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Tracer from "effect/Tracer"

/** The trace id a recorded root's span is to carry: the one its sampling was decided on. */
export class ChosenTraceId extends Context.Tag("signalman/tracing/ChosenTraceId")<ChosenTraceId, string>() {}

/**
 * Decides whether a root span named `name`, of `kind`, continuing `parent` (a caller's trace) or starting a trace
 * (undefined), is recorded: the context to make its span with when it is, undefined when it is not.
 */
export type Decide = (
  name: string,
  kind: Tracer.SpanKind,
  parent: Tracer.ExternalSpan | undefined
) => Context.Context<never> | undefined

/** The process's decision; null when none is installed (tracing off, or a tracer of its own in a test). */
const current = globalValue(Symbol.for("signalman/tracing/RootSampling"), () =>
  FiberRef.unsafeMake<Decide | null>(null)
)

const kinds: Record<Tracer.SpanKind, Otel.SpanKind> = {
  internal: Otel.SpanKind.INTERNAL,
  server: Otel.SpanKind.SERVER,
  client: Otel.SpanKind.CLIENT,
  producer: Otel.SpanKind.PRODUCER,
  consumer: Otel.SpanKind.CONSUMER
}

/** The OpenTelemetry context of a caller's span, as the bridge builds it (`Propagation` put its flags and state). */
const remoteContext = (parent: Tracer.ExternalSpan): Otel.Context =>
  Otel.trace.setSpanContext(Otel.ROOT_CONTEXT, {
    traceId: parent.traceId,
    spanId: parent.spanId,
    traceFlags: Option.getOrElse(Context.getOption(parent.context, OtelTracer.OtelTraceFlags), () =>
      parent.sampled ? Otel.TraceFlags.SAMPLED : Otel.TraceFlags.NONE
    ),
    traceState: Option.getOrUndefined(Context.getOption(parent.context, OtelTracer.OtelTraceState)),
    isRemote: true
  })

/** The decision `sampler` makes, as the SDK would make it at the span's start. */
export const make = (sampler: Sampler): Decide => {
  const ids = new RandomIdGenerator()
  return (name, kind, parent) => {
    if (parent === undefined) {
      const traceId = ids.generateTraceId()
      const { decision } = sampler.shouldSample(Otel.ROOT_CONTEXT, traceId, name, kinds[kind], {}, [])
      return decision === SamplingDecision.NOT_RECORD ? undefined : Context.make(ChosenTraceId, traceId)
    }
    const { decision } = sampler.shouldSample(remoteContext(parent), parent.traceId, name, kinds[kind], {}, [])
    return decision === SamplingDecision.NOT_RECORD ? undefined : Context.empty()
  }
}

/** Installs `decide` as the process's root sampling (beside the tracer, `Tracing.ts`). */
export const layer = (decide: Decide): Layer.Layer<never> => Layer.locallyScoped(current, decide)

/**
 * The decision for a root span on `fiber` (whose tracer is on): with none installed every root is made, and the
 * tracer decides alone, as before.
 */
export const decide = <A, E>(
  fiber: Fiber.RuntimeFiber<A, E>,
  name: string,
  kind: Tracer.SpanKind,
  parent: Tracer.ExternalSpan | undefined
): Context.Context<never> | undefined => {
  const installed = fiber.getFiberRef(current)
  return installed === null ? Context.empty() : installed(name, kind, parent)
}

/**
 * The tracer provider's id generator: random ids, except the trace id a root's decision chose, handed over while
 * that root's span is made (`making`). Span creation is synchronous (the bridge calls the SDK's `startSpan`, which
 * asks for the trace id at once), so no other span can take the id in between.
 */
export class ChosenIds implements IdGenerator {
  private chosen: string | undefined = undefined
  private readonly random = new RandomIdGenerator()

  generateTraceId = (): string => {
    const chosen = this.chosen
    if (chosen === undefined) return this.random.generateTraceId()
    this.chosen = undefined
    return chosen
  }

  generateSpanId = (): string => this.random.generateSpanId()

  /** Makes a span with `make`, its trace id (if it starts a trace) the one `context` chose, if any. */
  making<A>(context: Context.Context<never>, make: () => A): A {
    const chosen = Context.getOption(context, ChosenTraceId)
    if (Option.isNone(chosen)) return make()
    this.chosen = chosen.value
    try {
      return make()
    } finally {
      this.chosen = undefined
    }
  }
}
