/**
 * The agent's life, as a process (`tsx src/bin.ts`, as `pnpm agent` runs it) against a fake service speaking the
 * protocol (support/FakeService.ts) and checking real loopback targets (support/Target.ts).
 */

import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import type * as Protocol from "@signalman/core/api/Agent"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import { HELD_PER_SLOT } from "../src/Agent.js"
import { agentDir, baseEnv, eventually, type LogLine, start, waitExit } from "./support/AgentProcess.js"
import * as FakeService from "./support/FakeService.js"
import { skipUnless } from "./support/Skip.js"
import * as Target from "./support/Target.js"

const envFor = (service: FakeService.FakeService, extra: Record<string, string> = {}) => ({
  ...baseEnv,
  SIGNALMAN_URL: service.url,
  SIGNALMAN_AGENT_TOKEN: FakeService.TOKEN,
  ...extra
})

const pulls = (service: FakeService.FakeService) =>
  service.messages.flatMap(({ at, message }) => (message._tag === "pull" ? [{ at, room: message.room }] : []))

const copiesOf = (service: FakeService.FakeService, id: string): ReadonlyArray<Protocol.Result & { via: string }> =>
  service.deliveries.flatMap((delivery) =>
    delivery.results.filter((result) => result.id === id).map((result) => Object.assign(result, { via: delivery.via }))
  )

const resultFor = (service: FakeService.FakeService, job: Protocol.Job): Protocol.Result | undefined =>
  [...service.stored.values()].find((result) => result.target_id === job.target_id && result.due === job.due)

const checkedAtMs = (result: Protocol.Result | undefined): number => {
  const outcome = result?.outcome
  if (outcome === null || outcome === undefined) return assert.fail(`no outcome in ${JSON.stringify(result)}`)
  return DateTime.toEpochMillis(outcome.checked_at)
}

const logsWith = (logs: ReadonlyArray<LogLine>, message: string) => logs.filter((line) => line.message === message)

// X-Signalman-Region is sent by the probes once ProbeSettings carries the region (another part of issue 14); until
// then this test says so instead of passing quietly. Read from the source the probes are built from.
const probesKnowRegion = fs
  .readFileSync(path.join(agentDir, "../checks/src/ProbeSettings.ts"), "utf8")
  .includes("readonly region")

const connected = (service: FakeService.FakeService) =>
  eventually(
    () => pulls(service).length,
    (n) => n > 0
  )

describe("the agent process", () => {
  it.scopedLive(
    "says hello, runs each job at its due time with the probes' User-Agent, and delivers results with ids",
    () =>
      Effect.gen(function* () {
        const service = yield* FakeService.make()
        const target = yield* Target.make
        const agent = yield* start({
          env: envFor(service, { AGENT__ALLOW_PRIVATE_TARGETS: "true", AGENT__CONCURRENCY: "7" })
        })
        assert.isAbove(yield* connected(service), 0, agent.stdout() + agent.stderr())

        const [hello] = service.hellos
        assert.deepStrictEqual(
          { version: hello?.hello.version, browser: hello?.hello.browser, concurrency: hello?.hello.concurrency },
          { version: "0.1.0", browser: null, concurrency: 7 }
        )
        assert.strictEqual(hello?.userAgent, "signalman-agent/0.1.0")
        // Room for the jobs held: the concurrency times HELD_PER_SLOT (jobs wait for their due time once taken).
        assert.strictEqual(pulls(service)[0]?.room, 7 * HELD_PER_SLOT)

        const ok = FakeService.job(service, Target.check({ type: "http", url: `${target.origin}/ok` }), 700)
        const unprepared = FakeService.job(service, null, 400, { error: "{{api_key}} is not defined" })
        service.enqueue(ok, unprepared)
        yield* eventually(
          () => service.stored.size,
          (n) => n >= 2
        )

        const seen = target.requests.filter((request) => request.url === "/ok")
        assert.strictEqual(seen.length, 1)
        const request = seen[0]!
        assert.isAtLeast(request.at, ok.due_ms, "the check started before its due time")
        // Generous: test machines are loaded; the benchmark measures lateness, this only that it is not gross.
        assert.isBelow(request.at - ok.due_ms, 2500, "the check started late")
        assert.strictEqual(request.headers["user-agent"], `Signalman/0.1.0 (+${service.url})`)

        const ran = resultFor(service, ok)
        assert.strictEqual(ran?.outcome?.status, "up")
        assert.isAtLeast(checkedAtMs(ran), ok.due_ms)
        const failed = resultFor(service, unprepared)
        assert.deepStrictEqual(
          { status: failed?.outcome?.status, error: failed?.outcome?.error },
          { status: "error", error: "{{api_key}} is not defined" }
        )
        assert.isAtLeast(checkedAtMs(failed), unprepared.due_ms, "the error was answered before the job's due time")

        // Each result goes out on the stream as soon as it is made, once (the service acknowledged it).
        for (const result of [ran!, failed!]) {
          const copies = copiesOf(service, result.id)
          assert.strictEqual(copies.length, 1)
          assert.strictEqual(copies[0]?.via, "stream")
          const delivered = service.deliveries.find((delivery) => delivery.results.some((r) => r.id === result.id))
          // Sent as soon as it is made, not at a later flush; generous for loaded test machines.
          assert.isBelow(delivered!.at - checkedAtMs(result), 2000, "delivery took too long")
        }
        assert.notStrictEqual(ran!.id, failed!.id)
        // Room is what is left of the concurrency: never more than 7 asked for.
        assert.isTrue(pulls(service).every((pull) => pull.room >= 1 && pull.room <= 7 * HELD_PER_SLOT))
      })
  )

  it.scopedLive("sends X-Signalman-Region with the welcome's region on every probe request", (context) =>
    Effect.gen(function* () {
      skipUnless(
        context,
        probesKnowRegion,
        "X-Signalman-Region pending: @signalman/checks' ProbeSettings has no region yet (the agent already provides it)"
      )
      const service = yield* FakeService.make()
      const target = yield* Target.make
      yield* start({ env: envFor(service, { AGENT__ALLOW_PRIVATE_TARGETS: "true" }) })
      yield* connected(service)
      const ok = FakeService.job(service, Target.check({ type: "http", url: `${target.origin}/ok` }), 100)
      service.enqueue(ok)
      const seen = yield* eventually(
        () => target.requests,
        (requests) => requests.length > 0
      )
      assert.strictEqual(seen[0]?.headers["x-signalman-region"], FakeService.REGION)
    })
  )

  it.scopedLive(
    "retries hello with capped, jittered backoff; applies the internal-address guard; corrects a skewed clock",
    () =>
      Effect.gen(function* () {
        // The service's clock is a minute ahead of this machine's, and its first two hellos fail.
        const service = yield* FakeService.make({ helloFailures: [503, 502], clockAheadMs: 60_000 })
        const target = yield* Target.make
        const agent = yield* start({ env: envFor(service) })
        yield* connected(service)
        assert.strictEqual(service.helloAttempts.count, 3)
        const retries = logsWith(agent.logs(), "Cannot reach the service; retrying")
        assert.deepStrictEqual(
          retries.map((line) => line.fields["attempt"]),
          [1, 2]
        )
        // Full jitter under ceilings of 50 then 100 ms (AGENT__RECONNECT_MIN_MS=50, capped at 200).
        const delays = retries.map((line) => Number(line.fields["retry_in_ms"]))
        assert.isTrue(delays[0]! >= 0 && delays[0]! <= 50 && delays[1]! >= 0 && delays[1]! <= 100, String(delays))
        assert.match(String(retries[0]?.fields["error"]), /HTTP 503/)
        const skew = logsWith(agent.logs(), "The service's clock and this machine's differ; due times are translated")
        assert.strictEqual(skew.length, 1)
        assert.closeTo(Number(skew[0]?.fields["offset_ms"]), 60_000, 1500)

        // Due in 600 ms of the service's clock: run about 600 ms from now, not a minute from now.
        const sentAt = Date.now()
        const blocked = FakeService.job(service, Target.check({ type: "http", url: `${target.origin}/ok` }), 600)
        service.enqueue(blocked)
        yield* eventually(
          () => service.stored.size,
          (n) => n >= 1,
          5_000
        )
        const result = resultFor(service, blocked)
        assert.isBelow(Date.now() - sentAt, 4_000)
        assert.strictEqual(result?.outcome?.status, "error")
        assert.match(result?.outcome?.error ?? "", /^blocked: /)
        assert.strictEqual(target.requests.length, 0, "a loopback target was reached with private targets off")
        // checked_at is on the service's clock: at or after the due time, well within the minute of skew.
        assert.isAtLeast(checkedAtMs(result), blocked.due_ms - 1500)
        assert.isBelow(checkedAtMs(result), blocked.due_ms + 3000)
      })
  )

  it.scopedLive(
    "after a dropped stream it reconnects and resends every unacknowledged result unchanged; a full buffer drops the oldest, counted",
    () =>
      Effect.gen(function* () {
        const service = yield* FakeService.make()
        const target = yield* Target.make
        const agent = yield* start({
          env: envFor(service, { AGENT__ALLOW_PRIVATE_TARGETS: "true", AGENT__BUFFER_SIZE: "2" })
        })
        yield* connected(service)
        const check = Target.check({ type: "http", url: `${target.origin}/ok` })

        // Acknowledged: never sent again.
        const acked = FakeService.job(service, check, 50)
        service.enqueue(acked)
        yield* eventually(
          () => service.stored.size,
          (n) => n >= 1
        )

        // Three results the service does not acknowledge, into a buffer of two: the oldest is dropped.
        service.holdAcks = true
        const held = [
          FakeService.job(service, check, 50),
          FakeService.job(service, check, 150),
          FakeService.job(service, check, 250)
        ]
        // One at a time, each sent before the next is run: the third fills the buffer past two while the first is
        // still unacknowledged, so it is the first that is dropped, after its one delivery. (All three at once, on a
        // busy machine, could end together and drop the first before it was ever sent.)
        for (const [i, job] of held.entries()) {
          service.enqueue(job)
          yield* eventually(
            () => service.stored.size,
            (n) => n >= i + 2
          )
        }
        const dropped = yield* eventually(
          () => logsWith(agent.logs(), "Results dropped: the buffer was full"),
          (lines) => lines.length > 0
        )
        assert.strictEqual(dropped[0]?.fields["dropped_total"], 1)

        service.holdAcks = false
        service.dropStreams()
        const [first, second, third] = held.map((job) => resultFor(service, job)!)
        // Resent by the reconnection itself, well before an unanswered result would be sent again (15 s).
        yield* eventually(
          () => [copiesOf(service, second!.id).length, copiesOf(service, third!.id).length],
          ([a, b]) => a! >= 2 && b! >= 2,
          8_000
        )
        assert.strictEqual(service.hellos.length, 2, "every reconnection says hello again")
        for (const result of [second!, third!]) {
          const copies = copiesOf(service, result.id)
          assert.strictEqual(copies.length, 2)
          assert.deepStrictEqual(
            copies.map((copy) => DateTime.formatIso(copy.outcome!.checked_at)),
            [DateTime.formatIso(result.outcome!.checked_at), DateTime.formatIso(result.outcome!.checked_at)]
          )
        }
        assert.strictEqual(copiesOf(service, first!.id).length, 1, "the dropped result came back")
        assert.strictEqual(
          copiesOf(service, resultFor(service, acked)!.id).length,
          1,
          "an acknowledged result came back"
        )
        assert.strictEqual(service.stored.size, 4)
        const reconnects = logsWith(agent.logs(), "Cannot reach the service; retrying")
        assert.match(String(reconnects[0]?.fields["error"]), /the stream closed \(1006/)
      })
  )

  it.scopedLive("SIGTERM mid-check: draining, no more pulls, the check finishes, its result is delivered, exit 0", () =>
    Effect.gen(function* () {
      const service = yield* FakeService.make()
      const target = yield* Target.make
      const agent = yield* start({ env: envFor(service, { AGENT__ALLOW_PRIVATE_TARGETS: "true" }) })
      yield* connected(service)
      const slow = FakeService.job(service, Target.check({ type: "http", url: `${target.origin}/slow/1500` }), 0)
      service.enqueue(slow)
      yield* eventually(
        () => target.requests.length,
        (n) => n > 0
      )
      agent.child.kill("SIGTERM")
      const exited = yield* waitExit(agent)
      assert.strictEqual(exited.code, 0, exited.stderr)
      assert.strictEqual(exited.stderr, "")

      const result = resultFor(service, slow)
      assert.strictEqual(result?.outcome?.status, "up")
      assert.isAtLeast(result?.outcome?.duration_ms ?? 0, 1400)
      const drainingAt = service.messages.findIndex(({ message }) => message._tag === "draining")
      assert.isAtLeast(drainingAt, 0, "no draining message")
      assert.isFalse(
        service.messages.slice(drainingAt).some(({ message }) => message._tag === "pull"),
        "pulled after draining"
      )
      assert.lengthOf(logsWith(agent.logs(), "Drained: every result delivered"), 1)
    })
  )

  it.scopedLive("a drain whose stream is gone delivers over POST /results and exits 0", () =>
    Effect.gen(function* () {
      const service = yield* FakeService.make()
      const target = yield* Target.make
      const agent = yield* start({ env: envFor(service, { AGENT__ALLOW_PRIVATE_TARGETS: "true" }) })
      yield* connected(service)
      const slow = FakeService.job(service, Target.check({ type: "http", url: `${target.origin}/slow/1500` }), 0)
      service.enqueue(slow)
      yield* eventually(
        () => target.requests.length,
        (n) => n > 0
      )
      agent.child.kill("SIGTERM")
      yield* eventually(
        () => service.messages.some(({ message }) => message._tag === "draining"),
        (seen) => seen
      )
      service.dropStreams()
      const exited = yield* waitExit(agent)
      assert.strictEqual(exited.code, 0, exited.stderr)
      const result = resultFor(service, slow)
      assert.strictEqual(result?.outcome?.status, "up")
      assert.deepStrictEqual(
        copiesOf(service, result!.id).map((copy) => copy.via),
        ["http"]
      )
      assert.strictEqual(service.upgrades.count, 1, "a draining agent opened a new stream")
    })
  )

  it.scopedLive(
    "a drain that cannot deliver by AGENT__DRAIN_TIMEOUT_SECS exits 4 with a line counting what was lost",
    () =>
      Effect.gen(function* () {
        // Results reach the stream but are never acknowledged, and POST /results is down.
        const service = yield* FakeService.make({ holdAcks: true, resultsStatus: 503 })
        const agent = yield* start({ env: envFor(service, { AGENT__DRAIN_TIMEOUT_SECS: "1" }) })
        yield* connected(service)
        service.enqueue(FakeService.job(service, null, 0, { error: "not ready" }))
        yield* eventually(
          () => service.deliveries.length,
          (n) => n > 0
        )
        agent.child.kill("SIGTERM")
        const exited = yield* waitExit(agent)
        assert.strictEqual(exited.code, 4)
        assert.strictEqual(exited.stderr, "signalman-agent: drained with 1 result(s) the service did not acknowledge\n")
        assert.lengthOf(logsWith(agent.logs(), "Drained with results that could not be delivered"), 1)
      })
  )

  it.scopedLive("a second SIGTERM during a drain exits at once with 143", () =>
    Effect.gen(function* () {
      const service = yield* FakeService.make()
      const target = yield* Target.make
      const agent = yield* start({ env: envFor(service, { AGENT__ALLOW_PRIVATE_TARGETS: "true" }) })
      yield* connected(service)
      service.enqueue(
        FakeService.job(service, Target.check({ type: "http", url: `${target.origin}/slow/20000`, timeout: 30 }), 0)
      )
      yield* eventually(
        () => target.requests.length,
        (n) => n > 0
      )
      agent.child.kill("SIGTERM")
      yield* eventually(
        () => service.messages.some(({ message }) => message._tag === "draining"),
        (seen) => seen
      )
      const secondAt = Date.now()
      agent.child.kill("SIGTERM")
      const exited = yield* waitExit(agent)
      assert.strictEqual(exited.code, 143)
      assert.isBelow(Date.now() - secondAt, 5000)
      assert.strictEqual(exited.stderr, "signalman-agent: second SIGTERM: exiting at once\n")
    })
  )

  it.scopedLive("the stream closed with 4401 stops the agent at once with one line and exit 3", () =>
    Effect.gen(function* () {
      const service = yield* FakeService.make()
      const target = yield* Target.make
      const agent = yield* start({ env: envFor(service, { AGENT__ALLOW_PRIVATE_TARGETS: "true" }) })
      yield* connected(service)
      service.enqueue(
        FakeService.job(service, Target.check({ type: "http", url: `${target.origin}/slow/20000`, timeout: 30 }), 0)
      )
      yield* eventually(
        () => target.requests.length,
        (n) => n > 0
      )
      const revokedAt = Date.now()
      service.closeStreams(4401, "This agent token was revoked")
      const exited = yield* waitExit(agent)
      assert.strictEqual(exited.code, 3)
      assert.isBelow(Date.now() - revokedAt, 5000, "a running check held the agent")
      assert.strictEqual(
        exited.stderr,
        "signalman-agent: the server refused the agent token: This agent token was revoked\n"
      )
      assert.strictEqual(service.hellos.length, 1, "a revoked agent tried again")
    })
  )

  it.scopedLive(
    "never logs the token, a check's credentials or a flow's fill values; an unreadable job is answered with an error",
    () =>
      Effect.gen(function* () {
        const service = yield* FakeService.make()
        const target = yield* Target.make
        const agent = yield* start({ env: envFor(service, { AGENT__ALLOW_PRIVATE_TARGETS: "true" }) })
        yield* connected(service)
        const secrets = ["pa55-basic-secret", "bearer-secret-value", "header-secret-value", "fill-secret-value"]
        const http = FakeService.job(
          service,
          Target.check({
            type: "http",
            url: `${target.origin}/ok`,
            basic_auth: { username: "probe", password: secrets[0] },
            bearer_token: secrets[1],
            headers: { "x-api-key": secrets[2] }
          }),
          50
        )
        const flow = FakeService.job(
          service,
          Target.check({
            type: "flow",
            start_url: `${target.origin}/ok`,
            steps: [
              { action: "fill", selector: "#password", value: secrets[3] },
              { action: "assert_text", text: "ok" }
            ]
          }),
          50
        )
        // A check of a kind this agent does not know (a newer service): answered with an error, not lost.
        const unreadable = FakeService.job(service, null, 50)
        service.enqueue(http, flow)
        service.enqueueRaw({
          target_id: unreadable.target_id,
          org_id: unreadable.org_id,
          due: unreadable.due,
          due_ms: unreadable.due_ms,
          deadline_ms: unreadable.deadline_ms,
          interval_secs: 60,
          check: { type: "carrier_pigeon", loft: "north" },
          error: null
        })
        yield* eventually(
          () => service.stored.size,
          (n) => n >= 3
        )
        const answered = resultFor(service, unreadable)
        assert.strictEqual(answered?.outcome?.status, "error")
        assert.match(answered?.outcome?.error ?? "", /could not read this check/)
        assert.strictEqual(resultFor(service, flow)?.outcome?.status, "error")
        agent.child.kill("SIGTERM")
        const exited = yield* waitExit(agent)
        assert.strictEqual(exited.code, 0)
        const everything = exited.stdout + exited.stderr
        assert.isAbove(agent.logs().filter((line) => line.level === "debug").length, 0, "debug logs were off")
        for (const secret of [...secrets, FakeService.TOKEN]) assert.notInclude(everything, secret)
      })
  )

  it.scopedLive(
    "runs a one-off check at once with its credentials, answers it once, drains, and never logs the secrets",
    () =>
      Effect.gen(function* () {
        const service = yield* FakeService.make()
        const target = yield* Target.make
        const agent = yield* start({ env: envFor(service, { AGENT__ALLOW_PRIVATE_TARGETS: "true" }) })
        yield* connected(service)
        const secrets = ["one-off-bearer-secret", "one-off-header-secret"]
        const job = FakeService.oneOff(
          service,
          Target.check({
            type: "http",
            url: `${target.origin}/ok`,
            bearer_token: secrets[0],
            headers: { "x-api-key": secrets[1] }
          })
        )
        // Another that the agent cannot read (a newer kind): answered at once with an error, the first one not lost.
        const unreadable = { ...job, id: crypto.randomUUID(), check: { type: "carrier_pigeon" } }
        const pushed = Date.now()
        service.pushOneOff(job, unreadable)
        yield* eventually(
          () => service.answered.size,
          (n) => n >= 2
        )
        const seen = target.requests.filter((request) => request.url === "/ok")
        assert.strictEqual(seen.length, 1)
        assert.strictEqual(seen[0]?.headers["authorization"], `Bearer ${secrets[0]}`)
        assert.strictEqual(seen[0]?.headers["x-api-key"], secrets[1])
        // At once: no due time, no pull (generous for loaded test machines).
        assert.isBelow(seen[0]!.at - pushed, 2000, "the one-off check started late")
        assert.strictEqual(service.answered.get(job.id)?.outcome.status, "up")
        assert.match(service.answered.get(unreadable.id)?.outcome.error ?? "", /could not read this check/)
        agent.child.kill("SIGTERM")
        const exited = yield* waitExit(agent)
        assert.strictEqual(exited.code, 0)
        const copies = service.oneOffDeliveries.flatMap((delivery) => delivery.results).filter((r) => r.id === job.id)
        assert.strictEqual(copies.length, 1)
        const everything = exited.stdout + exited.stderr
        assert.isAbove(agent.logs().filter((line) => line.level === "debug").length, 0, "debug logs were off")
        for (const secret of [...secrets, FakeService.TOKEN]) assert.notInclude(everything, secret)
      })
  )
})
