/**
 * Manual monitors over HTTP: every row of the spec's manual table (GET and PUT /targets/{id}/state), the body's
 * rules (INVALID_MANUAL_STATE on status and note, unknown keys), MANUAL_NOT_CONFIGURED on other kinds, the
 * `target.state_set` audit entry with the acting user, paused monitors, and `set_by` cleared when the setter is purged.
 */
import { expect } from "@effect/vitest"
import { ManualState } from "@signalman/core/ManualState"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import type { Person } from "../support/Identity.js"
import { bearer, mintToken } from "../support/Identity.js"
import * as TestDatabase from "../support/TestDatabase.js"
import type * as TestServer from "../support/TestServer.js"

/** A person of the test's own with a manual monitor; the monitor as sent, so its `created_at` is the wire string. */
const setup = Effect.gen(function* () {
  const server = yield* Fixture.server
  const alice = yield* Fixture.person()
  const made = yield* alice.browser.request("/api/v1/targets", {
    json: { name: "office wifi", check: { type: "manual" } }
  })
  expect(made.status, made.text).toBe(201)
  const target = Http.wire(made, Target)
  return { server, alice, target, userId: alice.userId }
})

/** The state as sent (`set_at` as the server wrote it), once the contract's schema has read it. */
const state = (reply: Http.Body) => Http.wire(reply, ManualState)

const put = (person: Person, id: string, body: unknown) =>
  person.browser.request(`/api/v1/targets/${id}/state`, { method: "PUT", json: body })

const audits = (server: TestServer.Running, id: string) =>
  server.sql<{ user_id: string | null; details: { before: unknown; after: unknown } }>`
    SELECT user_id, details FROM audit_events WHERE event = 'target.state_set' AND details->>'target_id' = ${id}
    ORDER BY created_at, id
  `.pipe(Effect.orDie)

/** The audit entry is written after the set's transaction; give it a moment. */
const settled = Effect.sleep("150 millis")

Fixture.describe(`manual monitors (${TestDatabase.kind} database)`, (it) => {
  it.effect(
    "up (initial): GET is up since creation, set_by null; PUT degraded then down moves it, audited with the user",
    () =>
      Effect.gen(function* () {
        const { server, alice, target, userId } = yield* setup
        const initial = yield* alice.browser.request(`/api/v1/targets/${target.id}/state`)
        expect(initial.status).toBe(200)
        expect(state(initial)).toEqual({ status: "up", note: null, set_at: target.created_at, set_by: null })
        const degraded = yield* put(alice, target.id, { status: "degraded", note: "  slow uplink \n" })
        expect(degraded.status, degraded.text).toBe(200)
        const set = state(degraded)
        expect(set.status).toBe("degraded")
        expect(set.note).toBe("slow uplink")
        expect(set.set_by).toBe(userId)
        expect(Date.parse(set.set_at)).toBeGreaterThan(Date.parse(target.created_at))
        const down = yield* put(alice, target.id, { status: "down", note: "uplink cut" })
        expect(state(down).status).toBe("down")
        yield* settled
        const entries = yield* audits(server, target.id)
        expect(entries.map((e) => [e.user_id, e.details.before, e.details.after])).toEqual([
          [userId, { status: "up", note: null }, { status: "degraded", note: "slow uplink" }],
          [userId, { status: "degraded", note: "slow uplink" }, { status: "down", note: "uplink cut" }]
        ])
      })
  )

  it.effect(
    "degraded or down: PUT up moves it back; any: the same status and note writes nothing, no audit entry",
    () =>
      Effect.gen(function* () {
        const { server, alice, target } = yield* setup
        const first = state(yield* put(alice, target.id, { status: "down", note: "flooded" }))
        const again = yield* put(alice, target.id, { status: "down", note: "flooded " })
        expect(state(again)).toEqual(first)
        const row = yield* server.sql<{ set_at: Date }>`SELECT set_at FROM manual_states WHERE target_id = ${target.id}`
        expect(row[0]?.set_at.toISOString()).toBe(first.set_at)
        // A note alone is a change.
        const renoted = state(yield* put(alice, target.id, { status: "down", note: "flooded, pumps on" }))
        expect(renoted.note).toBe("flooded, pumps on")
        const up = state(yield* put(alice, target.id, { status: "up" }))
        expect(up).toMatchObject({ status: "up", note: null })
        const cleared = state(yield* put(alice, target.id, { status: "up", note: "" }))
        expect(cleared).toEqual(up)
        yield* settled
        expect((yield* audits(server, target.id)).length).toBe(3)
      })
  )

  it.effect(
    "a bad status or note is 400 INVALID_MANUAL_STATE naming the field; unknown keys 422; nothing written",
    () =>
      Effect.gen(function* () {
        const { server, alice, target } = yield* setup
        const cases: ReadonlyArray<readonly [unknown, string]> = [
          [{}, "status"],
          [{ status: "sideways" }, "status"],
          [{ status: "UP" }, "status"],
          [{ status: 1 }, "status"],
          [{ status: "down", note: "line one\nline two" }, "note"],
          [{ status: "down", note: "tab\there" }, "note"],
          [{ status: "down", note: "x\u2028y" }, "note"],
          [{ status: "down", note: "n".repeat(201) }, "note"],
          [{ status: "down", note: 42 }, "note"]
        ]
        for (const [body, field] of cases) {
          const reply = yield* put(alice, target.id, body)
          expect(reply.status, JSON.stringify(body)).toBe(400)
          const error = Http.envelope(reply)
          expect(error.code).toBe("INVALID_MANUAL_STATE")
          expect(error.field).toBe(field)
        }
        const fits = yield* put(alice, target.id, { status: "down", note: "🙂".repeat(200) })
        expect(fits.status).toBe(200)
        const unknown = yield* put(alice, target.id, { status: "up", reason: "x" })
        expect(unknown.status).toBe(422)
        expect(Http.envelope(unknown).code).toBe("INVALID_JSON")
        yield* settled
        expect((yield* audits(server, target.id)).length).toBe(1)
      })
  )

  it.effect(
    "either state route on another kind is 404 MANUAL_NOT_CONFIGURED; scopes targets:read and targets:write",
    () =>
      Effect.gen(function* () {
        const { server, alice, target } = yield* setup
        const heartbeat = yield* alice.browser.request("/api/v1/targets", {
          json: { name: "cron", check: { type: "heartbeat", period: 3600, grace: 60 } }
        })
        const other = Http.expectOk(heartbeat, Target, 201).id
        for (const reply of [
          yield* alice.browser.request(`/api/v1/targets/${other}/state`),
          yield* put(alice, other, { status: "down" })
        ]) {
          expect(reply.status).toBe(404)
          expect(Http.envelope(reply).code).toBe("MANUAL_NOT_CONFIGURED")
        }
        const reader = yield* mintToken(alice, { scopes: ["targets:read"], org_id: alice.org.id })
        expect((yield* bearer(server, reader.token, `/api/v1/targets/${target.id}/state`)).status).toBe(200)
        const refused = yield* bearer(server, reader.token, `/api/v1/targets/${target.id}/state`, {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ status: "down" })
        })
        expect(refused.status).toBe(403)
        expect(Http.envelope(refused).code).toBe("INSUFFICIENT_SCOPE")
        const missing = yield* alice.browser.request("/api/v1/targets/01900000-0000-7000-8000-000000000000/state")
        expect(missing.status).toBe(404)
        expect(Http.envelope(missing).code).toBe("NOT_FOUND")
      })
  )

  it.effect(
    "a paused monitor keeps the set state (audited) and reports it when it runs again; set_by is cleared when the setter is purged",
    () =>
      Effect.gen(function* () {
        const { server, alice, target, userId } = yield* setup
        const paused = yield* alice.browser.request(`/api/v1/targets/${target.id}`, {
          method: "PATCH",
          json: { enabled: false }
        })
        expect(paused.status).toBe(200)
        const set = yield* put(alice, target.id, { status: "degraded", note: "maintenance crew on site" })
        expect(set.status).toBe(200)
        yield* settled
        const entries = yield* audits(server, target.id)
        expect(entries.length).toBe(1)
        expect(entries[0]?.details).toMatchObject({ running: false })
        const kept = yield* alice.browser.request(`/api/v1/targets/${target.id}/state`)
        expect(state(kept)).toMatchObject({ status: "degraded", set_by: userId })
        // The account purge deletes the user row; the state stays, its setter forgotten.
        yield* server.sql`DELETE FROM users WHERE id = ${userId}`
        const rows = yield* server.sql<{ status: string; set_by: string | null }>`
        SELECT status, set_by FROM manual_states WHERE target_id = ${target.id}
      `
        expect(rows).toEqual([{ status: "degraded", set_by: null }])
      })
  )
})
