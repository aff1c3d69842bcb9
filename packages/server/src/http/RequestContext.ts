/**
 * The request id. The listener settles it before a request enters the Effect runtime (`ResponseHeaders.prepare`:
 * a well-formed incoming `X-Request-Id` is kept, anything else replaced by a fresh one) and writes it back into the
 * request's own headers, so any layer (the error renderer, the audit log, the logger) reads it from the request in
 * its context, without threading it through every signature and without a fiber-local value set per request.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"

const wellFormed = /^[A-Za-z0-9._:-]{1,128}$/

/** A caller's or proxy's `X-Request-Id` is kept when it is short and plain; otherwise a fresh one is made. */
export const chooseRequestId = (incoming: string | undefined): string =>
  incoming !== undefined && wellFormed.test(incoming) ? incoming : crypto.randomUUID()

/** The id of the request a context serves, or null outside a request (a worker's fiber). */
export const requestIdIn = (context: Context.Context<never>): string | null => {
  const request = Context.getOption(context, HttpServerRequest.HttpServerRequest)
  return Option.isSome(request) ? (request.value.headers["x-request-id"] ?? null) : null
}

/** The id of the request being handled, or null outside a request. */
export const currentRequestId: Effect.Effect<string | null> = Effect.map(Effect.context<never>(), requestIdIn)

const otelTraceId = /^[0-9a-f]{32}$/

/**
 * What the error envelope's `trace_id` says (docs/operations.md, "Reading a trace"): with tracing on, the trace id
 * of the request's span when that trace is recorded (sampled), so it can be pasted into the tracing backend as is;
 * otherwise (tracing off, a trace not sampled) the request id, which the logs carry and the span has as
 * `signalman.request_id`.
 */
export const traceIdIn = (context: Context.Context<never>): string | null => {
  const span = Context.getOption(context, Tracer.ParentSpan)
  if (Option.isSome(span) && span.value.sampled && otelTraceId.test(span.value.traceId)) return span.value.traceId
  return requestIdIn(context)
}

/** The `trace_id` of an error answered now (see `traceIdIn`). */
export const currentTraceId: Effect.Effect<string | null> = Effect.map(Effect.context<never>(), traceIdIn)
