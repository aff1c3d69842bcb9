/**
 * `pnpm bench` (and `pnpm bench:probes`): the probe benchmark. 1,000 http checks against a loopback server, run
 * by the engine (the Runner at `checker.max_concurrency`, the per-host throttle, the real http probe with Dial and
 * the internal-address guard) and, in the same run, by a bare undici loop opening a fresh connection per request
 * at the same concurrency. Reported: the median checks per second of each, their ratio (the aim is at least 0.5)
 * and the engine's peak RSS.
 *
 * Three child processes, so that what is measured is each side alone: the loopback server (its CPU is not counted
 * against either side; it reports its CPU time so a round where the server, not the client, was the limit shows),
 * the bare loop and the engine (each with its own heap, so the engine's peak RSS is the engine's). Each loader is
 * warmed up (JIT, connection paths) with rounds that are not counted; then the measured rounds alternate between
 * the two, the order reversing each round, so neither always runs on the hotter or cooler machine.
 *
 * Every check must succeed: the bare loop's a 200, the engine's status `up` with status_code 200. One dropped by
 * the throttle or failed for any reason fails the run (exit 1), since a check that is skipped or fails fast would
 * otherwise look like speed. To keep the throttle (2 per (org, host, port)) from dropping checks while still
 * passing every check through it, check i goes to port i mod P of the server for org i div P: each key is used
 * once per round, as when many orgs monitor a handful of hosts.
 *
 * Env: `BENCH_PROBE_CHECKS` (checks per round, default 1000), `BENCH_PROBE_ROUNDS` (measured rounds per side,
 * default 7), `BENCH_PROBE_WARMUP` (warm-up rounds per side, default 2), `BENCH_PROBE_CONCURRENCY` (default
 * `checker.max_concurrency`'s default, 1024), `BENCH_PROBE_PORTS` (server ports, default 16), `BENCH_PROBE_CPU_PROF`
 * (set to 1: the engine runs under `node --cpu-prof`, profiles in `.bench/profiles/`). Results go to stdout and to
 * `packages/checks/.bench/probes.json`.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Either from "effect/Either"
import { defaultMaxConcurrency } from "../src/Runner.js"
import { type ChildMessage, type Command, decodeChildMessage, type RoundReport } from "./protocol.js"

const benchDir = path.dirname(fileURLToPath(import.meta.url))
const packageDir = path.resolve(benchDir, "..")
const outDir = path.join(packageDir, ".bench")
const outFile = path.join(outDir, "probes.json")
const AIM = 0.5
// A round of 1,000 loopback checks takes about a second; this bound only catches a child that hangs.
const ROUND_TIMEOUT_MS = 120_000
const START_TIMEOUT_MS = 60_000

const positiveInt = (name: string, fallback: number): number => {
  const raw = process.env[name]
  if (raw === undefined || raw === "") return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`)
  return n
}

// ---------------------------------------------------------------------------------------------------------------
// Children

interface Child {
  readonly name: string
  readonly process: ChildProcess
  /** The next message with this tag, waiting at most `timeoutMs`. */
  readonly next: <T extends ChildMessage["_tag"]>(
    tag: T,
    timeoutMs: number
  ) => Promise<Extract<ChildMessage, { _tag: T }>>
  readonly send: (command: Command) => void
  readonly tail: () => string
}

const children = new Set<ChildProcess>()
process.on("exit", () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
})
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    process.stderr.write(`\nbench: ${signal}, stopping\n`)
    process.exit(signal === "SIGINT" ? 130 : 143)
  })
}

// Only what Node needs, so nothing in the caller's environment changes what is measured.
const baseEnv = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const key of ["PATH", "HOME", "TMPDIR", "LANG", "SystemRoot"]) {
    const value = process.env[key]
    if (value !== undefined) env[key] = value
  }
  return env
}

const start = (
  name: string,
  script: string,
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string>>,
  nodeFlags: ReadonlyArray<string> = []
): Child => {
  // Node itself (not npx), so the pid is the program's; tsx as a loader, as `pnpm bench` runs this file.
  const child = spawn(
    process.execPath,
    [...nodeFlags, "--import", import.meta.resolve("tsx"), path.join(benchDir, script), ...args],
    { cwd: packageDir, env: { ...baseEnv(), ...env }, stdio: ["ignore", "pipe", "pipe", "ipc"] }
  )
  children.add(child)
  const lines: Array<string> = []
  const keep = (chunk: Buffer) => {
    lines.push(
      ...chunk
        .toString("utf8")
        .split("\n")
        .filter((line) => line.trim() !== "")
    )
    lines.splice(0, Math.max(0, lines.length - 20))
  }
  child.stdout?.on("data", keep)
  child.stderr?.on("data", keep)
  const inbox: Array<ChildMessage> = []
  const waiting: Array<() => void> = []
  child.on("message", (raw: unknown) => {
    const message = decodeChildMessage(raw)
    if (Either.isLeft(message)) {
      lines.push(`(undecodable message: ${JSON.stringify(raw)})`)
      return
    }
    inbox.push(message.right)
    for (const wake of waiting.splice(0)) wake()
  })
  child.on("exit", () => {
    for (const wake of waiting.splice(0)) wake()
  })
  const tail = () => lines.join("\n")
  const next = <T extends ChildMessage["_tag"]>(tag: T, timeoutMs: number) =>
    new Promise<Extract<ChildMessage, { _tag: T }>>((resolve, reject) => {
      const isTag = (m: ChildMessage): m is Extract<ChildMessage, { _tag: T }> => m._tag === tag
      const timer = setTimeout(
        () => reject(new Error(`${name} sent no ${tag} within ${timeoutMs} ms:\n${tail()}`)),
        timeoutMs
      )
      const look = () => {
        const at = inbox.findIndex(isTag)
        const found = at === -1 ? undefined : inbox.splice(at, 1)[0]
        if (found !== undefined && isTag(found)) {
          clearTimeout(timer)
          resolve(found)
        } else if (child.exitCode !== null || child.signalCode !== null) {
          clearTimeout(timer)
          reject(new Error(`${name} exited (code ${String(child.exitCode)}) before sending ${tag}:\n${tail()}`))
        } else {
          waiting.push(look)
        }
      }
      look()
    })
  return { name, process: child, next, send: (command) => child.send(command), tail }
}

const stop = async (child: Child): Promise<void> => {
  const p = child.process
  if (p.exitCode !== null || p.signalCode !== null) return
  const gone = new Promise<void>((resolve) => p.once("exit", () => resolve()))
  // Closing the channel ends each child (it exits on 'disconnect'; --cpu-prof writes its profile on that exit).
  p.disconnect()
  const timer = setTimeout(() => p.kill("SIGKILL"), 10_000)
  await gone
  clearTimeout(timer)
  children.delete(p)
}

// ---------------------------------------------------------------------------------------------------------------
// Figures

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
}
const fmt = (n: number, digits = 0): string =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
const mib = (bytes: number): string => `${fmt(bytes / (1024 * 1024), 1)} MiB`

type Side = "bare" | "engine"

interface Round {
  readonly side: Side
  readonly kind: "warmup" | "measured"
  readonly round: number
  readonly checksPerSec: number
  /** The loader's CPU time per check, in microseconds. */
  readonly cpuUsPerCheck: number
  /** The server's CPU time over the round's wall time: near 1 means the server, one core, was the limit. */
  readonly serverBusy: number
  readonly report: RoundReport
}

const gitCommit = (): string | null => {
  try {
    return execFileSync("git", ["rev-parse", "HEAD"], { cwd: packageDir, encoding: "utf8" }).trim()
  } catch {
    return null
  }
}

const log = (line: string) => process.stdout.write(`${line}\n`)

const main = async (): Promise<number> => {
  const checks = positiveInt("BENCH_PROBE_CHECKS", 1000)
  const rounds = positiveInt("BENCH_PROBE_ROUNDS", 7)
  const warmups = positiveInt("BENCH_PROBE_WARMUP", 2)
  const concurrency = positiveInt("BENCH_PROBE_CONCURRENCY", defaultMaxConcurrency)
  const portCount = positiveInt("BENCH_PROBE_PORTS", 16)
  const cpuProf = process.env["BENCH_PROBE_CPU_PROF"] === "1"
  const settings = { checks, rounds, warmups, concurrency, ports: portCount, cpuProf }
  const context = {
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? "unknown",
    loadAverage: os.loadavg(),
    commit: gitCommit(),
    startedAt: new Date().toISOString()
  }

  log("probe benchmark: http checks against a loopback server, engine vs a bare undici loop, same run")
  log(
    `  ${fmt(checks)} checks a round, concurrency ${concurrency}, ${warmups} warm-up + ${rounds} measured rounds a side, server on ${portCount} ports`
  )
  log(
    `  node ${context.node}, ${context.cpus} CPUs (${context.cpuModel}), load ${context.loadAverage.map((l) => fmt(l, 2)).join(" ")}`
  )

  const server = start("server", "loopbackServer.ts", [], { BENCH_PORTS: String(portCount) })
  const { ports } = await server.next("Listening", START_TIMEOUT_MS)
  const loaderEnv = {
    BENCH_TARGETS: JSON.stringify(ports),
    BENCH_CHECKS: String(checks),
    BENCH_CONCURRENCY: String(concurrency)
  }
  const profileDir = path.join(outDir, "profiles")
  if (cpuProf) mkdirSync(profileDir, { recursive: true })
  const loaders: Record<Side, Child> = {
    bare: start("bare", "loader.ts", ["bare"], loaderEnv),
    engine: start(
      "engine",
      "loader.ts",
      ["engine"],
      loaderEnv,
      cpuProf ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []
    )
  }
  const described = {
    bare: (await loaders.bare.next("Ready", START_TIMEOUT_MS)).describe,
    engine: (await loaders.engine.next("Ready", START_TIMEOUT_MS)).describe
  }
  log(`  bare      ${described.bare}`)
  log(`  engine    ${described.engine}`)
  log(
    `  targets   check i -> 127.0.0.1:<port i mod ${portCount}> for org i div ${portCount}: every (org, host, port) once a round, so the throttle (2 per key) admits all`
  )
  log("")

  const serverCpu = async (): Promise<number> => {
    server.send({ _tag: "Cpu" })
    return (await server.next("Cpu", START_TIMEOUT_MS)).cpuMs
  }

  const all: Array<Round> = []
  const runRound = async (side: Side, kind: Round["kind"], round: number): Promise<void> => {
    const before = await serverCpu()
    loaders[side].send({ _tag: "Round", round })
    const report = await loaders[side].next("RoundReport", ROUND_TIMEOUT_MS)
    const after = await serverCpu()
    const entry: Round = {
      side,
      kind,
      round,
      checksPerSec: (report.checks / report.elapsedMs) * 1000,
      cpuUsPerCheck: (report.cpuMs * 1000) / report.checks,
      serverBusy: (after - before) / report.elapsedMs,
      report
    }
    all.push(entry)
    const label = kind === "warmup" ? "warm-up" : `round ${round}`
    const bad = report.failed > 0 ? `  FAILED ${report.failed}: ${report.problems.join(" | ")}` : ""
    log(
      `  ${label.padEnd(8)} ${side.padEnd(7)} ${fmt(entry.checksPerSec).padStart(7)} checks/s  ${fmt(report.elapsedMs).padStart(6)} ms  cpu ${fmt(entry.cpuUsPerCheck).padStart(4)} us/check  server busy ${fmt(entry.serverBusy * 100).padStart(3)}%  rss ${mib(report.peakRssBytes)}${bad}`
    )
  }

  for (let w = 1; w <= warmups; w++) {
    await runRound("bare", "warmup", w)
    await runRound("engine", "warmup", w)
  }
  for (let round = 1; round <= rounds; round++) {
    const order: ReadonlyArray<Side> = round % 2 === 1 ? ["bare", "engine"] : ["engine", "bare"]
    for (const side of order) await runRound(side, "measured", round)
  }

  const summarize = (side: Side) => {
    const measured = all.filter((r) => r.side === side && r.kind === "measured")
    const everyRound = all.filter((r) => r.side === side)
    return {
      medianChecksPerSec: median(measured.map((r) => r.checksPerSec)),
      medianElapsedMs: median(measured.map((r) => r.report.elapsedMs)),
      medianCpuUsPerCheck: median(measured.map((r) => r.cpuUsPerCheck)),
      medianServerBusy: median(measured.map((r) => r.serverBusy)),
      checksPerSec: measured.map((r) => r.checksPerSec),
      // The highest RSS sampled while a round ran (warm-ups included), and the kernel's high-water mark of the
      // whole process (start-up and loading the code included).
      peakRssInRoundsBytes: Math.max(...everyRound.map((r) => r.report.peakRssBytes)),
      maxRssBytes: Math.max(...everyRound.map((r) => r.report.maxRssBytes)),
      failedChecks: everyRound.reduce((sum, r) => sum + r.report.failed, 0)
    }
  }
  const summary = { bare: summarize("bare"), engine: summarize("engine") }
  const ratio = summary.engine.medianChecksPerSec / summary.bare.medianChecksPerSec
  const failed = summary.bare.failedChecks + summary.engine.failedChecks
  const ok = failed === 0

  log("")
  log(
    "  side     median checks/s   rounds (checks/s)                              cpu/check   peak RSS (rounds / process)"
  )
  for (const side of ["bare", "engine"] as const) {
    const s = summary[side]
    log(
      `  ${side.padEnd(8)} ${fmt(s.medianChecksPerSec).padStart(15)}   ${s.checksPerSec
        .map((v) => fmt(v))
        .join(", ")
        .padEnd(
          46
        )} ${fmt(s.medianCpuUsPerCheck).padStart(5)} us    ${mib(s.peakRssInRoundsBytes)} / ${mib(s.maxRssBytes)}`
    )
  }
  log(`  ratio    engine / bare = ${fmt(ratio, 3)} (aim >= ${AIM}: ${ratio >= AIM ? "met" : "NOT met"})`)
  log(`  engine peak RSS ${mib(summary.engine.maxRssBytes)} (process high-water mark, maxRSS)`)

  mkdirSync(outDir, { recursive: true })
  writeFileSync(
    outFile,
    `${JSON.stringify(
      {
        benchmark: "probes",
        ok,
        failedChecks: failed,
        ...context,
        finishedAt: new Date().toISOString(),
        settings,
        sides: described,
        targets: `check i -> http://127.0.0.1:<ports[i mod ${portCount}]>/health for org bench-org-<i div ${portCount}>`,
        summary,
        ratio,
        ratioOf: "median checks/s of the engine / median checks/s of the bare undici loop, same run",
        aim: AIM,
        aimMet: ratio >= AIM,
        enginePeakRssBytes: summary.engine.maxRssBytes,
        rounds: all
      },
      null,
      2
    )}\n`
  )
  log(`  written  ${path.relative(process.cwd(), outFile) || outFile}`)
  if (cpuProf) log(`  profiles ${path.relative(process.cwd(), profileDir)}`)

  await Promise.all([stop(loaders.bare), stop(loaders.engine), stop(server)])
  if (!ok) {
    log(`\nFAILED: ${failed} check(s) did not succeed`)
    for (const child of [server, loaders.bare, loaders.engine])
      log(`--- last output of ${child.name}:\n${child.tail()}`)
    return 1
  }
  return 0
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
    return 1
  })
  .then((code) => process.exit(code))
