/**
 * The ports of a run: `SPLIT_PORT` (7400 by default) for the balancer and the next four for api-1, api-2,
 * worker-1 and worker-2; `SPLIT_PORT=0` picks free ones (tests do). A port already taken stops the start with a
 * line naming it, rather than a server failing to bind later.
 */
import * as Net from "node:net"
import { HOST, PORTS } from "./Layout.js"

const DEFAULT_BASE = 7400

const hold = (port: number): Promise<Net.Server> =>
  new Promise((resolve, reject) => {
    const server = Net.createServer()
    server.once("error", reject)
    server.listen(port, HOST, () => resolve(server))
  })

const release = (server: Net.Server) => new Promise<void>((resolve) => server.close(() => resolve()))

const portOf = (server: Net.Server): number => {
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("no TCP address")
  return address.port
}

export const choose = async (env: NodeJS.ProcessEnv): Promise<ReadonlyArray<number>> => {
  const text = env["SPLIT_PORT"]
  const base = text === undefined ? DEFAULT_BASE : Number(text)
  if (!Number.isInteger(base) || base < 0 || base + PORTS > 65536) {
    throw new Error(`SPLIT_PORT must be a port (or 0 for free ones), got ${text}`)
  }
  const wanted = Array.from({ length: PORTS }, (_, i) => (base === 0 ? 0 : base + i))
  const held: Array<Net.Server> = []
  try {
    // All held at once, so the free ones picked are distinct.
    for (const port of wanted) {
      held.push(
        await hold(port).catch((error: Error) => {
          throw new Error(`port ${port} on ${HOST} is taken (${error.message}); set SPLIT_PORT to another base`)
        })
      )
    }
    return held.map(portOf)
  } finally {
    await Promise.all(held.map(release))
  }
}
