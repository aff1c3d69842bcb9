/**
 * Starting the deployment's processes so they outlive the command that started them (detached, each in a process
 * group of its own, stdout and stderr appended to its log file), waiting for each to be ready, and stopping them
 * by pid: SIGTERM (every Signalman process drains on it), then a bounded wait for the exit.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

export interface Started {
  readonly pid: number
  readonly log: string
}

/** Starts `node --import tsx <main> ...args` in `cwd`, detached, its output appended to `log`. */
export const start = (options: {
  readonly main: string
  readonly args: ReadonlyArray<string>
  readonly cwd: string
  readonly env: NodeJS.ProcessEnv
  readonly log: string
}): Started => {
  fs.mkdirSync(path.dirname(options.log), { recursive: true })
  const out = fs.openSync(options.log, "a")
  try {
    const child = spawn(process.execPath, ["--import", "tsx", options.main, ...options.args], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ["ignore", out, out]
    })
    if (child.pid === undefined) throw new Error(`could not start ${options.main}`)
    child.unref()
    return { pid: child.pid, log: options.log }
  } finally {
    fs.closeSync(out)
  }
}

/** Whether a process with this pid runs (and is not a zombie waiting for its parent). */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  // On Linux a zombie still answers signal 0; its state in /proc says it has exited.
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z"
  } catch {
    return true
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The last lines of a log, for an error message. */
export const tail = (log: string, lines = 30): string => {
  try {
    return fs.readFileSync(log, "utf8").split("\n").slice(-lines).join("\n")
  } catch {
    return "(no log)"
  }
}

/**
 * Polls `ready` until it holds; fails with the process's log when the process exits first or `timeoutMs` passes.
 */
export const waitUntil = async (
  what: string,
  started: Started,
  ready: () => Promise<boolean>,
  timeoutMs: number
): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await ready()) return
    if (!alive(started.pid)) throw new Error(`${what} exited before it was ready; its log:\n${tail(started.log)}`)
    if (Date.now() > deadline) {
      throw new Error(`${what} was not ready within ${timeoutMs / 1000} s; its log:\n${tail(started.log)}`)
    }
    await pause(200)
  }
}

/** Whether `url` answers 200 now (each attempt bounded to two seconds). */
export const answers200 = async (url: string): Promise<boolean> => {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) })
    await response.arrayBuffer()
    return response.status === 200
  } catch {
    return false
  }
}

/** Whether the log holds a JSON line whose `message` is `message` (the agent's log format). */
export const logged = (log: string, message: string): boolean => {
  let text: string
  try {
    text = fs.readFileSync(log, "utf8")
  } catch {
    return false
  }
  return text.split("\n").some((line) => {
    if (!line.startsWith("{")) return false
    try {
      const parsed: unknown = JSON.parse(line)
      return typeof parsed === "object" && parsed !== null && "message" in parsed && parsed.message === message
    } catch {
      return false
    }
  })
}

export type Stopped = "exited" | "killed" | "not running"

/**
 * Sends SIGTERM and waits up to `timeoutMs` for the process to exit; one still running then gets SIGKILL.
 * Answers how it ended.
 */
export const stop = async (pid: number, timeoutMs: number): Promise<Stopped> => {
  if (!alive(pid)) return "not running"
  try {
    process.kill(pid, "SIGTERM")
  } catch {
    return "not running"
  }
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (!alive(pid)) return "exited"
    await pause(100)
  }
  try {
    process.kill(pid, "SIGKILL")
  } catch {
    return "exited"
  }
  while (alive(pid)) await pause(50)
  return "killed"
}
