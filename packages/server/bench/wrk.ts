/**
 * wrk as a benchmark's load generator, with every answer checked by `check-answers.lua` against a representation
 * read before the run (status 200, the exact body or one part of it allowed to vary, chosen headers). wrk is C: on a 2-core machine a JavaScript
 * generator (autocannon) saturates its one thread long before the server does once bodies are large (the status
 * page's 135 KiB), and then measures itself. Install: `apt-get install -y wrk` (Debian, Ubuntu), `brew install wrk`.
 */
import { spawn, spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Schema from "effect/Schema"

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), "check-answers.lua")
const MARK = "WRK-RESULT "

/** Fails with how to install wrk when it is not on the PATH, before any server is started. */
export const ensureWrk = (): string => {
  const probe = spawnSync("wrk", ["--version"], { encoding: "utf8" })
  if (probe.error !== undefined) {
    throw new Error(
      "this benchmark's load generator is wrk, not found on the PATH: install it with `apt-get install -y wrk` " +
        "(Debian, Ubuntu) or `brew install wrk` (macOS)"
    )
  }
  return `${probe.stdout}${probe.stderr}`.split("\n")[0]?.trim() ?? "wrk"
}

/** What every answer to one load must be. */
export interface Expected {
  readonly body: Uint8Array
  /** Headers each answer must carry with exactly this value (names in lower case). */
  readonly present: Readonly<Record<string, string>>
  /** Headers each answer must carry with a value matching this Lua pattern. */
  readonly patterns: Readonly<Record<string, string>>
  /** Headers no answer may carry. */
  readonly absent: ReadonlyArray<string>
  /** A Lua pattern for the one part of the body that may differ from `body` (a timestamp new each cache window). */
  readonly vary: string | undefined
}

export interface Load {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly expected: Expected
  readonly seconds: number
  readonly connections: number
  readonly threads: number
}

const WrkResult = Schema.Struct({
  requests: Schema.Number,
  duration_us: Schema.Number,
  answers: Schema.Number,
  bad_status: Schema.Number,
  bad_body: Schema.Number,
  bad_header: Schema.Number,
  statuses: Schema.Record({ key: Schema.String, value: Schema.Number }),
  errors: Schema.Struct({ connect: Schema.Number, read: Schema.Number, write: Schema.Number, timeout: Schema.Number }),
  first: Schema.String
})
const decodeResult = Schema.decodeUnknownSync(Schema.parseJson(WrkResult))

/** One load, and every way its answers fell short: none is allowed. */
export interface Round {
  readonly rps: number
  readonly requests: number
  /** Answers by status code other than 200. */
  readonly statuses: Readonly<Record<string, number>>
  /** Socket errors and timeouts by kind. */
  readonly errors: Readonly<Record<string, number>>
  /** 200 answers whose body or headers were not the expected ones, and the first such problem. */
  readonly mismatches: number
  readonly firstMismatch: string | null
  /** Answers wrk completed that the script did not check (must be none: every counted answer is checked). */
  readonly unchecked: number
}

export const failuresOf = (round: Round): number =>
  Object.values(round.statuses).reduce((n, count) => n + count, 0) +
  Object.values(round.errors).reduce((n, count) => n + count, 0) +
  round.mismatches +
  round.unchecked

// wrk stops itself after `--duration`; this is the backstop should it hang.
const GRACE_MS = 30_000

export const run = (load: Load): Promise<Round> => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "signalman-wrk-"))
  const bodyFile = path.join(dir, "expected")
  writeFileSync(bodyFile, load.expected.body)
  const args = [
    `--threads=${load.threads}`,
    `--connections=${load.connections}`,
    `--duration=${load.seconds}s`,
    "--timeout=10s",
    ...Object.entries(load.headers).flatMap(([name, value]) => ["--header", `${name}: ${value}`]),
    "--script",
    SCRIPT,
    load.url,
    "--",
    bodyFile,
    ...Object.entries(load.expected.present).map(([name, value]) => `${name}=${value}`),
    ...Object.entries(load.expected.patterns).map(([name, pattern]) => `${name}~${pattern}`),
    ...load.expected.absent.map((name) => `!${name}`),
    ...(load.expected.vary === undefined ? [] : [`vary=${load.expected.vary}`])
  ]
  return new Promise<Round>((resolve, reject) => {
    const child = spawn("wrk", args, { stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let err = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8")
    })
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString("utf8")
    })
    const timer = setTimeout(() => child.kill("SIGKILL"), load.seconds * 1000 + GRACE_MS)
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(timer)
      rmSync(dir, { recursive: true, force: true })
      const line = out.split("\n").find((l) => l.startsWith(MARK))
      if (code !== 0 || line === undefined) {
        return reject(new Error(`wrk exited with ${String(code)} and no result:\n${out}\n${err}`))
      }
      const result = decodeResult(line.slice(MARK.length))
      const errors: Record<string, number> = {}
      for (const [kind, n] of Object.entries(result.errors)) if (n > 0) errors[kind] = n
      resolve({
        rps: result.requests / (result.duration_us / 1e6),
        requests: result.requests,
        statuses: result.statuses,
        errors,
        mismatches: result.bad_body + result.bad_header,
        firstMismatch: result.first === "" ? null : result.first,
        unchecked: Math.max(0, result.requests - result.answers)
      })
    })
  })
}
