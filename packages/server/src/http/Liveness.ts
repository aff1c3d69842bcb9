/**
 * `GET /healthz` answered by the node listener itself, before a request enters the Effect runtime.
 *
 * Liveness only has to prove that the process and its event loop answer, and probes call it often: routing it
 * through the fiber runtime, the router and the middleware would cost several times the work it reports on. The
 * answer is the contract's own (`Health`), with the headers every response carries: the JSON charset and the
 * request id (a well-formed incoming one is kept). Every other request, `/healthz` with another method included,
 * goes to the Effect handler unchanged.
 */

import type { EventEmitter } from "node:events"
import * as Http from "node:http"
import { Health } from "@signalman/core/api/Operations"
import * as Schema from "effect/Schema"
import type { Lifecycle } from "../infra/Lifecycle.js"
import { chooseRequestId } from "./RequestContext.js"
import * as ResponseHeaders from "./ResponseHeaders.js"

const body = Buffer.from(JSON.stringify(Schema.encodeSync(Health)(new Health({ status: "ok" }))))
const contentLength = String(body.length)

const isLiveness = (request: Http.IncomingMessage): boolean => {
  const url = request.url ?? ""
  return (request.method === "GET" || request.method === "HEAD") && (url === "/healthz" || url.startsWith("/healthz?"))
}

const answer = (request: Http.IncomingMessage, response: Http.ServerResponse): void => {
  const header = request.headers["x-request-id"]
  response.writeHead(200, {
    "content-type": "application/json; charset=utf-8",
    "content-length": contentLength,
    "x-request-id": chooseRequestId(typeof header === "string" ? header : undefined)
  })
  response.end(request.method === "HEAD" ? undefined : body)
}

export type RequestListener = (request: Http.IncomingMessage, response: Http.ServerResponse) => void
/** Answers the request and returns true, or writes nothing and returns false. */
export type Shortcut = (request: Http.IncomingMessage, response: Http.ServerResponse) => boolean
// The listener type of EventEmitter's catch-all `on`, whatever event it serves.
type Listener = Parameters<EventEmitter["on"]>[1]

const isRequestListener = (listener: unknown): listener is RequestListener => typeof listener === "function"

/**
 * An HTTP server whose request listeners (the Effect handler) never see liveness probes. The platform attaches
 * and detaches its listener with `on` and `off`, so those two are where the probe is taken off.
 *
 * A request handed to the Effect handler is first given its request id and default headers
 * (`ResponseHeaders.prepare`) and counted in flight until its response closes, so a drain waits for it.
 */
export class Server extends Http.Server<typeof Http.IncomingMessage, typeof ResponseHeaders.Response> {
  private readonly wrapped = new WeakMap<object, RequestListener>()
  private lifecycle: Lifecycle | undefined
  private readonly direct: Array<{ readonly prefix: string; readonly handle: RequestListener }> = []
  private readonly shortcuts: Array<Shortcut> = []

  constructor(options: Omit<Http.ServerOptions, "ServerResponse" | "IncomingMessage"> = {}) {
    super({ ...options, ServerResponse: ResponseHeaders.Response })
  }

  /**
   * Serves every path under `prefix` with `handle`, from the listener like liveness (the ping URLs: no auth, any
   * body, thousands a second). The request counts as in flight until its response closes.
   */
  route(prefix: string, handle: RequestListener): void {
    this.direct.push({ prefix, handle })
  }

  /**
   * Lets `handle` answer a request from the listener when it can (cache hits of public status pages); when it
   * returns false, having written nothing, the request goes on to the Effect handler unchanged.
   */
  shortcut(handle: Shortcut): void {
    this.shortcuts.push(handle)
  }

  /** Counts probes as in-flight requests, so a drain sees them like any other. */
  track(lifecycle: Lifecycle): void {
    this.lifecycle = lifecycle
  }

  override on(event: string, listener: Listener): this {
    if (event !== "request" || !isRequestListener(listener)) return super.on(event, listener)
    const fast: RequestListener = (request, response) => {
      const url = request.url ?? ""
      for (const route of this.direct) {
        if (!url.startsWith(route.prefix)) continue
        const lifecycle = this.lifecycle
        lifecycle?.enter()
        response.once("close", () => lifecycle?.leave())
        return route.handle(request, response)
      }
      if (!isLiveness(request)) {
        for (const shortcut of this.shortcuts) {
          const lifecycle = this.lifecycle
          lifecycle?.enter()
          let answered = false
          try {
            answered = shortcut(request, response)
          } finally {
            // An answer ended on the spot (its bytes handed to the socket) is done, like a liveness answer; one
            // still being written counts until its response closes.
            if (answered && !response.writableEnded) response.once("close", () => lifecycle?.leave())
            else lifecycle?.leave()
          }
          if (answered) return
        }
        const lifecycle = this.lifecycle
        if (lifecycle !== undefined) {
          lifecycle.enter()
          response.once("close", () => lifecycle.leave())
        }
        ResponseHeaders.prepare(request, response)
        return listener(request, response)
      }
      this.lifecycle?.enter()
      try {
        answer(request, response)
      } finally {
        this.lifecycle?.leave()
      }
    }
    this.wrapped.set(listener, fast)
    return super.on(event, fast)
  }

  override off(event: string, listener: Listener): this {
    const fast = event === "request" ? this.wrapped.get(listener) : undefined
    return super.off(event, fast ?? listener)
  }
}
