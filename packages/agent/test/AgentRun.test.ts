/**
 * `Agent.run` in this process, for the timings a process test would wait too long for: a result whose
 * acknowledgement does not come, a pull that is never answered, a drain before the service ever answered; and
 * one-off jobs (run at once beside the leased ones, answered once each, an error saying why when not run).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Agent from "../src/Agent.js"
import type { Settings } from "../src/Settings.js"
import { eventually } from "./support/AgentProcess.js"
import * as FakeService from "./support/FakeService.js"
import * as Target from "./support/Target.js"

const settingsFor = (url: string, overrides: Partial<Settings> = {}): Settings => ({
  url,
  token: Redacted.make(FakeService.TOKEN),
  browser: { _tag: "off" },
  concurrency: 10,
  flowConcurrency: 2,
  allowPrivateTargets: false,
  perHostMaxInflight: 2,
  rdapBootstrapUrl: "https://data.iana.org/rdap/dns.json",
  rdapMaxInflight: 4,
  bufferSize: 100,
  logLevel: "info",
  reconnectMinMs: 20,
  reconnectMaxMs: 50,
  drainTimeoutSecs: 5,
  ...overrides
})

// Runs the agent until the test's scope ends or it drains; logs are dropped.
const running = (url: string, timing: Partial<Agent.Timing>, overrides: Partial<Settings> = {}) =>
  Effect.gen(function* () {
    const drain = yield* Deferred.make<void>()
    const fiber = yield* Effect.forkScoped(
      Agent.run({
        settings: settingsFor(url, overrides),
        version: "0.1.0",
        browser: Option.none(),
        drain: Deferred.await(drain),
        timing
      }).pipe(Effect.provide(Logger.remove(Logger.defaultLogger)))
    )
    return { drained: Effect.zipRight(Deferred.succeed(drain, undefined), Fiber.join(fiber)) }
  })

const pulls = (service: FakeService.FakeService) =>
  service.messages.flatMap(({ at, message }) => (message._tag === "pull" ? [at] : []))

const rooms = (service: FakeService.FakeService, from: number, to: number) =>
  service.messages.flatMap(({ at, message }) =>
    message._tag === "pull" && at >= from && at <= to ? [message.room] : []
  )

const errorOf = (service: FakeService.FakeService, id: string) => {
  const answer = service.answered.get(id)
  return answer === undefined ? undefined : { status: answer.outcome.status, error: answer.outcome.error }
}

describe("Agent.run", () => {
  it.scopedLive("a result not acknowledged in time goes out again on the same stream, unchanged", () =>
    Effect.gen(function* () {
      const service = yield* FakeService.make({ holdAcks: true })
      const agent = yield* running(service.url, { ackTimeoutMs: 200 })
      service.enqueue(FakeService.job(service, null, 0, { error: "not ready" }))
      const copies = yield* eventually(
        () => service.deliveries.flatMap((delivery) => delivery.results),
        (results) => results.length >= 2,
        5_000
      )
      assert.strictEqual(service.upgrades.count, 1)
      assert.strictEqual(copies[0]?.id, copies[1]?.id)
      service.holdAcks = false
      assert.deepStrictEqual(yield* agent.drained, { undelivered: 0 })
    })
  )

  it.scopedLive("a pull left unanswered is made again after the pull timeout, not at every poll", () =>
    Effect.gen(function* () {
      const service = yield* FakeService.make({ answerPulls: false, pollMs: 20 })
      yield* running(service.url, { pullTimeoutMs: 400 })
      const seen = yield* eventually(
        () => pulls(service),
        (at) => at.length >= 2,
        5_000
      )
      assert.isAtLeast(seen[1]! - seen[0]!, 350, "pulled again before the timeout")
    })
  )

  it.scopedLive("a drain asked for before the service ever answered ends at once with nothing undelivered", () =>
    Effect.gen(function* () {
      const agent = yield* running(yield* FakeService.nobodyListening, {})
      yield* Effect.sleep("100 millis")
      const drained = yield* agent.drained.pipe(Effect.timeout("2 seconds"))
      assert.deepStrictEqual(drained, { undelivered: 0 })
    })
  )

  it.scopedLive(
    "a one-off job runs at once, is answered once with its outcome, and leaves the room of pulls alone",
    () =>
      Effect.gen(function* () {
        const service = yield* FakeService.make({ pollMs: 20 })
        const target = yield* Target.make
        const agent = yield* running(service.url, {}, { allowPrivateTargets: true, concurrency: 3 })
        yield* eventually(
          () => pulls(service).length,
          (n) => n > 0,
          5_000
        )
        const job = FakeService.oneOff(service, Target.check({ type: "http", url: `${target.origin}/slow/600` }))
        const pushed = Date.now()
        service.pushOneOff(job)
        const answer = yield* eventually(
          () => service.answered.get(job.id),
          (found) => found !== undefined,
          5_000
        )
        const arrived = target.requests.find((request) => request.url === "/slow/600")?.at ?? 0
        // At once: no due time to wait for, no pull to ask for it.
        assert.isBelow(arrived - pushed, 1_000, "the one-off check started late")
        assert.strictEqual(answer?.outcome.status, "up")
        const delivered = service.oneOffDeliveries.find((d) => d.results.some((r) => r.id === job.id))?.at ?? 0
        // While it ran, every pull still asked for the whole room (the jobs held for a concurrency of 3).
        const during = rooms(service, arrived, delivered)
        assert.isAbove(during.length, 0)
        assert.isTrue(
          during.every((room) => room === 3 * Agent.HELD_PER_SLOT),
          `pulls asked ${during.join(", ")}`
        )
        assert.deepStrictEqual(yield* agent.drained, { undelivered: 0 })
        assert.strictEqual(service.oneOffDeliveries.flatMap((d) => d.results).filter((r) => r.id === job.id).length, 1)
      })
  )

  it.scopedLive("a one-off the throttle drops, one past its time, and one unreadable are answered with why", () =>
    Effect.gen(function* () {
      const service = yield* FakeService.make({ pollMs: 20 })
      const target = yield* Target.make
      yield* running(service.url, {}, { allowPrivateTargets: true, perHostMaxInflight: 2 })
      yield* eventually(
        () => service.openStreams(),
        (n) => n > 0,
        5_000
      )
      const slow = Target.check({ type: "http", url: `${target.origin}/slow/400` })
      // Three at once to one host, which takes two in flight: one is dropped.
      const host = [1, 2, 3].map(() => FakeService.oneOff(service, slow))
      const late = FakeService.oneOff(service, slow, -1_000)
      const unreadable = { ...FakeService.oneOff(service, slow), check: { type: "carrier_pigeon" } }
      service.pushOneOff(...host, late, unreadable, { nonsense: true })
      yield* eventually(
        () => service.answered.size,
        (n) => n >= 5,
        5_000
      )
      assert.strictEqual(service.answered.size, 5)
      const statuses = host.map((job) => errorOf(service, job.id))
      assert.strictEqual(statuses.filter((s) => s?.status === "up").length, 2)
      const dropped = statuses.find((s) => s?.status === "error")
      assert.match(dropped?.error ?? "", /^not run: .*127\.0\.0\.1:\d+ \(AGENT__PER_HOST_MAX_INFLIGHT\)$/)
      assert.deepStrictEqual(errorOf(service, late.id), {
        status: "error",
        error: "not run: the agent could not start it in time (all its checks were busy)"
      })
      const notRead = errorOf(service, unreadable.id)
      assert.strictEqual(notRead?.status, "error")
      assert.match(notRead?.error ?? "", /could not read this check/)
      // The late one never reached the target: two requests, from the two that ran.
      assert.strictEqual(target.requests.length, 2)
    })
  )

  it.scopedLive(
    "a one-off answer not acknowledged in time goes out again, unchanged, and is delivered once acked",
    () =>
      Effect.gen(function* () {
        const service = yield* FakeService.make({ holdAcks: true })
        const agent = yield* running(service.url, { ackTimeoutMs: 200 })
        yield* eventually(
          () => service.openStreams(),
          (n) => n > 0,
          5_000
        )
        // Blocked by the agent's own guard (a loopback address without AGENT__ALLOW_PRIVATE_TARGETS): an error
        // outcome at once, without any network.
        const job = FakeService.oneOff(service, Target.check({ type: "http", url: "http://127.0.0.1:9/x" }))
        service.pushOneOff(job)
        const copies = yield* eventually(
          () => service.oneOffDeliveries.flatMap((d) => d.results).filter((r) => r.id === job.id),
          (found) => found.length >= 2,
          5_000
        )
        assert.deepStrictEqual(copies[1], copies[0])
        assert.strictEqual(copies[0]?.outcome.status, "error")
        service.holdAcks = false
        assert.deepStrictEqual(yield* agent.drained, { undelivered: 0 })
      })
  )
})
