/**
 * One side of `bench/probes.ts`, in a process of its own so its peak RSS and CPU time are its own: `bare` is a
 * plain undici loop, `engine` the engine's Runner with the real probes. Both run the same checks (the same urls,
 * the same concurrency, a fresh connection per check) each time the parent asks for a round, and answer with
 * what the round took.
 *
 * argv[2]: `bare` or `engine`. Env (set by probes.ts): `BENCH_TARGETS` (JSON: the ports of the loopback server),
 * `BENCH_CHECKS` (checks per round), `BENCH_CONCURRENCY` (checks in flight at once).
 */
import { CheckSpec } from "@signalman/core/CheckSpec"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"
import { Client } from "undici"
import * as AddressGuard from "../src/AddressGuard.js"
import * as Dial from "../src/Dial.js"
import * as DomainExpiry from "../src/DomainExpiry.js"
import * as Flow from "../src/Flow.js"
import * as Ping from "../src/Ping.js"
import { ProbeSettings } from "../src/ProbeSettings.js"
import * as Resolver from "../src/Resolver.js"
import * as Runner from "../src/Runner.js"
import * as Throttle from "../src/Throttle.js"
import { decodeCommand, type RoundReport } from "./protocol.js"

const HOST = "127.0.0.1"
const USER_AGENT = "Signalman-Bench/0.1"
// The spec's default per-host cap; each check has a key of its own, so it admits every one (see probes.ts).
const PER_HOST_MAX_INFLIGHT = 2
// At most this many failures are described in a report; all are counted.
const PROBLEMS_KEPT = 5

const fail = (message: string): never => {
  process.stderr.write(`loader: ${message}\n`)
  process.exit(1)
}

const mode = process.argv[2]
if (mode !== "bare" && mode !== "engine") fail(`the first argument must be bare or engine, got ${String(mode)}`)
const ports = Schema.decodeUnknownEither(Schema.parseJson(Schema.NonEmptyArray(Schema.Int)))(
  process.env["BENCH_TARGETS"] ?? ""
)
if (Either.isLeft(ports)) fail("BENCH_TARGETS must be a JSON array of ports")
const portList = Either.getOrThrow(ports)
const positive = (name: string): number => {
  const n = Number(process.env[name])
  return Number.isInteger(n) && n >= 1 ? n : fail(`${name} must be a positive integer`)
}
const checks = positive("BENCH_CHECKS")
const concurrency = positive("BENCH_CONCURRENCY")
const send = process.send?.bind(process) ?? fail("must be started with an IPC channel (by bench/probes.ts)")

/**
 * Check `i` goes to port `i mod P` for org `i div P`: each (org, host, port) key is used once a round, so the
 * per-host throttle of 2 drops nothing while every check still passes through it.
 */
interface Target {
  readonly org: string
  readonly url: string
}
const targets: ReadonlyArray<Target> = Array.from({ length: checks }, (_, i) => ({
  org: `bench-org-${Math.floor(i / portList.length)}`,
  url: `http://${HOST}:${portList[i % portList.length]}/health`
}))

interface Batch {
  readonly ok: number
  readonly problems: ReadonlyArray<string>
}

// ---------------------------------------------------------------------------------------------------------------
// bare: undici with a new Client (so a new connection) per request, the body read to its end, then closed.

const bareOne = async (target: Target): Promise<string | null> => {
  const url = new URL(target.url)
  const client = new Client(url.origin)
  try {
    const { statusCode, body } = await client.request({
      path: url.pathname,
      method: "GET",
      headers: { "user-agent": USER_AGENT }
    })
    await body.dump()
    return statusCode === 200 ? null : `status ${statusCode}`
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  } finally {
    await client.close()
  }
}

const bareBatch = async (): Promise<Batch> => {
  const problems: Array<string> = []
  let next = 0
  let ok = 0
  const worker = async (): Promise<void> => {
    while (next < targets.length) {
      const target = targets[next++]
      if (target === undefined) return
      const problem = await bareOne(target)
      if (problem === null) ok++
      else problems.push(`${target.url}: ${problem}`)
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, targets.length) }, worker))
  return { ok, problems }
}

// ---------------------------------------------------------------------------------------------------------------
// engine: the Runner with the real http probe, Dial, the guard and the per-host throttle.

// The guard runs in full on every dial, as in production with checker.allow_private_targets off; only its verdict
// on the bench server's own address is overruled, the way the guard tests admit a loopback server as "public".
// So the engine pays for AddressGuard.check on each check instead of skipping it as allow_private_targets would.
const benchPolicy = Layer.succeed(Dial.AddressPolicy, {
  check: (address: string): AddressGuard.Verdict => {
    const verdict = AddressGuard.check(address)
    return address === HOST ? { allowed: true, address } : verdict
  }
})

const settings = Layer.succeed(ProbeSettings, {
  allowPrivateTargets: false,
  perHostMaxInflight: PER_HOST_MAX_INFLIGHT,
  // Not used by http checks; a closed loopback port so nothing here could reach out by mistake.
  rdapBootstrapUrl: `http://${HOST}:9/dns.json`,
  rdapMaxInflight: 4,
  userAgent: USER_AGENT,
  region: "bench"
})

const engineLayer = Runner.layer({ maxConcurrency: concurrency }).pipe(
  Layer.provideMerge(Throttle.Throttle.Default),
  Layer.provideMerge(
    Layer.mergeAll(
      Resolver.layer,
      Ping.layer,
      DomainExpiry.layer,
      benchPolicy,
      Flow.layerWithoutBrowser("the http bench runs no flows")
    )
  ),
  Layer.provideMerge(settings)
)

// Decoded once, as the scheduler decodes a target's spec when it claims it, not on every run.
const specs: ReadonlyArray<Target & { readonly spec: CheckSpec }> = targets.map((target) => ({
  ...target,
  spec: Schema.decodeUnknownSync(CheckSpec)({ type: "http", url: target.url, expected_status: 200 })
}))

// Why a check did not pass, for the report.
const notUp = (result: Runner.Result): string => {
  switch (result._tag) {
    case "Ran":
      return `${result.outcome.status}: ${result.outcome.error ?? "no error"}`
    case "Dropped":
      return "dropped by the per-host throttle"
    case "Expired":
      return "expired before it could start"
    case "Unprobeable":
      return result.error.message
    case "Died":
      return `died: ${Cause.pretty(result.cause)}`
  }
}

// The scheduler's default lease (scheduler.lease_secs): a job still waiting for a permit past it is not run.
const LEASE_MS = 120_000

// A round is run the way the server's scheduler runs a claimed batch: a job per check made for the batch, each due
// now (so each goes through the wait for its due time, which is over at once) with its lease's end as its deadline,
// and every result taken as it finishes (`runEach`), not from an answer at the batch's end.
const engineBatch = (
  runtime: ManagedRuntime.ManagedRuntime<Layer.Layer.Success<typeof engineLayer>, never>
): Promise<Batch> =>
  runtime.runPromise(
    Effect.gen(function* () {
      const runner = yield* Runner.Runner
      const dueMs = Date.now()
      const deadlineMs = dueMs + LEASE_MS
      const jobs = specs.map((target) => ({ org: target.org, url: target.url, spec: target.spec, dueMs, deadlineMs }))
      const problems: Array<string> = []
      let ok = 0
      const judge = (result: Runner.Result<(typeof jobs)[number]>) =>
        Effect.sync(() => {
          if (
            result._tag === "Ran" &&
            result.outcome.status === "up" &&
            result.outcome.details?.["status_code"] === 200
          ) {
            ok++
            return
          }
          problems.push(`${result.job.url}: ${notUp(result)}`)
        })
      yield* runner.runEach(jobs, judge)
      return { ok, problems }
    })
  )

// ---------------------------------------------------------------------------------------------------------------

const cpuMs = (): number => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}

const measure = async (round: number, batch: () => Promise<Batch>): Promise<RoundReport> => {
  let peakRssBytes = process.memoryUsage.rss()
  const sampler = setInterval(() => {
    peakRssBytes = Math.max(peakRssBytes, process.memoryUsage.rss())
  }, 10)
  const cpuBefore = cpuMs()
  const start = performance.now()
  const result = await batch()
  const elapsedMs = performance.now() - start
  const cpu = cpuMs() - cpuBefore
  clearInterval(sampler)
  peakRssBytes = Math.max(peakRssBytes, process.memoryUsage.rss())
  return {
    _tag: "RoundReport",
    round,
    checks,
    ok: result.ok,
    failed: checks - result.ok,
    problems: result.problems.slice(0, PROBLEMS_KEPT),
    elapsedMs,
    cpuMs: cpu,
    peakRssBytes,
    // resourceUsage().maxRSS is in kibibytes.
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    heapUsedBytes: process.memoryUsage().heapUsed
  }
}

const main = async (): Promise<void> => {
  const runtime = mode === "engine" ? ManagedRuntime.make(engineLayer) : undefined
  // Built before the first round, so no round pays for building the layers.
  if (runtime !== undefined) await runtime.runtime()
  const batch = runtime === undefined ? bareBatch : () => engineBatch(runtime)
  // Rounds one at a time, in the order asked: the parent never sends a round before the last report.
  let queue = Promise.resolve()
  process.on("message", (raw: unknown) => {
    const command = decodeCommand(raw)
    if (Either.isLeft(command) || command.right._tag !== "Round") return
    const { round } = command.right
    queue = queue.then(async () => {
      send(await measure(round, batch))
    })
  })
  process.on("disconnect", () => process.exit(0))
  send({
    _tag: "Ready",
    describe:
      mode === "engine"
        ? "the engine, as the scheduler runs it: Runner.runEach with due times and deadlines (checker.max_concurrency) -> per-host throttle -> http probe -> Dial with the guard -> undici Client over the dialed socket"
        : "bare undici: a new Client per request (a fresh connection), GET, body read to its end, client closed"
  })
}

void main()
