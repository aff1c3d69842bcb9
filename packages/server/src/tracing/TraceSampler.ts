/**
 * Which spans are recorded: `OTEL_TRACES_SAMPLER` / `OTEL_TRACES_SAMPLER_ARG` as the OTel specification defines
 * them (the SDK reads them itself only when no sampler is given, and one is given here), behind one rule of
 * Signalman's own: a database query that belongs to no request, run or delivery is not traced.
 *
 * The background loops (the scheduler's claims, the notifier's and the sweepers' polls, the upkeep) query every
 * few hundred milliseconds; each query outside a span would be a trace of one span, thousands an hour, burying the
 * traces a person opens. A query inside a request, a check run's result write or a delivery has a parent and is
 * decided by the parent's sampling, like any child.
 */
import type * as OtelApi from "@opentelemetry/api"
import * as Otel from "@opentelemetry/api"
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  type Sampler,
  SamplingDecision,
  type SamplingResult,
  TraceIdRatioBasedSampler
} from "@opentelemetry/sdk-trace-base"
import * as Either from "effect/Either"

/** The samplers of the specification this build supports, with a ratio where they take one. */
export type Choice =
  | { readonly _tag: "always_on" }
  | { readonly _tag: "always_off" }
  | { readonly _tag: "traceidratio"; readonly ratio: number }
  | { readonly _tag: "parentbased_always_on" }
  | { readonly _tag: "parentbased_always_off" }
  | { readonly _tag: "parentbased_traceidratio"; readonly ratio: number }

/** The specification's default: a span follows its parent's decision, and a root span is always sampled. */
export const defaultChoice: Choice = { _tag: "parentbased_always_on" }

const ratioOf = (arg: string | undefined): Either.Either<number, string> => {
  if (arg === undefined) return Either.right(1)
  const ratio = Number(arg)
  return Number.isFinite(ratio) && ratio >= 0 && ratio <= 1
    ? Either.right(ratio)
    : Either.left(`OTEL_TRACES_SAMPLER_ARG=${arg} is not a ratio between 0 and 1`)
}

/** The sampler an environment names; unset is the default, a name this build does not know refuses the start. */
export const fromEnv = (sampler: string | undefined, arg: string | undefined): Either.Either<Choice, string> => {
  switch (sampler?.toLowerCase()) {
    case undefined:
      return Either.right(defaultChoice)
    case "always_on":
      return Either.right({ _tag: "always_on" })
    case "always_off":
      return Either.right({ _tag: "always_off" })
    case "parentbased_always_on":
      return Either.right({ _tag: "parentbased_always_on" })
    case "parentbased_always_off":
      return Either.right({ _tag: "parentbased_always_off" })
    case "traceidratio":
      return Either.map(ratioOf(arg), (ratio): Choice => ({ _tag: "traceidratio", ratio }))
    case "parentbased_traceidratio":
      return Either.map(ratioOf(arg), (ratio): Choice => ({ _tag: "parentbased_traceidratio", ratio }))
    default:
      return Either.left(
        `OTEL_TRACES_SAMPLER=${sampler} is not supported; use always_on, always_off, traceidratio, ` +
          "parentbased_always_on, parentbased_always_off or parentbased_traceidratio"
      )
  }
}

const build = (choice: Choice): Sampler => {
  switch (choice._tag) {
    case "always_on":
      return new AlwaysOnSampler()
    case "always_off":
      return new AlwaysOffSampler()
    case "traceidratio":
      return new TraceIdRatioBasedSampler(choice.ratio)
    case "parentbased_always_on":
      return new ParentBasedSampler({ root: new AlwaysOnSampler() })
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() })
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(choice.ratio) })
  }
}

/** `@effect/sql` names its spans `sql.execute`, `sql.transaction`, ... */
export const isQuerySpan = (name: string): boolean => name.startsWith("sql.")

/** Whether a span starting under `context` would be a trace's root. */
const isRoot = (context: OtelApi.Context): boolean => {
  const parent = Otel.trace.getSpanContext(context)
  return parent === undefined || !Otel.isSpanContextValid(parent)
}

const dropped: SamplingResult = { decision: SamplingDecision.NOT_RECORD }

/** The sampler of `choice`, never recording a query that is a trace's root. */
export const make = (choice: Choice): Sampler => {
  const inner = build(choice)
  return {
    shouldSample: (context, traceId, name, kind, attributes, links) =>
      isQuerySpan(name) && isRoot(context)
        ? dropped
        : inner.shouldSample(context, traceId, name, kind, attributes, links),
    toString: () => `SignalmanSampler{${inner.toString()}, no root query spans}`
  }
}
