/**
 * `GET /healthz` answered by the node listener itself, before a request enters the Effect runtime.
 *
 * Liveness only has to prove that the process and its event loop answer, and probes call it often: routing it
 * through the fiber runtime, the router and the middleware would cost several times the work it reports on. The
 * answer is the contract's own (`Health`), with the headers every response carries: the JSON charset and the
 * request id (a well-formed incoming one is kept). Every other request, `/healthz` with another method included,
 * goes to the Effect handler unchanged.
 *
 * WebSocket upgrades go the same way: the platform listens for every upgrade (its router answers those it has no
 * route for), and a path given to `upgradeRoute` (the agents' stream) is taken from the listener before it.
 *
 * The port is bound before the rest of the process is built (the platform listens, then the API's layers are made,
 * then its handler is attached), and node leaves a request that finds no listener unanswered: a client arriving in
 * that window, such as a probe agent reconnecting to a restarted server, would wait for its own timeout. So while no
 * handler is attached (at boot, and once it is detached at shutdown) the listener answers liveness as ever and every
 * other request 503 `NOT_READY`, which clients retry.
 */

import type { EventEmitter } from "node:events"
import * as Http from "node:http"
import type { Duplex } from "node:stream"
import * as ApiError from "@signalman/core/ApiError"
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

// Before the handler is attached or after it is gone: retry shortly.
const notReady = (request: Http.IncomingMessage, response: Http.ServerResponse): void => {
  const header = request.headers["x-request-id"]
  const requestId = chooseRequestId(typeof header === "string" ? header : undefined)
  const text = JSON.stringify(
    ApiError.toEnvelope(ApiError.make("NOT_READY", "The server is starting or stopping; retry shortly"), requestId)
  )
  response.writeHead(503, {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(text)),
    "x-request-id": requestId,
    "retry-after": "1",
    connection: "close"
  })
  response.end(text)
}

export type RequestListener = (request: Http.IncomingMessage, response: Http.ServerResponse) => void
/** What the listener's `upgrade` event hands over: the request, its socket, and the bytes read past its head. */
export type UpgradeListener = (request: Http.IncomingMessage, socket: Duplex, head: Buffer) => void
/** Answers the request and returns true, or writes nothing and returns false. */
export type Shortcut = (request: Http.IncomingMessage, response: Http.ServerResponse) => boolean
// The listener type of EventEmitter's catch-all `on`, whatever event it serves.
type Listener = Parameters<EventEmitter["on"]>[1]

const isRequestListener = (listener: unknown): listener is RequestListener => typeof listener === "function"
const isUpgradeListener = (listener: unknown): listener is UpgradeListener => typeof listener === "function"

const pathOf = (url: string | undefined): string => {
  const path = url ?? ""
  const q = path.indexOf("?")
  return q === -1 ? path : path.slice(0, q)
}

/**
 * An HTTP server whose request listeners (the Effect handler) never see liveness probes. The platform attaches
 * and detaches its listener with `on` and `off`, so those two are where the probe is taken off.
 *
 * A request handed to the Effect handler is first given its request id and default headers
 * (`ResponseHeaders.prepare`) and counted in flight until its response closes, so a drain waits for it.
 */
export class Server extends Http.Server<typeof Http.IncomingMessage, typeof ResponseHeaders.Response> {
  private readonly wrapped = new WeakMap<object, RequestListener>()
  private readonly wrappedUpgrades = new WeakMap<object, UpgradeListener>()
  private readonly upgrades = new Map<string, UpgradeListener>()
  private lifecycle: Lifecycle | undefined
  private readonly direct: Array<{ readonly prefix: string; readonly handle: RequestListener }> = []
  private readonly shortcuts: Array<Shortcut> = []
  /** Request listeners attached through `on` (the Effect handler): none yet at boot, none after shutdown. */
  private handlers = 0

  constructor(options: Omit<Http.ServerOptions, "ServerResponse" | "IncomingMessage"> = {}) {
    super({ ...options, ServerResponse: ResponseHeaders.Response })
    super.on("request", (request: Http.IncomingMessage, response: Http.ServerResponse) => {
      if (this.handlers > 0) return
      if (isLiveness(request)) answer(request, response)
      else notReady(request, response)
    })
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

  /**
   * Takes the upgrades of exactly `path` (whatever their query) from the listener, before the platform sees them;
   * answers the function that gives the path back.
   */
  upgradeRoute(path: string, handle: UpgradeListener): () => void {
    this.upgrades.set(path, handle)
    return () => {
      if (this.upgrades.get(path) === handle) this.upgrades.delete(path)
    }
  }

  /** Counts probes as in-flight requests, so a drain sees them like any other. */
  track(lifecycle: Lifecycle): void {
    this.lifecycle = lifecycle
  }

  override on(event: string, listener: Listener): this {
    if (event === "upgrade" && isUpgradeListener(listener)) {
      const routed: UpgradeListener = (request, socket, head) =>
        (this.upgrades.get(pathOf(request.url)) ?? listener)(request, socket, head)
      this.wrappedUpgrades.set(listener, routed)
      return super.on(event, routed)
    }
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
    this.handlers++
    return super.on(event, fast)
  }

  override off(event: string, listener: Listener): this {
    const fast =
      event === "request"
        ? this.wrapped.get(listener)
        : event === "upgrade"
          ? this.wrappedUpgrades.get(listener)
          : undefined
    if (event === "request" && fast !== undefined && this.wrapped.delete(listener)) this.handlers--
    return super.off(event, fast ?? listener)
  }
}
