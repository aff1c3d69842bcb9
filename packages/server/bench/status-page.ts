/**
 * `pnpm --filter @signalman/server bench:status-page`: requests per second of a public status page against
 * `/healthz` of the same Signalman process, in the same run. One server (role api, on a fresh PostgreSQL database),
 * a page of 50 components with 90 days of daily rollups and a few incidents inserted by SQL, and wrk on loopback
 * (50 connections) alternating between `/healthz`, `GET /api/public/v1/status?page=` and the HTML page `/p/<slug>`
 * (identity, and gzip as browsers ask). The aim: each public route at least 0.5 of `/healthz`. Every answer is
 * checked against the representation read before the run; a failed answer fails the run.
 *
 * Needs wrk (`apt-get install -y wrk`, `brew install wrk`): a JavaScript generator on the same two cores saturates
 * before the server on the 135 KiB page (see docs/status-pages.md, "Benchmark").
 *
 * Env: `BENCH_DURATION_SECS` (per round, default 6), `BENCH_ROUNDS` (default 2), `BENCH_WRK_THREADS` (default 1),
 * `BENCH_POSTGRES_URL` (the server to create the bench database on, default
 * `postgres://postgres@127.0.0.1:5432/postgres`), `BENCH_CPU_PROF_DIR` (a V8 CPU profile of the server). Results go
 * to stdout and `.bench/status-page.json`.
 */
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdirSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { gunzipSync } from "node:zlib"
import { startSmtpCatcher } from "./bench-user.js"
import { HOST, serverDir, start, stopAll } from "./children.js"
import { cpuSeconds, fmt, gitCommit, machine, median, positiveInt } from "./report.js"
import * as Wrk from "./wrk.js"

const AIM = 0.5
const CONNECTIONS = 50
// A strong ETag as `PublicBytes` makes them (27 base64url characters, a coding suffix), as a Lua pattern.
const ETAG_FORM = '^"[%w_-]+"$'
const COMPONENTS = 50
const DAYS = 90
const SLUG = "bench"
const ADMIN = randomBytes(24).toString("hex")
const outFile = path.join(serverDir, ".bench", "status-page.json")

const admin = new URL(process.env["BENCH_POSTGRES_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres")
const dbName = `signalman_bench_status_${randomBytes(4).toString("hex")}`
const dbUrl = new URL(admin.href)
dbUrl.pathname = `/${dbName}`

const psql = (url: URL, sql: string) =>
  execFileSync("psql", [url.href, "-v", "ON_ERROR_STOP=1", "-q", "-c", sql], { encoding: "utf8" })

const seed = (orgId: string, accountId: string) =>
  psql(
    dbUrl,
    `
    WITH t AS (
      INSERT INTO targets (id, org_id, account_id, name, kind, check_spec, interval_secs, enabled, tags, alerts,
        alert_confirmations, notify_recovery, renotify_interval_secs, recovery_period_secs, region_policy, regions,
        write_source)
      SELECT gen_random_uuid(), '${orgId}', '${accountId}', 'service-' || n, 'http',
        jsonb_build_object('type', 'http', 'url', 'https://svc' || n || '.example.com'), 60, false, '{}', '[]', 2,
        true, 3600, 0, '"majority"', '{local}', 'api'
      FROM generate_series(1, ${COMPONENTS}) AS n RETURNING id, name
    ), p AS (
      INSERT INTO status_pages (id, org_id, account_id, slug, name, published, public_locale, branding, write_source)
      VALUES (gen_random_uuid(), '${orgId}', '${accountId}', '${SLUG}', 'Bench status', true, 'en',
        '{"primary_color":"#2563eb","theme":"auto","hide_powered_by":false}', 'api')
      RETURNING id
    ), c AS (
      INSERT INTO status_page_components (page_id, target_id, public_name, public_group, sort_order)
      SELECT p.id, t.id, 'Service ' || substr(t.name, 9), 'Group ' || (substr(t.name, 9)::int % 5), substr(t.name, 9)::int
      FROM t, p RETURNING target_id
    ), r AS (
      INSERT INTO result_rollups_daily (target_id, region, bucket, checks, up, degraded, down, errors, up_secs,
        down_secs, duration_sum, dns_sum, dns_n, connect_sum, connect_n, tls_sum, tls_n, first_byte_sum,
        first_byte_n, histogram)
      SELECT c.target_id, 'local', date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - d * interval '1 day',
        1440, 1430, 5, 5, 0, 86100, 300, 1440 * 40, 0, 0, 0, 0, 0, 0, 0, 0, '{}'
      FROM c, generate_series(0, ${DAYS - 1}) AS d RETURNING target_id
    )
    INSERT INTO incidents (id, org_id, target_id, origin, number, title, public_title, impact, counts_as_downtime,
      started_at, ended_at)
    SELECT gen_random_uuid(), '${orgId}', c.target_id, 'monitor', 1, NULL, 'Elevated errors', 'partial_outage', true,
      now() - interval '3 days', now() - interval '3 days' + interval '40 minutes'
    FROM (SELECT DISTINCT target_id FROM c LIMIT 5) c;
    `
  )

interface Subject {
  readonly label: string
  readonly path: string
  /** Request headers (the compressed subject asks as browsers do). */
  readonly headers: Readonly<Record<string, string>>
  /** Whether the answer read before the run is the right one; every answer of the run must then be that answer. */
  readonly verify: (reference: Reference) => boolean
  /**
   * A Lua pattern for the one part of the body that changes from one cache window to the next (with it the ETag):
   * answers must then equal the reference but for that part, and carry an ETag of the same form.
   */
  readonly vary?: string
}

/** One answer as it came off the wire: status, headers, and the body undecoded. */
interface Reference {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: Buffer
}

const read = (url: string, headers: Readonly<Record<string, string>>) =>
  new Promise<Reference>((resolve, reject) => {
    http
      .get(url, { headers }, (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) })
        )
      })
      .on("error", reject)
  })

const one = (headers: http.IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name]
  return typeof value === "string" ? value : undefined
}

/**
 * What every answer of a subject must be: the reference's body byte for byte, its Content-Type, Content-Length,
 * ETag and Content-Encoding (or none), which the request id aside are all the headers that name the representation.
 */
const expectedOf = (reference: Reference, vary: string | undefined): Wrk.Expected => {
  const present: Record<string, string> = {}
  const patterns: Record<string, string> = {}
  const absent: Array<string> = []
  // Content-Length is checked against each answer's own body by the script.
  for (const name of ["content-type", "etag", "content-encoding"]) {
    const value = one(reference.headers, name)
    if (value === undefined) absent.push(name)
    else if (name === "etag" && vary !== undefined) patterns[name] = ETAG_FORM
    else present[name] = value
  }
  if (one(reference.headers, "content-length") !== String(reference.body.length)) {
    throw new Error(
      `Content-Length ${one(reference.headers, "content-length")} of a ${reference.body.length}-byte body`
    )
  }
  return { body: reference.body, present, patterns, absent, vary }
}

const main = async () => {
  const seconds = positiveInt("BENCH_DURATION_SECS", 6)
  const rounds = positiveInt("BENCH_ROUNDS", 2)
  const threads = positiveInt("BENCH_WRK_THREADS", 1)
  const wrkVersion = Wrk.ensureWrk()
  psql(admin, `CREATE DATABASE ${dbName}`)
  const catcher = await startSmtpCatcher(HOST)
  try {
    const running = await start({
      name: "signalman",
      description: "Signalman, role api, PostgreSQL",
      script: "src/main.ts",
      readyPath: "/readyz",
      env: {
        DATABASE_URL: dbUrl.href,
        ROLE: "api",
        LOG__LEVEL: "warn",
        MAIL__SMTP_URL: catcher.url,
        AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0",
        OPERATOR__ADMIN_TOKEN: ADMIN
      }
    })
    const email = `bench-status-${randomBytes(4).toString("hex")}@example.com`
    const { makeBenchUser } = await import("./bench-user.js")
    const user = await makeBenchUser(running.origin, catcher, ADMIN, email)
    const me = (await (
      await fetch(`${running.origin}/api/v1/me`, { headers: { authorization: `Bearer ${user.token}` } })
    ).json()) as { orgs: Array<{ id: string }> }
    const orgId = me.orgs[0]?.id
    if (orgId === undefined) throw new Error("bench user has no org")
    seed(orgId, user.accountId)

    const status = await (await fetch(`${running.origin}/api/public/v1/status?page=${SLUG}`)).json()
    const components = (status as { components: Array<unknown> }).components.length
    if (components !== COMPONENTS) throw new Error(`the page shows ${components} components, not ${COMPONENTS}`)
    const html = await (await fetch(`${running.origin}/p/${SLUG}`)).text()
    const subjects: ReadonlyArray<Subject> = [
      {
        label: "/healthz",
        path: "/healthz",
        headers: {},
        verify: (r) => r.body.toString("utf8") === '{"status":"ok"}'
      },
      {
        label: "GET /api/public/v1/status?page=",
        path: `/api/public/v1/status?page=${SLUG}`,
        headers: {},
        vary: '"generated_at":"[^"]*"',
        verify: (r) => {
          const body = r.body.toString("utf8")
          return body.startsWith('{"page":{"id":') && body.endsWith("}") && one(r.headers, "etag") !== undefined
        }
      },
      {
        label: "GET /p/<slug> (HTML)",
        path: `/p/${SLUG}`,
        headers: {},
        verify: (r) => {
          const body = r.body.toString("utf8")
          return body === html && body.startsWith("<!doctype html>") && body.endsWith("</html>")
        }
      },
      {
        label: "GET /p/<slug> (HTML, gzip as browsers ask)",
        path: `/p/${SLUG}`,
        headers: { "accept-encoding": "gzip" },
        verify: (r) => one(r.headers, "content-encoding") === "gzip" && gunzipSync(r.body).toString("utf8") === html
      }
    ]
    const expected = new Map<string, Wrk.Expected>()
    for (const subject of subjects) {
      const reference = await read(`${running.origin}${subject.path}`, subject.headers)
      if (reference.status !== 200 || !subject.verify(reference)) {
        throw new Error(
          `${subject.label}: the answer read before the run is not the expected one (status ${reference.status}, ` +
            `headers ${JSON.stringify(reference.headers)}, body ${JSON.stringify(reference.body.subarray(0, 120).toString("utf8"))})`
        )
      }
      expected.set(subject.label, expectedOf(reference, subject.vary))
    }
    const gzipped = subjects.find((s) => s.headers["accept-encoding"] === "gzip")
    const gzipBytes = gzipped === undefined ? 0 : (expected.get(gzipped.label)?.body.length ?? 0)
    const load = (subject: Subject, seconds: number): Promise<Wrk.Round> => {
      const wanted = expected.get(subject.label)
      if (wanted === undefined) throw new Error(`no reference for ${subject.label}`)
      return Wrk.run({
        url: `${running.origin}${subject.path}`,
        headers: subject.headers,
        expected: wanted,
        seconds,
        connections: CONNECTIONS,
        threads
      })
    }

    // The checks must be able to fail: one second against /healthz expecting a changed body, then a changed header,
    // must find every answer wrong, else the script checks nothing and the run stops here.
    const healthzExpected = expected.get("/healthz")
    if (healthzExpected === undefined) throw new Error("no reference for /healthz")
    const wrongBody = Buffer.from(healthzExpected.body)
    wrongBody[wrongBody.length - 2] = 0x21
    for (const [what, wrong] of [
      ["a changed body", { ...healthzExpected, body: wrongBody }],
      ["a changed header", { ...healthzExpected, present: { ...healthzExpected.present, "content-type": "text/x-no" } }]
    ] as const) {
      const canary = await Wrk.run({
        url: `${running.origin}/healthz`,
        headers: {},
        expected: wrong,
        seconds: 1,
        connections: 2,
        threads: 1
      })
      if (canary.requests === 0 || canary.mismatches !== canary.requests) {
        throw new Error(`the answer checks missed ${what}: ${canary.mismatches} of ${canary.requests} answers failed`)
      }
    }

    // Warm-up rounds are checked like the measured ones: a failure anywhere fails the run.
    const problems: Array<string> = []
    let failures = 0
    const check = (label: string, round: Wrk.Round) => {
      const n = Wrk.failuresOf(round)
      if (n === 0) return
      failures += n
      problems.push(
        `${label}: ${n} failed of ${round.requests} (statuses ${JSON.stringify(round.statuses)}, errors ${JSON.stringify(round.errors)}, mismatches ${round.mismatches}, unchecked ${round.unchecked}${round.firstMismatch === null ? "" : `, first: ${JSON.stringify(round.firstMismatch)}`})`
      )
    }
    for (const subject of subjects) check(`warm-up ${subject.label}`, await load(subject, 2))
    const figures = new Map<string, Array<number>>(subjects.map((s) => [s.label, []]))
    // CPU of the server and of the load generator during each round, in cores (1 = one core busy all round).
    const cpu = new Map<string, Array<{ server: number; generator: number }>>(subjects.map((s) => [s.label, []]))
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? subjects : [...subjects].reverse()
      for (const subject of order) {
        const server0 = cpuSeconds(running.pid).own
        const self0 = cpuSeconds("self")
        const t0 = performance.now()
        const result = await load(subject, seconds)
        const elapsed = (performance.now() - t0) / 1000
        const self1 = cpuSeconds("self")
        const used = {
          server: (cpuSeconds(running.pid).own - server0) / elapsed,
          generator: (self1.own - self0.own + self1.reapedChildren - self0.reapedChildren) / elapsed
        }
        cpu.get(subject.label)?.push(used)
        check(`round ${round + 1} ${subject.label}`, result)
        figures.get(subject.label)?.push(result.rps)
        process.stdout.write(
          `round ${round + 1} ${subject.label}: ${fmt(result.rps)} req/s (CPU: server ${fmt(used.server, 2)}, generator ${fmt(used.generator, 2)} cores)\n`
        )
      }
    }
    const healthz = median(figures.get("/healthz") ?? [])
    const cpuOf = (label: string) => {
      const used = cpu.get(label) ?? []
      return {
        server_cores: median(used.map((u) => u.server)),
        generator_cores: median(used.map((u) => u.generator))
      }
    }
    const results = subjects.slice(1).map((s) => {
      const rps = median(figures.get(s.label) ?? [])
      return { route: s.label, rps, ratio: rps / healthz, aim: AIM, met: rps / healthz >= AIM, cpu: cpuOf(s.label) }
    })
    const report = {
      measured_at: new Date().toISOString(),
      commit: gitCommit(),
      machine: machine(),
      page: { components: COMPONENTS, days: DAYS, html_bytes: Buffer.byteLength(html), html_gzip_bytes: gzipBytes },
      load_generator: { tool: wrkVersion, threads, connections: CONNECTIONS },
      seconds,
      rounds,
      healthz_rps: healthz,
      healthz_cpu: cpuOf("/healthz"),
      results,
      failures,
      problems
    }
    mkdirSync(path.dirname(outFile), { recursive: true })
    writeFileSync(outFile, `${JSON.stringify(report, null, 2)}\n`)
    process.stdout.write(`\n/healthz: ${fmt(healthz)} req/s (median)\n`)
    for (const r of results) {
      process.stdout.write(
        `${r.route}: ${fmt(r.rps)} req/s, ratio ${fmt(r.ratio, 2)} (aim ${AIM}: ${r.met ? "met" : "NOT met"})\n`
      )
    }
    process.stdout.write(
      `HTML page: ${fmt(report.page.html_bytes / 1024)} KiB (${fmt(gzipBytes / 1024)} KiB gzipped); failed requests: ${failures}\n`
    )
    for (const problem of problems) process.stderr.write(`FAILED ${problem}\n`)
    // A failed answer fails the run; the aim not being met is reported, not a failure.
    if (failures > 0) process.exitCode = 1
  } finally {
    await stopAll()
    await Promise.race([catcher.close(), new Promise((r) => setTimeout(r, 2_000))])
    try {
      psql(admin, `DROP DATABASE IF EXISTS ${dbName}`)
    } catch {
      // Left for the next run to ignore; the name is unique.
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench:status-page failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`
  )
  process.exitCode = 1
})
