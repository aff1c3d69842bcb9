/**
 * The request conventions every endpoint of the contract gets for free (service-api.md, "Conventions for every
 * request body"), as one `HttpApi` middleware around the router:
 *
 * - a JSON route refuses a body sent without `Content-Type: application/json` (415 `INVALID_CONTENT_TYPE`)
 *   and a body over `server.max_body_bytes` (413 `PAYLOAD_TOO_LARGE`) before reading it;
 * - a body that is not JSON is 400 `INVALID_JSON`;
 * - decode failures become the envelope: an unknown key is 422 `INVALID_JSON` naming its path, anything else
 *   400 `VALIDATION_FAILED` naming the field;
 * - an unknown path is 404 `NOT_FOUND`, a known path with another method 405 `METHOD_NOT_ALLOWED`;
 * - every error of the catalogue is rendered as the envelope with the request id.
 *
 * - anything else (a defect) is logged with its cause and answered 500 `INTERNAL_ERROR`, never in Effect's shape.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as ApiError from "@signalman/core/ApiError"
import * as DecodeFailure from "@signalman/core/DecodeFailure"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ErrorResponse from "./ErrorResponse.js"
import type { RouteTable } from "./RouteTable.js"

const isJsonContentType = (value: string): boolean => {
  const mediaType = value.split(";")[0]?.trim().toLowerCase() ?? ""
  return mediaType === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType)
}

const hasBody = (headers: Readonly<Record<string, string | undefined>>): boolean => {
  const length = headers["content-length"]
  if (length !== undefined) return Number(length) > 0
  return headers["transfer-encoding"] !== undefined
}

const pathnameOf = (url: string): string => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

/** The refusal a JSON route gives a request before its body is read, if any. */
export const checkJsonRequest = (
  headers: Readonly<Record<string, string | undefined>>,
  maxBodyBytes: number
): ApiError.ApiError | undefined => {
  const contentType = headers["content-type"]
  if (!hasBody(headers)) {
    return ApiError.make("INVALID_JSON", "This endpoint takes a JSON body; the request has none")
  }
  if (contentType === undefined || !isJsonContentType(contentType)) {
    return ApiError.make(
      "INVALID_CONTENT_TYPE",
      contentType === undefined
        ? "Send the body with Content-Type: application/json"
        : `Content-Type ${contentType.split(";")[0]} is not accepted here; send application/json`,
      { details: { expected: "application/json", received: contentType ?? null } }
    )
  }
  const length = Number(headers["content-length"] ?? "0")
  if (length > maxBodyBytes) return tooLarge(maxBodyBytes)
  return undefined
}

const tooLarge = (maxBodyBytes: number) =>
  ApiError.make("PAYLOAD_TOO_LARGE", `The body is larger than ${maxBodyBytes} bytes`, {
    details: { max_bytes: maxBodyBytes }
  })

interface Tagged {
  readonly _tag: string
}
const isTagged = (u: unknown): u is Tagged =>
  typeof u === "object" && u !== null && "_tag" in u && typeof u._tag === "string"

const isDecodeError = (u: unknown): u is { readonly issues: ReadonlyArray<DecodeFailure.Issue> } =>
  isTagged(u) && u._tag === "HttpApiDecodeError" && "issues" in u && Array.isArray(u.issues)

const isRequestError = (u: unknown): u is { readonly reason: string; readonly cause?: unknown } =>
  isTagged(u) && u._tag === "RequestError" && "reason" in u

/** The envelope error for a failure the router or the decoder produced, if it is one of ours to answer. */
export const classify = (
  error: unknown,
  request: { readonly method: string; readonly url: string },
  routes: RouteTable,
  maxBodyBytes: number
): ApiError.ApiError | undefined => {
  if (ApiError.isApiError(error)) return error
  if (isDecodeError(error)) {
    // The route's own headers are decoded after its path and body, so a failure naming one is the header's.
    const head = error.issues[0]?.path[0]
    const headers = routes.find(request.method, pathnameOf(request.url))?.headers ?? []
    const location =
      typeof head === "string" && headers.includes(head)
        ? "headers"
        : request.method === "GET" || request.method === "DELETE"
          ? "query"
          : "body"
    return DecodeFailure.toApiError(error.issues, location)
  }
  if (isRequestError(error) && error.reason === "Decode") {
    if (error.cause instanceof Error && error.cause.message === "maxBytes exceeded") return tooLarge(maxBodyBytes)
    return ApiError.make("INVALID_JSON", "The body is not valid JSON")
  }
  if (isTagged(error) && error._tag === "RouteNotFound") {
    const pathname = pathnameOf(request.url)
    const allowed = routes.methodsFor(pathname)
    if (allowed.length > 0) {
      return ApiError.make("METHOD_NOT_ALLOWED", `${request.method} is not allowed on ${pathname}`, {
        details: { allowed }
      })
    }
    return ApiError.make("NOT_FOUND", `No route ${request.method} ${pathname}`)
  }
  return undefined
}

// Reads send no body, so no route of theirs takes JSON: the route table is not asked.
const bodiless = new Set(["GET", "HEAD", "OPTIONS"])

export const middleware =
  (routes: RouteTable, maxBodyBytes: number) =>
  (app: HttpApp.Default): HttpApp.Default =>
    Effect.withFiberRuntime((fiber) => {
      const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
      if (!bodiless.has(request.method) && routes.find(request.method, pathnameOf(request.url))?.body === "json") {
        const refusal = checkJsonRequest(request.headers, maxBodyBytes)
        if (refusal !== undefined) return ErrorResponse.render(refusal)
      }
      return app.pipe(
        Effect.catchAllCause((cause): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
          if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
          const failure = Option.orElse(Cause.failureOption(cause), () => Cause.dieOption(cause))
          const error = Option.isSome(failure) ? classify(failure.value, request, routes, maxBodyBytes) : undefined
          if (error !== undefined) return ErrorResponse.render(error)
          return Effect.logError("Request failed", cause).pipe(
            Effect.zipRight(ErrorResponse.render(ApiError.make("INTERNAL_ERROR", "Something went wrong on our side")))
          )
        })
      )
    })

export const layer = (routes: RouteTable, maxBodyBytes: number): Layer.Layer<never> =>
  HttpApiBuilder.middleware(middleware(routes, maxBodyBytes))
