/**
 * The run's pid file (`state.json` in the state directory): every process the launcher started, with its pid,
 * role, address and log, and where to reach the deployment. `stop` reads it to signal each process; `status` and
 * tests read it to find the balancer and the processes behind it. Written once everything is up; removed by `stop`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Schema from "effect/Schema"
import { statePath } from "./Layout.js"

export const Process = Schema.Struct({
  name: Schema.String,
  role: Schema.Literal("api", "worker", "balancer", "agent"),
  pid: Schema.Int,
  /** `http://host:port` of a process that listens; null for agents. */
  url: Schema.NullOr(Schema.String),
  log: Schema.String
})
export type Process = typeof Process.Type

export const RunState = Schema.Struct({
  started_at: Schema.String,
  /** Where users, the CLI and the agents reach the service. */
  balancer_url: Schema.String,
  /** The database, without its password. */
  database: Schema.String,
  region: Schema.String,
  processes: Schema.Array(Process)
})
export type RunState = typeof RunState.Type

const decode = Schema.decodeUnknownSync(Schema.parseJson(RunState))

/** The state of the run in `dir`, or undefined when none is recorded. */
export const read = (dir: string): RunState | undefined => {
  const file = statePath(dir)
  if (!fs.existsSync(file)) return undefined
  return decode(fs.readFileSync(file, "utf8"))
}

/** Records the run; the processes are appended as they start, so a failed start can still be stopped. */
export const write = (dir: string, state: RunState): void => {
  fs.mkdirSync(dir, { recursive: true })
  const file = statePath(dir)
  fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(state, null, 2)}\n`)
  fs.renameSync(`${file}.tmp`, file)
}

export const remove = (dir: string): void => fs.rmSync(statePath(dir), { force: true })

/** `postgres://user:secret@host/db` shown as `postgres://user@host/db`. */
export const withoutPassword = (url: string): string => {
  const parsed = new URL(url)
  parsed.password = ""
  return parsed.toString()
}

export const relative = (dir: string, file: string): string => path.relative(process.cwd(), path.join(dir, file))
