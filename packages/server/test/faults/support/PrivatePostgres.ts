/**
 * A PostgreSQL cluster of the test's own, which it can really stop and start again: `initdb` and `pg_ctl` from the
 * machine's PostgreSQL binaries, in a temporary directory, on a free loopback port. The machine's shared server
 * (TestDatabase) cannot be stopped by one test, and a TCP proxy cut (Outage.test.ts) leaves the server running:
 * connections already open stay open behind the proxy. A stopped cluster closes every connection and refuses new
 * ones, as a crashed or restarted database does.
 *
 * PostgreSQL refuses to run as root; this machine and CI run tests as root, so there the binaries run as the
 * `postgres` OS user (`runuser -u postgres --`) on a directory it owns. Without the binaries `available` says why,
 * and the test skips with that reason (`skipUnless`), printed at the end of the run.
 */
import { execFile, execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { TestContext } from "vitest"

declare module "vitest" {
  interface TaskMeta {
    /** Why this test was skipped on this machine, as a whole line (printed by vitest.reporter.ts). */
    skipReason?: string
  }
}

/** The directory of `initdb` and `pg_ctl`: `pg_config --bindir`, else the newest /usr/lib/postgresql/<n>/bin. */
const binDir = (): string | undefined => {
  const has = (dir: string) => fs.existsSync(path.join(dir, "initdb")) && fs.existsSync(path.join(dir, "pg_ctl"))
  try {
    const dir = execFileSync("pg_config", ["--bindir"], { encoding: "utf8" }).trim()
    if (has(dir)) return dir
  } catch {
    // No pg_config on the PATH: look where Debian and Ubuntu put the server.
  }
  const root = "/usr/lib/postgresql"
  if (!fs.existsSync(root)) return undefined
  const versions = fs
    .readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a))
  return versions.map((v) => path.join(root, v, "bin")).find(has)
}

const isRoot = typeof process.getuid === "function" && process.getuid() === 0

/** The uid and gid of the `postgres` OS user, when there is one. */
const postgresUser = (): { readonly uid: number; readonly gid: number } | undefined => {
  try {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim())
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim())
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : undefined
  } catch {
    return undefined
  }
}

/** Why a private cluster cannot run here, or undefined when it can. */
export const unavailable = (): string | undefined => {
  if (binDir() === undefined) {
    return "PostgreSQL fault tests skipped: no initdb/pg_ctl (pg_config --bindir, /usr/lib/postgresql/*/bin)"
  }
  if (isRoot && postgresUser() === undefined) {
    return "PostgreSQL fault tests skipped: running as root and there is no postgres OS user to run the cluster as"
  }
  return undefined
}

/** At the start of a test: skip it, saying why, when no private cluster can run here. */
export const skipUnless = (context: TestContext): void => {
  const reason = unavailable()
  if (reason === undefined) return
  context.task.meta.skipReason = reason
  context.skip(reason)
}

export interface PrivatePostgres {
  /** A connection URL to its `postgres` database (user postgres, trust). */
  readonly url: string
  readonly port: number
  /** `pg_ctl stop -m fast`: open connections are closed, new ones refused, until `start`. */
  readonly stop: Effect.Effect<void>
  /** Starts it again on the same port and directory; answers once it accepts connections. */
  readonly start: Effect.Effect<void>
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = net.createServer()
    probe.on("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = address !== null && typeof address === "object" ? address.port : 0
      probe.close(() => resolve(port))
    })
  })

/**
 * Runs a binary of the cluster, as the postgres user when this is root; rejects with its output on failure. Not
 * synchronous: the test's origins and load run on this event loop while the cluster stops and starts.
 */
const runAs = (bin: string, args: ReadonlyArray<string>): Promise<void> =>
  new Promise((resolve, reject) => {
    const [command, argv] = isRoot ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, [...args]]
    execFile(command, argv, { timeout: 120_000 }, (error, stdout, stderr) =>
      error === null
        ? resolve()
        : reject(new Error(`${path.basename(bin)} failed: ${error.message}\n${stdout}${stderr}`))
    )
  })

const attempt = (run: () => Promise<void>): Effect.Effect<void> => Effect.orDie(Effect.tryPromise(run))

const cluster = Effect.acquireRelease(
  Effect.tryPromise({
    try: async () => {
      const bin = binDir()
      if (bin === undefined) throw new Error(unavailable())
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sm-faults-pg-"))
      const data = path.join(dir, "data")
      if (isRoot) {
        const user = postgresUser()
        if (user === undefined) throw new Error(unavailable())
        fs.chownSync(dir, user.uid, user.gid)
      }
      const port = await freePort()
      await runAs(path.join(bin, "initdb"), ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"])
      // The socket goes in the cluster's own directory (the default one may not be writable for this user). fsync
      // off: a fast stop still checkpoints cleanly, and nothing here survives a machine crash anyway.
      const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`
      const ctl = (args: ReadonlyArray<string>) => runAs(path.join(bin, "pg_ctl"), ["-D", data, ...args])
      const start = () => ctl(["start", "-w", "-t", "60", "-l", path.join(dir, "log"), "-o", options])
      await start()
      return {
        url: `postgres://postgres@127.0.0.1:${port}/postgres`,
        port,
        dir,
        ctl,
        stop: attempt(() => ctl(["stop", "-w", "-m", "fast"])),
        start: attempt(start)
      }
    },
    catch: (error) => (error instanceof Error ? error : new Error(String(error)))
  }),
  (made) =>
    Effect.promise(async () => {
      // Rejected when it is already stopped (a test that failed while it was down): nothing to stop then.
      await made.ctl(["stop", "-w", "-m", "immediate"]).catch(() => undefined)
      fs.rmSync(made.dir, { recursive: true, force: true })
    })
)

/** Makes and starts a cluster; when the scope closes it is stopped and its directory deleted. */
export const make: Effect.Effect<PrivatePostgres, Error, Scope.Scope> = Effect.map(
  cluster,
  ({ url, port, stop, start }) => ({ url, port, stop, start })
)
