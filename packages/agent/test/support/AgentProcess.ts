/**
 * The agent as its own process (the run's bundle, from source with tsx as `pnpm agent` runs it, or the built dist
 * with plain node), for what only a process shows: its log lines, its stderr line, signals and exit codes.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { inject } from "vitest"

declare module "vitest" {
  export interface ProvidedContext {
    /** The run's bundle of the agent (test-support/Bundles.ts). */
    readonly agentBin: string
  }
}

export const agentDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")

export interface Exited {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

export const LogLine = Schema.Struct({
  time: Schema.String,
  level: Schema.Literal("debug", "info", "warn", "error", "fatal"),
  message: Schema.String,
  fields: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
export type LogLine = typeof LogLine.Type

const decodeLine = Schema.decodeUnknownSync(Schema.parseJson(LogLine))

export interface AgentProcess {
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  /** Every stdout line decoded (a line that is not a log line fails the test that reads it). */
  readonly logs: () => ReadonlyArray<LogLine>
  readonly exited: Promise<Exited>
}

export interface Launch {
  /**
   * `source` (tsx on src/bin.ts, as `pnpm agent`) or a built bin.js to run with plain node; by default the run's
   * bundle (test-support/Bundles.ts).
   */
  readonly entry?: { readonly _tag: "source" } | { readonly _tag: "built"; readonly file: string }
  readonly args?: ReadonlyArray<string>
  readonly env?: Record<string, string>
}

/** Fast reconnection and no browser, unless a test says otherwise. */
export const baseEnv: Record<string, string> = {
  AGENT__BROWSER_PATH: "none",
  AGENT__RECONNECT_MIN_MS: "50",
  AGENT__RECONNECT_MAX_MS: "200",
  AGENT__LOG_LEVEL: "debug"
}

export const launch = (options: Launch = {}): AgentProcess => {
  const entry = options.entry ?? { _tag: "built", file: inject("agentBin") }
  const argv = entry._tag === "source" ? ["--import", "tsx", "src/bin.ts"] : [entry.file]
  const child = spawn(process.execPath, [...argv, ...(options.args ?? [])], {
    cwd: agentDir,
    env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "/tmp", ...options.env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk
  })
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk
  })
  const exited = new Promise<Exited>((resolve) => {
    child.on("exit", (code, signal) => {
      // The pipes may still hold the last lines when the process has gone.
      setImmediate(() => resolve({ code, signal, stdout, stderr }))
    })
  })
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    logs: () =>
      stdout
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => decodeLine(line)),
    exited
  }
}

/** Runs the agent expecting it to stop by itself; killed after `timeoutMs`. */
export const runToExit = (options: Launch, timeoutMs = 30_000): Effect.Effect<Exited> =>
  Effect.promise(() => {
    const agent = launch(options)
    const timer = setTimeout(() => agent.child.kill("SIGKILL"), timeoutMs)
    return agent.exited.finally(() => clearTimeout(timer))
  })

/** Starts the agent for the scope; it is killed when the scope closes, if it is still running. */
export const start = (options: Launch): Effect.Effect<AgentProcess, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => launch(options)),
    (agent) =>
      Effect.promise(async () => {
        if (agent.child.exitCode === null && agent.child.signalCode === null) agent.child.kill("SIGKILL")
        await agent.exited
      })
  )

/** Waits for the process to end, at most `timeoutMs` (then kills it and answers how it ended anyway). */
export const waitExit = (agent: AgentProcess, timeoutMs = 30_000): Effect.Effect<Exited> =>
  Effect.promise(() => {
    const timer = setTimeout(() => agent.child.kill("SIGKILL"), timeoutMs)
    return agent.exited.finally(() => clearTimeout(timer))
  })

/**
 * Reads until `done` holds or the deadline passes, and answers the last value read either way: the caller's
 * assertion then fails with the value in its message.
 */
export const eventually = <A>(read: () => A, done: (a: A) => boolean, timeoutMs = 20_000): Effect.Effect<A> =>
  Effect.gen(function* () {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const value = read()
      if (done(value) || Date.now() > deadline) return value
      yield* Effect.sleep("25 millis")
    }
  })
