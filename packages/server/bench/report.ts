/**
 * What every benchmark report shares: reading its settings from the environment, the figures' formatting, and the
 * machine and commit the figures were measured on.
 */
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import * as os from "node:os"
import { serverDir } from "./children.js"

export const positiveInt = (name: string, fallback: number): number => {
  const raw = process.env[name]
  if (raw === undefined || raw === "") return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`)
  return n
}

/** `BENCH_DATABASE_URL` when set: a PostgreSQL URL, checked here so a typo fails before any server starts. */
export const benchDatabaseUrl = (): URL | undefined => {
  const raw = process.env["BENCH_DATABASE_URL"]
  if (raw === undefined || raw === "") return undefined
  const url = URL.canParse(raw) ? new URL(raw) : undefined
  if (url === undefined || (url.protocol !== "postgres:" && url.protocol !== "postgresql:")) {
    throw new Error("BENCH_DATABASE_URL must be a postgres:// or postgresql:// URL")
  }
  return url
}

/** A database URL fit for the report: the password, if any, is not. */
export const redactUrl = (url: URL): string => {
  const copy = new URL(url.href)
  if (copy.password !== "") copy.password = "***"
  return copy.href
}

// ---------------------------------------------------------------------------------------------------------------
// Report

export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

export const fmt = (n: number, digits = 0): string =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })

// autocannon records latency in whole milliseconds, so 0 means "under a millisecond", not free.
export const ms = (n: number): string => (n === 0 ? "<1" : n.toLocaleString("en-US", { maximumFractionDigits: 1 }))

export const gitCommit = (): string | null => {
  try {
    const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: serverDir, timeout: 5_000, encoding: "utf8" })
    const dirty = execFileSync("git", ["status", "--porcelain"], { cwd: serverDir, timeout: 5_000, encoding: "utf8" })
    return `${head.trim()}${dirty.trim() === "" ? "" : " (dirty)"}`
  } catch {
    // Not a git checkout (e.g. an unpacked tarball): the rest of the report still stands.
    return null
  }
}

export const machine = () => {
  const cpus = os.cpus()
  return {
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    cpuModel: cpus[0]?.model.trim() ?? "unknown",
    cpuCount: cpus.length,
    availableParallelism: os.availableParallelism(),
    totalMemoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    loadAverage1m: Math.round(os.loadavg()[0]! * 100) / 100
  }
}

// ---------------------------------------------------------------------------------------------------------------
// CPU

const CLOCK_TICKS_PER_SEC = 100

/**
 * CPU seconds from `/proc/<pid>/stat`: the process's own (user + system), and that of its children it has reaped
 * (a load generator run as a child, once it has exited). Zeros where there is no `/proc` (not Linux).
 */
export const cpuSeconds = (pid: number | "self"): { readonly own: number; readonly reapedChildren: number } => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // Fields after the command name (which may hold spaces), from field 3 (state) on.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const tick = (i: number) => Number(fields[i - 3] ?? 0) / CLOCK_TICKS_PER_SEC
    return { own: tick(14) + tick(15), reapedChildren: tick(16) + tick(17) }
  } catch {
    return { own: 0, reapedChildren: 0 }
  }
}
