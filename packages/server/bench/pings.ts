/**
 * `pnpm --filter @signalman/server exec tsx bench/pings.ts`: sustained routine heartbeat pings on one Signalman
 * process, spread over 10,000 heartbeat monitors, each token kept under its own rate (1 a second).
 *
 * 1. Signalman runs as a child process (`src/main.ts`, role all, LOG__LEVEL=warn) on the embedded database in a
 *    fresh data directory on disk, so it can be stopped and opened again.
 * 2. A bench user is signed up (`bench-user.ts`); the operator surface raises its `max_targets` to 20,000.
 * 3. `POST /api/v1/targets/bulk` makes 10,000 heartbeat monitors (period 1 h); their ping URLs come from
 *    `GET /api/v1/targets/{id}/heartbeat`.
 * 4. Warm-up: every token is pinged once (the first ping moves each monitor out of pending: a verdict change,
 *    written at once). Not counted in the rate.
 * 5. Measured: autocannon from this process (loopback, 64 connections) for `BENCH_PING_SECS` (default 20) seconds,
 *    each request the next token in a round robin over the 10,000, the overall rate capped at 9,000 a second so no
 *    token exceeds 1 a second. These pings are routine (no verdict change): acknowledged from memory, written in
 *    batches every second. Reported: pings a second, and the server's CPU (utime + stime from /proc/<pid>/stat
 *    over the window, 100% = one core).
 * 6. SIGTERM: the server drains and writes what is queued. Then its database is opened directly (PGlite on the
 *    same directory) and the pings logged are counted: they must equal every ping acknowledged with 200 (warm-up
 *    and measured), and every monitor must have a `last_ping_at`. Then it is started again on the same data, to
 *    show the restart.
 *
 * Exit 1 on any failed request, any 429, or a count that does not match. Results go to stdout and
 * `.bench/pings.json`.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { PGlite } from "@electric-sql/pglite"
import autocannon from "autocannon"
import { makeBenchUser, READS_PER_MINUTE, startSmtpCatcher } from "./bench-user.js"

const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const outFile = path.join(serverDir, ".bench", "pings.json")
const HOST = "127.0.0.1"
const MONITORS = Number(process.env["BENCH_MONITORS"] ?? 10_000)
const SECONDS = Number(process.env["BENCH_PING_SECS"] ?? 20)
const CONNECTIONS = 64
const OVERALL_RATE = Math.min(9_000, Math.floor(MONITORS * 0.9))
const CLK_TCK = 100

const log = (line: string) => process.stdout.write(`${line}\n`)

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, HOST, () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => (port > 0 ? resolve(port) : reject(new Error("no free port"))))
    })
  })

const baseEnv = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const key of ["PATH", "HOME", "TMPDIR", "LANG"]) {
    const value = process.env[key]
    if (value !== undefined) env[key] = value
  }
  return env
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const start = async (env: Record<string, string>): Promise<{ child: ChildProcess; origin: string }> => {
  const port = await freePort()
  const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), "src/main.ts"], {
    cwd: serverDir,
    env: { ...baseEnv(), ...env, HOST, PORT: String(port) },
    stdio: ["ignore", "inherit", "inherit"]
  })
  const origin = `http://${HOST}:${port}`
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}) before answering`)
    try {
      const response = await fetch(`${origin}/readyz`, { signal: AbortSignal.timeout(1_000) })
      await response.arrayBuffer()
      if (response.status === 200) return { child, origin }
    } catch {
      // Still starting.
    }
    await sleep(100)
  }
  throw new Error("the server did not start within 60 s")
}

const stop = (child: ChildProcess): Promise<number | null> =>
  new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode)
    child.once("exit", (code) => resolve(code))
    child.kill("SIGTERM")
  })

/** utime + stime of a process, in seconds. */
const cpuSeconds = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK
}

let orgHeader: Record<string, string> = {}

const json = async (origin: string, method: string, route: string, token: string, body?: unknown) => {
  const response = await fetch(`${origin}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...orgHeader,
      ...(body === undefined ? {} : { "content-type": "application/json" })
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(120_000)
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text.slice(0, 300)}`)
  return JSON.parse(text) as unknown
}

/** Runs `f` over `items` with at most `n` at once. */
const pool = async <A, B>(items: ReadonlyArray<A>, n: number, f: (a: A) => Promise<B>): Promise<Array<B>> => {
  const out: Array<B> = new Array(items.length)
  let next = 0
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const i = next++
        out[i] = await f(items[i] as A)
      }
    })
  )
  return out
}

const main = async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "signalman-pings-"))
  const smtp = await startSmtpCatcher(HOST)
  const adminToken = randomBytes(32).toString("base64url")
  const env = {
    DATA_DIR: dataDir,
    LOG__LEVEL: "warn",
    OPERATOR__ADMIN_TOKEN: adminToken,
    MAIL__SMTP_URL: smtp.url,
    AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0"
  }
  let server = await start(env)
  try {
    const user = await makeBenchUser(server.origin, smtp, adminToken, `pings-${Date.now()}@example.com`)
    const overrides = await fetch(`${server.origin}/operator/accounts/${user.accountId}/overrides`, {
      method: "PUT",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ api_reads_per_minute: READS_PER_MINUTE, max_targets: MONITORS * 2 })
    })
    if (overrides.status !== 200) throw new Error(`overrides: ${overrides.status} ${await overrides.text()}`)

    const me = (await json(server.origin, "GET", "/api/v1/me", user.token)) as { orgs: Array<{ slug: string }> }
    orgHeader = { "x-signalman-org": me.orgs[0]?.slug ?? "" }
    const made = Date.now()
    const batch = (await json(server.origin, "POST", "/api/v1/targets/bulk", user.token, {
      targets: Array.from({ length: MONITORS }, (_, i) => ({
        name: `job ${i}`,
        check: { type: "heartbeat", period: 3600, grace: 300 }
      }))
    })) as { data: Array<{ id: string }> }
    log(`made ${batch.data.length} heartbeat monitors in ${((Date.now() - made) / 1000).toFixed(1)} s`)
    const paths = await pool(batch.data, 32, async (target) => {
      const record = (await json(server.origin, "GET", `/api/v1/targets/${target.id}/heartbeat`, user.token)) as {
        ping_url: string
      }
      return new URL(record.ping_url).pathname
    })

    // Warm-up: each monitor's first ping (out of pending, written at once).
    const warm = Date.now()
    const warmStatuses = await pool(paths, 32, async (p) => {
      const response = await fetch(`${server.origin}${p}`, { signal: AbortSignal.timeout(30_000) })
      await response.arrayBuffer()
      return response.status
    })
    const warmOk = warmStatuses.filter((s) => s === 200).length
    log(`warm-up: ${warmOk}/${paths.length} first pings in ${((Date.now() - warm) / 1000).toFixed(1)} s`)

    let cursor = 0
    const pid = server.child.pid ?? 0
    const cpuBefore = cpuSeconds(pid)
    const startedAt = process.hrtime.bigint()
    const result = await autocannon({
      url: server.origin,
      connections: CONNECTIONS,
      duration: SECONDS,
      overallRate: OVERALL_RATE,
      requests: [
        {
          setupRequest: (request) => {
            const p = paths[cursor++ % paths.length] ?? "/ping/none"
            return { ...request, path: p }
          }
        }
      ]
    })
    const elapsed = Number(process.hrtime.bigint() - startedAt) / 1e9
    const cpu = cpuSeconds(pid) - cpuBefore
    const ok = result["2xx"]
    const rate = ok / elapsed
    log(
      `measured: ${ok} pings in ${elapsed.toFixed(1)} s = ${Math.round(rate)} pings/s; ` +
        `non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts}; ` +
        `latency p50 ${result.latency.p50} ms p99 ${result.latency.p99} ms; server CPU ${Math.round((cpu / elapsed) * 100)}% of one core`
    )

    // Graceful stop: drain, write the queue; then count what the database holds.
    const code = await stop(server.child)
    const db = await PGlite.create(path.join(dataDir, "pg"))
    const [logged] = (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM heartbeat_pings")).rows
    const [pinged] = (
      await db.query<{ n: number }>("SELECT count(*)::int AS n FROM heartbeat_states WHERE last_ping_at IS NOT NULL")
    ).rows
    await db.close()
    const acknowledged = warmOk + ok
    log(
      `after SIGTERM (exit ${code}): ${logged?.n} pings logged for ${acknowledged} acknowledged ` +
        `(+ up to ${CONNECTIONS} in flight at the stop); ` +
        `${pinged?.n}/${MONITORS} monitors with last_ping_at`
    )
    server = await start(env)
    log("restarted on the same data: healthy")

    mkdirSync(path.dirname(outFile), { recursive: true })
    const report = {
      monitors: MONITORS,
      seconds: SECONDS,
      connections: CONNECTIONS,
      overall_rate_cap: OVERALL_RATE,
      pings_per_second: Math.round(rate),
      server_cpu_percent_of_one_core: Math.round((cpu / elapsed) * 100),
      latency_ms: { p50: result.latency.p50, p99: result.latency.p99 },
      acknowledged,
      logged: logged?.n,
      monitors_with_last_ping: pinged?.n,
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version }
    }
    writeFileSync(outFile, `${JSON.stringify(report, null, 2)}\n`)
    const failed =
      result.non2xx > 0 ||
      result.errors > 0 ||
      result.timeouts > 0 ||
      warmOk !== paths.length ||
      // Requests in flight when the measurement stops are counted by the server, not by autocannon: at most one per
      // connection more may be logged. Fewer would be a lost ping.
      (logged?.n ?? 0) < acknowledged ||
      (logged?.n ?? 0) > acknowledged + CONNECTIONS ||
      pinged?.n !== MONITORS
    if (failed) {
      log("FAILED: a request failed or the count does not match")
      process.exitCode = 1
    }
  } finally {
    await stop(server.child)
    await smtp.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})
