/**
 * `examples/split-deployment` driven the way a person drives it: its real `start` command (which starts PostgreSQL's
 * database, two api processes, two workers, the balancer and two probe agents, then exits leaving them running) and
 * its real `stop` command, with the run's state directory of the test's own. A test reads what the launcher wrote:
 * the pid file (`state.json`: every process, its role, pid, address and log) and the secrets it made (the operator's
 * and the metrics tokens, the fingerprint salt).
 *
 * The scope's end runs `stop` if the test did not, then kills (SIGKILL) any process of the run still there, so a
 * failed test leaves nothing behind.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"

export const exampleDir = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../../../../examples/split-deployment"
)

const Process = Schema.Struct({
  name: Schema.String,
  role: Schema.Literal("api", "worker", "balancer", "agent"),
  pid: Schema.Int,
  url: Schema.NullOr(Schema.String),
  log: Schema.String
})
export type Process = typeof Process.Type

/** The launcher's pid file (examples/split-deployment/src/RunState.ts). */
export const RunState = Schema.Struct({
  started_at: Schema.String,
  balancer_url: Schema.String,
  database: Schema.String,
  region: Schema.String,
  processes: Schema.Array(Process)
})
export type RunState = typeof RunState.Type

/** The secrets the launcher made (examples/split-deployment/src/Secrets.ts), as far as a test needs them. */
const Secrets = Schema.Struct({
  fingerprint_salt: Schema.String,
  admin_token: Schema.String,
  metrics_token: Schema.String,
  agents: Schema.Array(Schema.Struct({ id: Schema.String, name: Schema.String }))
})
export type Secrets = typeof Secrets.Type

export interface Ran {
  readonly code: number | null
  readonly output: string
}

export interface SplitExample {
  readonly dir: string
  readonly state: RunState
  readonly secrets: Secrets
  /** What `start` printed. */
  readonly startOutput: string
  /** The process of the run named `name` (`api-1`, `worker-2`, `balancer`, `split-agent-1`, ...). */
  readonly process: (name: string) => Process
  /** Runs the example's `stop` command and answers how it ended and what it printed. */
  readonly stop: Effect.Effect<Ran>
  /** Whether the state file is still there. */
  readonly stateFileExists: () => boolean
}

/** Whether a process with this pid runs; a zombie (exited, not yet reaped) counts as gone. */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z"
  } catch {
    return true
  }
}

/** Runs one of the example's commands (`src/bin/<name>.ts`) to its end, killed past `timeoutMs`. */
const run = (name: "start" | "stop", env: Record<string, string>, timeoutMs: number): Effect.Effect<Ran> =>
  Effect.promise(
    () =>
      new Promise<Ran>((resolve) => {
        const child = spawn(process.execPath, ["--import", "tsx", `src/bin/${name}.ts`], {
          cwd: exampleDir,
          env,
          stdio: ["ignore", "pipe", "pipe"]
        })
        let output = ""
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          output += chunk
        })
        child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
          output += chunk
        })
        const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
        child.on("exit", (code) => {
          clearTimeout(timer)
          setImmediate(() => resolve({ code, output }))
        })
      })
  )

const readJson = <A, I>(file: string, schema: Schema.Schema<A, I>): A =>
  Schema.decodeUnknownSync(Schema.parseJson(schema))(fs.readFileSync(file, "utf8"))

/**
 * Starts the example on `databaseUrl` with free ports and `settings` (passed to every process through the
 * launcher's environment); fails with the launcher's output when it does not come up.
 */
export const start = (
  databaseUrl: string,
  settings: Record<string, string>
): Effect.Effect<SplitExample, Error, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "split-example-"))
      const env = {
        PATH: process.env["PATH"] ?? "",
        HOME: process.env["HOME"] ?? "/tmp",
        SPLIT_STATE_DIR: dir,
        SPLIT_DATABASE_URL: databaseUrl,
        SPLIT_PORT: "0",
        ...settings
      }
      const started = yield* run("start", env, 300_000)
      const stateFile = path.join(dir, "state.json")
      // Read before judging the start: a half-started run is stopped by the release below.
      const state = fs.existsSync(stateFile) ? readJson(stateFile, RunState) : undefined
      const example: SplitExample | undefined =
        state === undefined
          ? undefined
          : {
              dir,
              state,
              secrets: readJson(path.join(dir, "secrets.json"), Secrets),
              startOutput: started.output,
              process: (name) => {
                const found = state.processes.find((p) => p.name === name)
                if (found === undefined) throw new Error(`no process ${name} in the run`)
                return found
              },
              stop: run("stop", env, 300_000),
              stateFileExists: () => fs.existsSync(stateFile)
            }
      return { example, started, dir }
    }),
    ({ example, dir }) =>
      Effect.gen(function* () {
        if (example?.stateFileExists()) yield* example.stop
        for (const p of example?.state.processes ?? []) if (alive(p.pid)) process.kill(p.pid, "SIGKILL")
        fs.rmSync(dir, { recursive: true, force: true })
      })
  ).pipe(
    Effect.flatMap(({ example, started }) =>
      started.code === 0 && example !== undefined
        ? Effect.succeed(example)
        : Effect.fail(new Error(`the example did not start (exit ${started.code}):\n${started.output}`))
    )
  )
