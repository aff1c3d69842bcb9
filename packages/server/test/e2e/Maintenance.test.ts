/**
 * Maintenance windows over HTTP: schedule, read, list by status and order, edit, cancel, updates up to 50, every
 * refusal with its status, code and field, scopes, foreign ids, the max_maintenance_windows quota, and the
 * suppression question the incident writer asks.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, expect } from "@effect/vitest"
import { MaintenanceWindowPage, MaintenanceWindowResource } from "@signalman/core/api/Maintenance"
import { OrgUsage } from "@signalman/core/Identity"
import { Target } from "@signalman/core/Target"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { QuotaEvents } from "../../src/limits/Quota.js"
import { Maintenance } from "../../src/maintenance/Maintenance.js"
import { MaintenanceRepo } from "../../src/maintenance/Repo.js"
import { PageChanges } from "../../src/statuspages/PageChanges.js"
import { PageEvents } from "../../src/subscribers/PageEvents.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import { bearer, mintToken, type Person } from "../support/Identity.js"
import * as TestDatabase from "../support/TestDatabase.js"
import type * as TestServer from "../support/TestServer.js"

const ADMIN = "operator-secret-for-tests-0123456789"

/** A window as sent (instants as the server wrote them), once the contract's schema has read it. */
const asWindow = (reply: Http.Body) => Http.wire(reply, MaintenanceWindowResource)

type WindowPage = typeof MaintenanceWindowPage.Encoded

const setup = Effect.gen(function* () {
  const server = yield* Fixture.server
  const alice = yield* Fixture.person({ label: "alice" })
  return { server, alice }
})

/** An ISO instant `secs` seconds from now. */
const fromNow = (secs: number) => new Date(Date.now() + secs * 1000).toISOString()

const createTarget = (person: Person, name: string) =>
  Effect.map(
    person.browser.request("/api/v1/targets", {
      json: { name, check: { type: "http", url: `https://${name}.example.com/health` } }
    }),
    (reply) => {
      expect(reply.status, reply.text).toBe(201)
      return Http.decode(reply, Target).id
    }
  )

const schedule = (person: Person, body: Record<string, unknown>) =>
  person.browser.request("/api/v1/maintenance", { json: body })

const scheduled = (person: Person, body: Record<string, unknown>) =>
  Effect.map(schedule(person, body), (reply) => {
    expect(reply.status, reply.text).toBe(201)
    return asWindow(reply)
  })

const window = (title: string, startsSecs: number, endsSecs: number, extra: Record<string, unknown> = {}) => ({
  title,
  starts_at: fromNow(startsSecs),
  ends_at: fromNow(endsSecs),
  ...extra
})

const patch = (person: Person, id: string, body: Record<string, unknown>) =>
  person.browser.request(`/api/v1/maintenance/${id}`, { method: "PATCH", json: body })

const cancel = (person: Person, id: string) => person.browser.request(`/api/v1/maintenance/${id}`, { method: "DELETE" })

const postUpdate = (person: Person, id: string, body: Record<string, unknown>) =>
  person.browser.request(`/api/v1/maintenance/${id}/updates`, { json: body })

const list = (person: Person, query: string) =>
  Effect.map(person.browser.request(`/api/v1/maintenance${query}`), (reply) => {
    expect(reply.status, reply.text).toBe(200)
    return Http.wire(reply, MaintenanceWindowPage)
  })

/** Moves a window's times in the database (a window wholly in the past cannot be scheduled through the API). */
const setTimes = (server: TestServer.Running, id: string, startsSecs: number, endsSecs: number) =>
  server.sql`
    UPDATE maintenance_windows SET starts_at = ${new Date(Date.now() + startsSecs * 1000)},
      ends_at = ${new Date(Date.now() + endsSecs * 1000)}
    WHERE id = ${id}
  `

const refusal = Http.refusal

Fixture.describe(`maintenance windows (${TestDatabase.kind} database)`, (it) => {
  it.effect("schedule 201 with Location and defaults; get answers the same window with its status", () =>
    Effect.gen(function* () {
      const { alice } = yield* setup
      const web = yield* createTarget(alice, "web")
      const db = yield* createTarget(alice, "db")
      const userId = alice.userId
      const body = window("Database upgrade", 3600, 7200, {
        description: "Primary moves to new hardware",
        components: [db, web, db.toUpperCase()],
        suppress_alerts: false
      })
      const reply = yield* schedule(alice, body)
      expect(reply.status, reply.text).toBe(201)
      const made = asWindow(reply)
      expect(reply.headers.get("location")).toBe(`/api/v1/maintenance/${made.id}`)
      expect(reply.headers.get("cache-control")).toBe("no-store")
      expect(made).toMatchObject({
        title: "Database upgrade",
        description: "Primary moves to new hardware",
        starts_at: body.starts_at,
        ends_at: body.ends_at,
        components: [db, web],
        suppress_alerts: false,
        status: "upcoming",
        deleted_at: null,
        deleted_by: null,
        write_source: "ui",
        managed_by: null,
        created_by: userId,
        updates: []
      })
      const read = yield* alice.browser.request(`/api/v1/maintenance/${made.id}`)
      expect(read.status).toBe(200)
      expect(read.headers.get("cache-control")).toBe("private, max-age=10")
      expect(asWindow(read)).toEqual(made)

      // Defaults: no description, no components, alerts suppressed; a start in the past runs at once.
      const minimal = yield* scheduled(alice, {
        title: "  Router swap  ",
        starts_at: fromNow(-60),
        ends_at: fromNow(60)
      })
      expect(minimal).toMatchObject({
        title: "Router swap",
        description: "",
        components: [],
        suppress_alerts: true,
        status: "running"
      })
      // An offset is an instant like any other; the answer is in UTC.
      const offset = yield* scheduled(alice, {
        title: "Offset",
        starts_at: "2999-01-01T12:00:00+02:00",
        ends_at: "2999-01-01T13:30:00.5+02:00"
      })
      expect([offset.starts_at, offset.ends_at]).toEqual(["2999-01-01T10:00:00.000Z", "2999-01-01T11:30:00.500Z"])
    })
  )

  it.effect("list: each status filter, upcoming soonest first, the others latest start first, paginated", () =>
    Effect.gen(function* () {
      const { server, alice } = yield* setup
      const later = yield* scheduled(alice, window("later", 7200, 9000))
      const soon = yield* scheduled(alice, window("soon", 3600, 10000))
      const running = yield* scheduled(alice, window("running", -600, 600))
      const done = yield* scheduled(alice, window("done", 60, 120))
      yield* setTimes(server, done.id, -7200, -3600)
      const dropped = yield* scheduled(alice, window("dropped", 5000, 6000))
      expect((yield* cancel(alice, dropped.id)).status).toBe(200)

      const titles = (page: WindowPage) => page.data.map((w) => `${w.title}:${w.status}`)
      expect(titles(yield* list(alice, "?status=active"))).toEqual(["running:running"])
      expect(titles(yield* list(alice, "?status=upcoming"))).toEqual(["soon:upcoming", "later:upcoming"])
      expect(titles(yield* list(alice, "?status=past"))).toEqual(["dropped:cancelled", "done:completed"])
      const all = yield* list(alice, "?status=all")
      expect(titles(all)).toEqual([
        "later:upcoming",
        "dropped:cancelled",
        "soon:upcoming",
        "running:running",
        "done:completed"
      ])
      expect(all).toMatchObject({ total: 5, limit: 50, offset: 0 })
      expect(titles(yield* list(alice, ""))).toEqual(titles(all))
      const page = yield* list(alice, "?status=all&limit=2&offset=1")
      expect(page).toMatchObject({ total: 5, limit: 2, offset: 1 })
      expect(titles(page)).toEqual(["dropped:cancelled", "soon:upcoming"])
      expect((yield* list(alice, "?status=upcoming&limit=1")).total).toBe(2)
      expect(later.status).toBe("upcoming")
      expect(soon.id).not.toBe(running.id)

      const bad = yield* alice.browser.request("/api/v1/maintenance?status=finished")
      expect(refusal(bad)).toEqual({ status: 400, code: "VALIDATION_FAILED", field: "status" })
    })
  )

  it.effect(
    "PATCH: title, description, time range, components, suppression; a running window's start is fixed; ended refused",
    () =>
      Effect.gen(function* () {
        const { server, alice } = yield* setup
        const web = yield* createTarget(alice, "web")
        const db = yield* createTarget(alice, "db")
        const upcoming = yield* scheduled(alice, window("Upgrade", 3600, 7200, { components: [web] }))
        const startsAt = fromNow(1800)
        const endsAt = fromNow(9000)
        const edited = yield* patch(alice, upcoming.id, {
          title: "Bigger upgrade",
          description: "now with the database",
          starts_at: startsAt,
          ends_at: endsAt,
          components: [db, web],
          suppress_alerts: false
        })
        expect(edited.status, edited.text).toBe(200)
        expect(asWindow(edited)).toMatchObject({
          title: "Bigger upgrade",
          description: "now with the database",
          starts_at: startsAt,
          ends_at: endsAt,
          components: [db, web],
          suppress_alerts: false,
          status: "upcoming"
        })
        // Omitted fields stay; an empty list clears the components.
        const cleared = yield* patch(alice, upcoming.id, { components: [] })
        expect(asWindow(cleared)).toMatchObject({ title: "Bigger upgrade", components: [], suppress_alerts: false })
        expect(refusal(yield* patch(alice, upcoming.id, { ends_at: fromNow(1000) }))).toEqual({
          status: 400,
          code: "VALIDATION_FAILED",
          field: "ends_at"
        })
        expect(refusal(yield* patch(alice, upcoming.id, { ends_at: fromNow(-10) }))).toEqual({
          status: 400,
          code: "VALIDATION_FAILED",
          field: "ends_at"
        })
        expect(refusal(yield* patch(alice, upcoming.id, { title: " " }))).toEqual({
          status: 400,
          code: "VALIDATION_FAILED",
          field: "title"
        })
        expect(refusal(yield* patch(alice, upcoming.id, { status: "running" }))).toEqual({
          status: 422,
          code: "INVALID_JSON",
          field: "status"
        })

        // Running: the start cannot move (sending it back unchanged is fine); ends_at in the past ends it now.
        const running = yield* scheduled(alice, window("Live", -60, 3600))
        expect(refusal(yield* patch(alice, running.id, { starts_at: fromNow(-30) }))).toEqual({
          status: 400,
          code: "VALIDATION_FAILED",
          field: "starts_at"
        })
        const same = yield* patch(alice, running.id, { starts_at: running.starts_at, title: "Live (longer)" })
        expect(asWindow(same)).toMatchObject({ title: "Live (longer)", status: "running" })
        const before = Date.now()
        const ended = yield* patch(alice, running.id, { ends_at: fromNow(-3600) })
        expect(ended.status, ended.text).toBe(200)
        const endedBody = asWindow(ended)
        expect(endedBody.status).toBe("completed")
        expect(Date.parse(endedBody.ends_at)).toBeGreaterThanOrEqual(before - 1000)
        expect(Date.parse(endedBody.ends_at)).toBeLessThanOrEqual(Date.now())

        expect(refusal(yield* patch(alice, running.id, { title: "too late" }))).toEqual({
          status: 422,
          code: "MAINTENANCE_ENDED",
          field: null
        })
        expect(refusal(yield* cancel(alice, running.id))).toEqual({
          status: 422,
          code: "MAINTENANCE_ENDED",
          field: null
        })
        // A window that ended by the clock is refused alike.
        yield* setTimes(server, upcoming.id, -7200, -3600)
        expect(refusal(yield* patch(alice, upcoming.id, { title: "x" })).code).toBe("MAINTENANCE_ENDED")
      })
  )

  it.effect(
    "DELETE cancels: deleted_at and deleted_by shown, kept in past; then PATCH, DELETE and updates are MAINTENANCE_CANCELLED",
    () =>
      Effect.gen(function* () {
        const { alice } = yield* setup
        const userId = alice.userId
        const made = yield* scheduled(alice, window("Doomed", -60, 3600))
        const before = Date.now()
        const reply = yield* cancel(alice, made.id)
        expect(reply.status, reply.text).toBe(200)
        expect(reply.headers.get("cache-control")).toBe("no-store")
        const cancelled = asWindow(reply)
        expect(cancelled).toMatchObject({ status: "cancelled", deleted_by: userId, title: "Doomed" })
        assert.isNotNull(cancelled.deleted_at)
        expect(Date.parse(cancelled.deleted_at)).toBeGreaterThanOrEqual(before - 1000)
        expect(asWindow(yield* alice.browser.request(`/api/v1/maintenance/${made.id}`))).toEqual(cancelled)
        expect((yield* list(alice, "?status=past")).data.map((w) => w.id)).toEqual([made.id])
        expect((yield* list(alice, "?status=active")).total).toBe(0)

        const refused = { status: 422, code: "MAINTENANCE_CANCELLED", field: null }
        expect(refusal(yield* postUpdate(alice, made.id, { message: "still going?" }))).toEqual(refused)
        expect(refusal(yield* patch(alice, made.id, { title: "revived" }))).toEqual(refused)
        expect(refusal(yield* cancel(alice, made.id))).toEqual(refused)
      })
  )

  it.effect("updates: message and optional status, oldest first, up to 50, then MAINTENANCE_UPDATE_LIMIT", () =>
    Effect.gen(function* () {
      const { server, alice } = yield* setup
      const userId = alice.userId
      const made = yield* scheduled(alice, window("Long work", -60, 3600))
      const first = yield* postUpdate(alice, made.id, { message: "  Started  ", status: "in_progress" })
      expect(first.status, first.text).toBe(201)
      expect(asWindow(first).updates).toMatchObject([{ message: "Started", status: "in_progress", created_by: userId }])
      const second = yield* postUpdate(alice, made.id, { message: "Halfway" })
      expect(asWindow(second).updates.map((u) => [u.message, u.status])).toEqual([
        ["Started", "in_progress"],
        ["Halfway", null]
      ])

      for (const [body, field] of [
        [{ message: "" }, "message"],
        [{ message: "x".repeat(2001) }, "message"],
        [{ message: "ok", status: "done" }, "status"],
        [{}, "message"]
      ] as const) {
        expect(refusal(yield* postUpdate(alice, made.id, body)), JSON.stringify(body).slice(0, 60)).toEqual({
          status: 400,
          code: "VALIDATION_FAILED",
          field
        })
      }
      expect(refusal(yield* postUpdate(alice, made.id, { message: "hi", phase: "x" }))).toEqual({
        status: 422,
        code: "INVALID_JSON",
        field: "phase"
      })
      // 2000 characters counted as code points: 2000 emoji are accepted.
      expect((yield* postUpdate(alice, made.id, { message: "🔧".repeat(2000) })).status).toBe(201)

      // A completed window still takes updates (a closing note); the cap counts them all.
      yield* setTimes(server, made.id, -7200, -60)
      for (let i = 3; i < 48; i++) {
        const reply = yield* postUpdate(alice, made.id, { message: `note ${i}` })
        expect(reply.status, reply.text).toBe(201)
      }
      // Four racing for the last two places: exactly two land.
      const racing = yield* Effect.forEach(
        [1, 2, 3, 4],
        (i) => postUpdate(alice, made.id, { message: `race ${i}`, status: "completed" }),
        { concurrency: "unbounded" }
      )
      expect(racing.map((r) => r.status).sort()).toEqual([201, 201, 422, 422])
      const over = racing.find((r) => r.status === 422)
      assert.isDefined(over)
      expect(Http.envelope(over)).toMatchObject({
        code: "MAINTENANCE_UPDATE_LIMIT",
        field: null,
        details: { limit: 50 }
      })
      const read = asWindow(yield* alice.browser.request(`/api/v1/maintenance/${made.id}`))
      expect(read.updates).toHaveLength(50)
      expect(read.status).toBe("completed")
      expect(read.updates[0]?.message).toBe("Started")
      expect(refusal(yield* postUpdate(alice, made.id, { message: "one more" }))).toEqual({
        status: 422,
        code: "MAINTENANCE_UPDATE_LIMIT",
        field: null
      })
    })
  )

  it.effect("schedule refusals answer status, code and field path", () =>
    Effect.gen(function* () {
      const { alice } = yield* setup
      const web = yield* createTarget(alice, "web")
      const bob = yield* Fixture.person({ label: "bob" })
      const bobs = yield* createTarget(bob, "bobs")
      const ok = window("ok", 60, 120)
      const cases: ReadonlyArray<readonly [Record<string, unknown>, number, string, string]> = [
        [{ ...ok, ends_at: ok.starts_at }, 400, "VALIDATION_FAILED", "ends_at"],
        [{ ...ok, ends_at: fromNow(30) }, 400, "VALIDATION_FAILED", "ends_at"],
        [window("past", -120, -60), 400, "VALIDATION_FAILED", "ends_at"],
        [{ ...ok, titel: "typo" }, 422, "INVALID_JSON", "titel"],
        [{ ...ok, status: "running" }, 422, "INVALID_JSON", "status"],
        [{ ...ok, deleted_at: null }, 422, "INVALID_JSON", "deleted_at"],
        [{ ...ok, title: "" }, 400, "VALIDATION_FAILED", "title"],
        [{ ...ok, title: "x".repeat(201) }, 400, "VALIDATION_FAILED", "title"],
        [{ starts_at: ok.starts_at, ends_at: ok.ends_at }, 400, "VALIDATION_FAILED", "title"],
        [{ title: "no end", starts_at: ok.starts_at }, 400, "VALIDATION_FAILED", "ends_at"],
        [{ ...ok, starts_at: "2999-01-01T10:00:00" }, 400, "VALIDATION_FAILED", "starts_at"],
        [{ ...ok, starts_at: "2999-01-01" }, 400, "VALIDATION_FAILED", "starts_at"],
        [{ ...ok, ends_at: "soon" }, 400, "VALIDATION_FAILED", "ends_at"],
        [{ ...ok, suppress_alerts: "yes" }, 400, "VALIDATION_FAILED", "suppress_alerts"],
        [{ ...ok, description: "x".repeat(10001) }, 400, "VALIDATION_FAILED", "description"],
        [{ ...ok, components: [web, bobs] }, 400, "VALIDATION_FAILED", "components[1]"],
        [{ ...ok, components: ["01234567-89ab-7def-8123-456789abcdef"] }, 400, "VALIDATION_FAILED", "components[0]"],
        [{ ...ok, components: [web, "web"] }, 400, "VALIDATION_FAILED", "components[1]"],
        [{ ...ok, components: web }, 400, "VALIDATION_FAILED", "components"]
      ]
      for (const [body, status, code, field] of cases) {
        const reply = yield* schedule(alice, body)
        expect(refusal(reply), JSON.stringify(body).slice(0, 120)).toEqual({ status, code, field })
      }
      // The same rule on PATCH: another org's monitor is not a component.
      const made = yield* scheduled(alice, ok)
      expect(refusal(yield* patch(alice, made.id, { components: [web, bobs] }))).toEqual({
        status: 400,
        code: "VALIDATION_FAILED",
        field: "components[1]"
      })
      const notJson = yield* alice.browser.request("/api/v1/maintenance", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{"
      })
      expect(refusal(notJson)).toMatchObject({ status: 400, code: "INVALID_JSON" })
      expect((yield* list(alice, "")).total).toBe(1)
    })
  )

  it.effect("scopes: read lists and gets, write schedules, edits and posts updates, delete cancels", () =>
    Effect.gen(function* () {
      const { server, alice } = yield* setup
      const org = alice.org
      const json = (body: unknown, method = "POST", headers: Record<string, string> = {}) => ({
        method,
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body)
      })
      const reader = yield* mintToken(alice, { scopes: ["maintenance:read"], org_id: org?.id })
      const writer = yield* mintToken(alice, { scopes: ["maintenance:write"], org_id: org?.id })
      const deleter = yield* mintToken(alice, { scopes: ["maintenance:delete"], org_id: org?.id })
      const targetsOnly = yield* mintToken(alice, { scopes: ["targets:write"], org_id: org?.id })
      const body = window("Token work", 60, 3600)

      const refused = yield* bearer(server, reader.token, "/api/v1/maintenance", json(body))
      expect(refused.status).toBe(403)
      expect(Http.envelope(refused)).toMatchObject({
        code: "INSUFFICIENT_SCOPE",
        details: { required: "maintenance:write" }
      })
      const created = yield* bearer(server, writer.token, "/api/v1/maintenance", json(body))
      expect(created.status, created.text).toBe(201)
      const made = asWindow(created)
      expect(made.write_source).toBe("api")
      expect((yield* bearer(server, reader.token, "/api/v1/maintenance")).status).toBe(200)
      expect((yield* bearer(server, reader.token, `/api/v1/maintenance/${made.id}`)).status).toBe(200)
      expect((yield* bearer(server, writer.token, `/api/v1/maintenance/${made.id}`)).status).toBe(200)
      expect(Http.envelope(yield* bearer(server, targetsOnly.token, "/api/v1/maintenance"))).toMatchObject({
        code: "INSUFFICIENT_SCOPE",
        details: { required: "maintenance:read" }
      })
      for (const [path, init] of [
        [`/api/v1/maintenance/${made.id}`, json({ title: "x" }, "PATCH")],
        [`/api/v1/maintenance/${made.id}/updates`, json({ message: "x" })]
      ] as const) {
        expect(Http.envelope(yield* bearer(server, reader.token, path, init))).toMatchObject({
          code: "INSUFFICIENT_SCOPE",
          details: { required: "maintenance:write" }
        })
      }
      const fromCli = yield* bearer(
        server,
        writer.token,
        `/api/v1/maintenance/${made.id}`,
        json({ title: "Token work (iac)" }, "PATCH", { "user-agent": "signalman-cli/0.1.0" })
      )
      expect(asWindow(fromCli).write_source).toBe("iac")
      const update = yield* bearer(
        server,
        writer.token,
        `/api/v1/maintenance/${made.id}/updates`,
        json({ message: "a" })
      )
      expect(update.status).toBe(201)
      // An update is not an edit of the window: write_source stays as the last edit left it.
      expect(asWindow(update).write_source).toBe("iac")
      const fromUi = yield* patch(alice, made.id, { title: "Token work (ui)" })
      expect(asWindow(fromUi).write_source).toBe("ui")

      const notDeleter = yield* bearer(server, writer.token, `/api/v1/maintenance/${made.id}`, { method: "DELETE" })
      expect(notDeleter.status).toBe(403)
      expect(Http.envelope(notDeleter)).toMatchObject({
        code: "INSUFFICIENT_SCOPE",
        details: { required: "maintenance:delete" }
      })
      expect(Http.envelope(yield* bearer(server, deleter.token, "/api/v1/maintenance")).code).toBe("INSUFFICIENT_SCOPE")
      const deleted = yield* bearer(server, deleter.token, `/api/v1/maintenance/${made.id}`, { method: "DELETE" })
      expect(deleted.status).toBe(200)
      expect(asWindow(deleted)).toMatchObject({ status: "cancelled", write_source: "api" })
    })
  )

  it.effect("another org's window is 404 on get, PATCH, DELETE and updates, and absent from its list", () =>
    Effect.gen(function* () {
      const { alice } = yield* setup
      const mine = yield* scheduled(alice, window("alice's", 60, 3600))
      const bob = yield* Fixture.person({ label: "bob" })
      for (const [method, path, json] of [
        ["GET", "", undefined],
        ["PATCH", "", { title: "bob's now" }],
        ["DELETE", "", undefined],
        ["POST", "/updates", { message: "hello from bob" }]
      ] as const) {
        const reply = yield* bob.browser.request(`/api/v1/maintenance/${mine.id}${path}`, {
          method,
          ...(json === undefined ? {} : { json })
        })
        expect(refusal(reply), method).toEqual({ status: 404, code: "NOT_FOUND", field: null })
      }
      const unknown = yield* bob.browser.request("/api/v1/maintenance/01234567-89ab-7def-8123-456789abcdef")
      expect(refusal(unknown)).toEqual({ status: 404, code: "NOT_FOUND", field: null })
      // A path id that is not a UUID is a malformed request, as on every other resource.
      expect(refusal(yield* bob.browser.request("/api/v1/maintenance/not-a-uuid"))).toEqual({
        status: 400,
        code: "VALIDATION_FAILED",
        field: "id"
      })
      expect(yield* list(bob, "")).toMatchObject({ total: 0, data: [] })
      const untouched = asWindow(yield* alice.browser.request(`/api/v1/maintenance/${mine.id}`))
      expect(untouched).toMatchObject({ title: "alice's", status: "upcoming", updates: [] })
    })
  )

  it.effect(
    "suppressing: true only while a running, not cancelled window with suppress_alerts covers the monitor",
    () =>
      Effect.gen(function* () {
        const { server, alice } = yield* setup
        const web = yield* createTarget(alice, "web")
        const db = yield* createTarget(alice, "db")
        const api = yield* createTarget(alice, "api")
        const cache = yield* createTarget(alice, "cache")
        const idle = yield* createTarget(alice, "idle")
        const service = yield* Effect.provide(
          Maintenance,
          Maintenance.DefaultWithoutDependencies.pipe(
            Layer.provide([MaintenanceRepo.Default, QuotaEvents.Default, PageEvents.Default, PageChanges.Test]),
            Layer.provide(Layer.succeed(SqlClient.SqlClient, server.sql))
          )
        )
        const suppressed = (ids: ReadonlyArray<string>) =>
          Effect.flatMap(DateTime.now, (now) =>
            Effect.map(service.suppressingAmong(ids, now), (set) => ids.filter((id) => set.has(id)))
          )
        const everyone = [web, db, api, cache, idle]

        // Web and db suppressed inside this window, not before or after. It is scheduled an hour ahead, and the
        // test moves it by hand (setTimes) to be running and then over: no step depends on how fast the machine is.
        const soon = yield* scheduled(alice, window("Short", 3600, 7200, { components: [web, db] }))
        // Running but not suppressing; running and suppressing, then cancelled; one in the past; one far ahead.
        yield* scheduled(alice, window("Loud", -60, 3600, { components: [api], suppress_alerts: false }))
        const dropped = yield* scheduled(alice, window("Dropped", -60, 3600, { components: [cache] }))
        const past = yield* scheduled(alice, window("Past", 60, 120, { components: [idle] }))
        yield* setTimes(server, past.id, -7200, -3600)
        yield* scheduled(alice, window("Future", 3600, 7200, { components: [idle] }))

        expect(yield* suppressed(everyone)).toEqual([cache])
        expect(yield* service.suppressing(cache, yield* DateTime.now)).toBe(true)
        expect((yield* cancel(alice, dropped.id)).status).toBe(200)
        expect(yield* suppressed(everyone)).toEqual([])
        expect(yield* service.suppressing(web, yield* DateTime.now)).toBe(false)

        yield* setTimes(server, soon.id, -1, 600)
        const running = asWindow(yield* alice.browser.request(`/api/v1/maintenance/${soon.id}`))
        expect(running.status).toBe("running")
        const startsAt = Date.parse(running.starts_at)
        expect(yield* suppressed(everyone)).toEqual([web, db])
        expect(yield* service.suppressing(db, yield* DateTime.now)).toBe(true)
        expect(yield* service.suppressing(db.toUpperCase(), yield* DateTime.now)).toBe(true)
        // At a given instant, not only now: the question is about `at`.
        expect(yield* service.suppressing(db, DateTime.unsafeMake(Date.parse(running.ends_at)))).toBe(false)
        expect(yield* service.suppressing(db, DateTime.unsafeMake(startsAt))).toBe(true)

        // Switching suppression off mid-window stops it at once.
        expect((yield* patch(alice, soon.id, { suppress_alerts: false })).status).toBe(200)
        expect(yield* suppressed(everyone)).toEqual([])
        expect((yield* patch(alice, soon.id, { suppress_alerts: true })).status).toBe(200)
        expect(yield* suppressed([web])).toEqual([web])

        yield* setTimes(server, soon.id, -600, -1)
        expect(yield* suppressed(everyone)).toEqual([])
        expect(yield* service.suppressingAmong([], yield* DateTime.now)).toEqual(new Set())

        // Status pages: the windows covering some monitors, not cancelled unless asked.
        const covering = yield* service.forTargets([idle, cache])
        expect(covering.map((w) => w.title)).toEqual(["Past", "Future"])
        const withCancelled = yield* service.forTargets([cache], { includeCancelled: true })
        expect(withCancelled.map((w) => [w.title, w.status])).toEqual([["Dropped", "cancelled"]])
        const ahead = yield* service.forTargets([idle], { from: yield* DateTime.now })
        expect(ahead.map((w) => w.title)).toEqual(["Future"])
      })
  )
})

// The plan row is the server's, and the quota events are counted server-wide: a server of its own.
// Overrides only raise a plan's figures, so the small limit is the plan's own; the override then lifts it.
Fixture.describe(
  `maintenance windows quota (${TestDatabase.kind} database)`,
  {
    env: { OPERATOR__ADMIN_TOKEN: ADMIN },
    sql: ["UPDATE plans SET max_maintenance_windows = 3 WHERE id = 'free'"]
  },
  (it) => {
    it.effect(
      "max_maintenance_windows: concurrent schedules settle at the limit; ended and cancelled windows are free; an override raises it",
      () =>
        Effect.gen(function* () {
          const { server, alice } = yield* setup
          const accountId = alice.accountId
          const first = yield* scheduled(alice, window("w0", 60, 3600))
          const replies = yield* Effect.forEach(
            [1, 2, 3, 4, 5],
            (i) => schedule(alice, window(`w${i}`, 60 * i, 3600 * i)),
            { concurrency: "unbounded" }
          )
          expect(replies.filter((r) => r.status === 201)).toHaveLength(2)
          const refused = replies.filter((r) => r.status === 422)
          expect(refused).toHaveLength(3)
          assert.isDefined(refused[0])
          expect(refusal(refused[0])).toEqual({ status: 422, code: "QUOTA_EXCEEDED", field: null })
          expect(Http.envelope(refused[0]).details).toEqual({
            quota: "max_maintenance_windows",
            current: 3,
            limit: 3,
            plan: "free"
          })
          const events = yield* server.sql<{ n: number }>`
          SELECT count(*)::int AS n FROM quota_events WHERE name = 'max_maintenance_windows'
        `
          expect(events[0]?.n).toBe(3)
          // The org's usage counts the same windows (read once: usage is cached per account).
          const usage = Http.decode(yield* alice.browser.request(`/api/v1/orgs/${alice.org.id}/usage`), OrgUsage)
          expect(usage.quotas["max_maintenance_windows"]).toEqual({ current: 3, limit: 3 })

          // A cancelled window frees its place.
          expect((yield* cancel(alice, first.id)).status).toBe(200)
          const fourth = yield* scheduled(alice, window("after cancel", 60, 3600))
          expect((yield* schedule(alice, window("over", 60, 3600))).status).toBe(422)
          // So does one that has ended.
          yield* setTimes(server, fourth.id, -7200, -3600)
          expect((yield* schedule(alice, window("after end", 60, 3600))).status).toBe(201)
          expect((yield* schedule(alice, window("over again", 60, 3600))).status).toBe(422)
          expect((yield* list(alice, "")).total).toBe(5)

          // The operator raises the account's figure: exactly one more fits.
          const override = yield* Http.request(`${server.baseUrl}/operator/accounts/${accountId}/overrides`, {
            method: "PUT",
            headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
            body: JSON.stringify({ max_maintenance_windows: 4 })
          })
          expect(override.status, override.text).toBe(200)
          expect((yield* schedule(alice, window("raised", 60, 3600))).status).toBe(201)
          const full = yield* schedule(alice, window("raised over", 60, 3600))
          expect(Http.envelope(full).details).toMatchObject({ current: 4, limit: 4 })
        })
    )
  }
)
