/**
 * `pnpm --filter @signalman/server bench:dashboard`: the monitors overview (`GET /`) of an org with 1,000 monitors
 * that have results, on the embedded database (what a newcomer runs). One Signalman process (role api: nothing
 * runs checks, so the figures are the page's alone).
 *
 * Setup: a magic-link sign-in (bench/bench-user.ts), operator overrides (max_targets), and one bulk create of 1,000
 * monitors of six kinds through the API; the server is then stopped, its data directory opened with PGlite in this
 * process to insert the history by SQL (30 days of daily partitions with results in each, 6 hours of raw results
 * every 5 minutes, 30 days of hourly and daily rollups, the schedules' latest verdicts, heartbeat and manual
 * states), analyzed, and the server started again on it.
 *
 * Measured: the server's time to first byte and the whole answer over `BENCH_RUNS` requests of each view (after
 * warm-up), median and p95; the bytes sent (the server does not compress; gzip is what a compressing proxy would
 * send); in Chromium (the checks package's browser, as the tests find it) the navigation timing of `/` (response
 * start, DOM interactive, DOMContentLoaded, load); the live stream's delay from a result stored through the API to
 * its row update arriving; and the server's CPU while one tab's stream is open and idle. Results also go to
 * `.bench/dashboard-overview.json`.
 *
 * Env: `BENCH_RUNS` (default 20), `BENCH_BROWSER_RUNS` (default 5), `BENCH_MONITORS` (default 1000).
 */
import { randomBytes } from "node:crypto"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { gzipSync } from "node:zlib"
import { PGlite } from "@electric-sql/pglite"
import * as Browser from "@signalman/checks/Browser"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { makeBenchUser, READS_PER_MINUTE, startSmtpCatcher } from "./bench-user.js"
import { type Running, serverDir, start, stopAll } from "./children.js"
import { cpuSeconds, fmt, gitCommit, machine, median, positiveInt } from "./report.js"

const MONITORS = positiveInt("BENCH_MONITORS", 1000)
const RUNS = positiveInt("BENCH_RUNS", 20)
const BROWSER_RUNS = positiveInt("BENCH_BROWSER_RUNS", 5)
const WARMUP = 3
const IDLE_SECS = 20
const ADMIN = randomBytes(24).toString("hex")
const outFile = path.join(serverDir, ".bench", "dashboard-overview.json")
const log = (line: string) => process.stdout.write(`${line}\n`)

const p95 = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)] ?? 0
}

const TAGS = ["prod", "staging", "eu", "us", "api", "web", "db", "payments"] as const

/** The monitors, a realistic mix of kinds, tags and groups; a few paused. */
const monitors = (n: number) =>
  Array.from({ length: n }, (_, i) => {
    const kind = i % 20
    const check =
      kind < 13
        ? { type: "http", url: `https://svc-${i}.example.com/health` }
        : kind < 15
          ? { type: "tcp", host: `db-${i}.example.com`, port: 5432 }
          : kind < 16
            ? { type: "dns", domain: `d${i}.example.com`, record_type: "A" }
            : kind < 17
              ? { type: "tls_cert", host: `tls-${i}.example.com` }
              : kind < 19
                ? { type: "heartbeat", period: 3600, grace: 300 }
                : { type: "manual" }
    return {
      name: `${["Checkout", "Search", "Login", "Billing", "Catalog"][i % 5]} service ${String(i).padStart(4, "0")}`,
      check,
      // Other kinds keep their own floors and defaults (a certificate is checked hourly at most on the free plan).
      ...(kind < 15 ? { interval: 300 } : {}),
      enabled: i % 50 !== 7,
      tags: [TAGS[i % TAGS.length], TAGS[(i * 3 + 1) % TAGS.length]].filter((t, j, all) => all.indexOf(t) === j),
      group: `Team ${i % 8}`
    }
  })

/** The history, inserted by SQL straight into the stopped server's database. */
const seed = async (dataDir: string) => {
  const db = await PGlite.create(path.join(dataDir, "pg"))
  try {
    const started = Date.now()
    // Thirty days of daily partitions, as thirty days of retention leave them.
    await db.exec(`
      DO $$ DECLARE day date; BEGIN
        FOR i IN 2..31 LOOP
          day := (now() AT TIME ZONE 'UTC')::date - i;
          IF to_regclass('check_results_' || to_char(day, 'YYYYMMDD')) IS NULL THEN
            EXECUTE format('CREATE TABLE %I PARTITION OF check_results FOR VALUES FROM (%L) TO (%L)',
              'check_results_' || to_char(day, 'YYYYMMDD'), (day::timestamp AT TIME ZONE 'UTC'),
              ((day + 1)::timestamp AT TIME ZONE 'UTC'));
          END IF;
        END LOOP;
      END $$;
    `)
    // Six hours of raw results every five minutes (one in fifty down, one in fifty degraded), and one a day before.
    await db.exec(`
      INSERT INTO check_results (target_id, region, checked_at, status, duration_ms, error, details, phases, weight_secs)
      SELECT t.id, 'local', now() - k * interval '5 minutes',
        CASE (k * 7 + abs(hashtext(t.id::text))) % 50 WHEN 0 THEN 'down' WHEN 1 THEN 'degraded' ELSE 'up' END,
        60 + (abs(hashtext(t.id::text || k)) % 400),
        CASE (k * 7 + abs(hashtext(t.id::text))) % 50 WHEN 0 THEN 'expected 2xx, got 502' WHEN 1 THEN 'slow' END,
        '{}'::jsonb, NULL, 300
      FROM targets t, generate_series(0, 71) AS k
      WHERE t.enabled;
      INSERT INTO check_results (target_id, region, checked_at, status, duration_ms, error, details, phases, weight_secs)
      SELECT t.id, 'local', now() - d * interval '1 day', 'up', 120, NULL, '{}'::jsonb, NULL, 300
      FROM targets t, generate_series(1, 29) AS d
      WHERE t.enabled;
    `)
    // Thirty days of rollups, hourly and daily, with a down stretch now and then.
    await db.exec(`
      INSERT INTO result_rollups_hourly (target_id, region, bucket, checks, up, degraded, down, errors, up_secs,
        down_secs, duration_sum, dns_sum, dns_n, connect_sum, connect_n, tls_sum, tls_n, first_byte_sum,
        first_byte_n, histogram)
      SELECT t.id, 'local', date_trunc('hour', now()) - h * interval '1 hour', 12,
        CASE WHEN (h + abs(hashtext(t.id::text))) % 97 = 0 THEN 10 ELSE 12 END, 0,
        CASE WHEN (h + abs(hashtext(t.id::text))) % 97 = 0 THEN 2 ELSE 0 END, 0,
        CASE WHEN (h + abs(hashtext(t.id::text))) % 97 = 0 THEN 3000 ELSE 3600 END,
        CASE WHEN (h + abs(hashtext(t.id::text))) % 97 = 0 THEN 600 ELSE 0 END,
        12 * (150 + 80 * sin(h / 4.0)), 0, 0, 0, 0, 0, 0, 0, 0, '{}'
      FROM targets t, generate_series(0, 719) AS h
      WHERE t.enabled;
      INSERT INTO result_rollups_daily (target_id, region, bucket, checks, up, degraded, down, errors, up_secs,
        down_secs, duration_sum, dns_sum, dns_n, connect_sum, connect_n, tls_sum, tls_n, first_byte_sum,
        first_byte_n, histogram)
      SELECT t.id, 'local', date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - d * interval '1 day',
        288, 286, 0, 2, 0, 85800, 600, 288 * 150, 0, 0, 0, 0, 0, 0, 0, 0, '{}'
      FROM targets t, generate_series(0, 30) AS d
      WHERE t.enabled;
    `)
    // The latest verdicts where the engine keeps them.
    await db.exec(`
      UPDATE schedules s SET last_status = (
        SELECT r.status FROM check_results r WHERE r.target_id = s.target_id ORDER BY r.checked_at DESC LIMIT 1
      );
      UPDATE heartbeat_states SET verdict = 'up', first_ping_at = now() - interval '30 days',
        last_ping_at = now() - interval '10 minutes', last_success_at = now() - interval '10 minutes';
      INSERT INTO manual_states (target_id, status, note, set_at)
      SELECT id, CASE WHEN abs(hashtext(id::text)) % 5 = 0 THEN 'degraded' ELSE 'up' END, NULL, now() - interval '1 day'
      FROM targets WHERE kind = 'manual'
      ON CONFLICT (target_id) DO NOTHING;
      ANALYZE;
    `)
    const counted = await db.query<{ results: number; hourly: number }>(
      `SELECT (SELECT count(*)::int FROM check_results) AS results,
        (SELECT count(*)::int FROM result_rollups_hourly) AS hourly`
    )
    const row = counted.rows[0]
    log(
      `seeded ${fmt(row?.results ?? 0)} results and ${fmt(row?.hourly ?? 0)} hourly rollups in ${fmt(
        (Date.now() - started) / 1000,
        1
      )} s`
    )
  } finally {
    await db.close()
  }
}

interface Fetched {
  readonly status: number
  readonly ttfbMs: number
  readonly totalMs: number
  readonly body: Buffer
}

/** One GET with the session, timed from the request to its first byte and to its end. */
const get = (origin: string, pathname: string, cookie: string) =>
  new Promise<Fetched>((resolve, reject) => {
    const startedAt = performance.now()
    let ttfbMs = 0
    const request = http.get(`${origin}${pathname}`, { headers: { cookie }, agent: false }, (response) => {
      const chunks: Array<Buffer> = []
      response.once("data", () => {
        ttfbMs = performance.now() - startedAt
      })
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          ttfbMs,
          totalMs: performance.now() - startedAt,
          body: Buffer.concat(chunks)
        })
      )
    })
    request.on("error", reject)
  })

interface ViewFigures {
  readonly label: string
  readonly path: string
  readonly rows: number
  readonly ttfb: { readonly median: number; readonly p95: number }
  readonly total: { readonly median: number; readonly p95: number }
  /** The server process's CPU per request (user and system), steadier than wall time on a shared machine. */
  readonly cpuMs: number
  readonly bytes: number
  readonly gzipBytes: number
}

const measureView = async (running: Running, cookie: string, label: string, pathname: string): Promise<ViewFigures> => {
  const origin = running.origin
  const ttfb: Array<number> = []
  const total: Array<number> = []
  let last: Fetched | undefined
  let cpuFrom = 0
  for (let i = 0; i < WARMUP + RUNS; i++) {
    if (i === WARMUP) cpuFrom = cpuSeconds(running.pid).own
    const fetched = await get(origin, pathname, cookie)
    if (fetched.status !== 200)
      throw new Error(`${pathname}: ${fetched.status} ${fetched.body.toString().slice(0, 300)}`)
    if (i >= WARMUP) {
      ttfb.push(fetched.ttfbMs)
      total.push(fetched.totalMs)
    }
    last = fetched
  }
  const cpuMs = ((cpuSeconds(running.pid).own - cpuFrom) * 1000) / RUNS
  const body = last?.body ?? Buffer.alloc(0)
  const rows = (body.toString("utf8").match(/<tr data-monitor=/g) ?? []).length
  return {
    label,
    path: pathname,
    rows,
    ttfb: { median: median(ttfb), p95: p95(ttfb) },
    total: { median: median(total), p95: p95(total) },
    cpuMs,
    bytes: body.length,
    gzipBytes: gzipSync(body).length
  }
}

interface Navigation {
  readonly responseStart: number
  readonly domInteractive: number
  readonly domContentLoaded: number
  readonly load: number
}

/** Navigation timing of the overview in Chromium, `BROWSER_RUNS` loads in one tab. */
const inChromium = (origin: string, session: string) =>
  Effect.scoped(
    Effect.gen(function* () {
      const context = yield* Layer.build(
        Browser.layer({ executablePath: process.env["CHROMIUM_PATH"], setting: "CHROMIUM_PATH" })
      )
      const browser = Context.get(context, Browser.Browser)
      const located = yield* browser.located
      const browserContext = yield* browser.context
      const page = yield* Effect.promise(() => browserContext.newPage())
      yield* Effect.promise(() => page.setViewport({ width: 1280, height: 900 }))
      yield* Effect.promise(() => page.setCookie({ name: "_sm_session", value: session, url: origin }))
      const loads: Array<Navigation> = []
      for (let i = 0; i < BROWSER_RUNS + 1; i++) {
        yield* Effect.promise(() => page.goto(`${origin}/`, { waitUntil: "load", timeout: 60_000 }))
        const timing = yield* Effect.promise(() =>
          page.evaluate(() => {
            const entry = performance.getEntriesByType("navigation")[0]
            return entry instanceof PerformanceNavigationTiming
              ? {
                  responseStart: entry.responseStart,
                  domInteractive: entry.domInteractive,
                  domContentLoaded: entry.domContentLoadedEventEnd,
                  load: entry.loadEventEnd
                }
              : undefined
          })
        )
        // The first load fills the asset cache, as a person's first visit of a release does.
        if (timing !== undefined && i > 0) loads.push(timing)
      }
      const of = (key: keyof Navigation) => median(loads.map((l) => l[key]))
      return {
        browser: `${located.source}: ${located.description}`,
        runs: loads.length,
        responseStart: of("responseStart"),
        domInteractive: of("domInteractive"),
        domContentLoaded: of("domContentLoaded"),
        load: of("load")
      }
    })
  )

/**
 * The live stream's delay: a manual monitor's state set through the API (stored at once), timed until the stream
 * carries its row. The poller looks once a second, so up to a second plus its reads is expected.
 */
const liveDelay = async (origin: string, cookie: string, token: string, orgSlug: string, targetId: string) => {
  const abort = new AbortController()
  const response = await fetch(`${origin}/dashboard/events?org=${encodeURIComponent(orgSlug)}`, {
    headers: { cookie },
    signal: abort.signal
  })
  const reader = response.body?.getReader()
  if (response.status !== 200 || reader === undefined) throw new Error(`events: ${response.status}`)
  const decoder = new TextDecoder()
  let buffer = ""
  const waitFor = async (needle: string, deadline: number) => {
    while (!buffer.includes(needle)) {
      if (Date.now() > deadline) throw new Error(`the stream did not carry ${needle} in time`)
      const chunk = await reader.read()
      if (chunk.done) throw new Error("the stream ended")
      buffer += decoder.decode(chunk.value, { stream: true })
    }
  }
  await waitFor(": connected", Date.now() + 10_000)
  // Let the org's first poll make its baseline.
  await new Promise((resolve) => setTimeout(resolve, 1_500))
  const delays: Array<number> = []
  for (let i = 0; i < 5; i++) {
    buffer = ""
    const startedAt = performance.now()
    const set = await fetch(`${origin}/api/v1/targets/${targetId}/state`, {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "x-signalman-org": orgSlug },
      body: JSON.stringify({ status: i % 2 === 0 ? "down" : "up", note: `bench ${i}` })
    })
    if (set.status !== 200) throw new Error(`state: ${set.status} ${await set.text()}`)
    await waitFor(targetId, Date.now() + 10_000)
    delays.push(performance.now() - startedAt)
  }
  abort.abort()
  return { median: median(delays), max: Math.max(...delays) }
}

/** The server's CPU while one tab's stream is open and nothing changes: the shared poller's idle cost. */
const idleCost = async (running: Running, origin: string, cookie: string, orgSlug: string) => {
  const abort = new AbortController()
  const response = await fetch(`${origin}/dashboard/events?org=${encodeURIComponent(orgSlug)}`, {
    headers: { cookie },
    signal: abort.signal
  })
  const reader = response.body?.getReader()
  const drain = (async () => {
    try {
      for (;;) if ((await reader?.read())?.done !== false) return
    } catch {
      // Aborted below.
    }
  })()
  await new Promise((resolve) => setTimeout(resolve, 2_000))
  const before = cpuSeconds(running.pid).own
  await new Promise((resolve) => setTimeout(resolve, IDLE_SECS * 1000))
  const used = cpuSeconds(running.pid).own - before
  abort.abort()
  await drain
  return used / IDLE_SECS
}

const main = async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "sm-bench-dashboard-"))
  const catcher = await startSmtpCatcher("127.0.0.1")
  const target = {
    name: "signalman",
    description: "Signalman, role api, embedded database",
    script: "src/main.ts",
    readyPath: "/readyz",
    env: {
      DATA_DIR: dataDir,
      ROLE: "api",
      LOG__LEVEL: "warn",
      MAIL__SMTP_URL: catcher.url,
      AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0",
      OPERATOR__ADMIN_TOKEN: ADMIN
    }
  }
  try {
    log(`dashboard bench: ${MONITORS} monitors on the embedded database in ${dataDir}`)
    const first = await start(target)
    const user = await makeBenchUser(first.origin, catcher, ADMIN, `bench-dashboard-${Date.now()}@example.com`)
    const overridden = await fetch(`${first.origin}/operator/accounts/${user.accountId}/overrides`, {
      method: "PUT",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify({ api_reads_per_minute: READS_PER_MINUTE, max_targets: MONITORS + 10 })
    })
    if (overridden.status !== 200) throw new Error(`overrides: ${overridden.status} ${await overridden.text()}`)
    const me: unknown = await (
      await fetch(`${first.origin}/api/v1/me`, { headers: { authorization: `Bearer ${user.token}` } })
    ).json()
    const orgs = typeof me === "object" && me !== null && "orgs" in me && Array.isArray(me.orgs) ? me.orgs : []
    const org: unknown = orgs[0]
    const orgSlug = typeof org === "object" && org !== null && "slug" in org ? String(org.slug) : ""
    const created = await fetch(`${first.origin}/api/v1/targets/bulk`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${user.token}`,
        "content-type": "application/json",
        "x-signalman-org": orgSlug
      },
      body: JSON.stringify({ targets: monitors(MONITORS) })
    })
    if (created.status !== 201)
      throw new Error(`bulk create: ${created.status} ${(await created.text()).slice(0, 500)}`)
    const batch: unknown = await created.json()
    const data = typeof batch === "object" && batch !== null && "data" in batch ? batch.data : undefined
    const manual = Array.isArray(data)
      ? data.find(
          (t: unknown) =>
            typeof t === "object" &&
            t !== null &&
            "check" in t &&
            typeof t.check === "object" &&
            t.check !== null &&
            "type" in t.check &&
            t.check.type === "manual"
        )
      : undefined
    const manualId = typeof manual === "object" && manual !== null && "id" in manual ? String(manual.id) : ""
    if (manualId === "") throw new Error("no manual monitor was created")
    await stopAll()

    await seed(dataDir)
    const running = await start(target)
    const cookie = `_sm_session=${user.session}`
    const views = [
      await measureView(running, cookie, "GET / (page 1 of 5)", "/"),
      await measureView(running, cookie, "GET /?page=5", "/?page=5"),
      await measureView(running, cookie, "GET /?state=down", "/?state=down"),
      await measureView(running, cookie, "GET /?q=checkout&tag=prod", "/?q=checkout&tag=prod")
    ]
    const browser = await Effect.runPromise(inChromium(running.origin, user.session))
    const live = await liveDelay(running.origin, cookie, user.token, orgSlug, manualId)
    const idleCores = await idleCost(running, running.origin, cookie, orgSlug)
    await stopAll()

    log("")
    log(`| view | rows | TTFB median | TTFB p95 | whole answer median | server CPU | bytes | gzip |`)
    log(`| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`)
    for (const v of views) {
      log(
        `| ${v.label} | ${v.rows} | ${fmt(v.ttfb.median, 1)} ms | ${fmt(v.ttfb.p95, 1)} ms | ${fmt(
          v.total.median,
          1
        )} ms | ${fmt(v.cpuMs, 1)} ms | ${fmt(v.bytes)} | ${fmt(v.gzipBytes)} |`
      )
    }
    log("")
    log(`Chromium (${browser.browser}), GET /, median of ${browser.runs} loads with the assets cached:`)
    log(`| responseStart | domInteractive | DOMContentLoaded | load |`)
    log(`| ---: | ---: | ---: | ---: |`)
    log(
      `| ${fmt(browser.responseStart, 0)} ms | ${fmt(browser.domInteractive, 0)} ms | ${fmt(
        browser.domContentLoaded,
        0
      )} ms | ${fmt(browser.load, 0)} ms |`
    )
    log("")
    log(`live: result stored to row update on the stream: median ${fmt(live.median, 0)} ms, max ${fmt(live.max, 0)} ms`)
    log(`live: server CPU with one idle stream open (the shared poller): ${fmt(idleCores * 100, 1)}% of a core`)

    mkdirSync(path.dirname(outFile), { recursive: true })
    writeFileSync(
      outFile,
      `${JSON.stringify(
        { monitors: MONITORS, runs: RUNS, views, browser, live, idleCores, machine: machine(), commit: gitCommit() },
        null,
        2
      )}\n`
    )
  } finally {
    await stopAll()
    await catcher.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `dashboard bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`
  )
  process.exitCode = 1
})
