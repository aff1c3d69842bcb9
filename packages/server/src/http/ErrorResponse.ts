/**
 * Renders any error of the catalogue as the envelope, stamped with the trace id when the request is traced and the
 * request id otherwise (`RequestContext.traceIdIn`).
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as ApiError from "@signalman/core/ApiError"
import * as Effect from "effect/Effect"
import { currentTraceId } from "./RequestContext.js"

export const render = (error: ApiError.ApiError): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
  Effect.map(currentTraceId, (traceId) => {
    const headers: Record<string, string> = {}
    const retryAfter = error.details["retry_after_secs"]
    if (typeof retryAfter === "number" && Number.isFinite(retryAfter)) {
      headers["retry-after"] = String(Math.max(0, Math.ceil(retryAfter)))
    }
    // Rate-limited answers also carry the RateLimit-* fields (decisions.md).
    const limit = error.details["limit"]
    if (error.code === "RATE_LIMITED" && typeof limit === "number" && typeof retryAfter === "number") {
      headers["ratelimit-limit"] = String(limit)
      headers["ratelimit-remaining"] = "0"
      headers["ratelimit-reset"] = String(Math.max(0, Math.ceil(retryAfter)))
    }
    if (error.status === 405 && Array.isArray(error.details["allowed"])) {
      headers["allow"] = error.details["allowed"].join(", ")
    }
    return HttpServerResponse.unsafeJson(ApiError.toEnvelope(error, traceId), { status: error.status, headers })
  })
