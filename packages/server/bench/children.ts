/**
 * The servers a benchmark measures, as child processes on free loopback ports: started through tsx, waited for
 * until `/healthz` answers, stopped with SIGTERM (Signalman drains) and SIGKILL past a bound, and never left
 * behind however the benchmark ends.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createServer } from "node:net"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

export const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
export const HOST = "127.0.0.1"
// Signalman starts through tsx and migrates its database first; a minute is ample, and a bound is needed so a
// server that never comes up fails the run instead of hanging it.
const STARTUP_TIMEOUT_MS = 60_000
const STOP_TIMEOUT_MS = 5_000

export interface Target {
  readonly name: string
  readonly description: string
  readonly script: string
  readonly env: Readonly<Record<string, string>>
  /**
   * What answers 200 once the child serves: `/readyz` for Signalman (its `/healthz` is liveness, which answers while
   * the process is still booting and every other route says 503 NOT_READY), `/healthz` (the default) for the others.
   */
  readonly readyPath?: string | undefined
}

export interface Running {
  readonly target: Target
  /** `http://host:port`, without a path: one process serves more than one measured path. */
  readonly origin: string
  /** The last lines the child wrote, to explain a failure without flooding the report. */
  readonly tail: () => string
  /** The server process, for reading its memory and CPU from /proc. */
  readonly pid: number
  /** Stops this server (as `stop` does), for a benchmark that measures servers one after another. */
  readonly stop: () => Promise<void>
}

export const children = new Set<ChildProcess>()
export const isAlive = (child: ChildProcess): boolean => child.exitCode === null && child.signalCode === null

/** Asks nicely first (Signalman drains on SIGTERM), then SIGKILL once the bound passes. */
export const stop = async (child: ChildProcess): Promise<void> => {
  if (!isAlive(child)) return
  const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  child.kill("SIGTERM")
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS)
  await gone
  clearTimeout(timer)
  children.delete(child)
}

export const stopAll = (): Promise<void> => Promise.all([...children].map(stop)).then(() => undefined)

// Whatever way this process ends, no server is left holding a port or a CPU.
process.on("exit", () => {
  for (const child of children) if (isAlive(child)) child.kill("SIGKILL")
})
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    process.stderr.write(`\nbench: ${signal}, stopping the servers\n`)
    void stopAll().finally(() => process.exit(signal === "SIGINT" ? 130 : 143))
  })
}

/** A free loopback port: the kernel picks one, we release it and hand it to the child. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, HOST, () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => (port > 0 ? resolve(port) : reject(new Error("could not pick a free port"))))
    })
  })

// Only what a Node process needs to run: an inherited DATABASE_URL, CONFIG_FILE or SERVER__* would silently change
// what is measured, so the servers see nothing of the caller's environment beyond this.
export const baseEnv = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const key of ["PATH", "HOME", "TMPDIR", "LANG", "SystemRoot"]) {
    const value = process.env[key]
    if (value !== undefined) env[key] = value
  }
  return env
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

export const start = async (target: Target): Promise<Running> => {
  const port = await freePort()
  // The child is node itself (not npx) so that killing its pid kills the server, not just a wrapper.
  // A `.ts` script runs through tsx; a built `.js` bundle runs as production runs it, on plain node.
  const script = target.script.endsWith(".ts")
    ? ["--import", import.meta.resolve("tsx"), target.script]
    : [target.script]
  // `BENCH_CPU_PROF_DIR`: the server writes a V8 CPU profile there when it exits (SIGTERM drains and exits
  // normally), to see where a round's time goes inside the server.
  const profileDir = process.env["BENCH_CPU_PROF_DIR"]
  const args =
    profileDir === undefined || profileDir === "" ? script : ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, ...script]
  const child = spawn(process.execPath, args, {
    cwd: serverDir,
    env: { ...baseEnv(), ...target.env, HOST, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"]
  })
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
  // Always drained, so a chatty child can never block on a full pipe in the middle of a round.
  child.stdout?.on("data", keep)
  child.stderr?.on("data", keep)
  const running: Running = {
    target,
    origin: `http://${HOST}:${port}`,
    tail: () => lines.join("\n"),
    pid: child.pid ?? 0,
    stop: () => stop(child)
  }
  const healthz = `${running.origin}${target.readyPath ?? "/healthz"}`

  const deadline = Date.now() + STARTUP_TIMEOUT_MS
  while (Date.now() < deadline) {
    if (!isAlive(child)) {
      throw new Error(`${target.name} exited before answering (code ${String(child.exitCode)}):\n${running.tail()}`)
    }
    try {
      const response = await fetch(healthz, { signal: AbortSignal.timeout(1_000) })
      await response.arrayBuffer()
      if (response.status === 200) return running
    } catch {
      // Not listening yet: expected while it starts.
    }
    await sleep(100)
  }
  throw new Error(`${target.name} did not answer ${healthz} within ${STARTUP_TIMEOUT_MS} ms:\n${running.tail()}`)
}
