/**
 * Heartbeat ingest on an api process and SIGTERM: routine pings are acknowledged from memory and written in batches
 * once a second; a shutdown that begins while a batch is being written lets that write finish (it is not cut short
 * and its pings dropped), then writes the rest, so every ping answered 200 is in the log.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { eventually } from "../support/Eventually.js"
import * as Http from "../support/Http.js"
import { signIn } from "../support/Identity.js"
import * as ServerProcess from "../support/ServerProcess.js"
import * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TcpProxy from "../support/TcpProxy.js"
import * as TestDatabase from "../support/TestDatabase.js"
import * as TestServer from "../support/TestServer.js"

// Within the free plan's 20 monitors.
const MONITORS = 16
// Routine pings per monitor after its first: within the token's burst (10), so none is limited.
const ROUTINE = 5

describe("heartbeat ingest and SIGTERM", () => {
  it.scopedLive("a SIGTERM while a batch of routine pings is being written loses none of them", () =>
    Effect.gen(function* () {
      const smtp = yield* SmtpCatcher.make
      const db = yield* TestDatabase.acquire
      // Arranged through a server of its own on the database itself; the api process measured goes through a proxy
      // the test can hold.
      const setup = yield* TestServer.start({ MAIL__SMTP_URL: smtp.url, AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0" }, db)
      const alice = yield* signIn(setup, smtp)
      const made = yield* alice.browser.request("/api/v1/targets/bulk", {
        json: {
          targets: Array.from({ length: MONITORS }, (_, i) => ({
            name: `job ${i}`,
            check: { type: "heartbeat", period: 3600, grace: 300 }
          }))
        }
      })
      expect(made.status, made.text).toBe(201)
      const tokens = yield* setup.sql<{ token: string }>`SELECT token FROM ping_tokens`.pipe(Effect.orDie)
      expect(tokens.length).toBe(MONITORS)

      const upstream = new URL(db.url ?? TestDatabase.adminUrl)
      const proxy = yield* TcpProxy.make(upstream.hostname, Number(upstream.port || 5432))
      const through = new URL(upstream)
      through.host = `127.0.0.1:${proxy.port}`
      const api = yield* ServerProcess.start([], { DATABASE_URL: through.toString(), LOG__LEVEL: "info", ROLE: "api" })
      const ping = (token: string) => Effect.map(Http.request(`${api.baseUrl}/ping/${token}`), (reply) => reply.status)

      // First pings (written before their answers), then routine ones: acknowledged from memory, queued.
      for (const status of yield* Effect.forEach(tokens, (row) => ping(row.token), { concurrency: 10 })) {
        expect(status).toBe(200)
      }
      const routine = tokens.flatMap((row) => Array.from({ length: ROUTINE }, () => row.token))
      proxy.pause()
      const statuses = yield* Effect.forEach(routine, ping, { concurrency: 10 })
      expect(statuses.filter((status) => status !== 200)).toEqual([])
      // The once-a-second write has begun: its first statement waits at the proxy (observed, not guessed). An api
      // process does nothing else with the database while no request comes.
      expect(yield* eventually(Effect.sync(proxy.held), (bytes) => bytes > 0, { intervalMs: 20 })).toBeGreaterThan(0)
      api.child.kill("SIGTERM")
      // The listener closes once the signal is handled; the write is still held.
      const closed = Effect.promise(() =>
        fetch(`${api.baseUrl}/healthz`).then(
          () => "answered",
          () => "refused"
        )
      )
      expect(yield* eventually(closed, (answer) => answer === "refused", { intervalMs: 50 })).toBe("refused")
      assert.isNull(api.child.exitCode, "the process waits for its write")
      proxy.resume()
      const exit = yield* Effect.promise(() => api.exited)
      expect(exit.code, exit.stdout).toBe(0)
      expect(exit.stdout).not.toMatch(/Heartbeat pings lost at shutdown/)

      const [logged] = yield* setup.sql<{ n: number }>`SELECT count(*)::int AS n FROM heartbeat_pings`.pipe(
        Effect.orDie
      )
      expect(logged?.n).toBe(MONITORS * (1 + ROUTINE))
      const [pinged] = yield* setup.sql<{ n: number }>`
        SELECT count(*)::int AS n FROM heartbeat_states WHERE last_ping_at IS NOT NULL AND verdict = 'up'
      `.pipe(Effect.orDie)
      expect(pinged?.n).toBe(MONITORS)
    })
  )
})
