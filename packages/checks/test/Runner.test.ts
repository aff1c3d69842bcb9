import { assert, describe, it } from "@effect/vitest"
import { CheckSpec } from "@signalman/core/CheckSpec"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as DomainExpiry from "../src/DomainExpiry.js"
import * as Ping from "../src/Ping.js"
import * as Runner from "../src/Runner.js"
import * as Throttle from "../src/Throttle.js"
import { httpServer } from "./support/Loopback.js"
import { noResolver, settings } from "./support/ProbeEnv.js"

const spec = (fields: Record<string, unknown>): CheckSpec => Schema.decodeUnknownSync(CheckSpec)(fields)

// Everything a probe may ask for; the http checks here use IP literals, so no lookup, ping or RDAP happens.
const environment = Layer.mergeAll(noResolver, Ping.layer, DomainExpiry.layer).pipe(
  Layer.provideMerge(settings({ perHostMaxInflight: 2 }))
)

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
      assert.deepStrictEqual(Runner.tally(results), { ran: 12, dropped: 0, unprobeable: 0 })
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
      assert.deepStrictEqual(Runner.tally([...first, ...second]), { ran: 12, dropped: 0, unprobeable: 0 })
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
      assert.deepStrictEqual(Runner.tally(results), { ran: 2, dropped: 3, unprobeable: 0 })
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
      assert.deepStrictEqual(Runner.tally(results), { ran: 4, dropped: 0, unprobeable: 0 })
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
      assert.deepStrictEqual(Runner.tally(results), { ran: 6, dropped: 0, unprobeable: 1 })
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

  it.effect("a maxConcurrency below 1 is a defect, not a runner that never runs", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(Runner.make({ maxConcurrency: 0 }))
      assert.isTrue(Exit.isFailure(exit))
    }).pipe(Effect.provide(Throttle.Throttle.Default), Effect.provide(settings()))
  )
})
