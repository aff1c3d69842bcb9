/**
 * The monitored side of `bench/probes.ts`: a bare `node:http` server on `BENCH_PORTS` ports of 127.0.0.1, each
 * answering every request `200 ok`. It runs in a process of its own so that its CPU is not counted against the
 * engine or the bare loop (both are measured against this same server, in alternating rounds), and it reports its
 * own CPU time on request so the report can say whether the server, rather than the client, was the limit.
 *
 * Many ports rather than one: with one check per (org, host, port) key the per-host throttle admits every check
 * (see probes.ts), and a spread of listening sockets is closer to the many targets a real engine checks.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import * as Either from "effect/Either"
import { decodeCommand } from "./protocol.js"

const count = Number(process.env["BENCH_PORTS"] ?? "16")
if (!Number.isInteger(count) || count < 1 || count > 1000) {
  process.stderr.write(
    `loopbackServer: BENCH_PORTS must be from 1 to 1000, got ${String(process.env["BENCH_PORTS"])}\n`
  )
  process.exit(1)
}
const send = process.send?.bind(process)
if (send === undefined) {
  process.stderr.write("loopbackServer: must be started with an IPC channel (by bench/probes.ts)\n")
  process.exit(1)
}

const body = Buffer.from("ok")
const answer = (request: IncomingMessage, response: ServerResponse): void => {
  // A request body, if any, is read and dropped so the connection can close cleanly.
  request.resume()
  response.writeHead(200, { "content-type": "text/plain", "content-length": body.length })
  response.end(body)
}

// A node:http server listens once, so each port is a server of its own with the same handler. The backlog is
// above the engine's default concurrency (256) so a burst of connects is never refused by the kernel.
const listen = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer(answer)
    server.once("error", reject)
    server.listen({ host: "127.0.0.1", port: 0, backlog: 1024 }, () => {
      const address = server.address()
      if (address !== null && typeof address === "object") resolve(address.port)
      else reject(new Error("the server has no TCP port"))
    })
  })

const cpuMs = (): number => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}

process.on("message", (raw: unknown) => {
  const command = decodeCommand(raw)
  if (Either.isRight(command) && command.right._tag === "Cpu") send({ _tag: "Cpu", cpuMs: cpuMs() })
})
// The parent closing the channel (it ended, however it ended) ends the server too.
process.on("disconnect", () => process.exit(0))

Promise.all(Array.from({ length: count }, listen)).then(
  (ports) => send({ _tag: "Listening", ports }),
  (error: unknown) => {
    process.stderr.write(`loopbackServer: ${String(error)}\n`)
    process.exit(1)
  }
)
