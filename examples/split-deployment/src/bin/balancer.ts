/**
 * The balancer as a process (started by `start`): `SPLIT_BALANCER_LISTEN=host:port`,
 * `SPLIT_UPSTREAMS=host:port,host:port`, `SPLIT_HEALTH_INTERVAL_MS` (1000), `SPLIT_BALANCER_GRACE_MS` (20000).
 * Logs JSON lines on stdout; SIGTERM or SIGINT drains it and exits 0.
 */
import { type Address, make } from "../Balancer.js"

const fail = (line: string): never => {
  process.stderr.write(`balancer: ${line}\n`)
  process.exit(2)
}

const address = (text: string): Address => {
  const match = /^(.+):(\d{1,5})$/.exec(text.trim())
  if (match?.[1] === undefined || match[2] === undefined) return fail(`not host:port: ${text}`)
  return { host: match[1], port: Number(match[2]) }
}

const whole = (name: string, fallback: number): number => {
  const text = process.env[name]
  if (text === undefined) return fallback
  const value = Number(text)
  return Number.isInteger(value) && value > 0 ? value : fail(`${name} must be a whole number of ms, got ${text}`)
}

const log = (level: "info" | "warn", message: string, fields: Record<string, unknown>) =>
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`)

const listen = address(process.env["SPLIT_BALANCER_LISTEN"] ?? fail("SPLIT_BALANCER_LISTEN is required"))
const upstreams = (process.env["SPLIT_UPSTREAMS"] ?? fail("SPLIT_UPSTREAMS is required")).split(",").map(address)
const graceMs = whole("SPLIT_BALANCER_GRACE_MS", 20_000)

const balancer = await make({
  listen,
  upstreams,
  healthIntervalMs: whole("SPLIT_HEALTH_INTERVAL_MS", 1_000),
  healthTimeoutMs: 2_000,
  log
})
log("info", "Balancer is up", { url: balancer.url, upstreams: upstreams.map((u) => `${u.host}:${u.port}`) })

let stopping = false
const stop = (signal: string) => {
  if (stopping) return
  stopping = true
  log("info", "Draining", { signal })
  void balancer.close(graceMs).then((all) => {
    log(all ? "info" : "warn", all ? "Drained" : "Grace elapsed; closed the remaining connections", {})
    process.exit(0)
  })
}
process.on("SIGTERM", () => stop("SIGTERM"))
process.on("SIGINT", () => stop("SIGINT"))
