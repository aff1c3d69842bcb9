/**
 * `pnpm --filter @signalman/cli bench` (here, beside the server's benches whose helpers it shares): the CLI's two
 * aims, on PostgreSQL.
 *
 * 1. `signalman apply --yes` of a file of 1,000 http monitors (and one channel they alert) to a fresh org: wall
 *    time of the whole command, process start included (aim under 30 s).
 * 2. `signalman plan` of the same file right after: no changes, exit 0 (aim under 5 s).
 *
 * Both run the CLI as a user does, its own process: built (tsup, `@signalman/*` bundled in, as the published package
 * runs on plain node), which the aims judge; and from source (node with tsx, as `pnpm signalman`), whose start
 * compiles the CLI first, for reference (a second org, the same file). The server runs from source in a child
 * process on a fresh database created on `BENCH_POSTGRES_URL` (default `postgres://postgres@127.0.0.1:5432/postgres`)
 * and dropped at the end. Each user signs up by magic link and gets `max_targets` raised through the operator
 * surface (`bench-user.ts`). A `signalman status` run measures the CLI's start alone, to read the figures against.
 * Every exit code and summary line is checked; any failure fails the run. Env: `BENCH_CLI_MONITORS` (default 1000).
 */
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import { PgClient } from "@effect/sql-pg"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { build } from "tsup"
import { makeBenchUser, type SmtpCatcher, startSmtpCatcher } from "./bench-user.js"
import { HOST, serverDir, start, stopAll } from "./children.js"
import { fmt, gitCommit, machine, positiveInt } from "./report.js"

const AIM_APPLY_SECS = 30
const AIM_PLAN_SECS = 5
const cliDir = path.resolve(serverDir, "../cli")
const adminUrl = process.env["BENCH_POSTGRES_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres"

const withAdmin = (statement: string) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.flatMap(PgClient.make({ url: Redacted.make(adminUrl), maxConnections: 1 }), (sql) => sql.unsafe(statement))
    ).pipe(Effect.provide(Reactivity.layer))
  )

interface Timed {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
  readonly secs: number
}

/** How the CLI is started: the built bin on plain node, or the source through tsx. */
type Entry = ReadonlyArray<string>

const fromSource: Entry = ["--import", "tsx", "src/bin.ts"]

/** The CLI built as the published package is (Dist.test.ts builds it the same way), in a directory of its own. */
const buildCli = async (dir: string): Promise<Entry> => {
  const manifest = JSON.parse(await fs.readFile(path.join(cliDir, "package.json"), "utf8")) as {
    dependencies: Record<string, string>
  }
  await fs.symlink(path.join(cliDir, "node_modules"), path.join(dir, "node_modules"), "dir")
  await build({
    entry: [path.join(cliDir, "src/**/*.ts")],
    outDir: path.join(dir, "dist"),
    format: ["esm"],
    target: "node20",
    noExternal: [/^@signalman\//],
    external: Object.keys(manifest.dependencies)
      .filter((name) => !name.startsWith("@signalman/"))
      .map((name) => new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}(/|$)`)),
    splitting: true,
    dts: false,
    sourcemap: false,
    silent: true,
    config: false,
    tsconfig: path.join(cliDir, "tsconfig.json")
  })
  return [path.join(dir, "dist/bin.js")]
}

const signalman = (entry: Entry, args: ReadonlyArray<string>, env: Record<string, string>): Promise<Timed> =>
  new Promise((resolve) => {
    const started = performance.now()
    execFile(
      process.execPath,
      [...entry, ...args],
      {
        cwd: cliDir,
        env: { PATH: process.env["PATH"] ?? "", HOME: os.tmpdir(), ...env },
        timeout: 300_000,
        maxBuffer: 64 * 1024 * 1024
      },
      (error, stdout, stderr) =>
        resolve({
          code: error === null ? 0 : Number(error.code ?? 1),
          stdout,
          stderr,
          secs: (performance.now() - started) / 1000
        })
    )
  })

const expectRun = (what: string, run: Timed, code: number, line: string) => {
  if (run.code !== code || !run.stdout.includes(line)) {
    throw new Error(
      `${what}: exit ${run.code} (wanted ${code}), no "${line}":\n${run.stdout.slice(-2000)}\n${run.stderr.slice(-2000)}`
    )
  }
}

const main = async (): Promise<number> => {
  const count = positiveInt("BENCH_CLI_MONITORS", 1_000)
  const database = `sm_bench_cli_${Date.now().toString(36)}`
  const adminToken = randomBytes(24).toString("hex")
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "signalman-bench-cli-"))
  let catcher: SmtpCatcher | undefined
  await withAdmin(`CREATE DATABASE ${database}`)
  try {
    const mail = await startSmtpCatcher(HOST)
    catcher = mail
    const url = new URL(adminUrl)
    url.pathname = `/${database}`
    const running = await start({
      name: "signalman",
      description: "Signalman on PostgreSQL",
      script: "src/main.ts",
      readyPath: "/readyz",
      env: {
        DATABASE_URL: url.href,
        OPERATOR__ADMIN_TOKEN: adminToken,
        MAIL__SMTP_URL: mail.url,
        AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0",
        LOG__LEVEL: "warn"
      }
    })
    const file = path.join(dir, "signalman.json")
    await fs.writeFile(
      file,
      JSON.stringify({
        project: "bench",
        channels: [{ key: "ops", name: "Ops", kind: "email", config: { addresses: ["ops@bench.example"] } }],
        monitors: Array.from({ length: count }, (_, i) => ({
          key: `m${i}`,
          name: `Monitor ${i}`,
          check: { type: "http", url: `https://bench-${i}.example/health` },
          interval: 3600,
          enabled: false,
          tags: [`tag-${i % 10}`],
          alerts: ["ops"]
        }))
      })
    )
    const cliDist = path.join(dir, "cli")
    await fs.mkdir(cliDist)
    const builtEntry = await buildCli(cliDist)

    // One org per round, each a fresh user: the round applies to an empty org, then plans.
    const round = async (label: string, entry: Entry) => {
      const user = await makeBenchUser(running.origin, mail, adminToken, `cli-${label}-${Date.now()}@example.com`)
      const raised = await fetch(`${running.origin}/operator/accounts/${user.accountId}/overrides`, {
        method: "PUT",
        headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ max_targets: count + 100 })
      })
      if (raised.status !== 200) throw new Error(`PUT overrides: ${raised.status} ${await raised.text()}`)
      // The bench token is not bound to an org: the CLI names it, as a user with such a token does.
      const me = await fetch(`${running.origin}/api/v1/me`, { headers: { authorization: `Bearer ${user.token}` } })
      const orgSlug = ((await me.json()) as { orgs?: ReadonlyArray<{ slug: string }> }).orgs?.[0]?.slug
      if (orgSlug === undefined) throw new Error("the bench user has no org")
      const env = { SIGNALMAN_URL: running.origin, SIGNALMAN_TOKEN: user.token, SIGNALMAN_ORG: orgSlug }
      const status = await signalman(entry, ["status"], env)
      expectRun(`${label}: signalman status`, status, 0, "up and ready")
      const apply = await signalman(entry, ["apply", "--yes", "-c", file], env)
      expectRun(
        `${label}: signalman apply`,
        apply,
        0,
        `Applied: ${count + 1} created, 0 updated, 0 replaced, 0 deleted.`
      )
      const plan = await signalman(entry, ["plan", "-c", file], env)
      expectRun(`${label}: signalman plan`, plan, 0, `(${count + 1} unchanged)`)
      return { status_secs: status.secs, apply_secs: apply.secs, plan_secs: plan.secs }
    }
    const built = await round("built", builtEntry)
    const source = await round("source", fromSource)
    await stopAll()

    const result = {
      benchmark: "cli-plan-apply",
      commit: gitCommit(),
      machine: machine(),
      monitors: count,
      built,
      source,
      aims: { apply_secs: AIM_APPLY_SECS, plan_secs: AIM_PLAN_SECS }
    }
    const outFile = path.join(serverDir, ".bench", "cli-plan-apply.json")
    await fs.mkdir(path.dirname(outFile), { recursive: true })
    await fs.writeFile(outFile, `${JSON.stringify(result, null, 2)}\n`)
    process.stdout.write(
      `${[
        `built CLI (plain node), as published:`,
        `  signalman status (the CLI's start alone): ${fmt(built.status_secs, 1)} s`,
        `  signalman apply --yes, ${count} monitors + 1 channel to a fresh org: ${fmt(built.apply_secs, 1)} s (aim < ${AIM_APPLY_SECS} s)`,
        `  signalman plan, no changes: ${fmt(built.plan_secs, 1)} s (aim < ${AIM_PLAN_SECS} s)`,
        `from source (tsx, as pnpm signalman): status ${fmt(source.status_secs, 1)} s, apply ${fmt(source.apply_secs, 1)} s, plan ${fmt(source.plan_secs, 1)} s`,
        `written to ${path.relative(process.cwd(), outFile)}`
      ].join("\n")}\n`
    )
    return built.apply_secs < AIM_APPLY_SECS && built.plan_secs < AIM_PLAN_SECS ? 0 : 1
  } finally {
    await stopAll()
    await catcher?.close()
    await fs.rm(dir, { recursive: true, force: true })
    await withAdmin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
    process.exit(1)
  }
)
