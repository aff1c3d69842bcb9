/**
 * `pnpm bench:scheduler` (opt-in in `pnpm bench`: BENCH_LONG=1): issue 20's scheduler throughput. 30,000 http
 * monitors on a 30 s interval (1,000 checks due a second) against a loopback origin, results stored in a
 * PostgreSQL database of the bench's own (created on 127.0.0.1:5432, dropped at the end):
 *
 * - baseline: a bare Node client (bench/bare-http-client.ts) makes the same 1,000 requests a second to the same
 *   origin the way the probe does (a fresh connection each, the same GET), and nothing else; its CPU per request is
 *   the floor a check is compared with;
 * - phase A: ONE `--role worker` process carries the load: checks/s against those due, the start lag's p50 / p99 /
 *   max against each monitor's grid (src/engine/Slots.ts), slots missed, doubled and started early, the results
 *   stored, the worker's CPU (cores) and peak RSS, and the CPU of the PostgreSQL backends serving the bench's
 *   database (the server's shared background processes are not counted);
 * - phase B: a second worker joins; both share the load: the same figures, each worker's CPU, and exactly one run
 *   per slot.
 *
 * The lag is measured from outside, as bench/engine.ts does: the origin (its own process, so its CPU is nobody's
 * here) stamps each request's arrival, so a figure includes the claim, the wait, the connect and the request. The
 * machine's load average is sampled through each phase. Setup goes through the real API (an `--role api`
 * process): a magic-link sign-in (bench-user.ts), operator overrides, bulk creates (monitors.ts). The workers run
 * the built bundle (dist/main.js) as production does, with CHECKER__ALLOW_PRIVATE_TARGETS (loopback) and
 * CHECKER__PER_HOST_MAX_INFLIGHT 100000 (every monitor here shares one host and port, which the per-host throttle
 * would otherwise rightly hold to 2 in flight); SCHEDULER__* / CHECKER__* / DATABASE__MAX_CONNECTIONS in the
 * bench's environment are passed to the workers, to try other settings, and BENCH_NODE_OPTIONS as their
 * NODE_OPTIONS. BENCH_CPU_PROF_DIR profiles them.
 *
 * Knobs (for development on a shared machine): BENCH_SCHEDULER_TARGETS (30000), BENCH_SCHEDULER_SECS (window,
 * 120), BENCH_SCHEDULER_WARMUP_SECS (30), BENCH_SCHEDULER_BASELINE_SECS (30), BENCH_SCHEDULER_ONLY_A=1 (stop after
 * phase A, writing no report), BENCH_POSTGRES_URL (the admin URL).
 * Results go to `.bench/scheduler.json`. Exit 1 on any doubled run, or when the setup or a process fails.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import { PgClient } from "@effect/sql-pg"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { phaseMs } from "../src/engine/Slots.js"
import { makeBenchUser, type SmtpCatcher, startSmtpCatcher } from "./bench-user.js"
import { baseEnv, children, HOST, type Running, serverDir, sleep, start, stopAll } from "./children.js"
import { createHttpMonitors } from "./monitors.js"
import { cpuSeconds, gitCommit, machine, positiveInt } from "./report.js"
import { emptyTally, judgeMonitor } from "./slots.js"

const log = (line: string) => process.stdout.write(`${line}\n`)

if (process.env["BENCH_LONG"] !== "1") {
  log("scheduler bench: skipped (about 10 minutes); run it with BENCH_LONG=1 pnpm bench:scheduler")
  process.exit(0)
}

const outFile = path.join(serverDir, ".bench", "scheduler.json")
const TARGETS = positiveInt("BENCH_SCHEDULER_TARGETS", 30_000)
const INTERVAL = 30
const SECS = positiveInt("BENCH_SCHEDULER_SECS", 120)
const WARMUP = positiveInt("BENCH_SCHEDULER_WARMUP_SECS", 30)
const BASELINE_SECS = positiveInt("BENCH_SCHEDULER_BASELINE_SECS", 30)
// For development: stop after phase A (no report file is written then).
const ONLY_A = process.env["BENCH_SCHEDULER_ONLY_A"] === "1"
const DUE_PER_SEC = TARGETS / INTERVAL
// Slots due in the last seconds of a window may still be under way when it closes: not counted.
const TAIL_MS = 2_000
const SAMPLE_MS = 2_000
const adminUrl = process.env["BENCH_POSTGRES_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres"
const PASSED_TO_WORKERS = /^(SCHEDULER__|CHECKER__|DATABASE__MAX_CONNECTIONS$)/

const query = (url: string, statement: string) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.flatMap(PgClient.make({ url: Redacted.make(url), maxConnections: 1 }), (sql) => sql.unsafe(statement))
    ).pipe(Effect.provide(Reactivity.layer))
  )

// What the children and the database answer, decoded rather than trusted.
const Arrivals = Schema.parseJson(Schema.Array(Schema.Tuple(Schema.Number, Schema.Number)))
const BareReport = Schema.parseJson(
  Schema.Struct({
    sent: Schema.Number,
    ok: Schema.Number,
    failed: Schema.Number,
    secs: Schema.Number,
    cpu_secs: Schema.Number
  })
)
const Pids = Schema.Array(Schema.Struct({ pid: Schema.Number }))
const Count = Schema.Array(Schema.Struct({ n: Schema.NumberFromString }))

const quantile = (sorted: ReadonlyArray<number>, q: number) =>
  sorted.length === 0 ? Number.NaN : (sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0)

const peakRssMb = (pid: number): number => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN) / 1024
}

/** The origin as its own process; answers its base URL once it listens. */
const startOrigin = async (): Promise<{ readonly base: string; readonly pid: number }> => {
  const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), "bench/stamping-origin.ts"], {
    cwd: serverDir,
    env: baseEnv(),
    stdio: ["ignore", "pipe", "inherit"]
  })
  children.add(child)
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the origin did not listen within 30 s")), 30_000)
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      const hit = /listening (\d+)/.exec(chunk)
      if (hit !== null) {
        clearTimeout(timer)
        resolve(Number(hit[1]))
      }
    })
    child.once("exit", () => reject(new Error("the origin exited before listening")))
  })
  return { base: `http://${HOST}:${port}`, pid: child.pid ?? 0 }
}

/** Every arrival the origin stamped since the last call, added to `into` per monitor. */
const collect = async (origin: string, into: Map<number, Array<number>>) => {
  const pairs = Schema.decodeUnknownSync(Arrivals)(await (await fetch(`${origin}/__arrivals`)).text())
  for (const [index, at] of pairs) {
    const list = into.get(index)
    if (list === undefined) into.set(index, [at])
    else list.push(at)
  }
}

/** The baseline: the bare client run to its end, its CPU per request from its own `process.cpuUsage`. */
const baseline = async (origin: string) => {
  const loadFrom = os.loadavg()[0] ?? 0
  const child: ChildProcess = spawn(
    process.execPath,
    [
      "--import",
      import.meta.resolve("tsx"),
      "bench/bare-http-client.ts",
      origin,
      String(DUE_PER_SEC),
      String(BASELINE_SECS)
    ],
    { cwd: serverDir, env: baseEnv(), stdio: ["ignore", "pipe", "inherit"] }
  )
  children.add(child)
  let out = ""
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk
  })
  const loads: Array<number> = []
  const sampler = setInterval(() => loads.push(os.loadavg()[0] ?? 0), SAMPLE_MS)
  await new Promise<void>((resolve) => child.once("exit", () => resolve()))
  clearInterval(sampler)
  const {
    sent,
    ok,
    failed,
    secs,
    cpu_secs: cpuSecs
  } = Schema.decodeUnknownSync(BareReport)(out.trim().split("\n").at(-1) ?? "")
  return {
    requests_per_sec: sent / secs,
    sent,
    ok,
    failed,
    cpu_cores: cpuSecs / secs,
    cpu_ms_per_request: (cpuSecs * 1000) / sent,
    load_1m: { from: loadFrom, mean: mean(loads), to: os.loadavg()[0] ?? 0 }
  }
}

const mean = (values: ReadonlyArray<number>) =>
  values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length

/** The CPU seconds of the PostgreSQL backends connected to `database` (pid -> seconds). */
const backendCpu = async (database: string): Promise<Map<number, number>> => {
  const rows = Schema.decodeUnknownSync(Pids)(
    await query(adminUrl, `SELECT pid FROM pg_stat_activity WHERE datname = '${database}' AND pid <> pg_backend_pid()`)
  )
  return new Map(rows.map((row) => [row.pid, cpuSeconds(row.pid).own]))
}

interface Window {
  readonly from: number
  readonly to: number
  readonly workerCpu: ReadonlyArray<number>
  readonly workerPeakRssMb: ReadonlyArray<number>
  readonly postgresCpu: number
  readonly load1m: { readonly from: number; readonly mean: number; readonly to: number }
}

/** Measures a window of `SECS` with `workers` running; fails early when one of them dies. */
const measure = async (workers: ReadonlyArray<Running>, database: string): Promise<Window> => {
  const from = Date.now()
  const loadFrom = os.loadavg()[0] ?? 0
  const cpuFrom = workers.map((w) => cpuSeconds(w.pid).own)
  const pgFrom = await backendCpu(database)
  const loads: Array<number> = []
  while (Date.now() - from < SECS * 1000) {
    await sleep(Math.min(SAMPLE_MS, SECS * 1000 - (Date.now() - from)))
    loads.push(os.loadavg()[0] ?? 0)
    for (const w of workers) {
      if (cpuSeconds(w.pid).own === 0) throw new Error(`a worker exited:\n${w.tail()}`)
    }
  }
  const to = Date.now()
  const workerCpu = workers.map((w, i) => (cpuSeconds(w.pid).own - (cpuFrom[i] ?? 0)) / ((to - from) / 1000))
  const pgTo = await backendCpu(database)
  let pg = 0
  // A backend that connected during the window counts from zero; one that left is not counted past its last look.
  for (const [pid, secs] of pgTo) pg += secs - (pgFrom.get(pid) ?? 0)
  return {
    from,
    to,
    workerCpu,
    workerPeakRssMb: workers.map((w) => Math.round(peakRssMb(w.pid))),
    postgresCpu: pg / ((to - from) / 1000),
    load1m: { from: loadFrom, mean: mean(loads), to: os.loadavg()[0] ?? 0 }
  }
}

/** The window's slots against the arrivals: one arrival per slot is the aim. */
const judge = (ids: ReadonlyArray<string>, arrivals: ReadonlyMap<number, ReadonlyArray<number>>, w: Window) => {
  const tally = emptyTally()
  const period = INTERVAL * 1000
  for (let i = 0; i < ids.length; i++) {
    judgeMonitor(
      tally,
      { phase: phaseMs(ids[i] ?? "", INTERVAL), period },
      w.from,
      w.to - TAIL_MS,
      arrivals.get(i) ?? []
    )
  }
  const { due, doubled, early, lags, missed, ran } = tally
  lags.sort((a, b) => a - b)
  const counted = (w.to - TAIL_MS - w.from) / 1000
  return {
    window_secs: Math.round((w.to - w.from) / 1000),
    checks_per_sec: ran / counted,
    // The monitors' phases are spread at random, so a window's due slots vary a little around TARGETS / INTERVAL.
    due_per_sec: due / counted,
    slots_due: due,
    slots_ran: ran,
    missed,
    doubled,
    early,
    lag_ms: { p50: quantile(lags, 0.5), p99: quantile(lags, 0.99), max: lags.at(-1) ?? Number.NaN }
  }
}

const workerEnv = (common: Record<string, string>): Record<string, string> => {
  const env: Record<string, string> = { ...common, ROLE: "worker" }
  const nodeOptions = process.env["BENCH_NODE_OPTIONS"]
  if (nodeOptions !== undefined && nodeOptions !== "") env["NODE_OPTIONS"] = nodeOptions
  for (const [key, value] of Object.entries(process.env)) {
    if (PASSED_TO_WORKERS.test(key) && value !== undefined) env[key] = value
  }
  return env
}

const main = async (): Promise<number> => {
  const database = `sm_bench_sched_${Date.now().toString(36)}`
  await query(adminUrl, `CREATE DATABASE ${database}`)
  let smtp: SmtpCatcher | undefined
  try {
    smtp = await startSmtpCatcher(HOST)
    const url = new URL(adminUrl)
    url.pathname = `/${database}`
    const adminToken = randomBytes(24).toString("hex")
    const common: Record<string, string> = {
      DATABASE_URL: url.href,
      OPERATOR__ADMIN_TOKEN: adminToken,
      MAIL__SMTP_URL: smtp.url,
      AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0",
      LOG__LEVEL: "warn",
      CHECKER__ALLOW_PRIVATE_TARGETS: "true",
      // Every monitor here shares one host and port, so the per-host cap (2 by default, rightly) would drop ticks;
      // above checker.max_concurrency it never applies.
      CHECKER__PER_HOST_MAX_INFLIGHT: "5000"
    }
    const origin = await startOrigin()
    const api = await start({
      name: "api",
      description: "Signalman --role api (setup only)",
      script: "dist/main.js",
      readyPath: "/readyz",
      env: { ...common, ROLE: "api" }
    })
    log(`scheduler bench: database ${database}; api at ${api.origin}; origin at ${origin.base}; signing in`)
    const user = await makeBenchUser(api.origin, smtp, adminToken, `scheduler-bench-${Date.now()}@example.com`)

    log(`scheduler bench: baseline, a bare client making ${DUE_PER_SEC.toFixed(0)} requests/s for ${BASELINE_SECS} s`)
    const bare = await baseline(origin.base)
    log(
      `  bare client  ${bare.requests_per_sec.toFixed(0)} req/s (${bare.failed} failed), ${bare.cpu_cores.toFixed(3)} cores, ${bare.cpu_ms_per_request.toFixed(3)} ms CPU per request; load ${bare.load_1m.mean.toFixed(2)}`
    )

    log(`scheduler bench: creating ${TARGETS} http monitors every ${INTERVAL} s`)
    const ids = await createHttpMonitors(api.origin, user, adminToken, {
      count: TARGETS,
      interval: INTERVAL,
      urlOf: (i) => `${origin.base}/t/${i}`
    })
    const arrivals = new Map<number, Array<number>>()
    const env = workerEnv(common)

    const startWorker = (n: number) =>
      start({
        name: `worker-${n}`,
        description: "Signalman --role worker",
        script: "dist/main.js",
        readyPath: "/readyz",
        env
      })
    // A phase: the workers running after a warm-up, measured over a window, judged once the window's tail ran; a
    // phase that missed slots says why, if a worker said anything (they log at warn and above).
    const phase = async (label: string, workers: ReadonlyArray<Awaited<ReturnType<typeof startWorker>>>) => {
      log(`scheduler bench: phase ${label}; warm-up ${WARMUP} s, window ${SECS} s`)
      await sleep(WARMUP * 1000)
      const window = await measure(workers, database)
      await sleep(TAIL_MS + 1_000)
      await collect(origin.base, arrivals)
      const report = phaseReport(
        judge(ids, arrivals, window),
        window,
        await storedIn(url.href, window),
        bare.cpu_ms_per_request
      )
      print(label.slice(0, 1), report)
      for (const [i, w] of workers.entries()) {
        if (report.missed > 0 && w.tail() !== "") log(`  worker ${i + 1} said:\n${w.tail()}`)
      }
      return report
    }

    const one = await startWorker(1)
    const phaseA = await phase("A, one worker", [one])
    if (ONLY_A) {
      log("scheduler bench: phase B skipped (BENCH_SCHEDULER_ONLY_A)")
      return phaseA.doubled > 0 ? 1 : 0
    }
    const two = await startWorker(2)
    const phaseB = await phase("B, two workers", [one, two])

    const aimMet =
      phaseA.checks_per_sec >= phaseA.due_per_sec * 0.99 &&
      phaseA.lag_ms.p99 < 1000 &&
      phaseA.missed === 0 &&
      phaseA.doubled === 0 &&
      phaseB.doubled === 0 &&
      phaseB.missed === 0
    log(
      `  aim          ${DUE_PER_SEC.toFixed(0)} checks/s on one worker, p99 < 1 s, none missed or doubled: ${aimMet ? "met" : "NOT met"}`
    )
    mkdirSync(path.dirname(outFile), { recursive: true })
    writeFileSync(
      outFile,
      `${JSON.stringify(
        {
          at: new Date().toISOString(),
          commit: gitCommit(),
          machine: machine(),
          database: "PostgreSQL (a database of the bench's own)",
          targets: TARGETS,
          interval_secs: INTERVAL,
          due_per_sec: DUE_PER_SEC,
          warmup_secs: WARMUP,
          worker_settings: Object.fromEntries(Object.entries(env).filter(([k]) => PASSED_TO_WORKERS.test(k))),
          baseline: bare,
          phase_a: phaseA,
          phase_b: phaseB,
          aim_met: aimMet
        },
        null,
        2
      )}\n`
    )
    log(`scheduler bench: wrote ${path.relative(process.cwd(), outFile)}`)
    return phaseA.doubled > 0 || phaseB.doubled > 0 ? 1 : 0
  } finally {
    await stopAll()
    await smtp?.close()
    await query(adminUrl, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined)
  }
}

/** The results stored for the window's checks (stamped when a check ends, so a little past its start). */
const storedIn = async (databaseUrl: string, w: Window): Promise<number> => {
  const rows = Schema.decodeUnknownSync(Count)(
    await query(
      databaseUrl,
      `SELECT count(*)::text AS n FROM check_results WHERE checked_at >= '${new Date(w.from).toISOString()}' AND checked_at < '${new Date(w.to - TAIL_MS).toISOString()}'`
    )
  )
  return rows[0]?.n ?? Number.NaN
}

const phaseReport = (judged: ReturnType<typeof judge>, w: Window, stored: number, bareMsPerRequest: number) => {
  const cores = w.workerCpu.reduce((x, y) => x + y, 0)
  const msPerCheck = (cores * 1000) / judged.checks_per_sec
  return {
    ...judged,
    results_stored: stored,
    workers: w.workerCpu.map((c, i) => ({ cpu_cores: c, peak_rss_mb: w.workerPeakRssMb[i] })),
    worker_cpu_ms_per_check: msPerCheck,
    cpu_ratio_to_bare_client: msPerCheck / bareMsPerRequest,
    postgres_backends_cpu_cores: w.postgresCpu,
    load_1m: w.load1m
  }
}

const print = (name: string, p: ReturnType<typeof phaseReport>) => {
  log(`  phase ${name}      ${p.window_secs} s window`)
  log(
    `    throughput   ${p.checks_per_sec.toFixed(1)} checks/s against ${p.due_per_sec.toFixed(1)} due; ${p.results_stored} results stored`
  )
  log(
    `    slots        ${p.slots_ran} of ${p.slots_due} ran, ${p.missed} missed, ${p.doubled} doubled, ${p.early} early`
  )
  log(`    lag          p50 ${p.lag_ms.p50} ms, p99 ${p.lag_ms.p99} ms, max ${p.lag_ms.max} ms`)
  for (const [i, w] of p.workers.entries()) {
    log(`    worker ${i + 1}     ${w.cpu_cores.toFixed(2)} cores, peak RSS ${w.peak_rss_mb} MB`)
  }
  log(
    `    per check    ${p.worker_cpu_ms_per_check.toFixed(3)} ms CPU, ${p.cpu_ratio_to_bare_client.toFixed(1)}x the bare client; PostgreSQL backends ${p.postgres_backends_cpu_cores.toFixed(2)} cores`
  )
  log(
    `    load (1 min) ${p.load_1m.from.toFixed(2)} -> mean ${p.load_1m.mean.toFixed(2)} -> ${p.load_1m.to.toFixed(2)}`
  )
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`scheduler bench failed: ${error instanceof Error ? error.message : String(error)}\n`)
    void stopAll().finally(() => process.exit(1))
  }
)
