import { assert, describe, it } from "@effect/vitest"
import { CheckSpec } from "@signalman/core/CheckSpec"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as TestServices from "effect/TestServices"
import * as DomainExpiry from "../src/DomainExpiry.js"
import * as Flow from "../src/Flow.js"
import * as Ping from "../src/Ping.js"
import * as Runner from "../src/Runner.js"
import * as Throttle from "../src/Throttle.js"
import { httpServer } from "./support/Loopback.js"
import { noResolver, settings } from "./support/ProbeEnv.js"

const spec = (fields: Record<string, unknown>): CheckSpec => Schema.decodeUnknownSync(CheckSpec)(fields)

// Everything a probe may ask for; the http checks here use IP literals, so no lookup, ping or RDAP happens.
const environment = Layer.mergeAll(
  noResolver,
  Ping.layer,
  DomainExpiry.layer,
  Flow.layerWithoutBrowser("these tests run no browser")
).pipe(Layer.provideMerge(settings({ perHostMaxInflight: 2 })))

const runner = (maxConcurrency: number) =>
  Runner.layer({ maxConcurrency }).pipe(Layer.provideMerge(Throttle.Throttle.Default), Layer.provideMerge(environment))

// A server that holds each request `holdMs` (or what `holdFor` says for its path) and records the most requests
// it ever had open at once: what the runner's bound looks like from the monitored side.
const holdingServer = (holdFor: (path: string) => number) =>
  Effect.gen(function* () {
    let open = 0
    let peak = 0
    const server = yield* httpServer((request, response) => {
      open++
      peak = Math.max(peak, open)
      setTimeout(() => {
        open--
        response.writeHead(200)
        response.end("ok")
      }, holdFor(request.url))
    })
    return { server, peak: () => peak }
  })

// Long enough that checks started together overlap at the server even when a loaded machine spreads their
// arrivals: the peak and the per-host drops below depend on requests being open at the same time.
const HOLD_MS = 200

interface Numbered extends Runner.Job {
  readonly n: number
}

// `count` jobs on one server, each for an org of its own so the per-host throttle never drops one.
const distinctOrgs = (origin: string, count: number): ReadonlyArray<Numbered> =>
  Array.from({ length: count }, (_, n) => ({ n, org: `org-${n}`, spec: spec({ type: "http", url: `${origin}/${n}` }) }))

describe("Runner", () => {
  it.scopedLive("at most maxConcurrency checks are in flight, and the bound is reached", () =>
    Effect.gen(function* () {
      const { server, peak } = yield* holdingServer(() => HOLD_MS)
      const run = yield* Runner.Runner
      const results = yield* run.run(distinctOrgs(server.origin, 12))
      assert.deepStrictEqual(Runner.tally(results), { ran: 12, dropped: 0, expired: 0, unprobeable: 0, died: 0 })
      assert.isTrue(
        results.every((r) => r._tag === "Ran" && r.outcome.status === "up"),
        "every check ran and was up"
      )
      assert.strictEqual(server.requests.length, 12)
      assert.strictEqual(peak(), 3, "the server never saw more than 3 checks at once, and did see 3")
      assert.strictEqual(yield* run.inflight, 0, "every permit is given back")
    }).pipe(Effect.provide(runner(3)))
  )

  it.scopedLive("two batches run at once share one bound", () =>
    Effect.gen(function* () {
      const { server, peak } = yield* holdingServer(() => HOLD_MS)
      const run = yield* Runner.Runner
      const jobs = distinctOrgs(server.origin, 12)
      const [first, second] = yield* Effect.all([run.run(jobs.slice(0, 6)), run.run(jobs.slice(6))], {
        concurrency: "unbounded"
      })
      assert.deepStrictEqual(Runner.tally([...first, ...second]), {
        ran: 12,
        dropped: 0,
        expired: 0,
        unprobeable: 0,
        died: 0
      })
      assert.strictEqual(peak(), 3, "3 in flight between both batches, not 3 each")
    }).pipe(Effect.provide(runner(3)))
  )

  it.scopedLive("jobs over the per-host cap are dropped and counted, never run", () =>
    Effect.gen(function* () {
      const { server } = yield* holdingServer(() => HOLD_MS)
      const run = yield* Runner.Runner
      const url = `${server.origin}/same`
      const jobs = Array.from({ length: 5 }, () => ({ org: "org-1", spec: spec({ type: "http", url }) }))
      const results = yield* run.run(jobs)
      assert.deepStrictEqual(Runner.tally(results), { ran: 2, dropped: 3, expired: 0, unprobeable: 0, died: 0 })
      assert.strictEqual(server.requests.length, 2, "a dropped check sends nothing")
      for (const result of results) {
        if (result._tag === "Dropped") {
          assert.deepStrictEqual(result.key, Throttle.key("org-1", "127.0.0.1", server.port))
        }
      }
    }).pipe(Effect.provide(runner(10)))
  )

  it.scopedLive("a job waiting for a permit holds no host slot, so a sequential runner drops nothing", () =>
    Effect.gen(function* () {
      const { server } = yield* holdingServer(() => 10)
      const run = yield* Runner.Runner
      const url = `${server.origin}/same`
      const results = yield* run.run(
        Array.from({ length: 4 }, () => ({ org: "org-1", spec: spec({ type: "http", url }) }))
      )
      assert.deepStrictEqual(Runner.tally(results), { ran: 4, dropped: 0, expired: 0, unprobeable: 0, died: 0 })
      assert.strictEqual(server.requests.length, 4)
    }).pipe(Effect.provide(runner(1)))
  )

  it.scopedLive("results come back in the jobs' order, each with its job, however the checks finish", () =>
    Effect.gen(function* () {
      const count = 6
      // The first job is answered last: completion order is the reverse of the jobs' order.
      const { server } = yield* holdingServer((path) => (count - Number(path.slice(1))) * 20)
      const run = yield* Runner.Runner
      const jobs: Array<Numbered> = [...distinctOrgs(server.origin, count)]
      // A kind with no probe keeps its place too.
      jobs.splice(3, 0, { n: 99, org: "org-x", spec: spec({ type: "heartbeat", period: 60, grace: 0 }) })
      const results = yield* run.run(jobs)
      assert.deepStrictEqual(
        results.map((r) => r.job.n),
        [0, 1, 2, 99, 3, 4, 5]
      )
      results.forEach((result, i) => {
        assert.strictEqual(result.job, jobs[i], "the very job object comes back")
      })
      const middle = results[3]
      assert.strictEqual(middle?._tag, "Unprobeable")
      if (middle?._tag === "Unprobeable") assert.strictEqual(middle.error.kind, "heartbeat")
      for (const result of results) {
        if (result._tag !== "Ran") continue
        assert.strictEqual(result.outcome.details?.["final_url"], `${server.origin}/${result.job.n}`)
      }
      assert.deepStrictEqual(Runner.tally(results), { ran: 6, dropped: 0, expired: 0, unprobeable: 1, died: 0 })
      assert.strictEqual(server.requests.length, count)
    }).pipe(Effect.provide(runner(8)))
  )

  it.scopedLive("interrupting a batch closes its connections and gives back every permit and host slot", () =>
    Effect.gen(function* () {
      // Answers nothing, so every check is in flight when the batch is interrupted.
      const server = yield* httpServer(() => {})
      const throttle = yield* Throttle.Throttle
      const run = yield* Runner.Runner
      const jobs = distinctOrgs(server.origin, 4)
      const batch = yield* Effect.fork(run.run(jobs))
      yield* Effect.repeat(
        Effect.sync(() => server.requests.length),
        {
          until: (n) => n === 4,
          schedule: Schedule.spaced("10 millis")
        }
      )
      assert.strictEqual(yield* run.inflight, 4)
      const key = Throttle.key("org-0", "127.0.0.1", server.port)
      assert.strictEqual(yield* throttle.inflight(key), 1)
      yield* Fiber.interrupt(batch)
      assert.strictEqual(yield* run.inflight, 0)
      assert.strictEqual(yield* throttle.inflight(key), 0)
      // The server sees each connection end: each probe closed its sockets when interrupted.
      yield* Effect.repeat(
        Effect.sync(() => server.open()),
        {
          until: (n) => n === 0,
          schedule: Schedule.spaced("10 millis")
        }
      ).pipe(Effect.timeout("5 seconds"))
    }).pipe(Effect.provide(runner(8)))
  )

  it.scopedLive("runEach hands over each result as its job finishes, before the batch's slowest job ends", () =>
    Effect.gen(function* () {
      // `/slow` is answered only when the test says so; the other paths at once.
      const waiting: Array<() => void> = []
      const server = yield* httpServer((request, response) => {
        const answer = () => {
          response.writeHead(200)
          response.end("ok")
        }
        if (request.url === "/slow") waiting.push(answer)
        else answer()
      })
      const run = yield* Runner.Runner
      const jobs: ReadonlyArray<Numbered> = [
        { n: 0, org: "org-0", spec: spec({ type: "http", url: `${server.origin}/slow` }) },
        { n: 1, org: "org-1", spec: spec({ type: "http", url: `${server.origin}/fast` }) },
        { n: 2, org: "org-2", spec: spec({ type: "http", url: `${server.origin}/fast` }) }
      ]
      const handed = yield* Queue.unbounded<Runner.Result<Numbered>>()
      const batch = yield* Effect.fork(run.runEach(jobs, (result) => Queue.offer(handed, result)))
      // Both fast results arrive while the slow check is still waiting for its answer.
      const early = [yield* Queue.take(handed), yield* Queue.take(handed)]
      assert.deepStrictEqual(early.map((r) => r.job.n).sort(), [1, 2])
      assert.isTrue(
        early.every((r) => r._tag === "Ran" && r.outcome.status === "up"),
        "both ran and were up"
      )
      assert.strictEqual(waiting.length, 1, "the slow check is still in flight")
      assert.strictEqual(yield* run.inflight, 1, "a handed-over result's permit is already given back")
      assert.isNull(batch.unsafePoll(), "the batch is not over while a job is in flight")
      for (const answer of waiting) answer()
      const last = yield* Queue.take(handed)
      assert.strictEqual(last.job.n, 0)
      yield* Fiber.join(batch)
      assert.strictEqual(yield* Queue.size(handed), 0, "each result is handed over once")
      assert.strictEqual(yield* run.inflight, 0)
    }).pipe(Effect.provide(runner(8)))
  )

  it.scoped("a job starts at its due time, in due order, holding no permit or host slot while it waits", () =>
    Effect.gen(function* () {
      const server = yield* httpServer((_, response) => {
        response.writeHead(200)
        response.end("ok")
      })
      const throttle = yield* Throttle.Throttle
      const run = yield* Runner.Runner
      const start = yield* Clock.currentTimeMillis
      // Given later-first to a runner of one worker: taken in list order, the early job would wait for the late one.
      const jobs: ReadonlyArray<Numbered> = [
        { n: 0, org: "org-1", spec: spec({ type: "http", url: `${server.origin}/late` }), dueMs: start + 2_000 },
        { n: 1, org: "org-1", spec: spec({ type: "http", url: `${server.origin}/early` }), dueMs: start + 1_000 }
      ]
      const finished = yield* Queue.unbounded<Runner.Result<Numbered>>()
      // The next job to finish, waiting on the real clock (the test's clock only moves when told): a job that does
      // not start at its due time shows as None, not as a test that hangs.
      const next = Effect.map(
        TestServices.provideLive(Effect.timeoutOption(Queue.take(finished), "10 seconds")),
        Option.map((result) => result.job.n)
      )
      const batch = yield* Effect.fork(run.runEach(jobs, (result) => Queue.offer(finished, result)))
      // The worker is asleep until the first due time: nothing sent, no permit, no host slot.
      yield* Effect.repeat(TestClock.sleeps(), { until: (sleeps) => sleeps.length > 0 })
      assert.strictEqual(server.requests.length, 0)
      assert.strictEqual(yield* run.inflight, 0)
      assert.strictEqual(yield* throttle.inflight(Throttle.key("org-1", "127.0.0.1", server.port)), 0)
      yield* TestClock.adjust("999 millis")
      assert.strictEqual(server.requests.length, 0, "not a millisecond early")
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(Option.getOrNull(yield* next), 1, "the early job ran first, at its time")
      assert.deepStrictEqual(
        server.requests.map((r) => r.url),
        ["/early"]
      )
      yield* TestClock.adjust("1 second")
      assert.strictEqual(Option.getOrNull(yield* next), 0)
      yield* Fiber.join(batch)
      assert.deepStrictEqual(
        server.requests.map((r) => r.url),
        ["/early", "/late"]
      )
    }).pipe(Effect.provide(runner(1)))
  )

  it.scoped("a job still waiting for a permit at its deadline is Expired: never sent, holding nothing", () =>
    Effect.gen(function* () {
      // Holds each request until the test answers it, so the first job keeps the runner's only permit.
      const waiting: Array<() => void> = []
      const server = yield* httpServer((_, response) => {
        waiting.push(() => {
          response.writeHead(200)
          response.end("ok")
        })
      })
      const run = yield* Runner.Runner
      const start = yield* Clock.currentTimeMillis
      const jobs: ReadonlyArray<Numbered> = [
        { n: 0, org: "org-0", spec: spec({ type: "http", url: `${server.origin}/first` }) },
        { n: 1, org: "org-1", spec: spec({ type: "http", url: `${server.origin}/late` }), deadlineMs: start + 1_000 }
      ]
      const batch = yield* Effect.fork(run.run(jobs))
      // The real clock paces this wait for the request (the test's clock only moves when told).
      yield* TestServices.provideLive(
        Effect.repeat(
          Effect.sync(() => server.requests.length),
          { until: (n) => n === 1, schedule: Schedule.spaced("10 millis") }
        ).pipe(Effect.timeout("10 seconds"))
      )
      yield* TestClock.adjust("1001 millis")
      for (const answer of waiting.splice(0)) answer()
      const results = yield* Fiber.join(batch)
      assert.deepStrictEqual(
        results.map((r) => r._tag),
        ["Ran", "Expired"]
      )
      assert.deepStrictEqual(
        server.requests.map((r) => r.url),
        ["/first"],
        "an expired job sends nothing"
      )
      assert.deepStrictEqual(Runner.tally(results), { ran: 1, dropped: 0, expired: 1, unprobeable: 0, died: 0 })
      assert.strictEqual(yield* run.inflight, 0)
    }).pipe(Effect.provide(runner(1)))
  )

  it.scopedLive("a probe's defect is Died for its job; the rest of the batch runs and its permit is given back", () =>
    Effect.gen(function* () {
      const { server } = yield* holdingServer(() => 0)
      const run = yield* Runner.Runner
      // The test resolver dies when asked for a name: a bug, as far as the runner can tell.
      const jobs: ReadonlyArray<Numbered> = [
        { n: 0, org: "org-0", spec: spec({ type: "http", url: "http://defect.example/" }) },
        ...distinctOrgs(server.origin, 2).map((job) => ({ ...job, n: job.n + 1 }))
      ]
      const results = yield* run.run(jobs)
      assert.deepStrictEqual(Runner.tally(results), { ran: 2, dropped: 0, expired: 0, unprobeable: 0, died: 1 })
      const died = results[0]
      assert.strictEqual(died?._tag, "Died")
      if (died?._tag === "Died") assert.include(Cause.pretty(died.cause), "the resolver was asked for defect.example")
      assert.strictEqual(server.requests.length, 2)
      assert.strictEqual(yield* run.inflight, 0)
    }).pipe(Effect.provide(runner(1)))
  )

  it.effect("a maxConcurrency below 1 is a defect, not a runner that never runs", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(Runner.make({ maxConcurrency: 0 }))
      assert.isTrue(Exit.isFailure(exit))
    }).pipe(Effect.provide(Throttle.Throttle.Default), Effect.provide(settings()))
  )
})
