/**
 * A `worker` process serves its own `/metrics` beside the operations probes (it runs the scheduler and the
 * notifier, whose series only it can show), and still nothing of the API.
 */
import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Http from "../support/Http.js"
import * as Prometheus from "../support/Prometheus.js"
import * as TestDatabase from "../support/TestDatabase.js"
import * as TestServer from "../support/TestServer.js"

const worker = TestServer.layer({ ROLE: "worker", METRICS__ENABLED: "true" })

layer(worker, { excludeTestServices: true })(`metrics on a worker (${TestDatabase.kind} database)`, (it) => {
  it.effect(
    "GET /metrics answers Prometheus text with the engine's and the process's series; the API is not there",
    () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* TestServer.TestServer
        const reply = yield* Http.request(`${baseUrl}/metrics`)
        expect(reply.status).toBe(200)
        expect(reply.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
        const names = Prometheus.parseText(reply.text).map((f) => f.name)
        for (const name of [
          "signalman_checks_total",
          "signalman_scheduler_lag_seconds",
          "signalman_notifications_total",
          "signalman_outbox_pending",
          "process_cpu_seconds_total"
        ]) {
          expect(names, name).toContain(name)
        }
        expect((yield* Http.request(`${baseUrl}/api/v1/me`)).status).toBe(404)
        expect((yield* Http.request(`${baseUrl}/metrics`, { method: "POST" })).status).toBe(405)
      })
  )
})
