/**
 * The loopback origin of the scheduler benchmark (bench/scheduler-throughput.ts), run as its own process so the
 * CPU it spends answering 1,000 fresh connections a second is not counted as the benchmark's or Signalman's.
 *
 * `GET /t/<i>` answers 200 `ok` and stamps the arrival (epoch ms) against monitor `i`; `GET /bare/<i>` answers the
 * same without stamping (the bare-client baseline's requests). `GET /__arrivals` answers every stamp so far as
 * JSON `[[i, at], ...]` and forgets them, so the parent can take them phase by phase. The port it listens on is
 * written to stdout as `listening <port>` once it listens.
 */
import * as Http from "node:http"

const HOST = "127.0.0.1"
const STAMPED = /^\/t\/(\d+)$/

let stamps: Array<number> = []

const server = Http.createServer((request, response) => {
  const at = Date.now()
  const url = request.url ?? ""
  const hit = STAMPED.exec(url)
  if (hit !== null) {
    stamps.push(Number(hit[1]), at)
    response.writeHead(200, { "content-type": "text/plain" }).end("ok")
    return
  }
  if (url === "/__arrivals") {
    // Flat pairs keep the heap small at 1,000 stamps a second; paired up as the JSON goes out.
    const taken = stamps
    stamps = []
    const pairs: Array<[number, number]> = []
    for (let i = 0; i + 1 < taken.length; i += 2) pairs.push([taken[i] ?? -1, taken[i + 1] ?? 0])
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(pairs))
    return
  }
  response.writeHead(200, { "content-type": "text/plain" }).end("ok")
})
// A check closes its connection itself; keep-alive only matters for the parent's own polls.
server.keepAliveTimeout = 65_000
server.listen(0, HOST, () => {
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  process.stdout.write(`listening ${port}\n`)
})
process.on("SIGTERM", () => {
  server.closeAllConnections()
  server.close(() => process.exit(0))
})
