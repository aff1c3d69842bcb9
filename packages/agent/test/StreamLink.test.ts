import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import * as StreamLink from "../src/StreamLink.js"
import * as FakeService from "./support/FakeService.js"

const job = {
  target_id: "0b9f6a3e-1c2d-4e5f-8a7b-000000000001",
  org_id: "7d3e1a2b-4c5d-4e6f-9a8b-0c1d2e3f4a5b",
  due: "2026-01-01T00:00:10.000Z",
  due_ms: 1_767_225_610_000,
  deadline_ms: 1_767_225_640_000,
  interval_secs: 60,
  check: { type: "tcp", host: "example.com", port: 443 },
  error: null
}

describe("StreamLink", () => {
  it("the stream's URL: ws for http, wss for https, under the service's path", () => {
    assert.strictEqual(StreamLink.streamUrl("http://127.0.0.1:8080"), "ws://127.0.0.1:8080/api/agent/v1/stream")
    assert.strictEqual(
      StreamLink.streamUrl("https://example.com/signalman"),
      "wss://example.com/signalman/api/agent/v1/stream"
    )
  })

  it("jobs are decoded one by one: an unreadable job keeps its slot and does not cost the others", () => {
    const message = StreamLink.decode(
      JSON.stringify({
        _tag: "jobs",
        jobs: [job, { ...job, check: { type: "carrier_pigeon" } }, { nonsense: true }]
      })
    )
    if (message._tag !== "jobs") return assert.fail(message._tag)
    const [good, unreadable, garbage] = message.jobs
    assert.isTrue(good !== undefined && Either.isRight(good))
    if (unreadable === undefined || Either.isRight(unreadable)) return assert.fail("expected unreadable")
    assert.deepStrictEqual(
      Option.map(unreadable.left.slot, (slot) => [slot.target_id, slot.due, slot.due_ms]),
      Option.some([job.target_id, job.due, job.due_ms])
    )
    assert.match(unreadable.left.message, /could not read this check/)
    if (garbage === undefined || Either.isRight(garbage)) return assert.fail("expected unreadable")
    assert.isTrue(Option.isNone(garbage.left.slot))
  })

  it("one-off jobs are decoded one by one: an unreadable one keeps its id when it has one", () => {
    const oneOff = { id: "5a1e0c3d-2b4f-4e6a-8c9d-0e1f2a3b4c5d", org_id: job.org_id, deadline_ms: 1, check: job.check }
    const message = StreamLink.decode(
      JSON.stringify({
        _tag: "one_off",
        jobs: [oneOff, { ...oneOff, check: { type: "carrier_pigeon" } }, { nonsense: true }]
      })
    )
    if (message._tag !== "one_off") return assert.fail(message._tag)
    const [good, unreadable, garbage] = message.jobs
    if (good === undefined || Either.isLeft(good)) return assert.fail("expected a job")
    assert.deepStrictEqual([good.right.id, good.right.check.type], [oneOff.id, "tcp"])
    if (unreadable === undefined || Either.isRight(unreadable)) return assert.fail("expected unreadable")
    assert.deepStrictEqual(unreadable.left.id, Option.some(oneOff.id))
    assert.match(unreadable.left.message, /could not read this check/)
    if (garbage === undefined || Either.isRight(garbage)) return assert.fail("expected unreadable")
    assert.isTrue(Option.isNone(garbage.left.id))
  })

  it("ack and refused decode as the protocol's; anything else is garbled", () => {
    const ack = StreamLink.decode(JSON.stringify({ _tag: "ack", acknowledged: [job.target_id] }))
    assert.deepStrictEqual(ack, { _tag: "ack", acknowledged: [job.target_id] })
    const refused = StreamLink.decode(JSON.stringify({ _tag: "refused", code: "INVALID_JSON", message: "no" }))
    assert.deepStrictEqual(refused, { _tag: "refused", code: "INVALID_JSON", message: "no" })
    assert.strictEqual(StreamLink.decode("{not json")._tag, "garbled")
    assert.strictEqual(StreamLink.decode(JSON.stringify({ _tag: "welcome" }))._tag, "garbled")
  })
})

const targetOf = (url: string, token = FakeService.TOKEN) => ({
  url,
  token: Redacted.make(token),
  userAgent: "signalman-agent/test"
})

describe("StreamLink.open", () => {
  it.scopedLive("opens with the bearer, sends the protocol's messages and decodes the answers", () =>
    Effect.gen(function* () {
      const service = yield* FakeService.make()
      service.enqueue(FakeService.job(service, null, 0, { error: "not ready" }))
      const link = yield* StreamLink.open(targetOf(service.url), { heartbeatMs: 10_000 })
      assert.isTrue(yield* link.send({ _tag: "pull", room: 5 }))
      const answer = yield* Queue.take(link.incoming)
      if (answer._tag !== "jobs") return assert.fail(answer._tag)
      assert.strictEqual(answer.jobs.length, 1)
      assert.deepStrictEqual(service.messages[0]?.message, { _tag: "pull", room: 5 })
    })
  )

  it.scopedLive("a 401 to the upgrade is a refused token", () =>
    Effect.gen(function* () {
      const service = yield* FakeService.make({ refuseUpgrades: true })
      const error = yield* Effect.flip(StreamLink.open(targetOf(service.url), { heartbeatMs: 10_000 }))
      assert.deepStrictEqual(
        { tag: error._tag, message: error.message },
        { tag: "TokenRefused", message: "This agent token is not valid (revoked?)" }
      )
    })
  )

  it.scopedLive("no server: Unreachable", () =>
    Effect.gen(function* () {
      const url = yield* FakeService.nobodyListening
      const error = yield* Effect.flip(StreamLink.open(targetOf(url), { heartbeatMs: 10_000 }))
      assert.strictEqual(error._tag, "Unreachable")
    })
  )

  it.scopedLive("the close code and reason the service sent (4401 for a revoked token)", () =>
    Effect.gen(function* () {
      const service = yield* FakeService.make()
      const link = yield* StreamLink.open(targetOf(service.url), { heartbeatMs: 10_000 })
      service.closeStreams(4401, "revoked")
      assert.deepStrictEqual(yield* Deferred.await(link.closed), { code: 4401, reason: "revoked" })
      assert.isFalse(yield* link.send({ _tag: "draining" }))
    })
  )

  it.scopedLive("a peer that stops answering pings is cut off within two heartbeats", () =>
    Effect.gen(function* () {
      const service = yield* FakeService.make({ autoPong: false })
      const link = yield* StreamLink.open(targetOf(service.url), { heartbeatMs: 100 })
      const closed = yield* Deferred.await(link.closed).pipe(Effect.timeout("2 seconds"))
      assert.strictEqual(closed.code, 1006)
    })
  )
})
