/**
 * `pnpm bench:engine` (and the second half of `pnpm bench`): the monitoring engine's benchmark from issue 6.
 * 10,000 http monitors on a 30 s interval against a loopback server, one Signalman process (role all: its worker
 * runs the scheduler; the API sits idle once the monitors are made), for BENCH_ENGINE_SECS (default 150, at least
 * 120) after a warm-up of one interval. Reported: checks per second achieved against the 333.3 due, the p50 / p99
 * / max lag between a check's due time and its arrival at the loopback server, runs missed or doubled, the
 * process's CPU (cores, from /proc/<pid>/stat) and its peak RSS. Aim: p99 lag under 1 s using under one core.
 *
 * The lag is measured from outside: each monitor's due times are its grid (src/engine/Slots.ts: phase from its
 * id, plus k x 30 s), and the loopback server stamps each request's arrival, so the figure includes the claim,
 * the probe's connect and the request, everything but the answer.
 *
 * Setup through the real API: a magic-link sign-in (bench/bench-user.ts), operator overrides (max_targets 10,000,
 * min_check_interval_secs 30), one bulk create. Signalman runs with CHECKER__ALLOW_PRIVATE_TARGETS (loopback) and
 * CHECKER__PER_HOST_MAX_INFLIGHT 1000 (the 10,000 monitors share one host and port, which the per-host throttle
 * would otherwise rightly hold to 2 in flight). Embedded database in memory (in the measured process, so its CPU
 * counts) unless BENCH_DATABASE_URL names a PostgreSQL database of its own. Results also go to
 * `.bench/engine.json`. Exit 1 when a run is doubled, the setup fails, or the process dies.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import * as Http from "node:http"
import { createServer } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { phaseMs } from "../src/engine/Slots.js"
import { makeBenchUser, startSmtpCatcher } from "./bench-user.js"
import { createHttpMonitors } from "./monitors.js"
import { emptyTally, judgeMonitor } from "./slots.js"

const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const outFile = path.join(serverDir, ".bench", "engine.json")
const HOST = "127.0.0.1"
const TARGETS = Number(process.env["BENCH_ENGINE_TARGETS"] ?? 10_000)
const INTERVAL = 30
const SECS = Math.max(120, Number(process.env["BENCH_ENGINE_SECS"] ?? 150))
const CLOCK_TICKS = 100

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, HOST, () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })

const cpuSecs = (pid: number): number => {
  // Fields after the command name (which may hold spaces): utime is the 12th, stime the 13th.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
}
const rssMb = (pid: number): number => {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"))
  return Number(line?.replace(/\D+/g, "") ?? 0) / 1024
}
const quantile = (sorted: ReadonlyArray<number>, q: number) =>
  sorted.length === 0 ? Number.NaN : (sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0)

const main = async (): Promise<number> => {
  const log = (line: string) => process.stdout.write(`${line}\n`)
  const arrivals = new Map<number, Array<number>>()
  const origin = Http.createServer((request, response) => {
    const at = Date.now()
    const index = Number(/^\/t\/(\d+)$/.exec(request.url ?? "")?.[1] ?? -1)
    arrivals.set(index, [...(arrivals.get(index) ?? []), at])
    response.writeHead(200, { "content-type": "text/plain" }).end("ok")
  })
  origin.keepAliveTimeout = 65_000
  await new Promise<void>((resolve) => origin.listen(0, HOST, () => resolve()))
  const originAddress = origin.address()
  const originPort = typeof originAddress === "object" && originAddress !== null ? originAddress.port : 0

  const smtp = await startSmtpCatcher(HOST)
  const adminToken = randomBytes(32).toString("base64url")
  const port = await freePort()
  const databaseUrl = process.env["BENCH_DATABASE_URL"]
  const env: Record<string, string> = {
    PATH: process.env["PATH"] ?? "",
    HOME: process.env["HOME"] ?? "",
    HOST,
    PORT: String(port),
    ...(databaseUrl === undefined ? { DATA_DIR: "memory://" } : { DATABASE__URL: databaseUrl }),
    LOG__LEVEL: "warn",
    OPERATOR__ADMIN_TOKEN: adminToken,
    MAIL__SMTP_URL: smtp.url,
    AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0",
    CHECKER__ALLOW_PRIVATE_TARGETS: "true",
    CHECKER__PER_HOST_MAX_INFLIGHT: "1000"
  }
  const child: ChildProcess = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), "src/main.ts"], {
    cwd: serverDir,
    env,
    stdio: ["ignore", "pipe", "pipe"]
  })
  const tail: Array<string> = []
  const keep = (chunk: Buffer) => tail.push(...chunk.toString("utf8").split("\n").filter(Boolean).slice(-20))
  child.stdout?.on("data", keep)
  child.stderr?.on("data", keep)
  const base = `http://${HOST}:${port}`
  try {
    const deadline = Date.now() + 60_000
    for (;;) {
      if (child.exitCode !== null) throw new Error(`signalman exited:\n${tail.join("\n")}`)
      // Bounded: a connection accepted while the server boots may never be answered.
      const ok = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(1_000) })
        .then((r) => r.status === 200)
        .catch(() => false)
      if (ok) break
      if (Date.now() > deadline) throw new Error("signalman did not start within 60 s")
      await sleep(200)
    }
    log(`engine bench: signalman up at ${base}; signing in`)
    const user = await makeBenchUser(base, smtp, adminToken, `engine-bench-${Date.now()}@example.com`)
    log("engine bench: creating the monitors")
    const ids = await createHttpMonitors(base, user, adminToken, {
      count: TARGETS,
      interval: INTERVAL,
      urlOf: (i) => `http://${HOST}:${originPort}/t/${i}`
    })
    const pid = child.pid ?? 0
    log(`engine bench: ${TARGETS} http monitors every ${INTERVAL}s on ${HOST}:${originPort}; warm-up ${INTERVAL}s`)
    await sleep(INTERVAL * 1000)

    const from = Date.now()
    const cpuFrom = cpuSecs(pid)
    let peakRss = rssMb(pid)
    while (Date.now() - from < SECS * 1000) {
      await sleep(5_000)
      peakRss = Math.max(peakRss, rssMb(pid))
      if (child.exitCode !== null) throw new Error(`signalman exited:\n${tail.join("\n")}`)
    }
    const to = Date.now()
    const cpu = cpuSecs(pid) - cpuFrom

    // Slots due inside the window (less its last 2 s, whose runs may still be under way), and the arrivals of
    // each: one each is the aim.
    const tally = emptyTally()
    for (let i = 0; i < TARGETS; i++) {
      const grid = { phase: phaseMs(ids[i] ?? "", INTERVAL), period: INTERVAL * 1000 }
      judgeMonitor(tally, grid, from, to - 2_000, arrivals.get(i) ?? [])
    }
    const { due, doubled, early, lags, missed, ran } = tally
    lags.sort((a, b) => a - b)
    const secs = (to - from) / 1000
    const report = {
      machine: { cpu: os.cpus()[0]?.model ?? "unknown", cpus: os.cpus().length, node: process.version },
      database: databaseUrl === undefined ? "embedded (in the measured process), in memory" : "PostgreSQL",
      targets: TARGETS,
      interval_secs: INTERVAL,
      window_secs: Math.round(secs),
      due_per_sec: TARGETS / INTERVAL,
      // Over the slots counted: those due before the last 2 s of the window, whose runs may still be under way.
      checks_per_sec: ran / ((to - 2_000 - from) / 1000),
      slots_due: due,
      slots_ran: ran,
      missed,
      doubled,
      early,
      lag_ms: { p50: quantile(lags, 0.5), p99: quantile(lags, 0.99), max: lags.at(-1) ?? Number.NaN },
      cpu_cores: cpu / secs,
      peak_rss_mb: Math.round(peakRss)
    }
    log(`  window      ${report.window_secs} s after a ${INTERVAL} s warm-up; database ${report.database}`)
    log(`  throughput  ${report.checks_per_sec.toFixed(1)} checks/s against ${report.due_per_sec.toFixed(1)} due`)
    log(`  slots       ${ran} of ${due} ran, ${missed} missed, ${doubled} doubled, ${early} started early`)
    log(`  lag         p50 ${report.lag_ms.p50} ms, p99 ${report.lag_ms.p99} ms, max ${report.lag_ms.max} ms`)
    log(`  cpu         ${report.cpu_cores.toFixed(2)} cores; peak RSS ${report.peak_rss_mb} MB`)
    const onTime = report.lag_ms.p99 < 1000 && report.cpu_cores < 1
    log(`  aim         p99 lag < 1 s using < 1 core: ${onTime ? "met" : "NOT met"}`)
    mkdirSync(path.dirname(outFile), { recursive: true })
    writeFileSync(outFile, `${JSON.stringify({ ...report, aim_met: onTime, at: new Date().toISOString() }, null, 2)}\n`)
    return doubled > 0 ? 1 : 0
  } finally {
    child.kill("SIGTERM")
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    if (child.exitCode === null) child.kill("SIGKILL")
    origin.closeAllConnections()
    origin.close()
    await smtp.close()
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`engine bench failed: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  }
)
