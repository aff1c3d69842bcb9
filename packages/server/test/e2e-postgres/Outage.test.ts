import { assert, describe, expect, it } from "@effect/vitest"
import * as ApiError from "@signalman/core/ApiError"
import { SignalmanClient } from "@signalman/sdk/Client"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { eventually } from "../support/Eventually.js"
import * as Http from "../support/Http.js"
import * as ServerProcess from "../support/ServerProcess.js"
import * as TcpProxy from "../support/TcpProxy.js"
import * as TestDatabase from "../support/TestDatabase.js"
import * as TestServer from "../support/TestServer.js"

// PostgreSQL behind a loopback proxy the test controls, so the database can vanish and return while the
// server keeps running.
const proxied = Effect.gen(function* () {
  const db = yield* TestDatabase.acquire
  const upstream = new URL(db.url ?? TestDatabase.adminUrl)
  const proxy = yield* TcpProxy.make(upstream.hostname, Number(upstream.port || 5432))
  const url = new URL(upstream)
  url.host = `127.0.0.1:${proxy.port}`
  return { db: { ...db, env: { DATABASE_URL: url.toString() } }, proxy }
})

const pollStatus = (url: string, want: number, deadlineMs: number) =>
  Effect.gen(function* () {
    const until = Date.now() + deadlineMs
    let last = 0
    while (Date.now() < until) {
      last = (yield* Http.request(url)).status
      if (last === want) return last
      yield* Effect.sleep("200 millis")
    }
    return last
  })

describe("PostgreSQL outages", () => {
  it.scopedLive("readyz answers 503 while the database is unreachable and 200 again when it returns, no restart", () =>
    Effect.gen(function* () {
      const { db, proxy } = yield* proxied
      const server = yield* TestServer.start({ DATABASE__CONNECT_TIMEOUT_SECS: "1" }, db)
      expect((yield* Http.request(`${server.baseUrl}/readyz`)).status).toBe(200)

      yield* Effect.promise(() => proxy.cut())
      const down = yield* Http.request(`${server.baseUrl}/readyz`)
      expect(down.status).toBe(503)
      const error = Http.envelope(down)
      expect(error.code).toBe("NOT_READY")
      expect(error.details).toEqual({ checks: { database: "unreachable" } })
      expect(error.trace_id).toBe(down.headers.get("x-request-id"))
      // Liveness is not readiness: the process itself is fine.
      expect((yield* Http.request(`${server.baseUrl}/healthz`)).status).toBe(200)

      // The SDK decodes the envelope into the catalogue's error for the status.
      const viaSdk = yield* Effect.either(
        Effect.flatMap(SignalmanClient, (client) => client.readyz()).pipe(
          Effect.provide(SignalmanClient.layer({ baseUrl: server.baseUrl }))
        )
      )
      assert.isTrue(Either.isLeft(viaSdk))
      if (Either.isLeft(viaSdk)) {
        assert.instanceOf(viaSdk.left, ApiError.ServiceUnavailable)
        expect(viaSdk.left.code).toBe("NOT_READY")
      }

      yield* Effect.promise(() => proxy.restore())
      expect(yield* pollStatus(`${server.baseUrl}/readyz`, 200, 15_000)).toBe(200)
    })
  )

  it.scopedLive("SIGTERM drains: an in-flight request finishes, new connections are refused, then exit 0", () =>
    Effect.gen(function* () {
      const { db, proxy } = yield* proxied
      // An api process: no background work talks to the database, so bytes held by the proxy are the request's.
      const server = yield* ServerProcess.start([], { ...db.env, LOG__LEVEL: "info", ROLE: "api" })
      expect((yield* Http.request(`${server.baseUrl}/readyz`)).status).toBe(200)

      // Hold the database's traffic so a request stays in flight inside the server. A magic-link request rather
      // than /readyz: readiness gives its database ping 2 s, which a loaded machine could spend before the resume.
      proxy.pause()
      const inFlight = Effect.runPromise(
        Http.request(`${server.baseUrl}/auth/magic-link/request`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: "drain@example.com" })
        })
      )
      // In flight once its first query waits at the proxy (observed, not guessed).
      expect(yield* eventually(Effect.sync(proxy.held), (bytes) => bytes > 0, { intervalMs: 20 })).toBeGreaterThan(0)
      server.child.kill("SIGTERM")

      // The listener closes once the signal is handled, however long that takes here.
      const healthz = Effect.promise(() =>
        fetch(`${server.baseUrl}/healthz`).then(
          () => "answered",
          () => "refused"
        )
      )
      expect(yield* eventually(healthz, (answer) => answer === "refused", { intervalMs: 50 })).toBe("refused")
      assert.isNull(server.child.exitCode, "the process waits for the in-flight request")

      proxy.resume()
      const reply = yield* Effect.promise(() => inFlight)
      expect(reply.status, reply.text).toBe(200)
      const exit = yield* Effect.promise(() => server.exited)
      expect(exit.code).toBe(0)
      expect(exit.stdout).toMatch(/"message":"Shutting down: draining requests".*"in_flight":1/)
    })
  )
})
