import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Dial from "../src/Dial.js"
import { type Attempt, type Raced, type Schedule, staggered } from "../src/internal/happyEyeballs.js"
import type { Settings } from "../src/ProbeSettings.js"
import * as Resolver from "../src/Resolver.js"
import { selfSigned } from "./support/Certificates.js"
import { closedPort, closedPortOnBoth, onBothLoopbacks, tcpServer, tlsServer } from "./support/Loopback.js"
import { admitting, noResolver, settings, tableResolver } from "./support/ProbeEnv.js"

const env = (resolver: Layer.Layer<Resolver.Resolver> = noResolver, overrides: Partial<Settings> = {}) =>
  Layer.mergeAll(settings(overrides), resolver)

describe("Dial", () => {
  describe("staggered attempts (happy eyeballs timing, on a manual clock)", () => {
    // A clock that moves only when told: `schedule` is what the race uses for its attempt delay.
    const manualClock = () => {
      let now = 0
      let tasks: Array<{ readonly at: number; readonly run: () => void }> = []
      const schedule: Schedule = (ms, run) => {
        const task = { at: now + ms, run }
        tasks.push(task)
        return () => {
          tasks = tasks.filter((t) => t !== task)
        }
      }
      const adjust = (ms: number): void => {
        const until = now + ms
        for (let turn = 0; turn < 100; turn++) {
          const due = tasks.filter((t) => t.at <= until).sort((x, y) => x.at - y.at)[0]
          if (due === undefined) break
          tasks = tasks.filter((t) => t !== due)
          now = due.at
          due.run()
        }
        now = until
      }
      return { schedule, adjust }
    }
    const never: Attempt<string, string> = () => () => {}
    const succeed =
      (value: string, started?: () => void): Attempt<string, string> =>
      (settle) => {
        started?.()
        settle({ ok: true, value })
        return () => {}
      }
    const fail =
      (error: string): Attempt<string, string> =>
      (settle) => {
        settle({ ok: false, error })
        return () => {}
      }
    const race = (attempts: ReadonlyArray<Attempt<string, string>>) => {
      const clock = manualClock()
      let result: Raced<string, string> | undefined
      staggered(
        attempts,
        250,
        (raced) => {
          assert.isUndefined(result, "done is called once")
          result = raced
        },
        clock.schedule
      )
      return { adjust: clock.adjust, result: () => result }
    }

    it("the next attempt starts 250 ms after the first while the first hangs", () => {
      let secondStarted = false
      const running = race([never, succeed("ipv4", () => (secondStarted = true))])
      running.adjust(249)
      assert.isFalse(secondStarted)
      assert.isUndefined(running.result())
      running.adjust(1)
      assert.deepStrictEqual(running.result(), { ok: true, value: "ipv4" })
    })

    it("the next attempt starts as soon as the one before fails, without waiting out the delay", () => {
      const running = race([fail("refused"), succeed("ipv4")])
      assert.deepStrictEqual(running.result(), { ok: true, value: "ipv4" }, "the second attempt waited for the clock")
    })

    it("an attempt that connects before the delay wins, and the next one never starts", () => {
      let secondStarted = false
      const running = race([succeed("ipv6"), succeed("ipv4", () => (secondStarted = true))])
      running.adjust(1000)
      assert.deepStrictEqual(running.result(), { ok: true, value: "ipv6" })
      assert.isFalse(secondStarted)
    })

    it("the first success wins and the attempts still running are aborted", () => {
      let aborted = false
      const hanging: Attempt<string, string> = () => () => {
        aborted = true
      }
      const running = race([hanging, succeed("b")])
      running.adjust(250)
      assert.deepStrictEqual(running.result(), { ok: true, value: "b" })
      assert.isTrue(aborted)
    })

    it("each further attempt waits its own delay after the one before", () => {
      const running = race([never, never, succeed("third")])
      running.adjust(250)
      assert.isUndefined(running.result())
      running.adjust(250)
      assert.deepStrictEqual(running.result(), { ok: true, value: "third" })
    })

    it("when every attempt fails, the errors come back in the order they failed", () => {
      const running = race([fail("a"), fail("b"), fail("c")])
      running.adjust(1000)
      assert.deepStrictEqual(running.result(), { ok: false, errors: ["a", "b", "c"] })
    })

    it("errors are in the order the attempts failed, not the order they started", () => {
      const clock = manualClock()
      // The first attempt fails 400 ms in, after the second (started at 250 ms) failed at 300 ms.
      const failsAt =
        (ms: number, error: string): Attempt<string, string> =>
        (settle) =>
          clock.schedule(ms, () => settle({ ok: false, error }))
      let result: Raced<string, string> | undefined
      staggered([failsAt(400, "first"), failsAt(50, "second")], 250, (raced) => (result = raced), clock.schedule)
      clock.adjust(1000)
      assert.deepStrictEqual(result, { ok: false, errors: ["second", "first"] })
    })

    it("aborting the race aborts every attempt started and never calls back", () => {
      const clock = manualClock()
      let aborted = 0
      const hanging: Attempt<string, string> = () => () => {
        aborted++
      }
      let called = false
      const abort = staggered([hanging, hanging, hanging], 250, () => (called = true), clock.schedule)
      clock.adjust(250)
      abort()
      clock.adjust(1000)
      assert.strictEqual(aborted, 2, "the third attempt never started")
      assert.isFalse(called)
    })
  })

  describe("resolve", () => {
    it.live("an IP literal in any spelling skips DNS and is dialed in its normal form", () =>
      Effect.gen(function* () {
        const resolution = yield* Dial.resolve("0x7f.1", "any")
        assert.deepStrictEqual(resolution, { addresses: [{ address: "127.0.0.1", family: 4 }], timings: {} })
        const six = yield* Dial.resolve("[0:0:0:0:0:0:0:1]", "ipv6")
        assert.deepStrictEqual(six.addresses, [{ address: "::1", family: 6 }])
      }).pipe(Effect.provide(env()))
    )

    it.live("an IP literal pinned to the other family is a configuration error (reason family), not a lookup", () =>
      Effect.gen(function* () {
        const v6 = yield* Effect.flip(Dial.resolve("[::1]", "ipv4"))
        assert.strictEqual(v6.reason, "family")
        assert.strictEqual(v6.message, "ip_version ipv4 cannot dial [::1], an IPv6 address")
        const v4 = yield* Effect.flip(Dial.resolve("127.0.0.1", "ipv6"))
        assert.strictEqual(v4.message, "ip_version ipv6 cannot dial 127.0.0.1, an IPv4 address")
      }).pipe(Effect.provide(env()))
    )

    it.live("ipv4 asks only for A, ipv6 only for AAAA, any for both (IPv6 first); dns_ms is measured", () => {
      const resolver = tableResolver({ "dual.test": ["127.0.0.1", "::1"] })
      return Effect.gen(function* () {
        const four = yield* Dial.resolve("dual.test", "ipv4")
        const six = yield* Dial.resolve("dual.test", "ipv6")
        const both = yield* Dial.resolve("dual.test", "any")
        assert.deepStrictEqual(four.addresses, [{ address: "127.0.0.1", family: 4 }])
        assert.deepStrictEqual(six.addresses, [{ address: "::1", family: 6 }])
        assert.deepStrictEqual(both.addresses, [
          { address: "::1", family: 6 },
          { address: "127.0.0.1", family: 4 }
        ])
        assert.isNumber(four.timings.dns_ms)
        assert.deepStrictEqual(
          resolver.lookups.map((l) => l.family),
          ["ipv4", "ipv6", "any"]
        )
      }).pipe(Effect.provide(env(resolver.layer)))
    })

    it.live("a name without an address in the pinned family fails dns: no IPv4 address, with no fallback", () => {
      const resolver = tableResolver({ "six.test": ["::1"] })
      return Effect.gen(function* () {
        const failure = yield* Effect.flip(Dial.resolve("six.test", "ipv4"))
        assert.strictEqual(failure.reason, "dns")
        assert.strictEqual(failure.message, "dns: no IPv4 address")
        assert.isNumber(failure.timings.dns_ms)
        assert.deepStrictEqual(resolver.lookups, [{ host: "six.test", family: "ipv4" }])
      }).pipe(Effect.provide(env(resolver.layer)))
    })

    it.live("a pinned check dials nothing of the other family even when a resolver answers it", () =>
      Effect.gen(function* () {
        const careless = Layer.succeed(Resolver.Resolver, {
          lookup: () =>
            Effect.succeed([
              { address: "::1", family: 6 as const },
              { address: "127.0.0.1", family: 4 as const }
            ])
        })
        const resolution = yield* Dial.resolve("dual.test", "ipv4").pipe(Effect.provide(env(careless)))
        assert.deepStrictEqual(resolution.addresses, [{ address: "127.0.0.1", family: 4 }])
      })
    )

    describe("the guard (allowPrivateTargets off)", () => {
      it.live("an internal literal is blocked with the guard's message", () =>
        Effect.gen(function* () {
          const failure = yield* Effect.flip(Dial.resolve("0x7f.1", "any"))
          assert.strictEqual(failure.reason, "blocked")
          assert.strictEqual(failure.message, "blocked: 127.0.0.1 is a loopback address")
        }).pipe(Effect.provide(env(noResolver, { allowPrivateTargets: false })))
      )

      it.live("a name whose every answer is internal is blocked, naming the name and the address", () => {
        const resolver = tableResolver({ "internal.test": ["10.0.0.5", "fd00::5"] })
        return Effect.gen(function* () {
          const failure = yield* Effect.flip(Dial.resolve("internal.test", "any"))
          assert.strictEqual(failure.reason, "blocked")
          assert.strictEqual(failure.message, "blocked: internal.test resolves to fd00::5, a unique-local address")
        }).pipe(Effect.provide(env(resolver.layer, { allowPrivateTargets: false })))
      })

      it.live("internal answers are dropped and the allowed ones kept", () => {
        const resolver = tableResolver({ "mixed.test": ["10.0.0.5", "127.0.0.1", "169.254.169.254"] })
        return Effect.gen(function* () {
          const resolution = yield* Dial.resolve("mixed.test", "any")
          assert.deepStrictEqual(resolution.addresses, [{ address: "127.0.0.1", family: 4 }])
        }).pipe(
          Effect.provide(env(resolver.layer, { allowPrivateTargets: false })),
          Effect.provide(admitting("127.0.0.1"))
        )
      })

      it.live("with allowPrivateTargets on, internal addresses are dialable", () =>
        Effect.gen(function* () {
          const resolution = yield* Dial.resolve("127.0.0.1", "any")
          assert.deepStrictEqual(resolution.addresses, [{ address: "127.0.0.1", family: 4 }])
        }).pipe(Effect.provide(env(noResolver, { allowPrivateTargets: true })))
      )

      it.scopedLive(
        "DNS rebinding: public when first asked, loopback at dial time: refused, no connection made",
        () => {
          const resolver = tableResolver({ "rebind.test": { inTurn: [["93.184.216.34"], ["127.0.0.1"]] } })
          return Effect.gen(function* () {
            const server = yield* tcpServer()
            // The first answer (what a save-time check would have seen) is public and allowed...
            const earlier = yield* Dial.resolve("rebind.test", "any")
            assert.deepStrictEqual(earlier.addresses, [{ address: "93.184.216.34", family: 4 }])
            // ...but the dial judges the answer it is about to use.
            const failure = yield* Effect.flip(Dial.tcp({ host: "rebind.test", port: server.port, ipVersion: "any" }))
            assert.strictEqual(failure.reason, "blocked")
            assert.strictEqual(failure.message, "blocked: rebind.test resolves to 127.0.0.1, a loopback address")
            assert.strictEqual(server.connections(), 0)
          }).pipe(Effect.provide(env(resolver.layer, { allowPrivateTargets: false })))
        }
      )
    })
  })

  describe("tcp", () => {
    it.scopedLive("connects to a literal: connect_ms, no dns_ms; the socket is closed with the scope", () =>
      Effect.gen(function* () {
        const server = yield* tcpServer()
        const connection = yield* Effect.scoped(Dial.tcp({ host: "127.0.0.1", port: server.port, ipVersion: "any" }))
        assert.deepStrictEqual(connection.address, { address: "127.0.0.1", family: 4 })
        assert.isNumber(connection.timings.connect_ms)
        assert.isUndefined(connection.timings.dns_ms)
        assert.isTrue(connection.socket.writableEnded, "closed (FIN sent) when the scope closed")
        assert.strictEqual(server.connections(), 1)
      }).pipe(Effect.provide(env()))
    )

    it.scopedLive("a refused connection fails with the connect error", () =>
      Effect.gen(function* () {
        const port = yield* closedPort()
        const failure = yield* Effect.flip(Dial.tcp({ host: "127.0.0.1", port, ipVersion: "any" }))
        assert.strictEqual(failure.reason, "connect")
        assert.strictEqual(failure.message, `connect ECONNREFUSED 127.0.0.1:${port}`)
        assert.isNumber(failure.timings.connect_ms)
      }).pipe(Effect.provide(env()))
    )

    it.scopedLive("when every address refuses, each failure is named once", () => {
      const resolver = tableResolver({ "dual.test": ["127.0.0.1", "::1"] })
      return Effect.gen(function* () {
        const port = yield* closedPortOnBoth // fails clearly if ::1 is missing
        const failure = yield* Effect.flip(Dial.tcp({ host: "dual.test", port, ipVersion: "any" }))
        assert.strictEqual(failure.message, `connect ECONNREFUSED ::1:${port}; connect ECONNREFUSED 127.0.0.1:${port}`)
      }).pipe(Effect.provide(env(resolver.layer)))
    })

    it.scopedLive("any: IPv6 wins when both families listen", () => {
      const resolver = tableResolver({ "dual.test": ["127.0.0.1", "::1"] })
      return Effect.gen(function* () {
        const { four, six } = yield* onBothLoopbacks((host, port) => tcpServer({ host, port }))
        const connection = yield* Dial.tcp({ host: "dual.test", port: six.port, ipVersion: "any" })
        assert.deepStrictEqual(connection.address, { address: "::1", family: 6 })
        assert.strictEqual(four.connections(), 0)
      }).pipe(Effect.provide(env(resolver.layer)))
    })

    it.scopedLive("any: a refused IPv6 falls to IPv4 at once, inside the 250 ms attempt delay", () => {
      const resolver = tableResolver({ "dual.test": ["127.0.0.1", "::1"] })
      return Effect.gen(function* () {
        yield* tcpServer({ host: "::1" }) // fails clearly if ::1 is missing
        const four = yield* tcpServer({ host: "127.0.0.1" })
        const connection = yield* Dial.tcp({ host: "dual.test", port: four.port, ipVersion: "any" })
        assert.deepStrictEqual(connection.address, { address: "127.0.0.1", family: 4 })
        // Waiting out the attempt delay would take at least 250 ms.
        assert.isBelow(connection.timings.connect_ms ?? Number.POSITIVE_INFINITY, 250)
      }).pipe(Effect.provide(env(resolver.layer)))
    })

    it.scopedLive("an IPv6-only host: ipv6 and any reach it on ::1, ipv4 fails dns: no IPv4 address", () => {
      const resolver = tableResolver({ "six.test": ["::1"] })
      return Effect.gen(function* () {
        const server = yield* tcpServer({ host: "::1" })
        for (const ipVersion of ["ipv6", "any"] as const) {
          const connection = yield* Dial.tcp({ host: "six.test", port: server.port, ipVersion })
          assert.deepStrictEqual(connection.address, { address: "::1", family: 6 })
        }
        const failure = yield* Effect.flip(Dial.tcp({ host: "six.test", port: server.port, ipVersion: "ipv4" }))
        assert.strictEqual(failure.message, "dns: no IPv4 address")
        assert.strictEqual(server.connections(), 2)
      }).pipe(Effect.provide(env(resolver.layer)))
    })
  })

  describe("tls", () => {
    const certificate = selfSigned("cert.test")

    it.scopedLive("handshakes with SNI set to the host name and measures dns, connect and tls", () => {
      const resolver = tableResolver({ "cert.test": ["127.0.0.1"] })
      return Effect.gen(function* () {
        const server = yield* tlsServer(certificate)
        const connection = yield* Dial.tls(
          { host: "cert.test", port: server.port, ipVersion: "any" },
          { verify: false }
        )
        assert.isTrue(connection.socket.encrypted)
        assert.deepStrictEqual(yield* server.servernames(1), ["cert.test"])
        assert.isNumber(connection.timings.dns_ms)
        assert.isNumber(connection.timings.connect_ms)
        assert.isNumber(connection.timings.tls_ms)
      }).pipe(Effect.provide(env(resolver.layer)))
    })

    it.scopedLive("servername overrides SNI; an IP literal alone sends none (RFC 6066)", () =>
      Effect.gen(function* () {
        const server = yield* tlsServer(certificate)
        const target = { host: "127.0.0.1", port: server.port, ipVersion: "any" } as const
        yield* Dial.tls(target, { servername: "other.test", verify: false })
        yield* Dial.tls(target, { verify: false })
        assert.deepStrictEqual(yield* server.servernames(2), ["other.test", null])
      }).pipe(Effect.provide(env()))
    )

    it.scopedLive("verify refuses a self-signed certificate with the TLS error", () =>
      Effect.gen(function* () {
        const server = yield* tlsServer(certificate)
        const failure = yield* Effect.flip(
          Dial.tls(
            { host: "127.0.0.1", port: server.port, ipVersion: "any" },
            { servername: "cert.test", verify: true }
          )
        )
        assert.strictEqual(failure.reason, "tls")
        assert.strictEqual(failure.message, "tls: self-signed certificate")
        assert.isNumber(failure.timings.tls_ms)
      }).pipe(Effect.provide(env()))
    )

    it.scopedLive("a server that hangs up instead of handshaking is a tls failure", () =>
      Effect.gen(function* () {
        const server = yield* tcpServer({ onConnection: (socket) => socket.destroy() })
        const failure = yield* Effect.flip(
          Dial.tls({ host: "127.0.0.1", port: server.port, ipVersion: "any" }, { verify: false })
        )
        assert.strictEqual(failure.reason, "tls")
        assert.match(failure.message, /^tls: /)
      }).pipe(Effect.provide(env()))
    )
  })
})
