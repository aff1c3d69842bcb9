/**
 * The forward proxy a browser flow's every request goes through (DESIGN.md, "Flows and the guard"). The browser
 * is told to use it for everything, loopback included, so it never resolves or connects by itself: for a CONNECT
 * (https, wss) and for an absolute-form request (plain http) the proxy asks the run to resolve the host and apply
 * the internal-address guard, then connects to one of the addresses the guard allowed, never to the name. What it
 * judged is what it dials, so a name that answers differently a moment later (DNS rebinding) gains nothing. A
 * refused request is answered 403, an unreachable one 502, and the run is told either way.
 *
 * One proxy per process: a single HTTP parser (a `node:http` server that never listens) shared by every run. Each
 * run gets a listener of its own on a random loopback port, which is how the proxy knows whose a connection is
 * (the run's resolver, guard and record of refusals), bounds its connections, and, when the run ends, closes every
 * socket it opened on either side.
 *
 * @internal
 */
import * as Http from "node:http"
import * as Net from "node:net"
import * as Socket from "./socket.js"

/**
 * The guard's answer for a host: the addresses that may be dialed, or why none may (`blocked` when the guard
 * refused them, otherwise the name did not resolve).
 *
 * @internal
 */
export type Admission =
  | { readonly ok: true; readonly addresses: ReadonlyArray<Socket.Address> }
  | { readonly ok: false; readonly blocked: boolean; readonly message: string }

/**
 * A request the proxy did not carry: `blocked` by the guard (its message starts `blocked:`), or unreachable (no
 * address, refused, timed out). `target` is `host:port` for a tunnel, the URL for a plain request.
 *
 * @internal
 */
export interface Refusal {
  readonly blocked: boolean
  readonly host: string
  readonly port: number
  readonly target: string
  readonly message: string
}

/**
 * What the proxy needs from the run a connection belongs to.
 *
 * @internal
 */
export interface Run {
  /** Resolves a host (a name or an IP literal, brackets allowed) and applies the guard. */
  readonly admit: (host: string) => Promise<Admission>
  /** Told of every request the proxy did not carry. */
  readonly refused: (refusal: Refusal) => void
}

/**
 * A run's port on the proxy; `close` stops listening and ends every connection of the run, both sides.
 *
 * @internal
 */
export interface Listener {
  readonly port: number
  readonly close: () => void
}

/**
 * @internal
 */
export interface Limits {
  /** Connections one run may hold open to the proxy at once (the browser's side); more are closed at once. */
  readonly maxConnections: number
  /** How long connecting to the allowed addresses may take before the request is answered 502. */
  readonly connectTimeoutMs: number
}

/**
 * The proxy: `open` gives a run its port.
 *
 * @internal
 */
export interface GuardProxy {
  readonly open: (run: Run) => Promise<Listener>
}

interface RunState {
  readonly run: Run
  /** The browser's connections to the proxy. */
  readonly clients: Set<Net.Socket>
  /** The proxy's connections onward, closed with the run. */
  readonly upstream: Set<Net.Socket>
  closed: boolean
}

// Headers that belong to one hop (RFC 9110 section 7.6.1), plus the proxy's own, never passed on.
const hopByHop: ReadonlySet<string> = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade"
])

// The raw header list without hop-by-hop fields and those the Connection header names.
const endToEnd = (raw: ReadonlyArray<string>): Array<string> => {
  const named = new Set<string>()
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]?.toLowerCase() === "connection") {
      for (const token of (raw[i + 1] ?? "").split(",")) named.add(token.trim().toLowerCase())
    }
  }
  const kept: Array<string> = []
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? ""
    const lower = name.toLowerCase()
    if (hopByHop.has(lower) || named.has(lower)) continue
    kept.push(name, raw[i + 1] ?? "")
  }
  return kept
}

/**
 * `host:port` of a CONNECT request (`example.com:443`, `[::1]:8443`), or undefined when it is not one.
 *
 * @internal
 */
export const authority = (text: string): { readonly host: string; readonly port: number } | undefined => {
  const match = /^(\[[0-9a-f:.%a-z]+\]|[^:[\]/\s]+):(\d{1,5})$/i.exec(text)
  if (match === null) return undefined
  const port = Number(match[2])
  if (!Number.isInteger(port) || port < 1 || port > 65535) return undefined
  return { host: match[1] ?? "", port }
}

const reason = (status: number): string => Http.STATUS_CODES[status] ?? "Error"

// A short plain answer on a raw socket (a tunnel that was not made), then the connection ends.
const answerRaw = (socket: Net.Socket, status: number, message: string): void => {
  const body = Buffer.from(`${message}\n`, "utf8")
  socket.end(
    `HTTP/1.1 ${status} ${reason(status)}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body.toString("utf8")}`
  )
}

const answer = (response: Http.ServerResponse, status: number, message: string): void => {
  if (response.headersSent) {
    response.destroy()
    return
  }
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" })
  response.end(`${message}\n`)
}

/**
 * The proxy of this process. Nothing listens until a run opens its port.
 *
 * @internal
 */
export const make = (limits: Limits): GuardProxy => {
  const owners = new WeakMap<Net.Socket, RunState>()
  const parser = Http.createServer()

  // Resolves, guards and connects for one request of a run; `done` gets the socket, or is not called when the
  // request was answered already (refused, unreachable) or the run ended meanwhile.
  const dial = (
    state: RunState,
    host: string,
    port: number,
    target: string,
    refuse: (status: number, message: string) => void,
    done: (socket: Net.Socket) => void
  ): void => {
    const fail = (blocked: boolean, message: string) => {
      if (state.closed) return
      state.run.refused({ blocked, host, port, target, message })
      refuse(blocked ? 403 : 502, message)
    }
    state.run.admit(host).then(
      (admission) => {
        if (state.closed) return
        if (!admission.ok) return fail(admission.blocked, admission.message)
        let settled = false
        const timer = setTimeout(() => {
          if (settled) return
          settled = true
          abort()
          fail(false, `connect: no answer from ${host}:${port} within ${limits.connectTimeoutMs / 1000} s`)
        }, limits.connectTimeoutMs)
        const abort = Socket.connect(admission.addresses, port, (raced) => {
          if (settled) {
            if (raced.ok) raced.value.socket.destroy()
            return
          }
          settled = true
          clearTimeout(timer)
          if (!raced.ok) return fail(false, `connect: ${raced.errors.join("; ")}`)
          const socket = raced.value.socket
          if (state.closed) {
            socket.destroy()
            return
          }
          state.upstream.add(socket)
          socket.on("close", () => state.upstream.delete(socket))
          done(socket)
        })
      },
      (error: unknown) => fail(false, `proxy: ${error instanceof Error ? error.message : String(error)}`)
    )
  }

  // A tunnel for https and wss: the bytes are the browser's own TLS, end to end with the site.
  parser.on("connect", (request: Http.IncomingMessage, client: Net.Socket, head: Buffer) => {
    const state = owners.get(client)
    const target = authority(request.url ?? "")
    if (state === undefined || state.closed) return client.destroy()
    if (target === undefined) return answerRaw(client, 400, `proxy: not a host and port: ${request.url ?? ""}`)
    dial(
      state,
      target.host,
      target.port,
      `${target.host}:${target.port}`,
      (status, message) => answerRaw(client, status, message),
      (upstream) => {
        if (client.destroyed) return upstream.destroy()
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n")
        if (head.length > 0) upstream.write(head)
        const end = () => {
          client.destroy()
          upstream.destroy()
        }
        upstream.on("error", end).on("close", end)
        client.on("error", end).on("close", end)
        upstream.pipe(client)
        client.pipe(upstream)
      }
    )
  })

  // A plain http request in absolute form: passed on over a connection of its own, the answer streamed back.
  parser.on("request", (request: Http.IncomingMessage, response: Http.ServerResponse) => {
    const state = owners.get(request.socket)
    if (state === undefined || state.closed) return request.socket.destroy()
    let url: URL
    try {
      url = new URL(request.url ?? "")
    } catch {
      return answer(response, 400, `proxy: not an absolute URL: ${request.url ?? ""}`)
    }
    if (url.protocol !== "http:") return answer(response, 400, `proxy: unsupported scheme ${url.protocol}`)
    const port = url.port === "" ? 80 : Number(url.port)
    dial(
      state,
      url.hostname,
      port,
      url.href,
      (status, message) => answer(response, status, message),
      (socket) => {
        const onward = Http.request({
          createConnection: () => socket,
          method: request.method ?? "GET",
          path: `${url.pathname}${url.search}`,
          headers: [...endToEnd(request.rawHeaders), "connection", "close"],
          setHost: false
        })
        onward.on("response", (answered: Http.IncomingMessage) => {
          if (response.destroyed) return answered.destroy()
          response.writeHead(answered.statusCode ?? 502, answered.statusMessage, endToEnd(answered.rawHeaders))
          answered.pipe(response)
          answered.on("error", () => response.destroy())
        })
        onward.on("error", (error) => answer(response, 502, `proxy: ${error.message}`))
        response.on("close", () => onward.destroy())
        request.pipe(onward)
      }
    )
  })

  // Neither the browser's http upgrade through a proxy (it tunnels WebSockets with CONNECT) nor garbage is served.
  parser.on("upgrade", (_request: Http.IncomingMessage, client: Net.Socket) => client.destroy())
  parser.on("clientError", (_error: Error, client: Net.Socket) => client.destroy())

  return {
    open: (run) =>
      new Promise<Listener>((resolve, reject) => {
        const state: RunState = { run, clients: new Set(), upstream: new Set(), closed: false }
        const listener = Net.createServer((client) => {
          client.on("error", Socket.ignore)
          if (state.closed || state.clients.size >= limits.maxConnections) {
            client.destroy()
            return
          }
          state.clients.add(client)
          client.on("close", () => state.clients.delete(client))
          owners.set(client, state)
          parser.emit("connection", client)
        })
        listener.once("error", reject)
        listener.listen({ host: "127.0.0.1", port: 0 }, () => {
          listener.off("error", reject)
          const address = listener.address()
          if (address === null || typeof address === "string") {
            listener.close()
            reject(new Error("the proxy listener has no TCP port"))
            return
          }
          resolve({
            port: address.port,
            close: () => {
              state.closed = true
              listener.close()
              for (const socket of [...state.clients, ...state.upstream]) socket.destroy()
            }
          })
        })
      })
  }
}
