/**
 * `pnpm bench:bulk`: the targets issue's two measurements, on PostgreSQL.
 *
 * 1. One `POST /api/v1/targets/bulk` of 10,000 http targets: the wall time of the request (aim under 10 s) and the
 *    server process's peak resident memory (`VmHWM` in /proc, aim under 300 MB) read after the request.
 * 2. `GET /api/v1/targets?tag=<tag>` over those 10,000 targets (100 tags, 100 targets each): latency of
 *    sequential requests, p50 and p99 (aim p99 under 50 ms). Sequential on purpose: it measures the answer's
 *    latency, not the server's throughput under a queue.
 *
 * The same run measures a baseline for each, so the figures can be read against the machine: a bulk create of 100
 * targets (scaled ×100, to show whether the 10,000 cost is linear), and `GET /healthz` latency sequentially (the
 * floor of any request on this machine and connection).
 *
 * The server is the built bundle (`dist/main.js`, made by `tsup` in the `bench:bulk` script) run by plain node, as
 * in production, in a child process on a fresh PostgreSQL database (created here, dropped at the end) at
 * `BENCH_POSTGRES_URL` (default `postgres://postgres@127.0.0.1:5432/postgres`, the server to create it on). The
 * user signs up by magic link (mail to a catcher in this process), mints a token and gets `max_targets` and the
 * read budget raised through the operator surface, as `bench-user.ts` describes. Every answer is checked; any
 * failure fails the run. Results go to stdout and `.bench/bulk.json`.
 *
 * Env: `BENCH_BULK_COUNT` (default 10000), `BENCH_LIST_REQUESTS` (default 500), `BENCH_NODE_OPTIONS` (node flags
 * for the server, to study its memory: with `--max-old-space-size=160` the same bulk peaks near 255 MB, so most of
 * the default run's peak is garbage V8 has not yet collected, not data the request holds).
 */
import { randomBytes } from "node:crypto"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import { PgClient } from "@effect/sql-pg"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { makeBenchUser, type SmtpCatcher, startSmtpCatcher } from "./bench-user.js"
import { HOST, type Running, serverDir, start, stopAll } from "./children.js"
import { fmt, gitCommit, machine, positiveInt } from "./report.js"

const outFile = path.join(serverDir, ".bench", "bulk.json")
const AIM_BULK_SECS = 10
const AIM_RSS_MB = 300
const AIM_LIST_P99_MS = 50
const TAGS = 100
const REQUEST_TIMEOUT_MS = 120_000

const adminUrl = process.env["BENCH_POSTGRES_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres"

const withAdmin = (statement: string) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.flatMap(PgClient.make({ url: Redacted.make(adminUrl), maxConnections: 1 }), (sql) => sql.unsafe(statement))
    ).pipe(Effect.provide(Reactivity.layer))
  )

/** Peak and current resident set of a process, in MB, from /proc (Linux). */
const memoryOf = (pid: number): { readonly peakMb: number; readonly currentMb: number } => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN)
  return { peakMb: kb("VmHWM") / 1024, currentMb: kb("VmRSS") / 1024 }
}

const quantile = (sorted: ReadonlyArray<number>, q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN

interface Client {
  readonly call: (method: string, path: string, body?: unknown) => Promise<{ status: number; text: string }>
}

const clientFor = (running: Running, token: string, orgSlug: string | undefined): Client => ({
  call: async (method, urlPath, body) => {
    const response = await fetch(`${running.origin}${urlPath}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(orgSlug === undefined ? {} : { "x-signalman-org": orgSlug }),
        ...(body === undefined ? {} : { "content-type": "application/json" })
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS)
    })
    return { status: response.status, text: await response.text() }
  }
})

const expect = (what: string, reply: { status: number; text: string }, status: number) => {
  if (reply.status !== status) throw new Error(`${what}: expected ${status}, got ${reply.status}: ${reply.text}`)
}

const targets = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, i) => ({
    name: `${prefix}-${i}`,
    check: { type: "http", url: `https://svc-${i}.example.com/health` },
    tags: [`tag-${i % TAGS}`, prefix]
  }))

const bulkCreate = async (client: Client, count: number, prefix: string): Promise<number> => {
  const body = { targets: targets(count, prefix) }
  const started = performance.now()
  const reply = await client.call("POST", "/api/v1/targets/bulk", body)
  const seconds = (performance.now() - started) / 1000
  expect(`POST /api/v1/targets/bulk (${count})`, reply, 201)
  const data = (JSON.parse(reply.text) as { data: ReadonlyArray<{ name: string }> }).data
  if (data.length !== count || data[count - 1]?.name !== `${prefix}-${count - 1}`) {
    throw new Error(`bulk create of ${count} answered ${data.length} targets or out of order`)
  }
  return seconds
}

const latencies = async (n: number, request: () => Promise<void>): Promise<ReadonlyArray<number>> => {
  const samples: Array<number> = []
  for (let i = 0; i < n; i++) {
    const started = performance.now()
    await request()
    samples.push(performance.now() - started)
  }
  return samples.sort((a, b) => a - b)
}

const main = async (): Promise<number> => {
  const count = positiveInt("BENCH_BULK_COUNT", 10_000)
  const listRequests = positiveInt("BENCH_LIST_REQUESTS", 500)
  const database = `sm_bench_bulk_${Date.now().toString(36)}`
  const adminToken = randomBytes(24).toString("hex")
  let catcher: SmtpCatcher | undefined
  await withAdmin(`CREATE DATABASE ${database}`)
  try {
    catcher = await startSmtpCatcher(HOST)
    const url = new URL(adminUrl)
    url.pathname = `/${database}`
    const running = await start({
      name: "signalman",
      description: "Signalman on PostgreSQL",
      // The built bundle, as production runs it: memory is part of the aim, and tsx's in-memory compiler is not.
      script: "dist/main.js",
      readyPath: "/readyz",
      env: {
        DATABASE_URL: url.href,
        OPERATOR__ADMIN_TOKEN: adminToken,
        MAIL__SMTP_URL: catcher.url,
        AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0",
        LOG__LEVEL: "warn",
        ...(process.env["BENCH_NODE_OPTIONS"] === undefined ? {} : { NODE_OPTIONS: process.env["BENCH_NODE_OPTIONS"] })
      }
    })
    const user = await makeBenchUser(running.origin, catcher, adminToken, `bulk-${Date.now()}@example.com`)
    const raised = await fetch(`${running.origin}/operator/accounts/${user.accountId}/overrides`, {
      method: "PUT",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ max_targets: count + 1_000 })
    })
    expect("PUT /operator/accounts/:id/overrides", { status: raised.status, text: await raised.text() }, 200)
    const unbound = clientFor(running, user.token, undefined)
    const me = await unbound.call("GET", "/api/v1/me")
    expect("GET /api/v1/me", me, 200)
    // The header names the org by its slug.
    const orgSlug = (JSON.parse(me.text) as { orgs: ReadonlyArray<{ slug: string }> }).orgs[0]?.slug
    if (orgSlug === undefined) throw new Error("the bench user has no org")
    const client = clientFor(running, user.token, orgSlug)

    const before = memoryOf(running.pid)
    const baselineSecs = await bulkCreate(client, 100, "warm")
    const bulkSecs = await bulkCreate(client, count, "bulk")
    const after = memoryOf(running.pid)

    const list = await latencies(listRequests, async () => {
      const reply = await client.call("GET", `/api/v1/targets?tag=tag-${Math.floor(Math.random() * TAGS)}&limit=50`)
      expect("GET /api/v1/targets?tag=", reply, 200)
      const page = JSON.parse(reply.text) as { total: number; data: ReadonlyArray<unknown> }
      if (page.total !== count / TAGS + 1 && page.total !== count / TAGS) {
        throw new Error(`tag filter answered total ${page.total}`)
      }
    })
    const healthz = await latencies(listRequests, async () => {
      const response = await fetch(`${running.origin}/healthz`)
      await response.text()
      if (response.status !== 200) throw new Error(`/healthz answered ${response.status}`)
    })
    await stopAll()

    const result = {
      commit: gitCommit(),
      machine: machine(),
      database: "postgresql",
      bulk: {
        targets: count,
        seconds: bulkSecs,
        aimSeconds: AIM_BULK_SECS,
        baseline100Seconds: baselineSecs,
        linearRatio: bulkSecs / (baselineSecs * (count / 100)),
        peakRssMb: after.peakMb,
        rssBeforeMb: before.currentMb,
        aimRssMb: AIM_RSS_MB
      },
      tagList: {
        requests: listRequests,
        p50Ms: quantile(list, 0.5),
        p99Ms: quantile(list, 0.99),
        aimP99Ms: AIM_LIST_P99_MS,
        healthzP50Ms: quantile(healthz, 0.5),
        healthzP99Ms: quantile(healthz, 0.99)
      }
    }
    mkdirSync(path.dirname(outFile), { recursive: true })
    writeFileSync(outFile, `${JSON.stringify(result, null, 2)}\n`)
    const met = (ok: boolean) => (ok ? "met" : "NOT met")
    const lines = [
      `bulk create of ${fmt(count)} http targets (PostgreSQL): ${fmt(bulkSecs, 2)} s ` +
        `(aim < ${AIM_BULK_SECS} s: ${met(bulkSecs < AIM_BULK_SECS)}); 100 targets took ${fmt(baselineSecs, 3)} s, ` +
        `so ${fmt(count)} cost ${fmt(result.bulk.linearRatio, 2)}× the linear extrapolation`,
      `server peak RSS ${fmt(after.peakMb)} MB (aim < ${AIM_RSS_MB} MB: ${met(after.peakMb < AIM_RSS_MB)}); ` +
        `${fmt(before.currentMb)} MB before the bulk`,
      `tag-filtered list over ${fmt(count)} targets, ${listRequests} sequential requests: p50 ` +
        `${fmt(result.tagList.p50Ms, 1)} ms, p99 ${fmt(result.tagList.p99Ms, 1)} ms (aim p99 < ${AIM_LIST_P99_MS} ms: ` +
        `${met(result.tagList.p99Ms < AIM_LIST_P99_MS)}); /healthz on the same connection: p50 ` +
        `${fmt(result.tagList.healthzP50Ms, 1)} ms, p99 ${fmt(result.tagList.healthzP99Ms, 1)} ms`,
      `written to ${path.relative(process.cwd(), outFile)}`
    ]
    process.stdout.write(`${lines.join("\n")}\n`)
    return 0
  } finally {
    await stopAll()
    await catcher?.close()
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
