/**
 * `pnpm --filter @signalman/server bench:ingest` (in `pnpm bench` only with `BENCH_LONG=1`): heartbeat ingest on one
 * `--role api` process on PostgreSQL, beside a bare `node:http` server under the same load generator.
 *
 * 1. A fresh PostgreSQL database of its own (`BENCH_DATABASE_URL`'s server, default the local one as user postgres),
 *    dropped at the end. Signalman runs as one child process, `ROLE=api`: sign-up, the bulk create and the pings are
 *    all the api's, so no worker runs (a worker would only add the heartbeat evaluation, which a 1 h period never
 *    makes due, and take CPU from the process measured).
 * 2. A bench user (`bench-user.ts`) makes `BENCH_INGEST_MONITORS` heartbeat monitors (default 20,000: at 10,000
 *    pings a second in a round robin each token gets one every two seconds, under its 1 a second) plus
 *    `BENCH_INGEST_FRESH` more (default 10,000) through `monitors.ts`. Their ping tokens are read from the database.
 * 3. The load comes from autocannon in a child process (`ingest-load.ts`, 64 connections, 256 for first pings, no
 *    pipelining), so its CPU is its own; it shares the machine's cores with the server (reported). Every run but
 *    the SIGTERM one is a fixed number of requests, so every ping sent is answered before the run ends and answers
 *    are counted exactly.
 *    - phase 2 (first): every monitor's first ping (pending -> up: a verdict change, written before it is
 *      answered), the main set at an offered 2,000 a second, the fresh set as fast as it goes;
 *    - phase 1 (routine): pings of monitors already up, as fast as they go (the ceiling) and then at an offered
 *      10,000 a second for `BENCH_INGEST_SECS` seconds (default 20);
 *    - phase 3 (SIGTERM): routine pings at 10,000 a second over both sets; after 3.5 s the server gets SIGTERM, and
 *      the load stops half a second after its first refused connection (what was in flight is answered by then).
 *    After phase 2 every monitor must be up in the database; after phase 3 every ping answered 2xx must be in the
 *    ping log, monitor by monitor, and every monitor must have `last_ping_at` at or after its last answered ping.
 * 4. The baseline: `bare-ping.ts` under the same generator, as fast as it goes and at 10,000 a second.
 *
 * Reported for every run: answers a second, latency p50/p99, the server's CPU (100% = one core) and RSS, the
 * generator's CPU, the machine's load average. Exit 1 on a lost ping, a failed request or an unexpected 429.
 * Results go to stdout and `.bench/ingest.json`; `BENCH_CPU_PROF_DIR` makes the server write a CPU profile.
 */
import { type ChildProcess, fork } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import type * as SqlClient from "@effect/sql/SqlClient"
import { PgClient } from "@effect/sql-pg"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { makeBenchUser, startSmtpCatcher } from "./bench-user.js"
import { children, isAlive, type Running, serverDir, start, stopAll } from "./children.js"
import { Done, type Run } from "./ingest-load.js"
import { createHeartbeatMonitors } from "./monitors.js"

if (process.env["BENCH_LONG"] !== "1") {
  process.stdout.write("bench:ingest skipped (a long run, minutes); run it with BENCH_LONG=1 pnpm bench:ingest\n")
  process.exit(0)
}

const outFile = path.join(serverDir, ".bench", "ingest.json")
const adminUrl = process.env["BENCH_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres"
const MONITORS = Number(process.env["BENCH_INGEST_MONITORS"] ?? 20_000)
const FRESH = Number(process.env["BENCH_INGEST_FRESH"] ?? 10_000)
const SECONDS = Number(process.env["BENCH_INGEST_SECS"] ?? 20)
const ROUTINE_RATE = 10_000
const FIRST_RATE = 2_000
const CONNECTIONS = 64
// First pings are answered once written, so each waits a group commit (tens of ms): at 2,000 a second, Little's law
// puts rate x latency requests in flight, more than 64 connections hold. Cron jobs are many clients, each with its
// own connection; 256 lets the offered rate be offered.
const FIRST_CONNECTIONS = 256
// The uncapped routine run: enough requests for several seconds at any rate this machine reaches.
const CEILING_REQUESTS = Number(process.env["BENCH_INGEST_CEILING_REQUESTS"] ?? 60_000)
// Inside a burst: autocannon sends each second's requests at the top of the second, so 3.5 s falls while the server
// is answering the fourth.
const SIGTERM_AFTER_MS = 3_500
const EXIT_TIMEOUT_MS = 60_000
const CLK_TCK = 100

const log = (line: string) => process.stdout.write(`${line}\n`)

// ---------------------------------------------------------------------------------------------------------------
// The database

const withDatabase = <A>(url: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>): Promise<A> =>
  Effect.runPromise(
    Effect.scoped(Effect.flatMap(PgClient.make({ url: Redacted.make(url), maxConnections: 1 }), f)).pipe(
      Effect.provide(Reactivity.layer)
    )
  )

const databaseUrl = (name: string): string => {
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
}

const TokenRow = Schema.Struct({ target_id: Schema.String, token: Schema.String })
const CountRow = Schema.Struct({
  target_id: Schema.String,
  n: Schema.Number,
  last_ping_at: Schema.NullOr(Schema.DateFromSelf),
  verdict: Schema.NullOr(Schema.String)
})

/** The current ping token of each monitor, by monitor id. */
const readTokens = (url: string): Promise<ReadonlyMap<string, string>> =>
  withDatabase(url, (sql) =>
    Effect.flatMap(sql`SELECT target_id, token FROM ping_tokens WHERE expires_at IS NULL`, (rows) =>
      Schema.decodeUnknown(Schema.Array(TokenRow))(rows)
    )
  ).then((rows) => new Map(rows.map((row) => [row.target_id, row.token])))

const Total = Schema.Struct({ n: Schema.Number })

/** Pings in the log now. */
const countLogged = (url: string): Promise<number> =>
  withDatabase(url, (sql) =>
    Effect.flatMap(sql`SELECT count(*)::int AS n FROM heartbeat_pings`, (rows) =>
      Schema.decodeUnknown(Schema.Array(Total))(rows)
    )
  ).then((rows) => rows[0]?.n ?? 0)

/** Per monitor: the pings logged, `last_ping_at` and the verdict. */
const readCounts = (url: string): Promise<ReadonlyMap<string, typeof CountRow.Type>> =>
  withDatabase(url, (sql) =>
    Effect.flatMap(
      sql`
        SELECT t.id AS target_id, (SELECT count(*) FROM heartbeat_pings p WHERE p.target_id = t.id)::int AS n,
          h.last_ping_at, h.verdict
        FROM targets t LEFT JOIN heartbeat_states h ON h.target_id = t.id WHERE t.kind = 'heartbeat'
      `,
      (rows) => Schema.decodeUnknown(Schema.Array(CountRow))(rows)
    )
  ).then((rows) => new Map(rows.map((row) => [row.target_id, row])))

// ---------------------------------------------------------------------------------------------------------------
// The process measured

/** utime + stime of a process, in seconds. */
const cpuSeconds = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK
}

/** A process's resident memory now and at its peak, in MiB. */
const memory = (pid: number): { readonly rss_mib: number; readonly peak_rss_mib: number } => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0)
  return { rss_mib: Math.round(kib("VmRSS") / 1024), peak_rss_mib: Math.round(kib("VmHWM") / 1024) }
}

// ---------------------------------------------------------------------------------------------------------------
// The load generator

interface Generator {
  readonly run: (run: Omit<Run, "_tag">) => Promise<Done>
  readonly stopRun: () => void
  readonly close: () => void
}

const startGenerator = (): Generator => {
  const child: ChildProcess = fork(path.join(serverDir, "bench", "ingest-load.ts"), [], {
    execArgv: ["--import", import.meta.resolve("tsx")],
    stdio: ["ignore", "inherit", "inherit", "ipc"]
  })
  const decodeDone = Schema.decodeUnknownSync(Done)
  return {
    run: (run) =>
      new Promise((resolve, reject) => {
        const onMessage = (message: unknown) => {
          child.off("exit", onExit)
          resolve(decodeDone(message))
        }
        const onExit = (code: number | null) => {
          child.off("message", onMessage)
          reject(new Error(`the load generator exited (${String(code)}) during a run`))
        }
        child.once("message", onMessage)
        child.once("exit", onExit)
        child.send({ _tag: "Run", ...run })
      }),
    stopRun: () => {
      child.send({ _tag: "Stop" })
    },
    close: () => {
      if (child.connected) child.disconnect()
    }
  }
}

interface Measured {
  readonly name: string
  readonly offered_rate: number | "uncapped"
  readonly connections: number
  readonly requests: number
  readonly per_second: number
  readonly latency_ms: Done["latencyMs"]
  readonly statuses: Done["statuses"]
  readonly errors: number
  readonly timeouts: number
  /** Null for the SIGTERM run, whose server is gone when it ends. */
  readonly server_cpu_percent_of_one_core: number | null
  readonly generator_cpu_percent_of_one_core: number
  readonly server_rss_mib: number
  readonly server_peak_rss_mib: number
  readonly load_average: ReadonlyArray<number>
}

const measure = async (
  generator: Generator,
  server: Running,
  name: string,
  run: Omit<Run, "_tag" | "origin" | "connections"> & { readonly connections?: number },
  during?: () => Promise<void>
): Promise<{ readonly done: Done; readonly measured: Measured }> => {
  const pid = server.pid
  const cpuBefore = cpuSeconds(pid)
  const pending = generator.run({ ...run, origin: server.origin, connections: run.connections ?? CONNECTIONS })
  let last = memory(pid)
  if (during !== undefined) await during()
  const done = await pending
  // The SIGTERM run ends after the server is gone: no CPU figure, and the memory of before the stop.
  const child = childOf(server)
  const alive = child !== undefined && isAlive(child)
  const cpu = alive ? cpuSeconds(pid) - cpuBefore : null
  if (alive) last = memory(pid)
  const ok = Object.entries(done.statuses).reduce((sum, [code, n]) => (code.startsWith("2") ? sum + n : sum), 0)
  const measured: Measured = {
    name,
    offered_rate: run.rate > 0 ? run.rate : "uncapped",
    connections: run.connections ?? CONNECTIONS,
    requests: done.requests,
    per_second: Math.round(ok / done.durationSecs),
    latency_ms: done.latencyMs,
    statuses: done.statuses,
    errors: done.errors,
    timeouts: done.timeouts,
    server_cpu_percent_of_one_core: cpu === null ? null : Math.round((cpu / done.durationSecs) * 100),
    generator_cpu_percent_of_one_core: Math.round((done.cpuSecs / done.durationSecs) * 100),
    server_rss_mib: last.rss_mib,
    server_peak_rss_mib: last.peak_rss_mib,
    load_average: os.loadavg().map((n) => Math.round(n * 100) / 100)
  }
  log(
    `${name}: ${ok} answered 2xx in ${done.durationSecs.toFixed(1)} s = ${measured.per_second}/s ` +
      `(offered ${measured.offered_rate}); statuses ${JSON.stringify(done.statuses)}, errors ${done.errors}, ` +
      `timeouts ${done.timeouts}; p50 ${done.latencyMs.p50} ms p99 ${done.latencyMs.p99} ms; ` +
      `server CPU ${measured.server_cpu_percent_of_one_core ?? "-"}% RSS ${measured.server_rss_mib} MiB; ` +
      `generator CPU ${measured.generator_cpu_percent_of_one_core}%; load ${measured.load_average.join(" ")}`
  )
  return { done, measured }
}

/** The child process behind a running server (children.ts keeps them), to signal it and see it exit. */
const childOf = (server: Running): ChildProcess | undefined => [...children].find((c) => c.pid === server.pid)

// ---------------------------------------------------------------------------------------------------------------

const main = async () => {
  const failures: Array<string> = []
  const fail = (reason: string) => {
    failures.push(reason)
    log(`FAILED: ${reason}`)
  }
  const name = `sm_bench_ingest_${Date.now().toString(36)}`
  await withDatabase(adminUrl, (sql) => sql`CREATE DATABASE ${sql(name)}`)
  const url = databaseUrl(name)
  const generator = startGenerator()
  const smtp = await startSmtpCatcher("127.0.0.1")
  try {
    // The baseline first, on a machine not yet warmed by anything else of this run.
    const bare = await start({ name: "bare-ping", description: "node:http", script: "bench/bare-ping.ts", env: {} })
    const barePaths = Array.from({ length: 1_000 }, (_, i) => `/ping/bare-${i}`)
    const bareCeiling = await measure(generator, bare, "bare: as fast as it goes", {
      paths: barePaths,
      rate: 0,
      amount: CEILING_REQUESTS * 2
    })
    const bareRoutine = await measure(generator, bare, `bare: ${ROUTINE_RATE}/s`, {
      paths: barePaths,
      rate: ROUTINE_RATE,
      amount: ROUTINE_RATE * SECONDS
    })
    await bare.stop()

    const adminToken = randomBytes(32).toString("base64url")
    const server = await start({
      name: "signalman",
      description: "Signalman --role api on PostgreSQL",
      script: "src/main.ts",
      env: {
        ROLE: "api",
        DATABASE_URL: url,
        LOG__LEVEL: "warn",
        OPERATOR__ADMIN_TOKEN: adminToken,
        MAIL__SMTP_URL: smtp.url,
        AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0"
      },
      readyPath: "/readyz"
    })
    const user = await makeBenchUser(server.origin, smtp, adminToken, `ingest-${Date.now()}@example.com`)
    const made = Date.now()
    const main = await createHeartbeatMonitors(server.origin, user, adminToken, MONITORS, "routine", MONITORS + FRESH)
    const fresh = await createHeartbeatMonitors(server.origin, user, adminToken, FRESH, "fresh", MONITORS + FRESH)
    log(`made ${main.length} + ${fresh.length} heartbeat monitors in ${((Date.now() - made) / 1000).toFixed(1)} s`)
    const tokens = await readTokens(url)
    const pathsOf = (ids: ReadonlyArray<string>) =>
      ids.map((id) => {
        const token = tokens.get(id)
        if (token === undefined) throw new Error(`monitor ${id} has no ping token`)
        return `/ping/${token}`
      })
    const mainPaths = pathsOf(main)
    const freshPaths = pathsOf(fresh)
    const allIds = [...main, ...fresh]
    const allPaths = [...mainPaths, ...freshPaths]
    // 2xx answers by monitor, over every run, to compare with the ping log.
    const answered = new Map<string, number>()
    const tally = (ids: ReadonlyArray<string>, done: Done) => {
      ids.forEach((id, i) => {
        answered.set(id, (answered.get(id) ?? 0) + (done.okByPath[i] ?? 0))
      })
    }
    const expectClean = (label: string, done: Done) => {
      const other = Object.entries(done.statuses).filter(([code]) => !code.startsWith("2"))
      if (other.length > 0 || done.errors > 0 || done.timeouts > 0) {
        fail(`${label}: statuses ${JSON.stringify(done.statuses)}, errors ${done.errors}, timeouts ${done.timeouts}`)
      }
    }

    // Phase 2: first pings.
    const firstCapped = await measure(generator, server, `first pings: ${FIRST_RATE}/s offered`, {
      paths: mainPaths,
      rate: FIRST_RATE,
      amount: mainPaths.length,
      connections: FIRST_CONNECTIONS
    })
    const firstCeiling = await measure(generator, server, "first pings: as fast as they go", {
      paths: freshPaths,
      rate: 0,
      amount: freshPaths.length,
      connections: FIRST_CONNECTIONS
    })
    for (const [label, ids, run] of [
      ["first pings (capped)", main, firstCapped],
      ["first pings (uncapped)", fresh, firstCeiling]
    ] as const) {
      expectClean(label, run.done)
      tally(ids, run.done)
      if (run.done.okByPath.some((n) => n !== 1)) fail(`${label}: a monitor did not get exactly one 2xx`)
    }
    const afterFirst = await readCounts(url)
    const notUp = allIds.filter((id) => afterFirst.get(id)?.verdict !== "up").length
    if (notUp > 0) fail(`${notUp} monitors are not up after their first ping was answered`)
    else log(`after the first pings: all ${allIds.length} monitors up in the database`)

    // Phase 1: routine pings.
    const routineCeiling = await measure(generator, server, "routine pings: as fast as they go", {
      paths: mainPaths,
      rate: 0,
      amount: CEILING_REQUESTS
    })
    const routine = await measure(generator, server, `routine pings: ${ROUTINE_RATE}/s offered`, {
      paths: mainPaths,
      rate: ROUTINE_RATE,
      amount: ROUTINE_RATE * SECONDS
    })
    for (const [label, run] of [
      ["routine (uncapped)", routineCeiling],
      ["routine (capped)", routine]
    ] as const) {
      expectClean(label, run.done)
      tally(main, run.done)
    }
    // Routine pings are written within a second of their answer: the log catches up with the answers.
    const sum = () => [...answered.values()].reduce((a, b) => a + b, 0)
    const catchUp = Date.now() + 10_000
    let stored = await countLogged(url)
    while (stored < sum() && Date.now() < catchUp) {
      await new Promise((resolve) => setTimeout(resolve, 250))
      stored = await countLogged(url)
    }
    log(`before the SIGTERM run: ${sum()} answered 2xx, ${stored} logged`)

    // Phase 3: SIGTERM under load.
    const child = childOf(server)
    let exitCode: number | null = null
    let exitMs = 0
    const terminated = await measure(
      generator,
      server,
      `SIGTERM at ${SIGTERM_AFTER_MS / 1000} s into ${ROUTINE_RATE}/s`,
      { paths: allPaths, rate: ROUTINE_RATE, seconds: 120, stopAfterErrorMs: 500 },
      async () => {
        await new Promise((resolve) => setTimeout(resolve, SIGTERM_AFTER_MS))
        const exited = new Promise<number | null>((resolve) => {
          if (child === undefined || !isAlive(child)) return resolve(child?.exitCode ?? null)
          child.once("exit", (code) => resolve(code))
        })
        const sent = Date.now()
        child?.kill("SIGTERM")
        const timer = setTimeout(() => child?.kill("SIGKILL"), EXIT_TIMEOUT_MS)
        exitCode = await exited
        clearTimeout(timer)
        exitMs = Date.now() - sent
        log(`server exited (code ${String(exitCode)}) ${exitMs} ms after SIGTERM`)
        generator.stopRun()
      }
    )
    tally(allIds, terminated.done)
    const refused = Object.entries(terminated.done.statuses).filter(([code]) => !code.startsWith("2") && code !== "503")
    if (refused.length > 0) fail(`SIGTERM run: unexpected statuses ${JSON.stringify(terminated.done.statuses)}`)
    // Refusals are expected once the server stops listening, not before the signal.
    const firstError = terminated.done.firstErrorSecs
    if (firstError !== null && firstError * 1000 < SIGTERM_AFTER_MS) {
      fail(`SIGTERM run: a request failed ${firstError.toFixed(2)} s in, before the signal`)
    }
    if (exitCode !== 0) fail(`the server exited ${String(exitCode)} after SIGTERM`)

    // Every answered ping in the log, monitor by monitor.
    const counts = await readCounts(url)
    let acknowledged = 0
    let logged = 0
    let lost = 0
    let extra = 0
    let withoutLastPing = 0
    for (const id of allIds) {
      const a = answered.get(id) ?? 0
      const row = counts.get(id)
      const n = row?.n ?? 0
      acknowledged += a
      logged += n
      if (n < a) lost += a - n
      if (n > a) extra += n - a
      if (a > 0 && (row?.last_ping_at ?? null) === null) withoutLastPing++
    }
    log(
      `after SIGTERM: ${acknowledged} pings answered 2xx, ${logged} logged; lost ${lost}, logged but not answered ` +
        `${extra} (in flight when the server closed them); monitors without last_ping_at: ${withoutLastPing}`
    )
    if (lost > 0) fail(`${lost} pings answered 2xx are not in the ping log; the server's last lines:\n${server.tail()}`)
    if (withoutLastPing > 0) fail(`${withoutLastPing} monitors pinged have no last_ping_at`)
    if (Object.keys(routine.done.statuses).includes("429")) fail("429 under the per-token rate")

    const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100
    const report = {
      monitors: { routine: MONITORS, fresh: FRESH },
      connections: CONNECTIONS,
      seconds: SECONDS,
      server: "signalman --role api, PostgreSQL (fresh database), no worker",
      load_generator: "autocannon in its own process on the same machine (shares its cores with the server)",
      baseline: { ceiling: bareCeiling.measured, routine: bareRoutine.measured },
      first_pings: { offered: firstCapped.measured, ceiling: firstCeiling.measured },
      routine_pings: { ceiling: routineCeiling.measured, offered: routine.measured },
      sigterm: { run: terminated.measured, server_exit_code: exitCode, exit_ms_after_sigterm: exitMs },
      counts: { acknowledged, logged, lost, logged_not_answered: extra, monitors_without_last_ping: withoutLastPing },
      ratios: {
        routine_ceiling_to_bare_ceiling: ratio(routineCeiling.measured.per_second, bareCeiling.measured.per_second),
        first_ceiling_to_bare_ceiling: ratio(firstCeiling.measured.per_second, bareCeiling.measured.per_second)
      },
      targets: {
        routine_10000_per_second: routine.measured.per_second >= ROUTINE_RATE * 0.98,
        first_2000_per_second: firstCapped.measured.per_second >= FIRST_RATE * 0.98
      },
      failures,
      machine: {
        cpus: os.cpus().length,
        model: os.cpus()[0]?.model,
        node: process.version,
        load_average_end: os.loadavg()
      }
    }
    mkdirSync(path.dirname(outFile), { recursive: true })
    writeFileSync(outFile, `${JSON.stringify(report, null, 2)}\n`)
    log(
      `routine ceiling ${routineCeiling.measured.per_second}/s = ${report.ratios.routine_ceiling_to_bare_ceiling} of ` +
        `the bare server's ${bareCeiling.measured.per_second}/s; first-ping ceiling ${firstCeiling.measured.per_second}/s; ` +
        `written to ${path.relative(process.cwd(), outFile)}`
    )
  } finally {
    generator.close()
    await stopAll()
    await smtp.close()
    await withDatabase(adminUrl, (sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`).catch(() => undefined)
  }
  if (failures.length > 0) process.exitCode = 1
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})
