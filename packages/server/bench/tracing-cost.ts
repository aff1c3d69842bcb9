/**
 * `pnpm bench:tracing`: what turning tracing on costs, measured in one run on one machine (issue 19's aim: at least
 * 0.9 of the figure with it off, for both).
 *
 * 1. Authenticated `GET /api/v1/me` (the identity benchmark's route, `run.ts`): two Signalman processes side by side,
 *    one with no OpenTelemetry variable (tracing off: no exporter, Effect's tracing disabled) and one with
 *    `OTEL_EXPORTER_OTLP_ENDPOINT` pointing at an OTLP/HTTP receiver on loopback in this process, which counts
 *    the spans of every export and discards it (a collector's receiving end). Every request is sampled (the default sampler), so
 *    each makes a server span and is exported. Autocannon rounds alternate between the two (the order reversed each
 *    round), every answer checked as `run.ts` checks it; reported: the median req/s of each and on / off, and the
 *    server's own CPU a request (from /proc, apart from the load generator and the receiver on the same machine). A
 *    third process samples one trace in ten (`parentbased_traceidratio`), the setting a busy service would run.
 * 2. The engine: the same two configurations one after the other, each a fresh process with `count` http monitors
 *    at `interval` seconds against a loopback origin, measured for a window after a warm-up; reported: checks per
 *    second arriving at the origin (the throughput the scheduler achieved; with the monitors' due rate below what
 *    the machine can run, both configurations reach it, so the CPU each check cost is reported beside it: that is
 *    where tracing's cost shows before throughput does), the process's CPU and the ratios on / off.
 *
 * Before measuring, the traced process is shown to export (a request's span reaches the receiver) and the other
 * not to have any exporter (its answers carry the request id as `trace_id`). Exit 1 when a request failed, the
 * traced process exported nothing, or a run answered nothing. Results also go to `.bench/tracing-cost.json`.
 *
 * Env: `BENCH_DURATION_SECS` (8), `BENCH_ROUNDS` (3), `BENCH_WARMUP_SECS` (3) for `/me`; `BENCH_TRACING_MONITORS`
 * (3000), `BENCH_TRACING_INTERVAL_SECS` (10, the http floor), `BENCH_TRACING_ENGINE_SECS` (60) for the engine.
 */
import { randomBytes } from "node:crypto"
import { mkdirSync, writeFileSync } from "node:fs"
import * as Http from "node:http"
import * as path from "node:path"
import { makeBenchUser, READS_PER_MINUTE, type SmtpCatcher, startSmtpCatcher } from "./bench-user.js"
import { HOST, type Running, serverDir, sleep, start, stopAll, type Target } from "./children.js"
import { CONNECTIONS, failures, isMeOf, load, PIPELINING, type Run, type Subject } from "./load.js"
import { createHttpMonitors } from "./monitors.js"
import { cpuSeconds, fmt, gitCommit, machine, median, ms, positiveInt } from "./report.js"

const outFile = path.join(serverDir, ".bench", "tracing-cost.json")
const AIM = 0.9
const ME_PATH = "/api/v1/me"
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const HEX32 = /^[0-9a-f]{32}$/

/** `on`: every trace recorded (the default sampler); `sampled`: one in ten (`parentbased_traceidratio`, 0.1). */
type Mode = "off" | "on" | "sampled"
const SAMPLED_RATIO = "0.1"

// ---------------------------------------------------------------------------------------------------------------
// The receiver and the origin, in this process

interface Sink {
  readonly url: string
  readonly exports: () => number
  readonly spans: () => number
  readonly rejected: () => number
  readonly close: () => Promise<void>
}

/**
 * The spans in an OTLP/JSON export body, counted by their `"spanId"` keys rather than parsed: the receiver shares
 * the machine with the load generator, and parsing every export would take CPU from it during the traced rounds
 * only. A body that is not an export (no `resourceSpans`) counts as none.
 */
const spansIn = (body: string): number | undefined => {
  if (!body.startsWith('{"resourceSpans"')) return undefined
  let n = 0
  for (let at = body.indexOf('"spanId"'); at !== -1; at = body.indexOf('"spanId"', at + 8)) n++
  return n
}

/** An OTLP/HTTP (JSON) traces receiver that counts what it gets and keeps nothing. */
const startSink = (): Promise<Sink> =>
  new Promise((resolve) => {
    let exports = 0
    let spans = 0
    let rejected = 0
    const server = Http.createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        const counted = request.url === "/v1/traces" ? spansIn(Buffer.concat(chunks).toString("utf8")) : undefined
        if (counted === undefined) rejected++
        else {
          exports++
          spans += counted
        }
        response.writeHead(counted === undefined ? 400 : 200, { "content-type": "application/json" }).end("{}")
      })
    })
    server.keepAliveTimeout = 65_000
    server.listen(0, HOST, () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resolve({
        url: `http://${HOST}:${port}`,
        exports: () => exports,
        spans: () => spans,
        rejected: () => rejected,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })

/** The monitors' origin: answers 200 and counts arrivals per configuration (the path's first segment). */
const startOrigin = (): Promise<{
  readonly port: number
  readonly arrivals: Map<string, number>
  readonly close: () => void
}> =>
  new Promise((resolve) => {
    const arrivals = new Map<string, number>()
    const server = Http.createServer((request, response) => {
      const mode = (request.url ?? "/").split("/")[1] ?? ""
      arrivals.set(mode, (arrivals.get(mode) ?? 0) + 1)
      response.writeHead(200, { "content-type": "text/plain" }).end("ok")
    })
    server.keepAliveTimeout = 65_000
    server.listen(0, HOST, () => {
      const address = server.address()
      resolve({
        port: typeof address === "object" && address !== null ? address.port : 0,
        arrivals,
        close: () => {
          server.closeAllConnections()
          server.close()
        }
      })
    })
  })

// ---------------------------------------------------------------------------------------------------------------
// Checks before measuring

/** The envelope's trace_id of an unauthenticated `/me`: an OTel trace id when traced, the request id when not. */
const traceIdOf = async (running: Running): Promise<{ readonly traceId: string; readonly requestId: string }> => {
  const response = await fetch(`${running.origin}${ME_PATH}`, { signal: AbortSignal.timeout(5_000) })
  const body: unknown = await response.json()
  const error = typeof body === "object" && body !== null && "error" in body ? body.error : null
  const traceId = typeof error === "object" && error !== null && "trace_id" in error ? String(error.trace_id) : ""
  return { traceId, requestId: response.headers.get("x-request-id") ?? "" }
}

const checkTracing = async (mode: Mode, running: Running, sink: Sink): Promise<void> => {
  const before = sink.spans()
  const { traceId, requestId } = await traceIdOf(running)
  // A tenth of the requests are traced: the answer names either its trace or, not recorded, its request.
  if (mode === "sampled") {
    if (!HEX32.test(traceId) && traceId !== requestId) throw new Error(`sampled: trace_id ${traceId} is neither`)
    return
  }
  if (mode === "off") {
    if (traceId !== requestId || !UUID.test(requestId)) {
      throw new Error(`tracing off: trace_id ${traceId} should be the request id ${requestId}`)
    }
    return
  }
  if (!HEX32.test(traceId)) throw new Error(`tracing on: trace_id ${traceId} is not an OTel trace id`)
  const deadline = Date.now() + 10_000
  while (sink.spans() === before) {
    if (Date.now() > deadline) throw new Error("tracing on: no span reached the receiver within 10 s")
    await sleep(100)
  }
}

const checkMe = async (running: Running, token: string, email: string): Promise<void> => {
  const response = await fetch(`${running.origin}${ME_PATH}`, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(5_000)
  })
  const body = await response.text()
  if (response.status !== 200 || !isMeOf(email)(body)) {
    throw new Error(`${running.target.name} ${ME_PATH}: ${response.status} ${body.slice(0, 300)}`)
  }
}

// ---------------------------------------------------------------------------------------------------------------

let smtp: SmtpCatcher | undefined
const failNoSmtp = (): never => {
  throw new Error("the SMTP catcher is not running")
}
let sink: Sink | undefined

const main = async (): Promise<number> => {
  const durationSecs = positiveInt("BENCH_DURATION_SECS", 8)
  const rounds = positiveInt("BENCH_ROUNDS", 3)
  const warmupSecs = positiveInt("BENCH_WARMUP_SECS", 3)
  const monitors = positiveInt("BENCH_TRACING_MONITORS", 3000)
  const interval = Math.max(10, positiveInt("BENCH_TRACING_INTERVAL_SECS", 10))
  const engineSecs = positiveInt("BENCH_TRACING_ENGINE_SECS", 60)
  const engineWarmupSecs = interval * 2
  const log = (line: string) => process.stdout.write(`${line}\n`)

  smtp = await startSmtpCatcher(HOST)
  sink = await startSink()
  const adminToken = randomBytes(32).toString("base64url")
  const common = {
    DATA_DIR: "memory://",
    LOG__LEVEL: "warn",
    OPERATOR__ADMIN_TOKEN: adminToken,
    MAIL__SMTP_URL: smtp.url,
    AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0"
  }
  const tracingEnv = (mode: Mode): Record<string, string> =>
    mode === "off"
      ? {}
      : {
          OTEL_EXPORTER_OTLP_ENDPOINT: sink?.url ?? "",
          ...(mode === "sampled"
            ? { OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: SAMPLED_RATIO }
            : {})
        }
  const target = (mode: Mode, extra: Record<string, string> = {}): Target => ({
    name: `tracing-${mode}`,
    description: `Signalman (src/main.ts, embedded database in memory, LOG__LEVEL=warn), tracing ${mode}`,
    script: "src/main.ts",
    readyPath: "/readyz",
    env: { ...common, ...tracingEnv(mode), ...extra }
  })

  const context = { machine: machine(), commit: gitCommit(), startedAt: new Date().toISOString() }
  const settings = {
    me: { connections: CONNECTIONS, pipelining: PIPELINING, durationSecs, rounds, warmupSecs, host: HOST },
    engine: {
      monitors,
      intervalSecs: interval,
      duePerSec: monitors / interval,
      warmupSecs: engineWarmupSecs,
      windowSecs: engineSecs
    },
    tracingOn:
      "OTEL_EXPORTER_OTLP_ENDPOINT=<loopback receiver>, defaults otherwise (parent-based always-on sampler, batch span processor, OTLP/HTTP JSON)",
    tracingSampled: `as on, with OTEL_TRACES_SAMPLER=parentbased_traceidratio OTEL_TRACES_SAMPLER_ARG=${SAMPLED_RATIO} (/me only)`,
    tracingOff: "no OTEL_* variable"
  }
  log("Signalman tracing cost benchmark")
  log(`  machine   ${context.machine.cpuModel} x ${context.machine.cpuCount} CPUs, node ${context.machine.node}`)
  log(`            ${context.machine.platform}, load average ${context.machine.loadAverage1m} at start`)
  log(`  commit    ${context.commit ?? "unknown"}`)
  log(`  receiver  OTLP/HTTP JSON on ${sink.url} in this process: counts the spans of each export, keeps nothing`)
  log(`  on        ${settings.tracingOn}`)
  log(`  sampled   ${settings.tracingSampled}`)
  log(`  off       ${settings.tracingOff}`)
  log(
    `  /me       autocannon ${CONNECTIONS} connections, pipelining ${PIPELINING}; ${warmupSecs}s warm-up each, ${rounds} x ${durationSecs}s rounds alternating`
  )
  log(
    `  engine    ${fmt(monitors)} http monitors every ${interval}s (${fmt(monitors / interval)} due/s) on ${HOST}; ${engineWarmupSecs}s warm-up, ${engineSecs}s window, off then on`
  )

  // 1. /me ---------------------------------------------------------------------------------------------------------
  const modes = ["off", "on", "sampled"] as const
  const servers = {
    off: await start(target("off")),
    on: await start(target("on")),
    sampled: await start(target("sampled"))
  }
  const userOf = (mode: Mode) =>
    makeBenchUser(servers[mode].origin, smtp ?? failNoSmtp(), adminToken, `tracing-${mode}-${Date.now()}@example.com`)
  const users = { off: await userOf("off"), on: await userOf("on"), sampled: await userOf("sampled") }
  for (const mode of modes) {
    await checkTracing(mode, servers[mode], sink)
    await checkMe(servers[mode], users[mode].token, users[mode].email)
  }
  const subject = (mode: Mode): Subject<Mode> => ({
    name: mode,
    running: servers[mode],
    path: ME_PATH,
    headers: { authorization: `Bearer ${users[mode].token}` },
    status: 200,
    body: { verify: isMeOf(users[mode].email) }
  })
  const subjects = modes.map(subject)
  // Each run with the server's own CPU over it: the cost of a request to the server itself, apart from the load
  // generator and the receiver sharing the machine.
  const runs: Array<Run & { readonly serverCpuUsPerRequest: number }> = []
  const measure = async (s: Subject<Mode>, kind: Run["kind"], round: number, seconds: number) => {
    const cpuBefore = cpuSeconds(s.running.pid).own
    const run = await load(s, kind, round, seconds)
    const serverCpuUsPerRequest = ((cpuSeconds(s.running.pid).own - cpuBefore) * 1e6) / Math.max(1, run.requests)
    runs.push({ ...run, serverCpuUsPerRequest })
    const label = kind === "warmup" ? "warm-up" : `round ${round}`
    const bad = failures(run) > 0 ? `  FAILED: ${failures(run)} (statuses ${JSON.stringify(run.statuses)})` : ""
    log(
      `  ${label.padEnd(8)} /me tracing ${run.target.padEnd(7)} ${fmt(run.rps).padStart(8)} req/s  p50 ${ms(run.latencyMs.p50)} ms  p99 ${ms(run.latencyMs.p99)} ms  server ${fmt(serverCpuUsPerRequest)} us CPU a request${bad}`
    )
  }
  log("")
  for (const s of subjects) await measure(s, "warmup", 0, warmupSecs)
  for (let round = 1; round <= rounds; round++) {
    for (const s of round % 2 === 1 ? subjects : [...subjects].reverse()) {
      await measure(s, "measured", round, durationSecs)
    }
  }
  const measured = (mode: Mode) => runs.filter((r) => r.kind === "measured" && r.target === mode)
  const rpsOf = (mode: Mode) => median(measured(mode).map((r) => r.rps))
  const cpuOf = (mode: Mode) => median(measured(mode).map((r) => r.serverCpuUsPerRequest))
  const me = { off: rpsOf("off"), on: rpsOf("on"), sampled: rpsOf("sampled") }
  const meRatio = me.on / me.off
  const meSampledRatio = me.sampled / me.off
  const meCpu = { off: cpuOf("off"), on: cpuOf("on"), sampled: cpuOf("sampled") }
  const spansAfterMe = sink.spans()
  for (const mode of modes) await servers[mode].stop()

  // 2. The engine --------------------------------------------------------------------------------------------------
  const origin = await startOrigin()
  const engine: Record<"off" | "on", { checksPerSec: number; cpuCores: number; cpuMsPerCheck: number; spans: number }> =
    {
      off: { checksPerSec: 0, cpuCores: 0, cpuMsPerCheck: 0, spans: 0 },
      on: { checksPerSec: 0, cpuCores: 0, cpuMsPerCheck: 0, spans: 0 }
    }
  log("")
  try {
    for (const mode of ["off", "on"] as const) {
      const running = await start(
        target(mode, { CHECKER__ALLOW_PRIVATE_TARGETS: "true", CHECKER__PER_HOST_MAX_INFLIGHT: "1000" })
      )
      const user = await makeBenchUser(
        running.origin,
        smtp,
        adminToken,
        `tracing-engine-${mode}-${Date.now()}@example.com`
      )
      await checkTracing(mode, running, sink)
      await createHttpMonitors(running.origin, user, adminToken, {
        count: monitors,
        interval,
        urlOf: (i) => `http://${HOST}:${origin.port}/${mode}/${i}`
      })
      await sleep(engineWarmupSecs * 1000)
      const arrivedBefore = origin.arrivals.get(mode) ?? 0
      const cpuBefore = cpuSeconds(running.pid).own
      const spansBefore = sink.spans()
      const from = Date.now()
      await sleep(engineSecs * 1000)
      const secs = (Date.now() - from) / 1000
      const checks = (origin.arrivals.get(mode) ?? 0) - arrivedBefore
      const cpu = cpuSeconds(running.pid).own - cpuBefore
      engine[mode] = {
        checksPerSec: checks / secs,
        cpuCores: cpu / secs,
        cpuMsPerCheck: checks === 0 ? Number.NaN : (cpu * 1000) / checks,
        spans: sink.spans() - spansBefore
      }
      log(
        `  engine tracing ${mode.padEnd(3)} ${engine[mode].checksPerSec.toFixed(1)} checks/s, ${engine[mode].cpuCores.toFixed(2)} cores, ${engine[mode].cpuMsPerCheck.toFixed(3)} ms CPU a check, ${fmt(engine[mode].spans)} spans exported`
      )
      await running.stop()
    }
  } finally {
    origin.close()
  }
  const checksRatio = engine.on.checksPerSec / engine.off.checksPerSec
  // CPU per check off / on: the share of the traced process's work that is the checks' own, as a throughput ratio
  // would read were the machine saturated.
  const cpuRatio = engine.off.cpuMsPerCheck / engine.on.cpuMsPerCheck

  const failed = runs.reduce((sum, run) => sum + failures(run), 0)
  const empty = runs.filter((run) => run.answered === 0).length
  const exported = spansAfterMe > 0 && engine.on.spans > 0
  const ok = failed === 0 && empty === 0 && exported && sink.rejected() === 0
  const verdict = (ratio: number) => `${fmt(ratio, 3)} (aim >= ${AIM}: ${ratio >= AIM ? "met" : "NOT met"})`
  log("")
  log(`  /me       off median ${fmt(me.off)} req/s, on median ${fmt(me.on)} req/s`)
  log(`  ratio     /me on / off = ${verdict(meRatio)}`)
  log(`  ratio     /me sampled (1 in 10) / off = ${verdict(meSampledRatio)} (sampled median ${fmt(me.sampled)} req/s)`)
  log(
    `  ratio     /me server CPU a request off / on = ${fmt(meCpu.off / meCpu.on, 3)}, off / sampled = ${fmt(meCpu.off / meCpu.sampled, 3)} (${fmt(meCpu.off)}, ${fmt(meCpu.on)} and ${fmt(meCpu.sampled)} us)`
  )
  log(
    `  engine    off ${engine.off.checksPerSec.toFixed(1)} checks/s, on ${engine.on.checksPerSec.toFixed(1)} checks/s`
  )
  log(`  ratio     engine checks/s on / off = ${verdict(checksRatio)}`)
  log(`  ratio     engine CPU per check off / on = ${fmt(cpuRatio, 3)} (the cost once the machine is the limit)`)
  log(`  receiver  ${fmt(sink.exports())} exports, ${fmt(sink.spans())} spans, ${sink.rejected()} rejected`)

  mkdirSync(path.dirname(outFile), { recursive: true })
  writeFileSync(
    outFile,
    `${JSON.stringify(
      {
        benchmark: "tracing-cost",
        ok,
        failedRequests: failed,
        ...context,
        finishedAt: new Date().toISOString(),
        settings,
        me: {
          medianRps: me,
          ratio: meRatio,
          sampledRatio: meSampledRatio,
          aim: AIM,
          serverCpuUsPerRequest: meCpu,
          cpuRatio: meCpu.off / meCpu.on,
          readsPerMinute: READS_PER_MINUTE
        },
        engine: { ...engine, checksRatio, cpuPerCheckRatio: cpuRatio, aim: AIM },
        receiver: { exports: sink.exports(), spans: sink.spans(), rejected: sink.rejected() },
        runs
      },
      null,
      2
    )}\n`
  )
  log(`  written   ${path.relative(process.cwd(), outFile) || outFile}`)
  if (!ok) {
    log(
      `\nFAILED: ${failed} failed request(s), ${empty} empty run(s), spans exported: ${exported}, rejected exports: ${sink.rejected()}`
    )
    return 1
  }
  return 0
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
    return 1
  })
  .then(async (code) => {
    await stopAll()
    await Promise.race([smtp?.close(), sleep(2_000)])
    await sink?.close()
    process.exit(code)
  })
