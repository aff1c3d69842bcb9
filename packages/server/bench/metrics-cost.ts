/**
 * `pnpm bench:metrics`: what `/metrics` costs (issue 19). Two Signalman processes in one run, the same build and
 * settings but for `metrics.enabled` (on: with a token, scraped every `BENCH_SCRAPE_SECS`, default 5, for the whole
 * run, as Prometheus would; off: the default, every recording call a no-op). Measured on each, in the same run:
 *
 * 1. `GET /api/v1/me` with a bearer API token (the authenticated path of `bench/run.ts`): autocannon, 50 connections,
 *    a warm-up per server, then `BENCH_ROUNDS` rounds of `BENCH_DURATION_SECS` alternating which server goes first.
 *    Reported: the median req/s of each and the ratio on / off (aim at least 0.9).
 * 2. The engine: `BENCH_METRICS_TARGETS` (default 3000) http monitors per server on a 30 s interval against a
 *    loopback origin in this process, both servers running at once, counted for `BENCH_METRICS_ENGINE_SECS` (default
 *    90) after a warm-up interval. Reported: checks/s arriving from each (the ratio on / off, aim at least 0.9) and,
 *    since both keep up with what is due and so run the same checks/s, the CPU each process spent per check, whose
 *    ratio off / on is where a cost would show.
 *
 * Every answer is checked (the `/me` body is the bench user's, each scrape is 200 Prometheus text with the checks
 * series); a wrong answer fails the run with exit 1. Embedded database in memory (in each measured process).
 * Results go to stdout and `.bench/metrics-cost.json`.
 */
import { randomBytes } from "node:crypto"
import { mkdirSync, writeFileSync } from "node:fs"
import * as Http from "node:http"
import * as path from "node:path"
import { type BenchUser, makeBenchUser, startSmtpCatcher } from "./bench-user.js"
import { HOST, type Running, serverDir, sleep, start, stopAll, type Target } from "./children.js"
import { CONNECTIONS, failures, isMeOf, load, type Run } from "./load.js"
import { createHttpMonitors } from "./monitors.js"
import { cpuSeconds, fmt, gitCommit, machine, median, positiveInt } from "./report.js"

const outFile = path.join(serverDir, ".bench", "metrics-cost.json")
const AIM = 0.9
const INTERVAL = 30
const ME_PATH = "/api/v1/me"

type Side = "on" | "off"
const SIDES: ReadonlyArray<Side> = ["on", "off"]

const log = (line: string) => process.stdout.write(`${line}\n`)

interface Round {
  readonly side: Side
  readonly rps: number
  readonly requests: number
  readonly failures: number
  readonly p99Ms: number
}

/** One autocannon run of `/me` against `running` (`load.ts`); every answer must be 200 with the user's document. */
const loadMe = async (
  side: Side,
  running: Running,
  user: BenchUser,
  seconds: number,
  kind: Run["kind"],
  round: number
): Promise<Round> => {
  const run = await load(
    {
      name: side,
      running,
      path: ME_PATH,
      headers: { authorization: `Bearer ${user.token}` },
      status: 200,
      body: { verify: isMeOf(user.email) }
    },
    kind,
    round,
    seconds
  )
  return { side, rps: run.rps, requests: run.requests, failures: failures(run), p99Ms: run.latencyMs.p99 }
}

/** Scrapes the metrics-on server every `everySecs` until stopped; counts scrapes and what was wrong with any. */
const scraper = (running: Running, token: string, everySecs: number) => {
  let stopped = false
  let scrapes = 0
  const problems: Array<string> = []
  const loop = (async () => {
    while (!stopped) {
      try {
        const response = await fetch(`${running.origin}/metrics`, {
          headers: { authorization: `Bearer ${token}` },
          signal: AbortSignal.timeout(10_000)
        })
        const text = await response.text()
        if (response.status !== 200 || !text.includes("# TYPE signalman_checks_total counter")) {
          problems.push(`scrape answered ${response.status}: ${text.slice(0, 200)}`)
        }
        scrapes++
      } catch (error) {
        problems.push(`scrape failed: ${error instanceof Error ? error.message : String(error)}`)
      }
      await sleep(everySecs * 1_000)
    }
  })()
  return {
    stop: async () => {
      stopped = true
      await loop
      return { scrapes, problems }
    }
  }
}

const main = async (): Promise<number> => {
  const durationSecs = positiveInt("BENCH_DURATION_SECS", 8)
  const rounds = positiveInt("BENCH_ROUNDS", 3)
  const warmupSecs = positiveInt("BENCH_WARMUP_SECS", 3)
  const targets = positiveInt("BENCH_METRICS_TARGETS", 3_000)
  const engineSecs = positiveInt("BENCH_METRICS_ENGINE_SECS", 90)
  const scrapeSecs = positiveInt("BENCH_SCRAPE_SECS", 5)

  // Arrivals per side at the loopback origin the monitors check.
  const arrivals: Record<Side, Array<number>> = { on: [], off: [] }
  const origin = Http.createServer((request, response) => {
    const side = /^\/(on|off)\//.exec(request.url ?? "")?.[1]
    if (side === "on" || side === "off") arrivals[side].push(Date.now())
    response.writeHead(200, { "content-type": "text/plain" }).end("ok")
  })
  origin.keepAliveTimeout = 65_000
  await new Promise<void>((resolve) => origin.listen(0, HOST, () => resolve()))
  const originAddress = origin.address()
  const originPort = typeof originAddress === "object" && originAddress !== null ? originAddress.port : 0

  const smtp = await startSmtpCatcher(HOST)
  // For the operator surface and the scrape only, and only for the life of this run; never written anywhere.
  const adminToken = randomBytes(32).toString("base64url")
  const metricsToken = randomBytes(32).toString("base64url")
  const common = {
    DATA_DIR: "memory://",
    LOG__LEVEL: "warn",
    OPERATOR__ADMIN_TOKEN: adminToken,
    MAIL__SMTP_URL: smtp.url,
    AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0",
    CHECKER__ALLOW_PRIVATE_TARGETS: "true",
    // The monitors share one host and port, which the per-host throttle would rightly hold to 2 in flight.
    CHECKER__PER_HOST_MAX_INFLIGHT: "1000"
  }
  const target = (side: Side): Target => ({
    name: `metrics-${side}`,
    description: `Signalman (src/main.ts, role all, embedded database in memory), metrics ${side}`,
    script: "src/main.ts",
    readyPath: "/readyz",
    env: side === "on" ? { ...common, METRICS__ENABLED: "true", METRICS__TOKEN: metricsToken } : common
  })

  const context = { machine: machine(), commit: gitCommit(), startedAt: new Date().toISOString() }
  const settings = { connections: CONNECTIONS, durationSecs, rounds, warmupSecs, targets, engineSecs, scrapeSecs }
  log("Signalman metrics cost benchmark (metrics on vs off, same run)")
  log(`  machine   ${context.machine.cpuModel} x ${context.machine.cpuCount} CPUs, node ${context.machine.node}`)
  log(`            ${context.machine.platform}, load average ${context.machine.loadAverage1m} at start`)
  log(`  on        METRICS__ENABLED=true with a token, scraped every ${scrapeSecs}s for the whole run`)
  log(`  off       the default (metrics.enabled false)`)
  log(
    `  /me       autocannon ${CONNECTIONS} connections; ${warmupSecs}s warm-up each, ${rounds} x ${durationSecs}s rounds`
  )
  log(`  engine    ${targets} http monitors per server every ${INTERVAL}s, ${engineSecs}s counted after ${INTERVAL}s`)

  try {
    const servers: Record<Side, Running> = { on: await start(target("on")), off: await start(target("off")) }
    const users: Record<Side, BenchUser> = {
      on: await makeBenchUser(servers.on.origin, smtp, adminToken, `metrics-on-${Date.now()}@example.com`),
      off: await makeBenchUser(servers.off.origin, smtp, adminToken, `metrics-off-${Date.now()}@example.com`)
    }
    const scrapes = scraper(servers.on, metricsToken, scrapeSecs)

    // 1. /me, alternating which side goes first each round.
    for (const side of SIDES) await loadMe(side, servers[side], users[side], warmupSecs, "warmup", 0)
    const measured: Array<Round> = []
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? SIDES : [...SIDES].reverse()
      for (const side of order) {
        const run = await loadMe(side, servers[side], users[side], durationSecs, "measured", round + 1)
        log(`  /me round ${round + 1} ${side.padEnd(3)} ${fmt(run.rps)} req/s, p99 ${run.p99Ms} ms`)
        measured.push(run)
      }
    }
    const meRps = (side: Side) => median(measured.filter((r) => r.side === side).map((r) => r.rps))
    const meFailures = measured.reduce((sum, r) => sum + r.failures, 0)

    // 2. The engine, both servers at once.
    for (const side of SIDES) {
      await createHttpMonitors(servers[side].origin, users[side], adminToken, {
        count: targets,
        interval: INTERVAL,
        urlOf: (i) => `http://${HOST}:${originPort}/${side}/${i}`
      })
    }
    log(`  engine    monitors made; warm-up ${INTERVAL}s`)
    await sleep(INTERVAL * 1_000)
    const from = Date.now()
    const cpuFrom = { on: cpuSeconds(servers.on.pid).own, off: cpuSeconds(servers.off.pid).own }
    await sleep(engineSecs * 1_000)
    const to = Date.now()
    const cpu = {
      on: cpuSeconds(servers.on.pid).own - cpuFrom.on,
      off: cpuSeconds(servers.off.pid).own - cpuFrom.off
    }
    const scraped = await scrapes.stop()
    const secs = (to - from) / 1_000
    const checks = (side: Side) => arrivals[side].filter((at) => at >= from && at < to).length
    const engine = Object.fromEntries(
      SIDES.map((side) => [
        side,
        { checks_per_sec: checks(side) / secs, cpu_ms_per_check: (cpu[side] * 1_000) / Math.max(1, checks(side)) }
      ])
    ) as Record<Side, { checks_per_sec: number; cpu_ms_per_check: number }>

    const ratios = {
      me_rps: meRps("on") / meRps("off"),
      engine_checks_per_sec: engine.on.checks_per_sec / engine.off.checks_per_sec,
      engine_cpu_per_check: engine.off.cpu_ms_per_check / engine.on.cpu_ms_per_check
    }
    const report = {
      ...context,
      settings,
      me: { rps: { on: meRps("on"), off: meRps("off") }, rounds: measured, failures: meFailures },
      engine: { window_secs: secs, due_per_sec: targets / INTERVAL, ...engine },
      scrapes: scraped,
      ratios,
      aim: AIM,
      aim_met: ratios.me_rps >= AIM && ratios.engine_checks_per_sec >= AIM
    }
    log("")
    log(`  /me       on ${fmt(meRps("on"))} req/s, off ${fmt(meRps("off"))} req/s: ratio ${ratios.me_rps.toFixed(3)}`)
    log(
      `  engine    on ${engine.on.checks_per_sec.toFixed(1)} checks/s, off ${engine.off.checks_per_sec.toFixed(1)} checks/s ` +
        `(${report.engine.due_per_sec.toFixed(1)} due): ratio ${ratios.engine_checks_per_sec.toFixed(3)}`
    )
    log(
      `  cpu/check on ${engine.on.cpu_ms_per_check.toFixed(3)} ms, off ${engine.off.cpu_ms_per_check.toFixed(3)} ms: ` +
        `ratio off/on ${ratios.engine_cpu_per_check.toFixed(3)}`
    )
    log(`  scrapes   ${scraped.scrapes} taken, ${scraped.problems.length} wrong`)
    log(`  aim       ratios >= ${AIM}: ${report.aim_met ? "met" : "NOT met"}`)
    mkdirSync(path.dirname(outFile), { recursive: true })
    writeFileSync(outFile, `${JSON.stringify(report, null, 2)}\n`)
    for (const problem of scraped.problems.slice(0, 5)) log(`  scrape problem: ${problem}`)
    if (meFailures > 0) log(`  /me had ${meFailures} failed requests`)
    return meFailures > 0 || scraped.problems.length > 0 ? 1 : 0
  } finally {
    await stopAll()
    origin.closeAllConnections()
    origin.close()
    await smtp.close()
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`metrics bench failed: ${error instanceof Error ? error.message : String(error)}\n`)
    void stopAll().finally(() => process.exit(1))
  }
)
