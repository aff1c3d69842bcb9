/**
 * The server as its own process, started the way an operator starts it, for what only a process shows:
 * the boot error line, roles, signals and exit codes.
 */

import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")

export interface Exited {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

export interface ServerProcess {
  readonly child: ChildProcess
  readonly baseUrl: string
  readonly stdout: () => string
  readonly exited: Promise<Exited>
}

const launch = (args: ReadonlyArray<string>, env: Record<string, string>) => {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts", ...args], {
    cwd: serverDir,
    env: { PATH: process.env["PATH"] ?? "", HOST: "127.0.0.1", PORT: "0", ...env },
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
    child.on("exit", (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
  return { child, exited, stdout: () => stdout, stderr: () => stderr }
}

/** Runs the server expecting it to stop by itself (a refused boot); answers how it ended. */
export const runToExit = (args: ReadonlyArray<string>, env: Record<string, string>, timeoutMs = 30_000) =>
  Effect.promise(() => {
    const { child, exited } = launch(args, env)
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
    return exited.finally(() => clearTimeout(timer))
  })

/** Starts the server and waits for its "up" log line; the process is killed when the scope closes. */
export const start = (
  args: ReadonlyArray<string>,
  env: Record<string, string>
): Effect.Effect<ServerProcess, Error, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<ServerProcess, Error>((resume) => {
      const launched = launch(args, env)
      const deadline = setTimeout(() => {
        launched.child.kill("SIGKILL")
        resume(Effect.fail(new Error(`server did not come up: ${launched.stdout()} ${launched.stderr()}`)))
      }, 60_000)
      const onData = () => {
        for (const line of launched.stdout().split("\n")) {
          if (!line.includes("Signalman is up")) continue
          const entry: { annotations?: { listening?: string } } = JSON.parse(line)
          const listening = entry.annotations?.listening
          if (listening === undefined) continue
          clearTimeout(deadline)
          launched.child.stdout?.off("data", onData)
          resume(Effect.succeed({ ...launched, baseUrl: `http://${listening}` }))
          return
        }
      }
      launched.child.stdout?.on("data", onData)
      launched.exited.then((exit) => {
        clearTimeout(deadline)
        resume(Effect.fail(new Error(`server exited early (${exit.code}): ${exit.stderr}${exit.stdout}`)))
      })
    }),
    (server) =>
      Effect.promise(async () => {
        if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL")
        await server.exited
      })
  )
