/**
 * The example's load balancer: a small HTTP and WebSocket reverse proxy in front of the api processes, doing what
 * the nginx and HAProxy configurations of docs/deployment.md do.
 *
 * - **Round robin** over the apis that are in rotation, one request at a time; WebSocket upgrades (the agents'
 *   streams, the dashboard's live feed) are tunnelled to an api the same way.
 * - **Health checks**: every `healthIntervalMs` each api's `GET /readyz` is asked (bounded by `healthTimeoutMs`).
 *   An api answering anything but 200, or not answering, is out of rotation until it answers 200 again. A draining
 *   api (SIGTERM) answers 503 and closes its listener, so it leaves rotation at once.
 * - **Retry only what is safe to retry**: a connection that could not be opened (refused: the api stopped
 *   listening) takes the api out of rotation and the request goes to the next one. Nothing of the request has been
 *   read or sent at that point (its body is piped only once the connection is open), so this is safe for any
 *   method. A connection closed after the request went out and before any answer is retried on the next api only
 *   for a GET, HEAD or OPTIONS without a body (as nginx's `proxy_next_upstream error` does by default); anything else
 *   is answered 502, since the api may have acted on it. The api's `server.drain_delay_secs` is what keeps a
 *   draining api from closing connections under requests at all (docs/deployment.md).
 * - **One connection per request** to the apis (no keep-alive pool): a pooled connection can be closed by a
 *   draining api just as a request is written on it, which would fail a request the api never saw; a fresh
 *   connection fails at connect, where retrying is safe.
 * - **Forwarded headers**: `X-Forwarded-For` gets the client's address appended (the address this balancer's
 *   connection came from), `X-Forwarded-Proto` and `X-Forwarded-Host` are set. Signalman reads `X-Forwarded-For`
 *   only from connections of `server.trusted_proxies` (docs/configuration.md), walking it from the right.
 * - **Drain**: `close` stops accepting connections, lets the requests in flight finish (at most `graceMs`), then
 *   closes the tunnels and the idle connections.
 */
import * as Http from "node:http"
import * as Net from "node:net"

export interface Address {
  readonly host: string
  readonly port: number
}

export interface Options {
  readonly listen: Address
  readonly upstreams: ReadonlyArray<Address>
  readonly healthIntervalMs: number
  readonly healthTimeoutMs: number
  readonly log: (level: "info" | "warn", message: string, fields: Record<string, unknown>) => void
}

export interface UpstreamState {
  readonly address: string
  readonly healthy: boolean
  /** Requests and upgrades this api answered through the balancer. */
  readonly served: number
  /** Connections to it refused (the request went to another api: nothing had been sent). */
  readonly refused: number
  /** Connections it closed under a request before any answer (retried if a bodiless GET, else 502). */
  readonly cut: number
}

export interface Balancer {
  readonly url: string
  readonly upstreams: () => ReadonlyArray<UpstreamState>
  /** Drains: no new connections, the requests in flight finish (at most `graceMs`); answers whether all did. */
  readonly close: (graceMs: number) => Promise<boolean>
}

interface Upstream extends Address {
  readonly address: string
  healthy: boolean
  served: number
  refused: number
  cut: number
}

// Headers of one hop only (RFC 9110, 7.6.1): never forwarded as they are.
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade"
])

const FORWARDED = new Set(["x-forwarded-for", "x-forwarded-proto", "x-forwarded-host"])

/** `::ffff:127.0.0.1` (an IPv4 client on a dual-stack socket) as `127.0.0.1`. */
const plain = (address: string | undefined): string =>
  address === undefined ? "unknown" : address.startsWith("::ffff:") ? address.slice(7) : address

/** The names a request's `Connection` header lists: hop-by-hop for this request too. */
const connectionTokens = (request: Http.IncomingMessage): Set<string> =>
  new Set(
    (request.headers.connection ?? "")
      .split(",")
      .map((token) => token.trim().toLowerCase())
      .filter((token) => token !== "")
  )

/** The request's end-to-end headers plus the forwarded ones; an upgrade keeps `Connection` and `Upgrade`. */
const forwardedHeaders = (request: Http.IncomingMessage, upgrade: boolean): Http.OutgoingHttpHeaders => {
  const listed = connectionTokens(request)
  const headers: Http.OutgoingHttpHeaders = {}
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || FORWARDED.has(name)) continue
    if (!upgrade && (HOP_BY_HOP.has(name) || listed.has(name))) continue
    headers[name] = value
  }
  const prior = request.headers["x-forwarded-for"]
  const client = plain(request.socket.remoteAddress)
  headers["x-forwarded-for"] = prior === undefined || prior === "" ? client : `${prior}, ${client}`
  headers["x-forwarded-proto"] = "http"
  if (request.headers.host !== undefined) headers["x-forwarded-host"] = request.headers.host
  return headers
}

const responseHeaders = (response: Http.IncomingMessage): Http.OutgoingHttpHeaders => {
  const headers: Http.OutgoingHttpHeaders = {}
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value
  }
  return headers
}

/** A request that may be sent again: a safe method, and no body (so nothing of it was consumed). */
const repeatable = (request: Http.IncomingMessage): boolean =>
  (request.method === "GET" || request.method === "HEAD" || request.method === "OPTIONS") &&
  request.headers["transfer-encoding"] === undefined &&
  (request.headers["content-length"] === undefined || request.headers["content-length"] === "0")

const unavailable = (response: Http.ServerResponse, status: 502 | 503, message: string) => {
  if (response.destroyed) return
  if (response.headersSent) {
    response.destroy()
    return
  }
  const body = JSON.stringify({ error: { code: status === 503 ? "NOT_READY" : "BAD_GATEWAY", message } })
  response.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "retry-after": "1"
  })
  response.end(body)
}

export const make = (options: Options): Promise<Balancer> => {
  const upstreams: Array<Upstream> = options.upstreams.map((a) => ({
    ...a,
    address: `${a.host}:${a.port}`,
    healthy: false,
    served: 0,
    refused: 0,
    cut: 0
  }))
  let cursor = 0
  let inFlight = 0
  let draining = false
  let idle: (() => void) | undefined
  const tunnels = new Set<Net.Socket>()

  const setHealth = (upstream: Upstream, healthy: boolean, reason: string) => {
    if (upstream.healthy === healthy) return
    upstream.healthy = healthy
    options.log(healthy ? "info" : "warn", healthy ? "Upstream in rotation" : "Upstream out of rotation", {
      upstream: upstream.address,
      reason
    })
  }

  /** The next api in rotation after the last one picked, skipping those this request already tried. */
  const pick = (tried: ReadonlySet<Upstream>): Upstream | undefined => {
    for (let i = 0; i < upstreams.length; i++) {
      const candidate = upstreams[(cursor + i) % upstreams.length]
      if (candidate?.healthy && !tried.has(candidate)) {
        cursor = (cursor + i + 1) % upstreams.length
        return candidate
      }
    }
    return undefined
  }

  const settle = () => {
    inFlight--
    if (inFlight === 0 && idle !== undefined) idle()
  }

  const forward = (request: Http.IncomingMessage, response: Http.ServerResponse, tried: Set<Upstream>): void => {
    const upstream = pick(tried)
    if (upstream === undefined) {
      unavailable(response, 503, "No api process is in rotation; retry shortly")
      return
    }
    tried.add(upstream)
    let connected = false
    const outgoing = Http.request({
      host: upstream.host,
      port: upstream.port,
      method: request.method,
      path: request.url,
      headers: forwardedHeaders(request, false),
      agent: false
    })
    outgoing.on("socket", (socket) => {
      const send = () => {
        connected = true
        // A retried request without a body has been read to its end already: there is nothing more to send.
        if (request.readableEnded) outgoing.end()
        else request.pipe(outgoing)
      }
      if (socket.connecting) socket.once("connect", send)
      else send()
    })
    let answered = false
    outgoing.on("response", (answer) => {
      answered = true
      upstream.served++
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, responseHeaders(answer))
      answer.pipe(response)
      answer.on("error", () => response.destroy())
    })
    outgoing.on("error", (error) => {
      if (!connected) {
        // Nothing was sent: the api is gone or not listening. Out of rotation, and the next one gets the request.
        upstream.refused++
        setHealth(upstream, false, error.message)
        forward(request, response, tried)
        return
      }
      if (!answered && !response.destroyed) upstream.cut++
      if (!answered && repeatable(request) && !response.destroyed) {
        // Closed before any answer: a draining or crashed api. Out of rotation until its health check says otherwise.
        setHealth(upstream, false, error.message)
        forward(request, response, tried)
        return
      }
      options.log("warn", "Upstream failed mid-request", { upstream: upstream.address, error: error.message })
      unavailable(response, 502, "The api process failed while answering")
    })
    // The client went away before its answer was complete: so does the request to the api.
    response.on("close", () => {
      if (!response.writableFinished) outgoing.destroy()
    })
  }

  const tunnel = (request: Http.IncomingMessage, client: Net.Socket, head: Buffer, tried: Set<Upstream>) => {
    const upstream = pick(tried)
    if (upstream === undefined) {
      client.end("HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\n\r\n")
      return
    }
    tried.add(upstream)
    let connected = false
    const socket = Net.connect({ host: upstream.host, port: upstream.port })
    socket.once("connect", () => {
      connected = true
      upstream.served++
      tunnels.add(socket)
      tunnels.add(client)
      const lines = [`${request.method ?? "GET"} ${request.url ?? "/"} HTTP/${request.httpVersion}`]
      for (const [name, value] of Object.entries(forwardedHeaders(request, true))) {
        for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) lines.push(`${name}: ${v}`)
      }
      socket.write(`${lines.join("\r\n")}\r\n\r\n`)
      if (head.length > 0) socket.write(head)
      socket.pipe(client)
      client.pipe(socket)
    })
    socket.on("error", (error) => {
      if (!connected) {
        upstream.refused++
        setHealth(upstream, false, error.message)
        tunnel(request, client, head, tried)
        return
      }
      client.destroy()
    })
    client.on("error", () => socket.destroy())
    socket.on("close", () => {
      tunnels.delete(socket)
      client.destroy()
    })
    client.on("close", () => {
      tunnels.delete(client)
      if (connected) socket.destroy()
    })
  }

  const server = Http.createServer((request, response) => {
    inFlight++
    response.on("close", settle)
    if (request.url === "/__balancer") {
      const body = JSON.stringify({ draining, upstreams: status() })
      response.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" }).end(body)
      return
    }
    forward(request, response, new Set())
  })
  server.on("upgrade", (request: Http.IncomingMessage, client: Net.Socket, head: Buffer) =>
    tunnel(request, client, head, new Set())
  )

  const status = (): ReadonlyArray<UpstreamState> =>
    upstreams.map((u) => ({
      address: u.address,
      healthy: u.healthy,
      served: u.served,
      refused: u.refused,
      cut: u.cut
    }))

  const probe = (upstream: Upstream) =>
    new Promise<void>((resolve) => {
      const check = Http.get(
        { host: upstream.host, port: upstream.port, path: "/readyz", agent: false, timeout: options.healthTimeoutMs },
        (answer) => {
          answer.resume()
          setHealth(upstream, answer.statusCode === 200, `GET /readyz answered ${answer.statusCode}`)
          resolve()
        }
      )
      check.on("timeout", () => check.destroy(new Error("GET /readyz timed out")))
      check.on("error", (error) => {
        setHealth(upstream, false, error.message)
        resolve()
      })
    })

  let checking = false
  const checkAll = () => {
    if (checking) return
    checking = true
    void Promise.all(upstreams.map(probe)).finally(() => {
      checking = false
    })
  }
  const timer = setInterval(checkAll, options.healthIntervalMs)
  checkAll()

  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.listen.port, options.listen.host, () => {
      const bound = server.address()
      const port = bound !== null && typeof bound === "object" ? bound.port : options.listen.port
      resolve({
        url: `http://${options.listen.host}:${port}`,
        upstreams: status,
        close: (graceMs) =>
          new Promise<boolean>((done) => {
            draining = true
            clearInterval(timer)
            server.close()
            const finish = (all: boolean) => {
              for (const socket of tunnels) socket.destroy()
              server.closeAllConnections()
              done(all)
            }
            if (inFlight === 0) return finish(true)
            const timeout = setTimeout(() => finish(false), graceMs)
            idle = () => {
              clearTimeout(timeout)
              finish(true)
            }
          })
      })
    })
  })
}
