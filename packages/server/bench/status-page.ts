/**
 * `pnpm --filter @signalman/server bench:status-page`: requests per second of a public status page against
 * `/healthz` of the same Signalman process, in the same run. One server (role api, on a fresh PostgreSQL database),
 * a page of 50 components with 90 days of daily rollups and a few incidents inserted by SQL, and autocannon on
 * loopback (50 connections) alternating between `/healthz`, `GET /api/public/v1/status?page=` and the HTML page
 * `/p/<slug>`. The aim: each public route at least 0.5 of `/healthz`. A failed request fails the run.
 *
 * Env: `BENCH_DURATION_SECS` (per round, default 6), `BENCH_ROUNDS` (default 2), `BENCH_POSTGRES_URL` (the server
 * to create the bench database on, default `postgres://postgres@127.0.0.1:5432/postgres`). Results go to stdout and
 * `.bench/status-page.json`.
 */
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdirSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { gunzipSync } from "node:zlib"
import autocannon from "autocannon"
import { startSmtpCatcher } from "./bench-user.js"
import { HOST, serverDir, start, stopAll } from "./children.js"
import { cpuSeconds, fmt, gitCommit, machine, median, positiveInt } from "./report.js"

const AIM = 0.5
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
  /** A property every answer's body must have (the status is checked apart: every answer must be 200). */
  readonly verify: (body: string) => boolean
  /** Request headers (the compressed subject asks as browsers do). */
  readonly headers?: Readonly<Record<string, string>>
  /**
   * For a binary (compressed) body, which autocannon hands over decoded as text: the answer's headers are checked
   * instead (the representation's ETag, encoding and length, so every answer is the cached compressed page).
   */
  readonly verifyHeaders?: (headers: http.IncomingHttpHeaders) => boolean
}

/** One measurement, and every way its answers fell short: none is allowed. */
interface Round {
  readonly rps: number
  readonly requests: number
  /** Answers by status code; anything but 200 is a failure. */
  readonly statuses: Readonly<Record<string, number>>
  /** Socket errors and timeouts by message (autocannon counts a timeout as an error too: counted once here). */
  readonly errors: Readonly<Record<string, number>>
  /** 200 answers whose body failed `verify`, and the start of the first such body. */
  readonly mismatches: number
  readonly firstMismatch: string | null
}

const failuresOf = (round: Round): number =>
  Object.entries(round.statuses).reduce((n, [code, count]) => (code === "200" ? n : n + count), 0) +
  Object.values(round.errors).reduce((n, count) => n + count, 0) +
  round.mismatches

const run = (origin: string, subject: Subject, seconds: number) =>
  new Promise<Round>((resolve, reject) => {
    let mismatches = 0
    let firstMismatch: string | null = null
    const errors: Record<string, number> = {}
    const instance = autocannon(
      {
        url: `${origin}${subject.path}`,
        connections: 50,
        pipelining: 1,
        duration: seconds,
        timeout: 10,
        ...(subject.headers === undefined ? {} : { headers: { ...subject.headers } }),
        ...(subject.verifyHeaders === undefined
          ? {
              verifyBody: (received: unknown) => {
                const ok = typeof received === "string" && subject.verify(received)
                if (!ok) {
                  mismatches++
                  firstMismatch ??= typeof received === "string" ? received.slice(0, 200) : String(received)
                }
                return ok
              }
            }
          : {
              requests: [
                {
                  method: "GET",
                  path: subject.path,
                  onResponse: (status: number, _body: string, _context: object, headers?: http.IncomingHttpHeaders) => {
                    if (status !== 200) return
                    if (headers === undefined || subject.verifyHeaders?.(headers) !== true) {
                      mismatches++
                      firstMismatch ??= JSON.stringify(headers).slice(0, 200)
                    }
                  }
                }
              ]
            })
      },
      (error, result) => {
        if (error !== null && error !== undefined) return reject(error)
        const statuses: Record<string, number> = {}
        for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = stat.count ?? 0
        resolve({
          rps: result.requests.average,
          requests: result.requests.total,
          statuses,
          errors,
          mismatches,
          firstMismatch
        })
      }
    )
    instance.on("reqError", (error: Error) => {
      errors[error.message] = (errors[error.message] ?? 0) + 1
    })
  })

const main = async () => {
  const seconds = positiveInt("BENCH_DURATION_SECS", 6)
  const rounds = positiveInt("BENCH_ROUNDS", 2)
  psql(admin, `CREATE DATABASE ${dbName}`)
  const catcher = await startSmtpCatcher(HOST)
  try {
    const running = await start({
      name: "signalman",
      description: "Signalman, role api, PostgreSQL",
      script: "src/main.ts",
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
    // The gzip representation as a browser gets it (fetch would decode it, so plain http): its ETag and length.
    const gzipped = await new Promise<{ etag: string; length: string; bytes: number }>((resolve, reject) => {
      http
        .get(`${running.origin}/p/${SLUG}`, { headers: { "accept-encoding": "gzip" } }, (response) => {
          const chunks: Array<Buffer> = []
          response.on("data", (chunk: Buffer) => chunks.push(chunk))
          response.on("end", () => {
            const body = Buffer.concat(chunks)
            if (response.headers["content-encoding"] !== "gzip") return reject(new Error("the page was not gzipped"))
            if (gunzipSync(body).toString("utf8") !== html) return reject(new Error("the gzipped page differs"))
            resolve({
              etag: String(response.headers.etag ?? ""),
              length: String(response.headers["content-length"] ?? ""),
              bytes: body.length
            })
          })
        })
        .on("error", reject)
    })

    const subjects: ReadonlyArray<Subject> = [
      { label: "/healthz", path: "/healthz", verify: (b) => b === '{"status":"ok"}' },
      {
        label: "GET /api/public/v1/status?page=",
        path: `/api/public/v1/status?page=${SLUG}`,
        verify: (b) => b.startsWith('{"page":{"id":') && b.endsWith("}")
      },
      {
        label: "GET /p/<slug> (HTML)",
        path: `/p/${SLUG}`,
        verify: (b) => b.startsWith("<!doctype html>") && b.endsWith("</html>")
      },
      {
        label: "GET /p/<slug> (HTML, gzip as browsers ask)",
        path: `/p/${SLUG}`,
        verify: () => true,
        headers: { "accept-encoding": "gzip" },
        verifyHeaders: (h) =>
          h["content-encoding"] === "gzip" && h["etag"] === gzipped.etag && h["content-length"] === gzipped.length
      }
    ]
    // Warm-up rounds are checked like the measured ones: a failure anywhere fails the run.
    const problems: Array<string> = []
    let failures = 0
    const check = (label: string, round: Round) => {
      const n = failuresOf(round)
      if (n === 0) return
      failures += n
      problems.push(
        `${label}: ${n} failed of ${round.requests} (statuses ${JSON.stringify(round.statuses)}, errors ${JSON.stringify(round.errors)}, body mismatches ${round.mismatches}${round.firstMismatch === null ? "" : `, first: ${JSON.stringify(round.firstMismatch)}`})`
      )
    }
    for (const subject of subjects) check(`warm-up ${subject.label}`, await run(running.origin, subject, 2))
    const figures = new Map<string, Array<number>>(subjects.map((s) => [s.label, []]))
    // CPU of the server and of the load generator during each round, in cores (1 = one core busy all round).
    const cpu = new Map<string, Array<{ server: number; generator: number }>>(subjects.map((s) => [s.label, []]))
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? subjects : [...subjects].reverse()
      for (const subject of order) {
        const server0 = cpuSeconds(running.pid).own
        const self0 = cpuSeconds("self")
        const t0 = performance.now()
        const result = await run(running.origin, subject, seconds)
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
      page: { components: COMPONENTS, days: DAYS, html_bytes: Buffer.byteLength(html), html_gzip_bytes: gzipped.bytes },
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
      `HTML page: ${fmt(report.page.html_bytes / 1024)} KiB (${fmt(gzipped.bytes / 1024)} KiB gzipped); failed requests: ${failures}\n`
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
