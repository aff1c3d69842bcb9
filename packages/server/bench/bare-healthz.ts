/**
 * The baseline for `bench/run.ts`: a bare `node:http` server doing the least work `/healthz` needs, so the
 * ratio measures what Signalman's stack costs on top of Node itself. It answers the same body with the same
 * headers as Signalman (the runner checks this before measuring) and, like Signalman without an incoming
 * `X-Request-Id`, makes a fresh random UUID per request.
 *
 * Env: `PORT` (required; the runner picks a free one) and `HOST` (default 127.0.0.1, loopback only).
 */
import { randomUUID } from "node:crypto"
import { createServer } from "node:http"

const port = Number(process.env["PORT"])
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  process.stderr.write(`bare-healthz: PORT must be a port number, got ${String(process.env["PORT"])}\n`)
  process.exit(1)
}
const host = process.env["HOST"] ?? "127.0.0.1"

// Encoded once: Signalman's body is a constant too, and the baseline should not pay costs the server does not.
const body = Buffer.from(JSON.stringify({ status: "ok" }))
const notFound = Buffer.from(JSON.stringify({ error: "NOT_FOUND" }))

const server = createServer((request, response) => {
  const ok = request.method === "GET" && request.url === "/healthz"
  const payload = ok ? body : notFound
  response.writeHead(ok ? 200 : 404, {
    "content-type": "application/json; charset=utf-8",
    "content-length": payload.length,
    "x-request-id": randomUUID()
  })
  response.end(payload)
})

server.listen(port, host, () => {
  // One JSON line, like Signalman's logs, so a human reading the child's output sees where it listens.
  process.stdout.write(`${JSON.stringify({ message: "bare-healthz is up", listening: `${host}:${port}` })}\n`)
})

// The runner sends SIGTERM when done; close promptly instead of waiting for keep-alive sockets to idle out.
process.on("SIGTERM", () => {
  server.closeAllConnections()
  server.close(() => process.exit(0))
})
