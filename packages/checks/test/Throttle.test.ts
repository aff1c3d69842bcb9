import { assert, describe, it } from "@effect/vitest"
import { CheckSpec } from "@signalman/core/CheckSpec"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Throttle from "../src/Throttle.js"
import { settings } from "./support/ProbeEnv.js"

const withCap = (perHostMaxInflight: number) =>
  Throttle.Throttle.Default.pipe(Layer.provide(settings({ perHostMaxInflight })))

const api = Throttle.Throttle

const host = Throttle.key("org-1", "api.example.com", 443)

// Holds a slot until the gate opens, so a test decides when each check ends.
const gated = (gate: Deferred.Deferred<void>) => Effect.as(Deferred.await(gate), "done")

// Forks a throttled run and waits until it has either taken a slot or been dropped, so the next fork sees it.
const started = <A, E>(throttle: Throttle.Throttle, key: Throttle.Key, check: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const decided = yield* Deferred.make<void>()
    const fiber = yield* Effect.fork(
      throttle
        .run(key, Effect.zipRight(Deferred.succeed(decided, undefined), check))
        .pipe(Effect.tap(() => Deferred.succeed(decided, undefined)))
    )
    yield* Deferred.await(decided)
    return fiber
  })

describe("Throttle", () => {
  it.effect("at most perHostMaxInflight checks run per (org, host, port); the next is dropped, not run", () =>
    Effect.gen(function* () {
      const throttle = yield* api
      const gate = yield* Deferred.make<void>()
      const ran = yield* Ref.make(0)
      const check = Effect.zipRight(
        Ref.update(ran, (n) => n + 1),
        gated(gate)
      )
      const first = yield* started(throttle, host, check)
      const second = yield* started(throttle, host, check)
      assert.strictEqual(yield* throttle.inflight(host), 2)
      const third = yield* throttle.run(host, check)
      assert.deepStrictEqual(third, { _tag: "Dropped", key: host })
      assert.strictEqual(yield* Ref.get(ran), 2, "the dropped check never ran")
      yield* Deferred.succeed(gate, undefined)
      assert.deepStrictEqual(yield* Fiber.join(first), { _tag: "Ran", value: "done" })
      assert.deepStrictEqual(yield* Fiber.join(second), { _tag: "Ran", value: "done" })
      assert.strictEqual(yield* throttle.inflight(host), 0)
    }).pipe(Effect.provide(withCap(2)))
  )

  it.effect("another org, host or port has its own count", () =>
    Effect.gen(function* () {
      const throttle = yield* api
      const gate = yield* Deferred.make<void>()
      yield* started(throttle, host, gated(gate))
      assert.strictEqual((yield* throttle.run(host, Effect.void))._tag, "Dropped")
      for (const other of [
        Throttle.key("org-2", "api.example.com", 443),
        Throttle.key("org-1", "www.example.com", 443),
        Throttle.key("org-1", "api.example.com", 8443)
      ]) {
        assert.deepStrictEqual(yield* throttle.run(other, Effect.succeed(1)), { _tag: "Ran", value: 1 })
      }
    }).pipe(Effect.provide(withCap(1)))
  )

  it.effect("a slot is released when the check succeeds, fails or is interrupted", () =>
    Effect.gen(function* () {
      const throttle = yield* api
      assert.deepStrictEqual(yield* throttle.run(host, Effect.succeed("ok")), { _tag: "Ran", value: "ok" })
      assert.strictEqual(yield* throttle.inflight(host), 0)

      const failed = yield* Effect.exit(throttle.run(host, Effect.fail("boom")))
      assert.deepStrictEqual(failed, Exit.fail("boom"))
      assert.strictEqual(yield* throttle.inflight(host), 0)

      const holder = yield* started(throttle, host, Effect.never)
      assert.strictEqual(yield* throttle.inflight(host), 1)
      yield* Fiber.interrupt(holder)
      assert.strictEqual(yield* throttle.inflight(host), 0)
      assert.strictEqual((yield* throttle.run(host, Effect.void))._tag, "Ran")
    }).pipe(Effect.provide(withCap(1)))
  )

  it.effect("a burst of 200 ticks against a cap of 3: exactly 3 run, 197 are dropped, all slots come back", () =>
    Effect.gen(function* () {
      const throttle = yield* api
      const gate = yield* Deferred.make<void>()
      const ticks = 200
      const decided = yield* Ref.make(0)
      const allDecided = yield* Deferred.make<void>()
      const decide = Ref.updateAndGet(decided, (n) => n + 1).pipe(
        Effect.flatMap((n) => (n === ticks ? Deferred.succeed(allDecided, undefined) : Effect.void))
      )
      const tick = throttle
        .run(host, Effect.zipRight(decide, Deferred.await(gate)))
        .pipe(Effect.tap((admission) => (admission._tag === "Dropped" ? decide : Effect.void)))
      const fibers = yield* Effect.forEach(Array.from({ length: ticks }), () => Effect.fork(tick))
      yield* Deferred.await(allDecided)
      assert.strictEqual(yield* throttle.inflight(host), 3)
      yield* Deferred.succeed(gate, undefined)
      const admissions = yield* Effect.forEach(fibers, Fiber.join)
      assert.strictEqual(admissions.filter((a) => a._tag === "Ran").length, 3)
      assert.strictEqual(admissions.filter((a) => a._tag === "Dropped").length, ticks - 3)
      assert.strictEqual(yield* throttle.inflight(host), 0)
    }).pipe(Effect.provide(withCap(3)))
  )

  it("key normalises case, IPv6 brackets and a trailing dot, so spellings share a count", () => {
    assert.deepStrictEqual(Throttle.key("o", "API.Example.COM.", 443), Throttle.key("o", "api.example.com", 443))
    assert.deepStrictEqual(Throttle.key("o", "[2001:DB8::1]", 80), { org: "o", host: "2001:db8::1", port: 80 })
  })

  describe("keyOf", () => {
    const spec = Schema.decodeUnknownSync(CheckSpec)

    it("http and flow count against the url's host and port, the scheme's default when none", () => {
      assert.deepStrictEqual(
        Throttle.keyOf("o", spec({ type: "http", url: "https://Example.com/health" })),
        Option.some({ org: "o", host: "example.com", port: 443 })
      )
      assert.deepStrictEqual(
        Throttle.keyOf("o", spec({ type: "http", url: "http://example.com:8080/" })),
        Option.some({ org: "o", host: "example.com", port: 8080 })
      )
      assert.deepStrictEqual(
        Throttle.keyOf(
          "o",
          spec({ type: "flow", start_url: "http://shop.example.com", steps: [{ action: "assert_url", contains: "/" }] })
        ),
        Option.some({ org: "o", host: "shop.example.com", port: 80 })
      )
    })

    it("tcp and tls_cert count against host and port, ping against the host alone", () => {
      assert.deepStrictEqual(
        Throttle.keyOf("o", spec({ type: "tcp", host: "db.example.com", port: 5432 })),
        Option.some({ org: "o", host: "db.example.com", port: 5432 })
      )
      assert.deepStrictEqual(
        Throttle.keyOf("o", spec({ type: "tls_cert", host: "example.com" })),
        Option.some({ org: "o", host: "example.com", port: 443 })
      )
      assert.deepStrictEqual(
        Throttle.keyOf("o", spec({ type: "ping", host: "example.com" })),
        Option.some({ org: "o", host: "example.com", port: null })
      )
    })

    it("dns, domain_expiry, heartbeat and manual contact no host of the target: no key", () => {
      for (const check of [
        { type: "dns", domain: "example.com", record_type: "A" },
        { type: "domain_expiry", domain: "example.com" },
        { type: "heartbeat", period: 3600, grace: 60 },
        { type: "manual" }
      ]) {
        assert.isTrue(Option.isNone(Throttle.keyOf("o", spec(check))))
      }
    })

    it("an http url that does not parse has no key (its probe reports it without dialing)", () => {
      assert.isTrue(Option.isNone(Throttle.keyOf("o", spec({ type: "http", url: "not a url" }))))
    })
  })
})
