/**
 * The whole monitoring pipeline in one server: a real HTTP origin on loopback is flipped down and up, the worker's
 * scheduler checks it, the incident writer opens and closes an incident from the stored results, and the notifier
 * delivers the opening and the recovery to a webhook (signature and all) and to a real SMTP server.
 */
import * as Http from "node:http"
import { assert, expect } from "@effect/vitest"
import { DeliveryLog, IncidentPage } from "@signalman/core/api/Incidents"
import { Uptime } from "@signalman/core/api/Results"
import { CreatedChannel } from "@signalman/core/Channel"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as FakeReceiver from "../support/FakeReceiver.js"
import * as Fixture from "../support/Fixture.js"
import * as Reply from "../support/Http.js"
import * as TestDatabase from "../support/TestDatabase.js"

/** An origin whose answer the test sets: 200 while up, 500 while down (a 503 would be degraded, not down). */
const flippableOrigin = Effect.gen(function* () {
  const state = { up: true }
  const server = yield* Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<Http.Server>((resolve) => {
          const s = Http.createServer((_, response) => {
            response.writeHead(state.up ? 200 : 500, { "content-type": "text/plain" }).end(state.up ? "ok" : "down")
          })
          s.listen(0, "127.0.0.1", () => resolve(s))
        })
    ),
    (s) =>
      Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            s.closeAllConnections()
            s.close(() => resolve())
          })
      )
  )
  const address = server.address()
  if (address === null || typeof address === "string") return yield* Effect.dieMessage("the origin has no TCP address")
  return { url: `http://127.0.0.1:${address.port}/health`, state }
})

/** Polls `read` until `done` holds, bounded. */
const eventually = <A>(read: Effect.Effect<A>, done: (a: A) => boolean, timeoutMs = 30_000) =>
  Effect.gen(function* () {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const value = yield* read
      if (done(value)) return value
      if (Date.now() > deadline)
        return yield* Effect.dieMessage(`not reached in ${timeoutMs} ms: ${JSON.stringify(value)}`)
      yield* Effect.sleep("200 millis")
    }
  })

// The origin and the webhook receiver are the test's own (its URLs go in the monitor and the channel, not in the
// server's settings); the server polls fast so the pipeline turns in seconds.
const env = {
  CHECKER__ALLOW_PRIVATE_TARGETS: "true",
  SCHEDULER__POLL_INTERVAL_MS: "100",
  NOTIFIER__POLL_INTERVAL_MS: "100",
  INCIDENTS__TICK_INTERVAL_SECS: "1"
}

Fixture.describe(`monitoring pipeline (${TestDatabase.kind} database)`, { env }, (it) => {
  // Scoped: the origin and the receiver close with the test.
  it.scoped("an origin going down opens an incident and pages; coming back closes it and says so", () =>
    Effect.gen(function* () {
      const { server, smtp } = yield* Fixture.Fixture
      const hook = yield* FakeReceiver.make()
      const origin = yield* flippableOrigin
      const alice = yield* Fixture.person()
      const channel = (body: Record<string, unknown>) =>
        Effect.map(alice.browser.request("/api/v1/channels", { json: body }), (reply) => {
          expect(reply.status, reply.text).toBe(201)
          return Reply.decode(reply, CreatedChannel)
        })
      const webhook = yield* channel({ name: "hook", kind: "webhook", config: { url: `${hook.url}/events` } })
      const email = yield* channel({ name: "oncall", kind: "email", config: { addresses: ["oncall@example.com"] } })
      const created = yield* alice.browser.request("/api/v1/targets", {
        json: {
          name: "Shop",
          check: { type: "http", url: origin.url },
          alert_confirmations: 2,
          recovery_period_secs: 0,
          alerts: [{ channel_id: webhook.id }, { channel_id: email.id }]
        }
      })
      expect(created.status, created.text).toBe(201)
      const target = Reply.decode(created, Target).id
      // Checked every second rather than the plan's floor, so the test takes seconds.
      yield* server.sql`UPDATE targets SET interval_secs = 1 WHERE id = ${target}`

      const incidents = Effect.map(
        alice.browser.request(`/api/v1/incidents?target_id=${target}&status=all`),
        (reply) => Reply.wire(reply, IncidentPage).data
      )
      yield* Effect.sleep("2500 millis")
      expect(yield* incidents).toEqual([])

      origin.state.up = false
      const [opened] = yield* eventually(incidents, (list) => list.length === 1)
      assert.isDefined(opened)
      expect(opened.ended_at).toBeNull()
      const [first] = yield* hook.waitFor(1, 30_000)
      assert.isDefined(first)
      expect(first.headers["x-signalman-event"]).toBe("incident.opened")
      expect(String(first.headers["x-signalman-signature"])).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)
      expect(JSON.parse(first.body)).toMatchObject({
        type: "incident.opened",
        target: { id: target, name: "Shop", type: "http" },
        incident: { id: opened.id, number: 1 }
      })
      const openMail = yield* Effect.promise(() => smtp.waitFor("oncall@example.com"))
      expect(openMail[0]?.subject).toContain("Shop")

      origin.state.up = true
      const [closed] = yield* eventually(incidents, (list) => list[0]?.ended_at !== null && list.length === 1)
      assert.isDefined(closed)
      expect(closed.id).toBe(opened.id)
      const events = yield* hook.waitFor(2, 30_000)
      expect(events.map((e) => e.headers["x-signalman-event"])).toEqual(["incident.opened", "incident.recovered"])
      yield* Effect.promise(() => smtp.waitFor("oncall@example.com", 2))

      // The delivery log shows both notices delivered to both channels; the outage shows in uptime.
      const log = yield* eventually(
        Effect.map(
          alice.browser.request(`/api/v1/incidents/${opened.id}/deliveries`),
          (reply) => Reply.wire(reply, DeliveryLog).data
        ),
        (rows) => rows.length === 4 && rows.every((row) => row.status === "delivered")
      )
      expect(log.map((row) => row.notice_kind).sort()).toEqual(["opened", "opened", "recovered", "recovered"])
      const uptime = Reply.decode(yield* alice.browser.request(`/api/v1/targets/${target}/uptime`), Uptime)
      expect(uptime.uptime_pct).not.toBeNull()
      expect(uptime.uptime_pct).toBeLessThan(100)
    })
  )
})
