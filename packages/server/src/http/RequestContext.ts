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
