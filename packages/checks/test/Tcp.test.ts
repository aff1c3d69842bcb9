import { assert, describe, it } from "@effect/vitest"
import { TcpCheck } from "@signalman/core/CheckSpec"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { Settings } from "../src/ProbeSettings.js"
import type * as Resolver from "../src/Resolver.js"
import * as Tcp from "../src/Tcp.js"
import { closedPort, tcpServer } from "./support/Loopback.js"
import { noResolver, settings, tableResolver } from "./support/ProbeEnv.js"

const check = (fields: Record<string, unknown>) => Schema.decodeUnknownSync(TcpCheck)({ type: "tcp", ...fields })

const env = (resolver: Layer.Layer<Resolver.Resolver> = noResolver, overrides: Partial<Settings> = {}) =>
  Layer.mergeAll(settings(overrides), resolver)

describe("Tcp", () => {
  it.scopedLive("a connection that opens is up; details name the address; phases connect and total", () =>
    Effect.gen(function* () {
      const server = yield* tcpServer()
      const outcome = yield* Tcp.probe(check({ host: "127.0.0.1", port: server.port }))
      assert.strictEqual(outcome.status, "up")
      assert.isNull(outcome.error)
      assert.deepStrictEqual(outcome.details, { address: "127.0.0.1" })
      assert.isNumber(outcome.phases?.connect_ms)
      assert.isUndefined(outcome.phases?.dns_ms, "an IP literal has no DNS phase")
      assert.isUndefined(outcome.phases?.tls_ms)
      assert.strictEqual(outcome.duration_ms, outcome.phases?.total_ms)
      assert.strictEqual(server.connections(), 1)
    }).pipe(Effect.provide(env()))
  )

  it.scopedLive("a name adds the dns phase", () => {
    const resolver = tableResolver({ "db.test": ["127.0.0.1"] })
    return Effect.gen(function* () {
      const server = yield* tcpServer()
      const outcome = yield* Tcp.probe(check({ host: "db.test", port: server.port }))
      assert.strictEqual(outcome.status, "up")
      assert.isNumber(outcome.phases?.dns_ms)
      assert.isNumber(outcome.phases?.connect_ms)
    }).pipe(Effect.provide(env(resolver.layer)))
  })

  it.scopedLive("ipv6 reaches an IPv6-only server on ::1", () => {
    const resolver = tableResolver({ "six.test": ["::1"] })
    return Effect.gen(function* () {
      const server = yield* tcpServer({ host: "::1" })
      const outcome = yield* Tcp.probe(check({ host: "six.test", port: server.port, ip_version: "ipv6" }))
      assert.strictEqual(outcome.status, "up")
      assert.deepStrictEqual(outcome.details, { address: "::1" })
    }).pipe(Effect.provide(env(resolver.layer)))
  })

  it.live("a refused connection is down with the connect error", () =>
    Effect.gen(function* () {
      const port = yield* closedPort()
      const outcome = yield* Tcp.probe(check({ host: "127.0.0.1", port }))
      assert.strictEqual(outcome.status, "down")
      assert.strictEqual(outcome.error, `connect ECONNREFUSED 127.0.0.1:${port}`)
      assert.isNull(outcome.details)
      assert.isNumber(outcome.phases?.connect_ms)
    }).pipe(Effect.provide(env()))
  )

  it.live("no address in the pinned family is down: dns: no IPv4 address", () => {
    const resolver = tableResolver({ "six.test": ["::1"] })
    return Effect.gen(function* () {
      const outcome = yield* Tcp.probe(check({ host: "six.test", port: 5432, ip_version: "ipv4" }))
      assert.strictEqual(outcome.status, "down")
      assert.strictEqual(outcome.error, "dns: no IPv4 address")
      assert.isNumber(outcome.phases?.dns_ms)
    }).pipe(Effect.provide(env(resolver.layer)))
  })

  it.live("only the outer timeout is error: a check stuck (here in DNS) ends at its timeout", () => {
    const resolver = tableResolver({}, { stall: ["slow.test"] })
    return Effect.gen(function* () {
      const outcome = yield* Tcp.probe(check({ host: "slow.test", port: 5432, timeout: 0.2 }))
      assert.strictEqual(outcome.status, "error")
      assert.strictEqual(outcome.error, "timed out after 0.2 s")
      assert.isNull(outcome.details)
      assert.deepStrictEqual(Object.keys(outcome.phases ?? {}), ["total_ms"])
      assert.isAtLeast(outcome.duration_ms, 190)
      assert.isBelow(outcome.duration_ms, 2000)
    }).pipe(Effect.provide(env(resolver.layer)))
  })

  it.live("an internal address with private targets off is error, blocked:", () =>
    Effect.gen(function* () {
      const outcome = yield* Tcp.probe(check({ host: "127.0.0.1", port: 5432 }))
      assert.strictEqual(outcome.status, "error")
      assert.strictEqual(outcome.error, "blocked: 127.0.0.1 is a loopback address")
      assert.isUndefined(outcome.phases?.connect_ms, "nothing was dialed")
    }).pipe(Effect.provide(env(noResolver, { allowPrivateTargets: false })))
  )

  it.live("an IP literal pinned to the other family is error (the check's own configuration)", () =>
    Effect.gen(function* () {
      const outcome = yield* Tcp.probe(check({ host: "::1", port: 5432, ip_version: "ipv4" }))
      assert.strictEqual(outcome.status, "error")
      assert.strictEqual(outcome.error, "ip_version ipv4 cannot dial ::1, an IPv6 address")
    }).pipe(Effect.provide(env()))
  )
})
