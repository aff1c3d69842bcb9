/**
 * Real servers on loopback for the probe tests: HTTP and HTTPS (node:http, node:https), TLS (node:tls) and plain
 * TCP, each closed with its test's scope, every connection included.
 */
import * as Http from "node:http"
import * as Https from "node:https"
import * as Net from "node:net"
import * as Tls from "node:tls"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"

export interface Seen {
  readonly method: string
  readonly url: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
}

export interface Listening {
  readonly host: string
  readonly port: number
  /** How many TCP connections the server has accepted. */
  readonly connections: () => number
  /** How many of them are still open. */
  readonly open: () => number
}

export interface HttpServer extends Listening {
  /** `http://127.0.0.1:port`, `https://[::1]:port`. */
  readonly origin: string
  readonly requests: ReadonlyArray<Seen>
}

export type Handler = (request: Seen, response: Http.ServerResponse) => void

const ignore = (): void => {}

const hostInUrl = (host: string): string => (host.includes(":") ? `[${host}]` : host)

// Listens, and on scope close destroys every connection and closes. Callers build the server inside the Effect
// (Effect.suspend), so each run of a server Effect is a fresh server with its own records. A missing ::1 fails with a sentence saying so
// rather than an errno, since the IPv6 tests must fail (not pass vacuously) on a machine without it.
const listen = (server: Net.Server, host: string, port = 0): Effect.Effect<Listening, Error, Scope.Scope> => {
  const sockets = new Set<Net.Socket>()
  let accepted = 0
  server.on("connection", (socket: Net.Socket) => {
    accepted++
    sockets.add(socket)
    socket.on("error", ignore)
    socket.on("close", () => sockets.delete(socket))
  })
  return Effect.acquireRelease(
    Effect.async<Listening, Error>((resume) => {
      const onError = (error: Error) =>
        resume(
          Effect.fail(
            host.includes(":")
              ? new Error(
                  `IPv6 loopback ${host} is not available on this machine, and these tests need it: ${error.message}`
                )
              : error
          )
        )
      server.once("error", onError)
      server.listen({ host, port, ipv6Only: host.includes(":") }, () => {
        server.off("error", onError)
        const address = server.address()
        if (address === null || typeof address === "string") {
          resume(Effect.fail(new Error("the server has no TCP port")))
        } else {
          resume(Effect.succeed({ host, port: address.port, connections: () => accepted, open: () => sockets.size }))
        }
      })
    }),
    () =>
      Effect.async<void>((resume) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resume(Effect.void))
      })
  )
}

const serveHttp = (
  server: Http.Server,
  scheme: "http" | "https",
  handler: Handler,
  host: string,
  port: number
): Effect.Effect<HttpServer, Error, Scope.Scope> => {
  const requests: Array<Seen> = []
  server.on("request", (request: Http.IncomingMessage, response: Http.ServerResponse) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const seen: Seen = {
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8")
      }
      requests.push(seen)
      handler(seen, response)
    })
  })
  return Effect.map(listen(server, host, port), (listening) => ({
    ...listening,
    origin: `${scheme}://${hostInUrl(host)}:${listening.port}`,
    requests
  }))
}

/** An HTTP/1.1 server; the handler gets the request with its body read. */
export const httpServer = (
  handler: Handler,
  options: { readonly host?: string; readonly port?: number } = {}
): Effect.Effect<HttpServer, Error, Scope.Scope> =>
  Effect.suspend(() => serveHttp(Http.createServer(), "http", handler, options.host ?? "127.0.0.1", options.port ?? 0))

/** An HTTPS server with the given certificate. */
export const httpsServer = (
  handler: Handler,
  credentials: { readonly key: string; readonly cert: string },
  options: { readonly host?: string } = {}
): Effect.Effect<HttpServer, Error, Scope.Scope> =>
  Effect.suspend(() =>
    serveHttp(
      Https.createServer({ key: credentials.key, cert: credentials.cert }),
      "https",
      handler,
      options.host ?? "127.0.0.1",
      0
    )
  )

export interface TlsServer extends Listening {
  /**
   * The SNI names of the first `count` completed handshakes (null when the client sent none), once the server
   * has seen them: with TLS 1.3 the client may finish its handshake before the server does.
   */
  readonly servernames: (count: number) => Effect.Effect<ReadonlyArray<string | null>>
}

/** A TLS server that completes handshakes and then holds the connection; `byName` picks the certificate by SNI. */
export const tlsServer = (
  credentials: { readonly key: string; readonly cert: string },
  options: {
    readonly host?: string
    readonly byName?: Readonly<Record<string, { readonly key: string; readonly cert: string }>>
  } = {}
): Effect.Effect<TlsServer, Error, Scope.Scope> =>
  Effect.suspend(() => {
    const servernames: Array<string | null> = []
    const waiters: Array<() => void> = []
    const server = Tls.createServer({
      key: credentials.key,
      cert: credentials.cert,
      SNICallback: (name, done) => {
        const chosen = options.byName?.[name]
        done(null, chosen === undefined ? undefined : Tls.createSecureContext(chosen))
      }
    })
    // A client may close as soon as its own side of the handshake is done; the server then reports the handshake
    // as failed, but it has read the client's SNI all the same.
    const record = (socket: Tls.TLSSocket) => {
      const name: unknown = socket.servername
      servernames.push(typeof name === "string" ? name : null)
      for (const wake of waiters.splice(0)) wake()
    }
    server.on("secureConnection", (socket: Tls.TLSSocket) => {
      socket.on("error", ignore)
      record(socket)
    })
    server.on("tlsClientError", (_error: Error, socket: Tls.TLSSocket) => record(socket))
    const seen = (count: number) =>
      Effect.async<ReadonlyArray<string | null>>((resume) => {
        const look = () => {
          if (servernames.length >= count) resume(Effect.succeed(servernames.slice(0, count)))
          else waiters.push(look)
        }
        look()
      })
    return Effect.map(listen(server, options.host ?? "127.0.0.1"), (listening) => ({
      ...listening,
      servernames: seen
    }))
  })

/** A TCP server that accepts and holds connections; `onConnection` may answer (or hang up). */
export const tcpServer = (
  options: { readonly host?: string; readonly port?: number; readonly onConnection?: (socket: Net.Socket) => void } = {}
): Effect.Effect<Listening, Error, Scope.Scope> =>
  Effect.suspend(() =>
    listen(
      Net.createServer((socket) => options.onConnection?.(socket)),
      options.host ?? "127.0.0.1",
      options.port ?? 0
    )
  )

/**
 * Two servers on one port, on ::1 and on 127.0.0.1. The port is picked for ::1 and may already be taken on IPv4
 * by someone else, so a collision is retried on a new port (at most five tries); a failed try closes what it
 * opened.
 */
export const onBothLoopbacks = <S extends Listening>(
  make: (host: string, port: number) => Effect.Effect<S, Error, Scope.Scope>
): Effect.Effect<{ readonly six: S; readonly four: S }, Error, Scope.Scope> =>
  Effect.flatMap(Effect.scope, (outer) =>
    Effect.flatMap(Scope.fork(outer, ExecutionStrategy.sequential), (inner) =>
      Effect.gen(function* () {
        const six = yield* make("::1", 0)
        const four = yield* make("127.0.0.1", six.port)
        return { six, four }
      }).pipe(
        Scope.extend(inner),
        Effect.onError(() => Scope.close(inner, Exit.void))
      )
    ).pipe(Effect.retry({ times: 4, while: (error) => error.message.includes("EADDRINUSE") }))
  )

/** A port nothing listens on (bound once, then released), so a connection to it is refused. */
export const closedPort = (host = "127.0.0.1"): Effect.Effect<number, Error> =>
  Effect.scoped(Effect.map(tcpServer({ host }), (listening) => listening.port))

/** A port nothing listens on, on ::1 or on 127.0.0.1. */
export const closedPortOnBoth: Effect.Effect<number, Error> = Effect.scoped(
  Effect.map(
    onBothLoopbacks((host, port) => tcpServer({ host, port })),
    (both) => both.six.port
  )
)
