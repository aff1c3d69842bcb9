/**
 * A TCP proxy that delays every chunk by a fixed time each way, for benches that put PostgreSQL "on another host":
 * a round trip through it costs twice the delay more than the loopback one. Chunks keep their order (timers of the
 * same delay fire in the order they were set). Runs in the bench's own process.
 */
import * as net from "node:net"

export interface LatencyProxy {
  readonly port: number
  readonly close: () => Promise<void>
}

export const start = (host: string, port: number, delayMs: number): Promise<LatencyProxy> =>
  new Promise((resolve, reject) => {
    const sockets = new Set<net.Socket>()
    const pipe = (from: net.Socket, to: net.Socket) => {
      from.on("data", (chunk) => {
        setTimeout(() => {
          if (!to.destroyed) to.write(chunk)
        }, delayMs)
      })
      from.on("end", () => setTimeout(() => to.end(), delayMs))
      from.on("error", () => to.destroy())
      from.on("close", () => setTimeout(() => to.destroy(), delayMs))
    }
    const server = net.createServer((client) => {
      const upstream = net.connect(port, host)
      for (const socket of [client, upstream]) {
        sockets.add(socket)
        socket.setNoDelay(true)
        socket.on("close", () => sockets.delete(socket))
      }
      pipe(client, upstream)
      pipe(upstream, client)
    })
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      if (address === null || typeof address === "string") return reject(new Error("no proxy port"))
      resolve({
        port: address.port,
        close: () =>
          new Promise((done) => {
            for (const socket of sockets) socket.destroy()
            server.close(() => done())
          })
      })
    })
  })
