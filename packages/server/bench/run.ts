/**
 * `pnpm bench`: `/healthz` requests per second of the real Signalman server against a bare `node:http` server
 * doing the same work (`bench/bare-healthz.ts`), measured in the same run on the same machine, reported as the
 * ratio median(signalman) / median(baseline). The issue's aim is a ratio of at least 0.6.
 *
 * Signalman answers `/healthz` in its node request listener, before the Effect runtime, so that ratio says little
 * about the framework. The same run therefore also measures `GET /api/v1/bench-unknown-route` on the same Signalman
 * process: no route matches it, so it goes through the router, the request pipeline and conventions middleware and
 * the error envelope rendering, and answers 404 `NOT_FOUND`. Its ratio to the same baseline is reported with no aim,
 * below the headline, and never decides the exit code except through failed requests.
 *
 * The authenticated path is measured too: `GET /api/v1/me` with `Authorization: Bearer` and an API token, on the
 * same Signalman process. Its aim (issue 13, which re-based issue 3's) is a median of at least 0.6 of the framework
 * floor below, measured in the same run: `/healthz` is answered before the Effect runtime, so it bounds nothing an
 * API route can do, while the floor is the least any `HttpApi` route costs on this stack. Its ratios to Signalman's
 * own `/healthz` and to the full-pipeline 404 are reported beside it, with no aim. The token is got for real (`bench/bench-user.ts`): a magic-link sign-in whose
 * mail reaches an SMTP catcher in this process, a token minted with that session, and the account's read budget
 * raised through the operator surface (the free plan's 6000 reads a minute would otherwise answer 429). So
 * Signalman runs with an operator secret, that catcher as its SMTP server and no magic-link throttle; none of these
 * is on the path of the other measured routes.
 *
 * What `/me` measures is the authentication path, not database latency: the token's verified hash, its row, the
 * user, their memberships and the plan are kept in in-process caches (sessions, tokens, users and memberships for
 * 10 s and dropped on change, through LISTEN/NOTIFY on PostgreSQL; plans for `plan_cache_ttl_secs`), the rate
 * budget reserves its requests from the database in blocks of a twentieth of the budget, and the token's last use
 * is written once a minute. So the database sees tens of queries per 10 s (an expired entry may be missed by every
 * request in flight at once, and so may a new minute window), not one per request. It is the embedded database in
 * memory unless `BENCH_DATABASE_URL` names a PostgreSQL database; a run against each shows how little that matters.
 *
 * A third server, the framework floor (`bench/floor-api.ts`), answers the same `/healthz` body through one `HttpApi`
 * route on `@effect/platform-node` with nothing else: the most any `/api/v1/*` route of Signalman could reach. It is
 * measured in the same rounds, with the server options Signalman's own server has, and the report gives floor /
 * `/healthz` and `/me` / floor (the aim: what Signalman's own authentication and handler cost on top of the
 * framework). A run whose `/me` / floor is under the aim still exits 0 when no request failed: the figure is a
 * measurement to report, and a loaded machine lowers it.
 *
 * Each server is a child process on a free loopback port; autocannon (50 connections, pipelining 1) runs here.
 * A warm-up run per target is not counted, then rounds alternate between the targets (the order reverses each
 * round). Any failed request (a status other than the expected one, wrong body, connection error or timeout) fails
 * the run with exit 1, because a server that answers errors quickly would otherwise look fast.
 *
 * Env: `BENCH_DURATION_SECS` (seconds per measured round, default 8), `BENCH_ROUNDS` (rounds per target,
 * default 3), `BENCH_WARMUP_SECS` (default 3), `BENCH_DATABASE_URL` (unset: the embedded database in memory; else
 * a `postgres://` URL Signalman migrates and uses, e.g. `postgres://postgres@127.0.0.1:5432/signalman_bench`: give
 * it a database of its own, empty or left by an earlier bench run, since every run signs up a new address, and
 * which no running Signalman shares). Results go to stdout and to `.bench/healthz.json`.
 */
import { randomBytes } from "node:crypto"
import { mkdirSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { type BenchUser, makeBenchUser, READS_PER_MINUTE, type SmtpCatcher, startSmtpCatcher } from "./bench-user.js"
import { HOST, type Running, serverDir, sleep, start, stopAll, type Target } from "./children.js"
import { CONNECTIONS, failures, isMeOf, load, PIPELINING, type Run, type Subject } from "./load.js"
import { benchDatabaseUrl, fmt, gitCommit, machine, median, ms, positiveInt, redactUrl } from "./report.js"

const outFile = path.join(serverDir, ".bench", "healthz.json")

const AIM = 0.6
const EXPECTED_BODY = JSON.stringify({ status: "ok" })
const EXPECTED_CONTENT_TYPE = "application/json; charset=utf-8"
// No route has this path, and the liveness fast path only takes /healthz, so every request walks the whole stack.
const PIPELINE_PATH = "/api/v1/bench-unknown-route"
const PIPELINE_STATUS = 404
const PIPELINE_LABEL =
  "full Effect pipeline (404 envelope), no aim set; shown so the /healthz fast path does not hide the framework's cost"
// What the conventions middleware sets on an /api/v1 answer other than the dashboard summary.
const EXPECTED_PIPELINE_CACHE_CONTROL = "private, max-age=10"
const ME_PATH = "/api/v1/me"
// Issue 13: /me against the framework floor, in the same run.
const ME_AIM = 0.6
const ME_LABEL = "authenticated GET /api/v1/me, bearer API token (the identity issue's measurement)"
const ME_LIKE_FOR_LIKE =
  "like-for-like: the 404 route goes through the same Effect runtime, router and middleware, without authentication"
const FLOOR_LABEL =
  "framework floor: one HttpApi route on @effect/platform-node, no middleware, constant answer (bench/floor-api.ts)"
const ME_CACHES =
  "served from in-process caches (sessions/tokens/users/memberships for 10 s, invalidated by LISTEN/NOTIFY on " +
  "PostgreSQL; plans) and rate-budget blocks reserved per minute window: it measures the authentication path, not " +
  "database latency"
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

// The SMTP catcher lives in this process; it is closed after the servers stop, and exiting ends it regardless.
let smtpCatcher: SmtpCatcher | undefined
const SMTP_CLOSE_TIMEOUT_MS = 2_000
const closeSmtpCatcher = async (): Promise<void> => {
  const catcher = smtpCatcher
  smtpCatcher = undefined
  if (catcher === undefined) return
  // smtp-server waits up to 30 s for open connections before closing; a bench that is done does not.
  await Promise.race([catcher.close(), sleep(SMTP_CLOSE_TIMEOUT_MS)])
}

/**
 * The comparison is only fair if both answer the same thing: same status, body and content type, and a fresh
 * UUID request id each time (the per-request work the baseline is there to mirror).
 */
const checkSameWork = async (running: Running): Promise<void> => {
  const ids: Array<string> = []
  for (let i = 0; i < 2; i++) {
    const response = await fetch(`${running.origin}/healthz`, { signal: AbortSignal.timeout(5_000) })
    const body = await response.text()
    const contentType = response.headers.get("content-type")
    const id = response.headers.get("x-request-id") ?? ""
    const problems = [
      response.status === 200 ? null : `status ${response.status}`,
      body === EXPECTED_BODY ? null : `body ${JSON.stringify(body)}`,
      contentType === EXPECTED_CONTENT_TYPE ? null : `content-type ${JSON.stringify(contentType)}`,
      UUID.test(id) ? null : `x-request-id ${JSON.stringify(id)}`
    ].filter((p): p is string => p !== null)
    if (problems.length > 0) throw new Error(`${running.target.name} /healthz is not the expected answer: ${problems}`)
    ids.push(id)
  }
  if (ids[0] === ids[1]) throw new Error(`${running.target.name} repeated the request id ${ids[0]}`)
}

/**
 * The `trace_id` of a `NOT_FOUND` error envelope, or null when `body` is not one. Used on every response of the
 * full-pipeline load, so it stays cheap: one parse, a few property reads.
 */
const notFoundTraceId = (body: string): string | null => {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return null
  }
  const error = typeof parsed === "object" && parsed !== null && "error" in parsed ? parsed.error : null
  if (typeof error !== "object" || error === null) return null
  if (!("code" in error) || error.code !== "NOT_FOUND") return null
  return "trace_id" in error && typeof error.trace_id === "string" ? error.trace_id : null
}

/**
 * Before the full-pipeline route is measured, the whole answer is checked once, headers included (autocannon only
 * shows the body to the per-response check): 404, the JSON content type, the conventions' cache-control, and a
 * fresh UUID request id that the envelope repeats as its trace id, which proves the request went through the
 * request context and the envelope rendering rather than some shortcut.
 */
const checkPipeline = async (running: Running): Promise<void> => {
  const ids: Array<string> = []
  for (let i = 0; i < 2; i++) {
    const response = await fetch(`${running.origin}${PIPELINE_PATH}`, { signal: AbortSignal.timeout(5_000) })
    const body = await response.text()
    const contentType = response.headers.get("content-type")
    const cacheControl = response.headers.get("cache-control")
    const id = response.headers.get("x-request-id") ?? ""
    const traceId = notFoundTraceId(body)
    const problems = [
      response.status === PIPELINE_STATUS ? null : `status ${response.status}`,
      traceId === null ? `body is not a NOT_FOUND envelope: ${JSON.stringify(body)}` : null,
      traceId === null || traceId === id ? null : `trace_id ${JSON.stringify(traceId)} is not x-request-id`,
      contentType === EXPECTED_CONTENT_TYPE ? null : `content-type ${JSON.stringify(contentType)}`,
      cacheControl === EXPECTED_PIPELINE_CACHE_CONTROL ? null : `cache-control ${JSON.stringify(cacheControl)}`,
      UUID.test(id) ? null : `x-request-id ${JSON.stringify(id)}`
    ].filter((p): p is string => p !== null)
    if (problems.length > 0) {
      throw new Error(`${running.target.name} ${PIPELINE_PATH} is not the expected answer: ${problems}`)
    }
    ids.push(id)
  }
  if (ids[0] === ids[1]) throw new Error(`${running.target.name} repeated the request id ${ids[0]}`)
}

/**
 * Before `/me` is measured, its whole answer is checked once, headers included: 200, the JSON content type, the
 * bench user's document reached by token, and a fresh UUID request id each time.
 */
/** The floor answers the contract's `Health` body; checked once before it is measured, then by body per answer. */
const checkFloor = async (running: Running): Promise<void> => {
  const response = await fetch(`${running.origin}/healthz`, { signal: AbortSignal.timeout(5_000) })
  const body = await response.text()
  if (response.status !== 200 || body !== EXPECTED_BODY) {
    throw new Error(`${running.target.name} /healthz is not the expected answer: ${response.status} ${body}`)
  }
}

const checkMe = async (running: Running, user: BenchUser): Promise<void> => {
  const ids: Array<string> = []
  for (let i = 0; i < 2; i++) {
    const response = await fetch(`${running.origin}${ME_PATH}`, {
      headers: { authorization: `Bearer ${user.token}` },
      signal: AbortSignal.timeout(5_000)
    })
    const body = await response.text()
    const contentType = response.headers.get("content-type")
    const id = response.headers.get("x-request-id") ?? ""
    const problems = [
      response.status === 200 ? null : `status ${response.status}`,
      isMeOf(user.email)(body) ? null : `body is not ${user.email}'s document by token: ${body.slice(0, 300)}`,
      contentType === EXPECTED_CONTENT_TYPE ? null : `content-type ${JSON.stringify(contentType)}`,
      UUID.test(id) ? null : `x-request-id ${JSON.stringify(id)}`
    ].filter((p): p is string => p !== null)
    if (problems.length > 0) {
      throw new Error(`${running.target.name} ${ME_PATH} is not the expected answer: ${problems}`)
    }
    ids.push(id)
  }
  if (ids[0] === ids[1]) throw new Error(`${running.target.name} repeated the request id ${ids[0]}`)
}

// ---------------------------------------------------------------------------------------------------------------

type Name = "baseline" | "signalman" | "floor" | "pipeline" | "me"

const main = async (): Promise<number> => {
  const durationSecs = positiveInt("BENCH_DURATION_SECS", 8)
  const rounds = positiveInt("BENCH_ROUNDS", 3)
  const warmupSecs = positiveInt("BENCH_WARMUP_SECS", 3)
  const databaseUrl = benchDatabaseUrl()
  const database = databaseUrl === undefined ? "embedded database in memory" : `PostgreSQL ${redactUrl(databaseUrl)}`

  smtpCatcher = await startSmtpCatcher(HOST)
  // For the operator surface only, and only for the life of this run; never written anywhere.
  const adminToken = randomBytes(32).toString("base64url")
  const benchEmail = `bench-${Date.now()}@example.com`

  const baseline: Target = {
    name: "baseline",
    description: "bare node:http (bench/bare-healthz.ts)",
    script: "bench/bare-healthz.ts",
    env: {}
  }
  // What the report may show of Signalman's environment: the same keys, the secrets replaced.
  const signalmanEnvReported = {
    ...(databaseUrl === undefined ? { DATA_DIR: "memory://" } : { DATABASE__URL: redactUrl(databaseUrl) }),
    LOG__LEVEL: "warn",
    OPERATOR__ADMIN_TOKEN: "(random per run, not recorded)",
    MAIL__SMTP_URL: smtpCatcher.url,
    AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0"
  }
  const signalman: Target = {
    name: "signalman",
    description: `Signalman (src/main.ts, default role, ${database}, LOG__LEVEL=warn)`,
    script: "src/main.ts",
    readyPath: "/readyz",
    // warn: the access log (debug for /healthz, info elsewhere) must not be what is measured. The operator secret,
    // the SMTP catcher and the unthrottled magic link serve the bench user's sign-in (bench/bench-user.ts) only.
    env: {
      ...signalmanEnvReported,
      ...(databaseUrl === undefined ? {} : { DATABASE__URL: databaseUrl.href }),
      OPERATOR__ADMIN_TOKEN: adminToken
    }
  }

  const context = { machine: machine(), commit: gitCommit(), startedAt: new Date().toISOString() }
  const settings = { connections: CONNECTIONS, pipelining: PIPELINING, durationSecs, rounds, warmupSecs, host: HOST }
  const log = (line: string) => process.stdout.write(`${line}\n`)

  log("Signalman /healthz benchmark")
  log(`  machine   ${context.machine.cpuModel} x ${context.machine.cpuCount} CPUs, node ${context.machine.node}`)
  log(`            ${context.machine.platform}, load average ${context.machine.loadAverage1m} at start`)
  log(
    `  load      autocannon in this process on the same machine, ${CONNECTIONS} connections, pipelining ${PIPELINING}, ${HOST} only`
  )
  log(
    `  plan      ${warmupSecs}s warm-up per target (not counted), then ${rounds} x ${durationSecs}s rounds alternating`
  )
  log(`  baseline  ${baseline.description}`)
  log(`  signalman ${signalman.description}`)
  log(`  pipeline  GET ${PIPELINE_PATH} on the same Signalman process, 404 NOT_FOUND envelope (reference, no aim)`)
  log(`  me        GET ${ME_PATH} on the same Signalman process, bearer API token of ${benchEmail}, 200`)
  log(`            ${database}; ${ME_CACHES}`)

  const floor: Target = { name: "floor", description: FLOOR_LABEL, script: "bench/floor-api.ts", env: {} }
  const servers = { baseline: await start(baseline), signalman: await start(signalman), floor: await start(floor) }
  for (const running of [servers.baseline, servers.signalman]) await checkSameWork(running)
  await checkFloor(servers.floor)
  await checkPipeline(servers.signalman)
  const user = await makeBenchUser(servers.signalman.origin, smtpCatcher, adminToken, benchEmail)
  await checkMe(servers.signalman, user)
  log(
    `  user      ${user.email}: account ${user.accountId}, token ${user.tokenPrefix}..., api_reads_per_minute ${fmt(READS_PER_MINUTE)}`
  )

  const exactHealthz = { exact: EXPECTED_BODY }
  // `baseline` and `signalman` are the headline pair (`/healthz` on each server); `pipeline` (the full-pipeline route)
  // and `me` (the authenticated route) run on the same Signalman process as `signalman`; `floor` is a server of its own.
  const subjects: ReadonlyArray<Subject<Name>> = [
    { name: "baseline", running: servers.baseline, path: "/healthz", status: 200, body: exactHealthz },
    { name: "signalman", running: servers.signalman, path: "/healthz", status: 200, body: exactHealthz },
    { name: "floor", running: servers.floor, path: "/healthz", status: 200, body: exactHealthz },
    {
      name: "pipeline",
      running: servers.signalman,
      path: PIPELINE_PATH,
      status: PIPELINE_STATUS,
      // The trace id differs per request, so the body cannot be compared whole; a fresh UUID there shows the
      // envelope was rendered for this request. autocannon records 404 latencies too (excludeErrorStats is off).
      body: {
        verify: (body) => {
          const traceId = notFoundTraceId(body)
          return traceId !== null && UUID.test(traceId)
        }
      }
    },
    {
      name: "me",
      running: servers.signalman,
      path: ME_PATH,
      headers: { authorization: `Bearer ${user.token}` },
      status: 200,
      // The document carries timestamps and ids, so it is checked by its address and credential, not whole.
      body: { verify: isMeOf(user.email) }
    }
  ]

  const runs: Array<Run> = []
  const record = (run: Run) => {
    runs.push(run)
    const label = run.kind === "warmup" ? "warm-up" : `round ${run.round}`
    const bad =
      failures(run) > 0
        ? `  FAILED: ${failures(run)} (wrong status/errors/timeouts/mismatches; statuses ${JSON.stringify(run.statuses)})`
        : ""
    log(
      `  ${label.padEnd(8)} ${run.target.padEnd(9)} ${fmt(run.rps).padStart(8)} req/s  p50 ${ms(run.latencyMs.p50)} ms  p99 ${ms(run.latencyMs.p99)} ms  ${fmt(run.requests)} requests${bad}`
    )
  }

  log("")
  for (const subject of subjects) record(await load(subject, "warmup", 0, warmupSecs))
  for (let round = 1; round <= rounds; round++) {
    // The order reverses each round, so no subject always runs on the hotter (or cooler) machine, and the headline
    // pair (baseline, signalman) stays back to back, as it was before the full-pipeline route was added.
    const order = round % 2 === 1 ? subjects : [...subjects].reverse()
    for (const subject of order) record(await load(subject, "measured", round, durationSecs))
  }

  const summarize = (name: Name) => {
    const measured = runs.filter((run) => run.kind === "measured" && run.target === name)
    return {
      medianRps: median(measured.map((run) => run.rps)),
      medianLatencyP50Ms: median(measured.map((run) => run.latencyMs.p50)),
      medianLatencyP99Ms: median(measured.map((run) => run.latencyMs.p99)),
      rps: measured.map((run) => run.rps)
    }
  }
  const summary = { baseline: summarize("baseline"), signalman: summarize("signalman") }
  const ratio = summary.signalman.medianRps / summary.baseline.medianRps
  const pipelineSummary = summarize("pipeline")
  // Against the same baseline as the headline: the bare server's /healthz is the least an HTTP answer costs on this
  // machine, so this ratio is what the whole stack costs on top of it.
  const pipelineRatio = pipelineSummary.medianRps / summary.baseline.medianRps
  const meSummary = summarize("me")
  // (a) The issue's aim, against Signalman's own /healthz on the same process; (b) against the 404 route, which
  // goes through the same Effect runtime: the comparison that isolates what authentication and the handler cost.
  const meRatioToHealthz = meSummary.medianRps / summary.signalman.medianRps
  const meRatioToPipeline = meSummary.medianRps / pipelineSummary.medianRps
  // (c) What the framework allows at best: no `/api/v1` route can beat the floor, so floor / healthz bounds (a).
  const floorSummary = summarize("floor")
  const floorRatioToHealthz = floorSummary.medianRps / summary.signalman.medianRps
  const meRatioToFloor = meSummary.medianRps / floorSummary.medianRps
  const failed = runs.reduce((sum, run) => sum + failures(run), 0)
  // Zero answered requests would make a ratio of 0/0 or x/0 look like a result.
  const empty = runs.filter((run) => run.answered === 0)

  log("")
  for (const name of ["baseline", "signalman"] as const) {
    const s = summary[name]
    log(
      `  ${name.padEnd(9)} median ${fmt(s.medianRps).padStart(8)} req/s  p50 ${ms(s.medianLatencyP50Ms)} ms  p99 ${ms(s.medianLatencyP99Ms)} ms  (rounds: ${s.rps.map((v) => fmt(v)).join(", ")})`
    )
  }
  log(`  ratio     signalman / baseline = ${fmt(ratio, 3)} (aim >= ${AIM}: ${ratio >= AIM ? "met" : "NOT met"})`)
  log("")
  log(`  ${PIPELINE_LABEL}:`)
  log(
    `  pipeline  median ${fmt(pipelineSummary.medianRps).padStart(8)} req/s  p50 ${ms(pipelineSummary.medianLatencyP50Ms)} ms  p99 ${ms(pipelineSummary.medianLatencyP99Ms)} ms  (rounds: ${pipelineSummary.rps.map((v) => fmt(v)).join(", ")})`
  )
  log(`  ratio     pipeline (GET ${PIPELINE_PATH}) / baseline (/healthz) = ${fmt(pipelineRatio, 3)}, no aim`)
  log("")
  log(`  ${ME_LABEL}:`)
  log(
    `  me        median ${fmt(meSummary.medianRps).padStart(8)} req/s  p50 ${ms(meSummary.medianLatencyP50Ms)} ms  p99 ${ms(meSummary.medianLatencyP99Ms)} ms  (rounds: ${meSummary.rps.map((v) => fmt(v)).join(", ")})`
  )
  log(`  ratio     me / signalman (/healthz) = ${fmt(meRatioToHealthz, 3)}, no aim (answered before the runtime)`)
  log(`  ratio     me / pipeline (404) = ${fmt(meRatioToPipeline, 3)}, ${ME_LIKE_FOR_LIKE}`)
  log("")
  log(`  ${FLOOR_LABEL}:`)
  log(
    `  floor     median ${fmt(floorSummary.medianRps).padStart(8)} req/s  p50 ${ms(floorSummary.medianLatencyP50Ms)} ms  p99 ${ms(floorSummary.medianLatencyP99Ms)} ms  (rounds: ${floorSummary.rps.map((v) => fmt(v)).join(", ")})`
  )
  log(
    `  ratio     floor / signalman (/healthz) = ${fmt(floorRatioToHealthz, 3)}: the most any /api/v1 route can reach of /healthz on this stack`
  )
  log(
    `  ratio     me / floor = ${fmt(meRatioToFloor, 3)} (aim >= ${ME_AIM}: ${meRatioToFloor >= ME_AIM ? "met" : "NOT met"}): authentication, rate budget, conventions and the /me handler`
  )

  mkdirSync(path.dirname(outFile), { recursive: true })
  const ok = failed === 0 && empty.length === 0
  writeFileSync(
    outFile,
    `${JSON.stringify(
      {
        benchmark: "healthz",
        ok,
        failedRequests: failed,
        ...context,
        finishedAt: new Date().toISOString(),
        settings,
        targets: { baseline: baseline.description, signalman: signalman.description },
        // The operator secret is replaced, and a database password would be.
        signalmanEnv: signalmanEnvReported,
        summary,
        ratio,
        aim: AIM,
        // Beside the headline, not part of it: `summary`, `ratio` and `aim` above mean what they meant before.
        fullPipeline: {
          label: PIPELINE_LABEL,
          request: `GET ${PIPELINE_PATH}`,
          server: "signalman",
          expected: {
            status: PIPELINE_STATUS,
            errorCode: "NOT_FOUND",
            contentType: EXPECTED_CONTENT_TYPE,
            cacheControl: EXPECTED_PIPELINE_CACHE_CONTROL
          },
          summary: pipelineSummary,
          ratio: pipelineRatio,
          ratioOf: "median rps of the pipeline route / median rps of baseline /healthz",
          aim: null
        },
        identity: {
          label: ME_LABEL,
          request: `GET ${ME_PATH}`,
          server: "signalman",
          auth: "Authorization: Bearer <sm_live_ API token, scopes full_access>, minted after a magic-link sign-in",
          user: { email: user.email, accountId: user.accountId, tokenPrefix: user.tokenPrefix },
          accountOverrides: { api_reads_per_minute: READS_PER_MINUTE },
          database,
          measures: ME_CACHES,
          expected: { status: 200, contentType: EXPECTED_CONTENT_TYPE, email: user.email, authKind: "token" },
          summary: meSummary,
          ratioToSignalmanHealthz: meRatioToHealthz,
          ratioToSignalmanHealthzOf: "median rps of /me / median rps of signalman /healthz (same process)",
          aim: ME_AIM,
          aimOf: "ratioToFloor",
          aimMet: meRatioToFloor >= ME_AIM,
          ratioToPipeline: meRatioToPipeline,
          ratioToPipelineOf: `median rps of /me / median rps of GET ${PIPELINE_PATH} (same process); ${ME_LIKE_FOR_LIKE}`,
          ratioToFloor: meRatioToFloor,
          ratioToFloorOf: "median rps of /me / median rps of the framework floor's GET /healthz"
        },
        frameworkFloor: {
          label: FLOOR_LABEL,
          request: "GET /healthz",
          server: "floor",
          summary: floorSummary,
          ratioToSignalmanHealthz: floorRatioToHealthz,
          ratioToSignalmanHealthzOf: "median rps of the floor / median rps of signalman /healthz"
        },
        runs
      },
      null,
      2
    )}\n`
  )
  log(`  written   ${path.relative(process.cwd(), outFile) || outFile}`)

  if (!ok) {
    log(`\nFAILED: ${failed} request(s) failed${empty.length > 0 ? `, ${empty.length} run(s) answered nothing` : ""}`)
    for (const running of Object.values(servers)) log(`--- last output of ${running.target.name}:\n${running.tail()}`)
    return 1
  }
  return 0
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
    return 1
  })
  .then(async (code) => {
    await stopAll()
    await closeSmtpCatcher()
    // autocannon may keep sockets referenced; the run is over, so exit rather than wait on them.
    process.exit(code)
  })
