/**
 * Real probe agents beside the test server: the agent in a process of its own, from the run's bundle of
 * `packages/agent/src/bin.ts` (test-support/Bundles.ts), for tests of the fleet (the server and its agents together). A test reads
 * what an operator would: the agent's JSON log lines on stdout, its stderr line and its exit code.
 *
 * The agent's own tests have a module like this one (packages/agent/test/support/AgentProcess.ts); the server's
 * tests cannot import across packages, so this is the server's copy of the little it needs.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { inject } from "vitest"

const agentDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../agent")

/** One line of the agent's log (packages/agent/src/Log.ts; docs/agents.md "Logs"). */
export const LogLine = Schema.Struct({
  time: Schema.String,
  level: Schema.Literal("debug", "info", "warn", "error", "fatal"),
  message: Schema.String,
  fields: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
export type LogLine = typeof LogLine.Type

const decodeLine = Schema.decodeUnknownEither(Schema.parseJson(LogLine))

export interface Exited {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

export interface AgentProcess {
  readonly child: ChildProcess
  /** Everything the agent wrote so far, for assertions that no secret is in any of it. */
  readonly stdout: () => string
  readonly stderr: () => string
  /** Every stdout line decoded; a line that is not a log line fails the test that reads it. */
  readonly logs: () => ReadonlyArray<LogLine>
  readonly exited: Promise<Exited>
}

/**
 * Fast reconnection and every log line (debug included, so a test that looks for a secret looks at the most the
 * agent can say); a test adds the service, the token and what it is about.
 */
export const baseEnv: Record<string, string> = {
  AGENT__RECONNECT_MIN_MS: "50",
  AGENT__RECONNECT_MAX_MS: "200",
  AGENT__LOG_LEVEL: "debug"
}

const decodeAll = (stdout: string): ReadonlyArray<LogLine> =>
  stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const decoded = decodeLine(line)
      if (Either.isLeft(decoded)) throw new Error(`not an agent log line: ${line}`)
      return decoded.right
    })

/** Starts an agent with `env` (and the machine's PATH and HOME, nothing else of the test's environment). */
export const launch = (env: Record<string, string>): AgentProcess => {
  const child = spawn(process.execPath, [inject("agentBin")], {
    cwd: agentDir,
    env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "/tmp", ...baseEnv, ...env },
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
    // The pipes may still hold the last lines when the process has gone.
    child.on("exit", (code, signal) => setImmediate(() => resolve({ code, signal, stdout, stderr })))
  })
  return { child, stdout: () => stdout, stderr: () => stderr, logs: () => decodeAll(stdout), exited }
}

/** An agent for the scope: killed (SIGKILL) when the scope closes, if it is still running. */
export const start = (env: Record<string, string>): Effect.Effect<AgentProcess, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => launch(env)),
    (agent) =>
      Effect.promise(async () => {
        if (agent.child.exitCode === null && agent.child.signalCode === null) agent.child.kill("SIGKILL")
        await agent.exited
      })
  )

/** Waits for the process to end, at most `timeoutMs` (then kills it, and answers how it ended anyway). */
export const waitExit = (agent: AgentProcess, timeoutMs = 30_000): Effect.Effect<Exited> =>
  Effect.promise(() => {
    const timer = setTimeout(() => agent.child.kill("SIGKILL"), timeoutMs)
    return agent.exited.finally(() => clearTimeout(timer))
  })

/**
 * Waits (bounded) for the agent's first log line with `message`; fails with everything the agent wrote when none
 * comes in time, or when the agent has ended without one.
 */
export const waitForLog = (agent: AgentProcess, message: string, timeoutMs = 30_000): Effect.Effect<LogLine, Error> =>
  Effect.gen(function* () {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const line = agent.logs().find((l) => l.message === message)
      if (line !== undefined) return line
      const ended = agent.child.exitCode !== null || agent.child.signalCode !== null
      if (ended || Date.now() > deadline) {
        return yield* Effect.fail(
          new Error(
            `no "${message}" from the agent${ended ? " (it has exited)" : ""}:\n${agent.stdout()}${agent.stderr()}`
          )
        )
      }
      yield* Effect.sleep("50 millis")
    }
  })

/** The log lines with this message. */
export const lines = (agent: AgentProcess, message: string): ReadonlyArray<LogLine> =>
  agent.logs().filter((line) => line.message === message)
