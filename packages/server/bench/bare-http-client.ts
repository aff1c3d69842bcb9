/**
 * The scheduler benchmark's baseline (bench/scheduler-throughput.ts): a bare Node process making `RATE` requests a
 * second for `SECS` seconds to the same loopback origin the way Signalman's http probe does (a fresh connection per
 * request through an undici `Client`, the same GET with the probe's headers, the body read, the connection closed),
 * and nothing else: no scheduling, no database, no results. Its CPU per request is the floor a check's CPU is
 * compared with. Requests are spread evenly (a batch every 10 ms), as the monitors' phases spread their checks.
 *
 * Usage: `tsx bench/bare-http-client.ts <origin> <rate> <secs>`; prints one JSON line `{ sent, ok, failed, secs, cpu_secs }`
 * (the CPU this process spent from its first request to its last answer, from `process.cpuUsage`).
 */
import { Client } from "undici"

const [origin = "", rateText = "1000", secsText = "30"] = process.argv.slice(2)
const rate = Number(rateText)
const secs = Number(secsText)
const TICK_MS = 10
// The probe's request: its user agent and the region header (packages/checks/src/Http.ts).
const headers = { "user-agent": "Signalman/bench", "x-signalman-region": "local" }

let sent = 0
let ok = 0
let failed = 0
let inflight = 0

const one = (i: number) => {
  inflight++
  const client = new Client(origin, { headersTimeout: 0, bodyTimeout: 0 })
  client
    .request({ path: `/bare/${i}`, method: "GET", headers })
    .then(async (answer) => {
      await answer.body.text()
      if (answer.statusCode === 200) ok++
      else failed++
    })
    .catch(() => {
      failed++
    })
    .finally(() => {
      inflight--
      client.destroy().catch(() => {})
    })
}

const started = Date.now()
const cpuFrom = process.cpuUsage()
const total = Math.round(rate * secs)
const timer = setInterval(() => {
  // Catch up to where the clock says we should be, so a late timer does not lower the rate.
  const owed = Math.min(total, Math.floor(((Date.now() - started) / 1000) * rate))
  while (sent < owed) one(sent++)
  if (sent >= total) {
    clearInterval(timer)
    const deadline = Date.now() + 10_000
    const wait = setInterval(() => {
      if (inflight > 0 && Date.now() < deadline) return
      clearInterval(wait)
      const cpu = process.cpuUsage(cpuFrom)
      const cpuSecs = (cpu.user + cpu.system) / 1e6
      process.stdout.write(
        `${JSON.stringify({ sent, ok, failed, secs: (Date.now() - started) / 1000, cpu_secs: cpuSecs })}\n`
      )
      process.exit(0)
    }, 20)
  }
}, TICK_MS)
