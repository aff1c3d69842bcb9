/**
 * The ping URLs, `<public base>/ping/<token>[/success|/start|/fail|/<0-255>]`, GET or POST, no auth: answered by
 * the node listener before Effect (like `/healthz`), since they are the service's hottest path.
 *
 * The ping counts as soon as its token resolves, before any body is read. A body is then read for the run's output:
 * at most 256 KiB and 10 seconds; its first 4 KiB are kept. A body past either limit costs the output (none is
 * kept), never the ping: the answer is still 200, and the connection is closed rather than drained.
 */
import type * as Http from "node:http"
import * as ApiError from "@signalman/core/ApiError"
import * as PingOutput from "@signalman/core/heartbeat/PingOutput"
import * as PingSignal from "@signalman/core/heartbeat/PingSignal"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Liveness from "../http/Liveness.js"
import { chooseRequestId } from "../http/RequestContext.js"
import { Pings } from "./Pings.js"

export const PREFIX = "/ping/"

/** The most body read for the output; more costs the output. */
export const MAX_BODY_READ = 256 * 1024
/** The longest a body may trickle in; later costs the output. */
export const BODY_DEADLINE_MS = 10_000

// The kept output is at most 4 KiB; three more bytes let the cut step back over a split UTF-8 sequence.
const KEEP_BYTES = PingOutput.MAX_OUTPUT_BYTES + 3

const OK = Buffer.from("OK\n")

const send = (
  response: Http.ServerResponse,
  requestId: string,
  status: number,
  body: Buffer,
  headers: Record<string, string> = {},
  close = false
) => {
  if (response.headersSent) return
  response.writeHead(status, {
    "content-type": status === 200 ? "text/plain; charset=utf-8" : "application/json; charset=utf-8",
    "content-length": String(body.length),
    "cache-control": "no-store",
    "x-request-id": requestId,
    ...(close ? { connection: "close" } : {}),
    ...headers
  })
  response.end(body)
}

const envelope = (error: ApiError.ApiError, requestId: string): Buffer =>
  Buffer.from(JSON.stringify(ApiError.toEnvelope(error, requestId)))

// One answer for an unknown token, a revoked one and a path that is no signal: nothing tells them apart.
const notFound = ApiError.make("NOT_FOUND", "Not found")

/**
 * Reads the body for the output: the kept bytes once it ended within the limits, none past them (then the rest
 * is not read: `complete` is false and the connection must close).
 */
const readBody = (
  request: Http.IncomingMessage
): Promise<{ readonly kept: Buffer | null; readonly complete: boolean }> =>
  new Promise((resolve) => {
    if (request.complete && request.readableLength === 0) return resolve({ kept: null, complete: true })
    const chunks: Array<Buffer> = []
    let kept = 0
    let total = 0
    let settled = false
    const done = (result: { readonly kept: Buffer | null; readonly complete: boolean }) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      request.off("data", onData)
      request.off("end", onEnd)
      request.off("error", onError)
      if (!result.complete) request.pause()
      resolve(result)
    }
    const onData = (chunk: Buffer) => {
      total += chunk.length
      if (total > MAX_BODY_READ) return done({ kept: null, complete: false })
      if (kept < KEEP_BYTES) {
        const part = chunk.subarray(0, KEEP_BYTES - kept)
        chunks.push(part)
        kept += part.length
      }
    }
    const onEnd = () => done({ kept: total === 0 ? null : Buffer.concat(chunks), complete: true })
    const onError = () => done({ kept: null, complete: false })
    const timer = setTimeout(() => done({ kept: null, complete: false }), BODY_DEADLINE_MS)
    request.on("data", onData)
    request.on("end", onEnd)
    request.on("error", onError)
  })

/** The listener for everything under `/ping/`. */
export const handler =
  (pings: Pings): Liveness.RequestListener =>
  (request, response) => {
    const now = Date.now()
    const header = request.headers["x-request-id"]
    const requestId = chooseRequestId(typeof header === "string" ? header : undefined)
    const url = request.url ?? ""
    const q = url.indexOf("?")
    const parsed = PingSignal.fromPath(q === -1 ? url : url.slice(0, q))
    if (request.method !== "GET" && request.method !== "POST") {
      const error = ApiError.make("METHOD_NOT_ALLOWED", "Ping URLs take GET or POST", {
        details: { allowed: ["GET", "POST"] }
      })
      return send(response, requestId, 405, envelope(error, requestId), { allow: "GET, POST" }, true)
    }
    if (Option.isNone(parsed)) return send(response, requestId, 404, envelope(notFound, requestId), {}, true)
    const { signal, token } = parsed.value
    pings.ping(token, signal, now).then(
      async (outcome) => {
        switch (outcome._tag) {
          case "Unknown":
            return send(response, requestId, 404, envelope(notFound, requestId), {}, true)
          case "Limited": {
            const error = ApiError.make("RATE_LIMITED", "Too many pings for this URL: 1 a second, bursts of 10", {
              details: { retry_after_secs: outcome.retry_after_secs, limit: 1 }
            })
            return send(
              response,
              requestId,
              429,
              envelope(error, requestId),
              { "retry-after": String(outcome.retry_after_secs) },
              true
            )
          }
          case "Counted": {
            const body = await readBody(request)
            if (body.kept !== null) pings.output(outcome.ping_id, PingOutput.fromBody(body.kept))
            return send(response, requestId, 200, OK, {}, !body.complete)
          }
        }
      },
      () => {
        const error = ApiError.make("INTERNAL_ERROR", "The ping could not be recorded; try again")
        send(response, requestId, 500, envelope(error, requestId), {}, true)
      }
    )
  }

/** Mounts the ping URLs on the server's listener. */
export const layer = (server: Liveness.Server): Layer.Layer<never, never, Pings> =>
  Layer.effectDiscard(Effect.map(Pings, (pings) => server.route(PREFIX, handler(pings))))
