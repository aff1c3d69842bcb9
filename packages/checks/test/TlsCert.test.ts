import { assert, describe, it } from "@effect/vitest"
import { TlsCertCheck } from "@signalman/core/CheckSpec"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { Settings } from "../src/ProbeSettings.js"
import type * as Resolver from "../src/Resolver.js"
import * as TlsCert from "../src/TlsCert.js"
import { caCommonName, type Issued, inDays, issue, selfSigned } from "./support/Certificates.js"
import { closedPort, tcpServer, tlsServer } from "./support/Loopback.js"
import { noResolver, settings, tableResolver } from "./support/ProbeEnv.js"

const check = (fields: Record<string, unknown>) =>
  Schema.decodeUnknownSync(TlsCertCheck)({ type: "tls_cert", ...fields })

const env = (resolver: Layer.Layer<Resolver.Resolver> = noResolver, overrides: Partial<Settings> = {}) =>
  Layer.mergeAll(settings(overrides), resolver)

const day = 24 * 60 * 60 * 1000

const expectedDetails = (issued: Issued, days: number, subject = "cert.test", issuer = caCommonName) => ({
  days_remaining: days,
  not_after: issued.notAfter.toISOString(),
  subject_common_name: subject,
  issuer_common_name: issuer
})

// The probe against a server presenting `issued`, reached by the name cert.test (so SNI is sent).
const probeAgainst = (issued: Issued, fields: Record<string, unknown> = {}) => {
  const resolver = tableResolver({ "cert.test": ["127.0.0.1"] })
  return Effect.gen(function* () {
    const server = yield* tlsServer(issued)
    return yield* TlsCert.probe(check({ host: "cert.test", port: server.port, ...fields }))
  }).pipe(Effect.provide(env(resolver.layer)))
}

// The live clock moved by `offset`: proves the probe reads time from Effect's Clock, not from Date.now().
const shiftedClock = (offset: number): Clock.Clock => {
  const live = Clock.make()
  const millis = () => live.unsafeCurrentTimeMillis() + offset
  const nanos = () => live.unsafeCurrentTimeNanos() + BigInt(offset) * 1_000_000n
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: millis,
    currentTimeMillis: Effect.sync(millis),
    unsafeCurrentTimeNanos: nanos,
    currentTimeNanos: Effect.sync(nanos),
    sleep: (duration: Duration.Duration) => live.sleep(duration)
  }
}

describe("TlsCert", () => {
  describe("rules", () => {
    it("daysRemaining rounds down, and is negative once expired", () => {
      const now = Date.UTC(2030, 0, 1)
      assert.strictEqual(TlsCert.daysRemaining(now + 10 * day, now), 10)
      assert.strictEqual(TlsCert.daysRemaining(now + day - 1, now), 0)
      assert.strictEqual(TlsCert.daysRemaining(now - 1, now), -1)
      assert.strictEqual(TlsCert.daysRemaining(now - day - 1, now), -2)
    })

    it("statusFor: < 0 down, < critical down, < warn degraded, else up (boundaries included)", () => {
      const windows = { warn_days: 21, critical_days: 7 }
      assert.strictEqual(TlsCert.statusFor(-1, windows), "down")
      assert.strictEqual(TlsCert.statusFor(6, windows), "down")
      assert.strictEqual(TlsCert.statusFor(7, windows), "degraded")
      assert.strictEqual(TlsCert.statusFor(20, windows), "degraded")
      assert.strictEqual(TlsCert.statusFor(21, windows), "up")
      assert.strictEqual(TlsCert.statusFor(-1, { warn_days: 1, critical_days: 0 }), "down")
      assert.strictEqual(TlsCert.statusFor(0, { warn_days: 1, critical_days: 0 }), "degraded")
    })
  })

  describe("probe", () => {
    it.scopedLive("a healthy certificate (90 days) is up, with every details field and no error", () => {
      const issued = issue("cert.test", inDays(90))
      return Effect.gen(function* () {
        const outcome = yield* probeAgainst(issued)
        assert.strictEqual(outcome.status, "up")
        assert.isNull(outcome.error)
        assert.deepStrictEqual(outcome.details, expectedDetails(issued, 90))
        assert.match(String(outcome.details?.not_after), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
        for (const phase of ["dns_ms", "connect_ms", "tls_ms", "total_ms"] as const) {
          assert.isNumber(outcome.phases?.[phase], phase)
        }
      })
    })

    it.scopedLive("within warn_days (10 < 21) is degraded and repeats the details as its error", () => {
      const issued = issue("cert.test", inDays(10))
      return Effect.gen(function* () {
        const outcome = yield* probeAgainst(issued)
        assert.strictEqual(outcome.status, "degraded")
        assert.deepStrictEqual(outcome.details, expectedDetails(issued, 10))
        assert.deepStrictEqual(JSON.parse(outcome.error ?? "null"), outcome.details)
      })
    })

    it.scopedLive("within critical_days (3 < 7) is down and repeats the details as its error", () => {
      const issued = issue("cert.test", inDays(3))
      return Effect.gen(function* () {
        const outcome = yield* probeAgainst(issued)
        assert.strictEqual(outcome.status, "down")
        assert.deepStrictEqual(JSON.parse(outcome.error ?? "null"), expectedDetails(issued, 3))
      })
    })

    it.scopedLive("an expired certificate is down with negative days_remaining", () => {
      const issued = issue("cert.test", new Date(Date.now() - 2 * 60 * 60 * 1000))
      return Effect.gen(function* () {
        const outcome = yield* probeAgainst(issued)
        assert.strictEqual(outcome.status, "down")
        assert.deepStrictEqual(outcome.details, expectedDetails(issued, -1))
        assert.deepStrictEqual(JSON.parse(outcome.error ?? "null"), outcome.details)
      })
    })

    it.scopedLive("the windows are the check's: exactly critical_days is degraded, exactly warn_days is up", () =>
      Effect.gen(function* () {
        const atCritical = yield* probeAgainst(issue("cert.test", inDays(5)), { warn_days: 30, critical_days: 5 })
        assert.strictEqual(atCritical.status, "degraded")
        const atWarn = yield* probeAgainst(issue("cert.test", inDays(30)), { warn_days: 30, critical_days: 5 })
        assert.strictEqual(atWarn.status, "up")
      })
    )

    it.scopedLive("days_remaining is counted from Effect's Clock", () => {
      const issued = issue("cert.test", inDays(90))
      return Effect.gen(function* () {
        const outcome = yield* probeAgainst(issued).pipe(Effect.withClock(shiftedClock(80 * day)))
        assert.strictEqual(outcome.details?.days_remaining, 10)
        assert.strictEqual(outcome.status, "degraded")
      })
    })

    it.scopedLive("any chain is accepted: a self-signed certificate is read", () => {
      const issued = selfSigned("cert.test")
      return Effect.gen(function* () {
        const outcome = yield* probeAgainst(issued)
        assert.strictEqual(outcome.status, "up")
        assert.strictEqual(outcome.details?.issuer_common_name, "cert.test")
      })
    })

    it.scopedLive("SNI is the host by default and server_name when set; the certificate read follows it", () => {
      const resolver = tableResolver({ "cert.test": ["127.0.0.1"] })
      const main = issue("cert.test", inDays(90))
      const other = issue("other.test", inDays(50))
      return Effect.gen(function* () {
        const server = yield* tlsServer(main, { byName: { "other.test": other } })
        const byHost = yield* TlsCert.probe(check({ host: "cert.test", port: server.port }))
        const byOverride = yield* TlsCert.probe(
          check({ host: "cert.test", port: server.port, server_name: "other.test" })
        )
        assert.deepStrictEqual(yield* server.servernames(2), ["cert.test", "other.test"])
        assert.deepStrictEqual(byHost.details, expectedDetails(main, 90))
        assert.deepStrictEqual(byOverride.details, expectedDetails(other, 50, "other.test"))
      }).pipe(Effect.provide(env(resolver.layer)))
    })

    it.scopedLive("an IP literal host sends no SNI and still reads the default certificate; ipv6 on ::1", () => {
      const issued = issue("cert.test", inDays(90))
      return Effect.gen(function* () {
        const server = yield* tlsServer(issued, { host: "::1" })
        const outcome = yield* TlsCert.probe(check({ host: "::1", port: server.port, ip_version: "ipv6" }))
        assert.strictEqual(outcome.status, "up")
        assert.deepStrictEqual(yield* server.servernames(1), [null])
        assert.isUndefined(outcome.phases?.dns_ms)
      }).pipe(Effect.provide(env()))
    })

    it.scopedLive("a handshake failure is error with the underlying message, and no details", () =>
      Effect.gen(function* () {
        const server = yield* tcpServer({ onConnection: (socket) => socket.end("this is not TLS\n") })
        const outcome = yield* TlsCert.probe(check({ host: "127.0.0.1", port: server.port }))
        assert.strictEqual(outcome.status, "error")
        assert.match(outcome.error ?? "", /^tls: /)
        assert.isNull(outcome.details)
        assert.isNumber(outcome.phases?.tls_ms)
      }).pipe(Effect.provide(env()))
    )

    it.live("no certificate could be read from a refused port: error, not down", () =>
      Effect.gen(function* () {
        const port = yield* closedPort()
        const outcome = yield* TlsCert.probe(check({ host: "127.0.0.1", port }))
        assert.strictEqual(outcome.status, "error")
        assert.strictEqual(outcome.error, `connect ECONNREFUSED 127.0.0.1:${port}`)
      }).pipe(Effect.provide(env()))
    )

    it.live("an internal address with private targets off is error, blocked:", () =>
      Effect.gen(function* () {
        const outcome = yield* TlsCert.probe(check({ host: "169.254.169.254" }))
        assert.strictEqual(outcome.status, "error")
        assert.strictEqual(outcome.error, "blocked: 169.254.169.254 is a link-local address")
      }).pipe(Effect.provide(env(noResolver, { allowPrivateTargets: false })))
    )

    it.scopedLive("a server that never answers the handshake: error at the outer timeout", () =>
      Effect.gen(function* () {
        const server = yield* tcpServer() // accepts, then says nothing
        const outcome = yield* TlsCert.probe(check({ host: "127.0.0.1", port: server.port, timeout: 0.3 }))
        assert.strictEqual(outcome.status, "error")
        assert.strictEqual(outcome.error, "timed out after 0.3 s")
        assert.isNumber(outcome.phases?.connect_ms)
        assert.isAtLeast(outcome.duration_ms, Duration.toMillis("290 millis"))
      }).pipe(Effect.provide(env()))
    )
  })
})
