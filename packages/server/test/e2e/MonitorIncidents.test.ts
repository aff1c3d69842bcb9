/**
 * Monitors without a probe reach incidents through the same pipeline as probes: a heartbeat's `/fail` opens an
 * incident at once (the job said so; no confirmations to wait for) and a success closes it; a manual monitor set to
 * down opens one, a set to degraded then down raises it with a note, and a set back to up closes it. Results are
 * stored for both, so their history and uptime read like any monitor's.
 */
import { assert, expect } from "@effect/vitest"
import { IncidentDetail, IncidentPage } from "@signalman/core/api/Incidents"
import { ResultPage } from "@signalman/core/api/Results"
import { HeartbeatRecord } from "@signalman/core/heartbeat/HeartbeatRecord"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import type { Person } from "../support/Identity.js"
import * as TestDatabase from "../support/TestDatabase.js"

const setup = Effect.gen(function* () {
  const server = yield* Fixture.server
  const alice = yield* Fixture.person()
  return { server, alice }
})

const create = (person: Person, body: Record<string, unknown>) =>
  Effect.map(person.browser.request("/api/v1/targets", { json: body }), (reply) => {
    expect(reply.status, reply.text).toBe(201)
    return Http.decode(reply, Target).id
  })

const incidents = (person: Person, target: string) =>
  Effect.map(
    person.browser.request(`/api/v1/incidents?target_id=${target}&status=all`),
    (reply) => Http.decode(reply, IncidentPage).data
  )

const results = (person: Person, target: string) =>
  Effect.map(
    person.browser.request(`/api/v1/targets/${target}/results`),
    (reply) => Http.decode(reply, ResultPage).data
  )

Fixture.describe(`incidents of heartbeat and manual monitors (${TestDatabase.kind} database)`, (it) => {
  it.effect("a heartbeat's /fail opens an incident at once and a success closes it", () =>
    Effect.gen(function* () {
      const { server, alice } = yield* setup
      const id = yield* create(alice, {
        name: "nightly backup",
        check: { type: "heartbeat", period: 3600, grace: 300 },
        alert_confirmations: 3
      })
      const record = Http.decode(yield* alice.browser.request(`/api/v1/targets/${id}/heartbeat`), HeartbeatRecord)
      const ping = (suffix: string) =>
        Http.request(`${server.baseUrl}${new URL(record.ping_url).pathname}${suffix}`, { method: "POST" })
      expect((yield* ping("")).status).toBe(200)
      expect(yield* incidents(alice, id)).toEqual([])
      // Three confirmations are configured, but the job reported its own failure: one is enough.
      expect((yield* ping("/fail")).status).toBe(200)
      const [opened] = yield* incidents(alice, id)
      assert.isDefined(opened)
      expect(opened.ended_at).toBeNull()
      expect((yield* ping("")).status).toBe(200)
      const [closed] = yield* incidents(alice, id)
      expect(closed?.id).toBe(opened.id)
      expect(closed?.ended_at).not.toBeNull()
      const stored = yield* results(alice, id)
      expect(stored.map((r) => r.status)).toEqual(["up", "down", "up"])
      expect(stored.every((r) => r.region === "local")).toBe(true)
    })
  )

  it.effect("a manual monitor set down opens an incident, degraded to down raises it, up closes it", () =>
    Effect.gen(function* () {
      const { alice } = yield* setup
      const id = yield* create(alice, { name: "vendor API", check: { type: "manual" } })
      const set = (status: string, note?: string) =>
        Effect.map(
          alice.browser.request(`/api/v1/targets/${id}/state`, {
            method: "PUT",
            json: note === undefined ? { status } : { status, note }
          }),
          (reply) => expect(reply.status, reply.text).toBe(200)
        )
      yield* set("degraded", "slow answers from the vendor")
      const [degraded] = yield* incidents(alice, id)
      assert.isDefined(degraded)
      expect(degraded.impact).toBe("degraded")
      yield* set("down", "vendor outage confirmed")
      const [raised] = yield* incidents(alice, id)
      expect(raised?.id).toBe(degraded.id)
      expect(raised?.impact).toBe("major_outage")
      const detail = Http.decode(yield* alice.browser.request(`/api/v1/incidents/${degraded.id}`), IncidentDetail)
      expect(detail.updates.map((u) => u.message).join("\n")).toContain("vendor outage confirmed")
      yield* set("up")
      const [closed] = yield* incidents(alice, id)
      expect(closed?.ended_at).not.toBeNull()
      expect((yield* incidents(alice, id)).length).toBe(1)
    })
  )
})
