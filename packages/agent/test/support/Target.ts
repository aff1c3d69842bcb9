/**
 * A monitored service on loopback for the agent's checks: it records every request it gets (when, and its
 * headers) and answers `/ok` at once and `/slow/<ms>` after that many milliseconds.
 */
import * as Http from "node:http"
import type * as Net from "node:net"
import { CheckSpec } from "@signalman/core/CheckSpec"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"

export interface Seen {
  readonly at: number
  readonly url: string
  readonly headers: Http.IncomingHttpHeaders
}

export interface Target {
  readonly origin: string
  readonly requests: Array<Seen>
}

export const make: Effect.Effect<Target, never, Scope.Scope> = Effect.acquireRelease(
  Effect.promise(async () => {
    const requests: Array<Seen> = []
    const sockets = new Set<Net.Socket>()
    const server = Http.createServer((request, response) => {
      const url = request.url ?? "/"
      requests.push({ at: Date.now(), url, headers: request.headers })
      const slow = /^\/slow\/(\d+)$/.exec(url)
      const delay = slow === null ? 0 : Number(slow[1])
      setTimeout(() => {
        response.writeHead(200, { "content-type": "text/plain" })
        response.end("ok")
      }, delay)
    })
    server.on("connection", (socket) => {
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const address = server.address()
    if (address === null || typeof address === "string") throw new Error("no port")
    return { server, sockets, target: { origin: `http://127.0.0.1:${address.port}`, requests } }
  }),
  ({ server, sockets }) =>
    Effect.promise(() => {
      for (const socket of sockets) socket.destroy()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    })
).pipe(Effect.map(({ target }) => target))

/** A check spec, its defaults filled as the service hands it out. */
export const check = (raw: Record<string, unknown>): CheckSpec => Schema.decodeUnknownSync(CheckSpec)(raw)
