/**
 * Routine pings are acknowledged from memory and written with the next batch, once a second and at shutdown
 * (docs/heartbeats.md). A SIGTERM that comes while a batch is being written must not lose it: the shutdown waits for
 * that write instead of interrupting it (an interrupted write had taken its pings off the queue for good). Found by
 * the fault suite's SIGTERM test (docs/faults.md), where it happened now and then; here the write is held at a proxy
 * in front of PostgreSQL so the signal always comes during it.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { PgClient } from "@effect/sql-pg"
import { describe, expect, it } from "@effect/vitest"
import { HeartbeatRecord } from "@signalman/core/heartbeat/HeartbeatRecord"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { eventually } from "../support/Eventually.js"
import * as Http from "../support/Http.js"
import { signIn } from "../support/Identity.js"
import * as ServerProcess from "../support/ServerProcess.js"
import * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TcpProxy from "../support/TcpProxy.js"
import * as TestDatabase from "../support/TestDatabase.js"

describe("pings at shutdown", () => {
  it.scopedLive("a SIGTERM during a ping batch's write waits for it: every ping answered 200 is stored", () =>
    Effect.gen(function* () {
      const db = yield* TestDatabase.acquire
      const upstream = new URL(db.url ?? TestDatabase.adminUrl)
      const proxy = yield* TcpProxy.make(upstream.hostname, Number(upstream.port || 5432))
      const proxied = new URL(upstream)
      proxied.host = `127.0.0.1:${proxy.port}`
      const smtp = yield* SmtpCatcher.make
      // An api process: no background work talks to the database, so bytes held at the proxy are the ping batch's.
      const server = yield* ServerProcess.start(["--role", "api"], {
        DATABASE_URL: proxied.toString(),
        LOG__LEVEL: "info",
        MAIL__SMTP_URL: smtp.url,
        SERVER__SHUTDOWN_GRACE_SECS: "2"
      })
      const person = yield* signIn(server, smtp)
      const made = Http.expectOk(
        yield* person.browser.request("/api/v1/targets", {
          json: { name: "nightly", check: { type: "heartbeat", period: 3600, grace: 300 } }
        }),
        Target,
        201
      )
      const record = Http.expectOk(
        yield* person.browser.request(`/api/v1/targets/${made.id}/heartbeat`),
        HeartbeatRecord
      )
      const ping = Effect.map(
        Http.request(`${server.baseUrl}${new URL(record.ping_url).pathname}`),
        (reply) => reply.status
      )
      // The first ping changes the verdict (written before it is answered); the next three are routine, queued.
      const answers = [yield* ping, yield* ping, yield* ping, yield* ping]
      expect(answers).toEqual([200, 200, 200, 200])

      // Hold the database's traffic until the once-a-second write of the queued pings is under way.
      proxy.pause()
      expect(yield* eventually(Effect.sync(proxy.held), (bytes) => bytes > 0, { intervalMs: 20 })).toBeGreaterThan(0)
      server.child.kill("SIGTERM")
      const reached = yield* eventually(
        Effect.sync(() => server.stdout().includes("Shutting down: writing the acknowledged pings")),
        (seen) => seen,
        { intervalMs: 20 }
      )
      expect(reached, server.stdout().slice(-2000)).toBe(true)
      proxy.resume()
      const exit = yield* Effect.promise(() => server.exited)
      expect(exit.code, exit.stderr.slice(-2000)).toBe(0)

      const sql = yield* PgClient.make({ url: Redacted.make(db.url ?? TestDatabase.adminUrl), maxConnections: 1 }).pipe(
        Effect.provide(Reactivity.layer)
      )
      const [stored] = yield* sql<{
        n: number
      }>`SELECT count(*)::int AS n FROM heartbeat_pings WHERE target_id = ${made.id}`
      expect(stored?.n, exit.stdout.slice(-3000)).toBe(4)
    })
  )
})
