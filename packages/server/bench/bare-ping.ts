/**
 * The baseline for `bench/ingest.ts`: a bare `node:http` server answering every ping URL the way Signalman answers
 * a counted ping (200, `OK\n`, the same headers, a fresh request id), with no token, no rate limit and no
 * database, so the ratio measures what Signalman's ingest costs on top of Node itself.
 *
 * Env: `PORT` (required; the runner picks a free one) and `HOST` (default 127.0.0.1, loopback only).
 */
import { randomUUID } from "node:crypto"
import { createServer } from "node:http"

const port = Number(process.env["PORT"])
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  process.stderr.write(`bare-ping: PORT must be a port number, got ${String(process.env["PORT"])}\n`)
  process.exit(1)
}
const host = process.env["HOST"] ?? "127.0.0.1"

const ok = Buffer.from("OK\n")
const notFound = Buffer.from(JSON.stringify({ error: "NOT_FOUND" }))

const server = createServer((request, response) => {
  const url = request.url ?? ""
  // `/healthz` too, so the runner's readiness poll finds it up.
  const hit = url.startsWith("/ping/") || url === "/healthz"
  const payload = hit ? ok : notFound
  response.writeHead(hit ? 200 : 404, {
    "content-type": hit ? "text/plain; charset=utf-8" : "application/json; charset=utf-8",
    "content-length": String(payload.length),
    "cache-control": "no-store",
    "x-request-id": randomUUID()
  })
  response.end(payload)
})

server.listen(port, host, () => {
  process.stdout.write(`${JSON.stringify({ message: "bare-ping is up", listening: `${host}:${port}` })}\n`)
})

process.on("SIGTERM", () => {
  server.closeAllConnections()
  server.close(() => process.exit(0))
})
