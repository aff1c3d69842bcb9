/**
 * A loopback TCP proxy in front of PostgreSQL, so a test can make the database unreachable (cut), hold its
 * traffic (pause) and bring it back, without touching the real server.
 */

import * as net from "node:net"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

export interface TcpProxy {
  readonly port: number
  /** Refuse new connections and drop the open ones. */
  readonly cut: () => Promise<void>
  /** Accept connections again on the same port. */
  readonly restore: () => Promise<void>
  /** Stop forwarding bytes on open connections (they stay open) until `resume`. */
  readonly pause: () => void
  readonly resume: () => void
  /** Bytes the server sent towards the database that a pause is holding back: a query is waiting when above 0. */
  readonly held: () => number
}

export const make = (upstreamHost: string, upstreamPort: number): Effect.Effect<TcpProxy, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const sockets = new Set<net.Socket>()
      let paused = false
      const pairs = new Set<readonly [net.Socket, net.Socket]>()
      const onConnection = (client: net.Socket) => {
        const upstream = net.connect(upstreamPort, upstreamHost)
        const pair = [client, upstream] as const
        pairs.add(pair)
        for (const s of pair) {
          sockets.add(s)
          s.on("error", () => {})
          s.on("close", () => {
            sockets.delete(s)
            pairs.delete(pair)
            client.destroy()
            upstream.destroy()
          })
        }
        if (paused) {
          client.pause()
          upstream.pause()
        }
        client.pipe(upstream)
        upstream.pipe(client)
      }
      let server = net.createServer(onConnection)
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      const address = server.address()
      if (address === null || typeof address === "string") throw new Error("proxy: no TCP address")
      const port = address.port
      const close = () =>
        new Promise<void>((resolve) => {
          for (const s of sockets) s.destroy()
          server.close(() => resolve())
        })
      const proxy: TcpProxy & { close: () => Promise<void> } = {
        port,
        cut: close,
        restore: async () => {
          server = net.createServer(onConnection)
          await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
        },
        pause: () => {
          paused = true
          for (const [a, b] of pairs) {
            a.pause()
            b.pause()
          }
        },
        resume: () => {
          paused = false
          for (const [a, b] of pairs) {
            a.resume()
            b.resume()
          }
        },
        held: () => {
          let bytes = 0
          for (const [client] of pairs) bytes += client.readableLength
          return bytes
        },
        close
      }
      return proxy
    }),
    (proxy) => Effect.promise(() => proxy.close())
  )
