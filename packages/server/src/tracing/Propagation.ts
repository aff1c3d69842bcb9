/**
 * The caller's trace, from a request's W3C `traceparent` and `tracestate` headers (or B3), as the parent of the
 * request's span.
 *
 * The platform parses the headers into an external span with its sampled flag, but the OpenTelemetry bridge reads
 * the flags (and the trace state) only from that span's context, defaulting to "sampled": a caller that decided not
 * to sample its trace would have this service record it anyway. So both are put where the bridge reads them.
 */

import * as OtelTracer from "@effect/opentelemetry/Tracer"
import type * as Headers from "@effect/platform/Headers"
import * as HttpTraceContext from "@effect/platform/HttpTraceContext"
import * as Otel from "@opentelemetry/api"
import * as Context from "effect/Context"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"

/** The parent span a request's headers name, with its sampling decision and trace state; undefined when none. */
export const parentOf = (headers: Headers.Headers): Tracer.ExternalSpan | undefined => {
  const incoming = HttpTraceContext.fromHeaders(headers)
  if (Option.isNone(incoming)) return undefined
  const { traceId, spanId, sampled } = incoming.value
  let context = Context.make(OtelTracer.OtelTraceFlags, sampled ? Otel.TraceFlags.SAMPLED : Otel.TraceFlags.NONE)
  const state = headers["tracestate"]
  if (state !== undefined && state !== "") {
    context = Context.add(context, OtelTracer.OtelTraceState, Otel.createTraceState(state))
  }
  return Tracer.externalSpan({ traceId, spanId, sampled, context })
}
