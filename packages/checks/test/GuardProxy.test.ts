/**
 * The flows' forward proxy on its own, driven by a plain HTTP client on loopback: it dials the address the run's
 * guard admitted (never the name it was given), refuses what the guard refuses with 403 and says so to the run,
 * tells runs apart by their port, bounds a run's connections, and closes everything of a run when the run ends.
 */
import * as Http from "node:http"
import * as Net from "node:net"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as GuardProxy from "../src/internal/guardProxy.js"
import { closedPort, type HttpServer, httpServer } from "./support/Loopback.js"

interface Recorder {
  readonly run: GuardProxy.Run
  /** Every host the run was asked to admit. */
  readonly admitted: Array<string>
  readonly refusals: Array<GuardProxy.Refusal>
}

/** A run whose guard answers from a table: a host's addresses, or a refusal text (`blocked: ...` blocks). */
const recorder = (table: Readonly<Record<string, string>>): Recorder => {
  const admitted: Array<string> = []
  const refusals: Array<GuardProxy.Refusal> = []
  return {
    admitted,
    refusals,
    run: {
      admit: async (host) => {
        admitted.push(host)
        const answer = table[host]
        if (answer === undefined) return { ok: false, blocked: false, message: `dns: no address for ${host}` }
        if (answer.startsWith("blocked:")) return { ok: false, blocked: true, message: answer }
        return { ok: true, addresses: [{ address: answer, family: 4 }] }
      },
      refused: (refusal) => refusals.push(refusal)
    }
  }
}

const open = (
  proxy: GuardProxy.GuardProxy,
  run: GuardProxy.Run
): Effect.Effect<GuardProxy.Listener, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => proxy.open(run)),
    (listener) => Effect.sync(listener.close)
  )

const proxyOf = (limits: Partial<GuardProxy.Limits> = {}) =>
  GuardProxy.make({ maxConnections: 8, connectTimeoutMs: 2_000, ...limits })

interface Answer {
  readonly status: number
  readonly headers: Http.IncomingHttpHeaders
  readonly rawHeaders: ReadonlyArray<string>
  readonly body: string
}

const read = (response: Http.IncomingMessage): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    response.on("data", (chunk: Buffer) => chunks.push(chunk))
    response.on("error", reject)
    response.on("end", () =>
      resolve({
        status: response.statusCode ?? 0,
        headers: response.headers,
        rawHeaders: response.rawHeaders,
        body: Buffer.concat(chunks).toString("utf8")
      })
    )
  })

/** A request to the proxy: `path` absolute-form for plain http, as a browser sends it. */
const viaProxy = (
  port: number,
  options: {
    readonly method?: string
    readonly path: string
    readonly headers?: Http.OutgoingHttpHeaders
    readonly body?: string
  }
): Effect.Effect<Answer> =>
  Effect.promise(
    () =>
      new Promise<Answer>((resolve, reject) => {
        const request = Http.request({
          host: "127.0.0.1",
          port,
          method: options.method ?? "GET",
          path: options.path,
          headers: options.headers ?? {},
          agent: false
        })
        request.on("response", (response) => read(response).then(resolve, reject))
        request.on("error", reject)
        request.end(options.body)
      })
  )

/** A CONNECT through the proxy: the proxy's answer, and the tunnel's socket when it answered 200. */
const tunnel = (
  port: number,
  authority: string
): Effect.Effect<{ readonly status: number; readonly body: string; readonly socket: Net.Socket }> =>
  Effect.promise(
    () =>
      new Promise((resolve, reject) => {
        const request = Http.request({ host: "127.0.0.1", port, method: "CONNECT", path: authority, agent: false })
        request.on("connect", (response: Http.IncomingMessage, socket: Net.Socket, head: Buffer) => {
          if (response.statusCode === 200) resolve({ status: 200, body: "", socket })
          else {
            // The refusal's body: what the client's parser read past the head, then the rest until the proxy closes.
            const chunks: Array<Buffer> = [head]
            socket.on("data", (chunk: Buffer) => chunks.push(chunk))
            socket.on("close", () =>
              resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), socket })
            )
          }
        })
        request.on("error", reject)
        request.end()
      })
  )

/** One HTTP/1.1 request written by hand into a tunnel, and the whole answer (the server closes after it). */
const overTunnel = (socket: Net.Socket, host: string): Effect.Effect<string> =>
  Effect.promise(
    () =>
      new Promise<string>((resolve) => {
        const chunks: Array<Buffer> = []
        socket.on("data", (chunk: Buffer) => chunks.push(chunk))
        socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")))
        socket.write(`GET /through HTTP/1.1\r\nhost: ${host}\r\nconnection: close\r\n\r\n`)
      })
  )

const origin = (): Effect.Effect<HttpServer, Error, Scope.Scope> =>
  httpServer((request, response) => {
    response.setHeader("set-cookie", ["a=1", "b=2"])
    response.setHeader("x-origin", "yes")
    response.setHeader("keep-alive", "timeout=99")
    response.writeHead(200, { "content-type": "text/plain" })
    response.end(`${request.method} ${request.url} ${request.body}`)
  })

/** Resolves once `socket` is closed (by either side). */
const closed = (socket: Net.Socket): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    if (socket.destroyed) resume(Effect.void)
    else socket.once("close", () => resume(Effect.void))
  })

const connectTo = (port: number): Effect.Effect<Net.Socket> =>
  Effect.async<Net.Socket>((resume) => {
    const socket = Net.connect({ host: "127.0.0.1", port })
    socket.on("error", () => undefined)
    socket.once("connect", () => resume(Effect.succeed(socket)))
  })

describe("GuardProxy", () => {
  it("authority reads host:port of a CONNECT, IPv6 in brackets; anything else is no authority", () => {
    assert.deepStrictEqual(GuardProxy.authority("example.com:443"), { host: "example.com", port: 443 })
    assert.deepStrictEqual(GuardProxy.authority("[::1]:8443"), { host: "[::1]", port: 8443 })
    for (const bad of ["example.com", "example.com:0", "example.com:70000", "a/b:80", ":80", "[::1]", "host:80:80"]) {
      assert.isUndefined(GuardProxy.authority(bad), bad)
    }
  })

  describe("a tunnel (CONNECT, for https and wss)", () => {
    it.scopedLive("connects to the address the run admitted, not to the name: bytes flow both ways", () =>
      Effect.gen(function* () {
        const server = yield* origin()
        // No resolver on earth answers for .invalid: the request can only arrive if the proxy dialed the address.
        const run = recorder({ "shop.invalid": "127.0.0.1" })
        const listener = yield* open(proxyOf(), run.run)
        const { status, socket } = yield* tunnel(listener.port, `shop.invalid:${server.port}`)
        assert.strictEqual(status, 200)
        const answer = yield* overTunnel(socket, "shop.invalid")
        assert.match(answer, /^HTTP\/1\.1 200 OK/)
        assert.include(answer, "GET /through ")
        assert.deepStrictEqual(run.admitted, ["shop.invalid"])
        assert.deepStrictEqual(run.refusals, [])
      })
    )

    it.scopedLive("a host the guard refuses is 403 with the reason, told to the run, and nothing is dialed", () =>
      Effect.gen(function* () {
        const server = yield* origin()
        const run = recorder({ "vault.test": "blocked: vault.test resolves to 10.0.0.1, a private address" })
        const listener = yield* open(proxyOf(), run.run)
        const refused = yield* tunnel(listener.port, `vault.test:${server.port}`)
        assert.strictEqual(refused.status, 403)
        assert.strictEqual(refused.body, "blocked: vault.test resolves to 10.0.0.1, a private address\n")
        assert.deepStrictEqual(run.refusals, [
          {
            blocked: true,
            host: "vault.test",
            port: server.port,
            target: `vault.test:${server.port}`,
            message: "blocked: vault.test resolves to 10.0.0.1, a private address"
          }
        ])
        assert.strictEqual(server.connections(), 0)
      })
    )

    it.scopedLive("an admitted address that does not answer is 502, told to the run as unreachable", () =>
      Effect.gen(function* () {
        const port = yield* closedPort()
        const run = recorder({ "down.test": "127.0.0.1" })
        const listener = yield* open(proxyOf(), run.run)
        const refused = yield* tunnel(listener.port, `down.test:${port}`)
        assert.strictEqual(refused.status, 502)
        assert.match(refused.body, /^connect: connect ECONNREFUSED 127\.0\.0\.1:\d+/)
        assert.strictEqual(run.refusals[0]?.blocked, false)
        const unknown = yield* tunnel(listener.port, "nowhere.test:443")
        assert.strictEqual(unknown.status, 502)
        assert.strictEqual(unknown.body, "dns: no address for nowhere.test\n")
      })
    )

    it.scopedLive("a CONNECT that names no host and port is 400, and the run's guard is not asked", () =>
      Effect.gen(function* () {
        const run = recorder({})
        const listener = yield* open(proxyOf(), run.run)
        const bad = yield* tunnel(listener.port, "no-port-here")
        assert.strictEqual(bad.status, 400)
        assert.deepStrictEqual(run.admitted, [])
      })
    )
  })

  describe("a plain http request (absolute form)", () => {
    it.scopedLive(
      "is passed on in origin form to the admitted address: method, body and end-to-end headers kept, hop-by-hop ones dropped; the answer relayed",
      () =>
        Effect.gen(function* () {
          const server = yield* origin()
          const run = recorder({ "shop.invalid": "127.0.0.1" })
          const listener = yield* open(proxyOf(), run.run)
          const answer = yield* viaProxy(listener.port, {
            method: "POST",
            path: `http://shop.invalid:${server.port}/orders?x=1`,
            headers: {
              host: `shop.invalid:${server.port}`,
              "proxy-connection": "keep-alive",
              "proxy-authorization": "Basic eDp5",
              connection: "keep-alive, x-hop",
              "x-hop": "dropped",
              "x-signalman-region": "eu",
              "content-type": "text/plain"
            },
            body: "two apples"
          })
          assert.strictEqual(answer.status, 200)
          assert.strictEqual(answer.body, "POST /orders?x=1 two apples")
          assert.strictEqual(answer.headers["x-origin"], "yes")
          assert.deepStrictEqual(answer.headers["set-cookie"], ["a=1", "b=2"])
          // The origin's hop-by-hop Keep-Alive is not passed on (the proxy may say its own).
          assert.notStrictEqual(answer.headers["keep-alive"], "timeout=99")
          const seen = server.requests[0]
          assert.strictEqual(seen?.headers.host, `shop.invalid:${server.port}`)
          assert.strictEqual(seen?.headers["x-signalman-region"], "eu")
          assert.strictEqual(seen?.headers["content-type"], "text/plain")
          for (const dropped of ["proxy-connection", "proxy-authorization", "x-hop"]) {
            assert.isUndefined(seen?.headers[dropped], dropped)
          }
          assert.strictEqual(seen?.headers.connection, "close")
        })
    )

    it.scopedLive("a host the guard refuses is 403 with the reason and the origin sees nothing", () =>
      Effect.gen(function* () {
        const server = yield* origin()
        const run = recorder({ "127.0.0.1": "blocked: 127.0.0.1 is a loopback address" })
        const listener = yield* open(proxyOf(), run.run)
        const url = `http://127.0.0.1:${server.port}/secret`
        const answer = yield* viaProxy(listener.port, { path: url })
        assert.strictEqual(answer.status, 403)
        assert.strictEqual(answer.body, "blocked: 127.0.0.1 is a loopback address\n")
        assert.deepStrictEqual(
          run.refusals.map((refusal) => [refusal.blocked, refusal.target]),
          [[true, url]]
        )
        assert.strictEqual(server.connections(), 0)
      })
    )

    it.scopedLive("a request that is not absolute-form http is 400 and nothing is asked or dialed", () =>
      Effect.gen(function* () {
        const run = recorder({})
        const listener = yield* open(proxyOf(), run.run)
        assert.strictEqual((yield* viaProxy(listener.port, { path: "/relative" })).status, 400)
        assert.strictEqual((yield* viaProxy(listener.port, { path: "https://shop.test/" })).status, 400)
        assert.deepStrictEqual(run.admitted, [])
      })
    )
  })

  describe("runs", () => {
    it.scopedLive("each run has its own port, and a request is judged by its own run's guard", () =>
      Effect.gen(function* () {
        const server = yield* origin()
        const proxy = proxyOf()
        const open1 = recorder({ "shop.test": "127.0.0.1" })
        const closed1 = recorder({ "shop.test": "blocked: shop.test resolves to 127.0.0.1, a loopback address" })
        const first = yield* open(proxy, open1.run)
        const second = yield* open(proxy, closed1.run)
        assert.notStrictEqual(first.port, second.port)
        const path = `http://shop.test:${server.port}/`
        assert.strictEqual((yield* viaProxy(first.port, { path })).status, 200)
        assert.strictEqual((yield* viaProxy(second.port, { path })).status, 403)
        assert.deepStrictEqual(open1.refusals, [])
        assert.strictEqual(closed1.refusals.length, 1)
      })
    )

    it.scopedLive("a run holds at most maxConnections to the proxy; more are closed at once", () =>
      Effect.gen(function* () {
        const listener = yield* open(proxyOf({ maxConnections: 2 }), recorder({}).run)
        const kept = [yield* connectTo(listener.port), yield* connectTo(listener.port)]
        yield* Effect.sleep("50 millis")
        const extra = yield* connectTo(listener.port)
        yield* closed(extra)
        for (const socket of kept) assert.isFalse(socket.destroyed)
        for (const socket of kept) socket.destroy()
      })
    )

    it.scopedLive("closing a run ends its open tunnels and connections and stops listening", () =>
      Effect.gen(function* () {
        const server = yield* origin()
        const listener = yield* Effect.promise(() => proxyOf().open(recorder({ "shop.test": "127.0.0.1" }).run))
        const { socket } = yield* tunnel(listener.port, `shop.test:${server.port}`)
        const idle = yield* connectTo(listener.port)
        listener.close()
        yield* closed(socket)
        yield* closed(idle)
        const refused = yield* Effect.async<string>((resume) => {
          const again = Net.connect({ host: "127.0.0.1", port: listener.port })
          again.once("connect", () => {
            again.destroy()
            resume(Effect.succeed("connected"))
          })
          again.once("error", (error: NodeJS.ErrnoException) => resume(Effect.succeed(error.code ?? "error")))
        })
        assert.strictEqual(refused, "ECONNREFUSED")
      })
    )

    it.scopedLive("a run's port listens on loopback only", () =>
      Effect.gen(function* () {
        const listener = yield* open(proxyOf(), recorder({}).run)
        const probe = Net.createServer()
        // The port is taken on 127.0.0.1 only: another address on it is still free to bind.
        const bound = yield* Effect.async<string>((resume) => {
          probe.once("error", (error: NodeJS.ErrnoException) => resume(Effect.succeed(error.code ?? "error")))
          probe.listen({ host: "127.0.0.2", port: listener.port }, () => resume(Effect.succeed("bound")))
        })
        probe.close()
        assert.strictEqual(bound, "bound")
      })
    )
  })
})
