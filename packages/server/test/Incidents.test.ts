import { describe, expect, it } from "@effect/vitest"
import * as ApiError from "@signalman/core/ApiError"
import { DeclareIncident } from "@signalman/core/api/Incidents"
import { OrgId } from "@signalman/core/Identity"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { Incidents } from "../src/incidents/Incidents.js"
import { IncidentsRepo, type TestIncident } from "../src/incidents/Repo.js"
import { IncidentEscalations } from "../src/incidents/Seams.js"
import { PageChanges } from "../src/statuspages/PageChanges.js"
import { PageEvents } from "../src/subscribers/PageEvents.js"

const org = OrgId.make("01900000-0000-7000-8000-0000000000b1")
const other = OrgId.make("01900000-0000-7000-8000-0000000000c1")
const user = "01900000-0000-7000-8000-0000000000d1"
const web = "01900000-0000-7000-8000-0000000000e1"
const db = "01900000-0000-7000-8000-0000000000e2"
const foreign = "01900000-0000-7000-8000-0000000000e9"
const id = (n: number) => `01900000-0000-7000-8000-${n.toString().padStart(12, "0")}`
const at = (minutes: number) => new Date(Date.UTC(2025, 0, 1, 0, minutes))
const utc = (minutes: number) => DateTime.unsafeFromDate(at(minutes))

const declareBody = Schema.decodeUnknownSync(DeclareIncident)

const targets = {
  [org]: [
    { id: web, name: "web" },
    { id: db, name: "db" }
  ],
  [other]: [{ id: foreign, name: "theirs" }]
}

/** The service on the in-memory repository, with the page events and page drops it asked for kept to read. */
const setup = (incidents: ReadonlyArray<TestIncident> = [], options: { readonly failEvents?: boolean } = {}) => {
  const events: Array<string> = []
  const dropped: Array<string> = []
  const standIns = Layer.mergeAll(
    IncidentsRepo.Test({ targets, incidents }),
    // No monitor here binds an escalation policy.
    Layer.succeed(IncidentEscalations, {
      start: () => Effect.void,
      stop: () => Effect.void,
      forIncident: () => Effect.succeed(null)
    }),
    Layer.succeed(
      PageEvents,
      PageEvents.make({
        incident: (incidentId, kind) =>
          options.failEvents === true
            ? Effect.dieMessage("outbox down")
            : Effect.sync(() => void events.push(`${incidentId}:${kind}`)),
        maintenance: () => Effect.void,
        sweepWindows: Effect.succeed(0)
      })
    ),
    Layer.succeed(
      PageChanges,
      PageChanges.make({
        monitors: () => Effect.void,
        incident: (incidentId) => Effect.sync(() => void dropped.push(incidentId))
      })
    )
  )
  return { layer: Incidents.DefaultWithoutDependencies.pipe(Layer.provide(standIns)), events, dropped }
}

const all = { limit: 50, offset: 0, status: "all" as const }
const periodQuery = { limit: 50, offset: 0, ongoing_only: false }

// Three of the org's incidents on web and db, and one of another org.
const seeded: ReadonlyArray<TestIncident> = [
  { id: id(1), org_id: org, target_id: web, started_at: at(0), ended_at: at(10), acknowledged_at: at(2) },
  { id: id(2), org_id: org, target_id: db, started_at: at(20), ended_at: null, acknowledged_at: at(26) },
  {
    id: id(3),
    org_id: org,
    origin: "declared",
    title: "Slow checkout",
    components: [web],
    started_at: at(5),
    ended_at: at(35),
    acknowledged_at: at(5)
  },
  { id: id(4), org_id: other, target_id: foreign, started_at: at(1), ended_at: null }
]

describe("Incidents", () => {
  it.effect("an unknown or another org's incident is missing everywhere", () => {
    const { layer, dropped } = setup(seeded)
    return Effect.gen(function* () {
      const incidents = yield* Incidents
      expect(yield* incidents.one(org, id(4))).toBeUndefined()
      expect(yield* incidents.detail(org, id(9))).toBeUndefined()
      expect(yield* incidents.stored(org, id(4))).toBeUndefined()
      expect(yield* incidents.postUpdate(org, id(4), user, { phase: "identified", message: "x" })).toBeUndefined()
      expect(yield* incidents.putPostmortem(org, id(4), user, "body")).toBeUndefined()
      expect(yield* incidents.postmortem(org, id(4))).toBeUndefined()
      expect(yield* incidents.narrate(org, id(4), () => Effect.succeed({ title: "mine now" }))).toBe(false)
      yield* incidents.resolveDeclared(org, id(4), user)
      // The other org's incident is untouched and no page was dropped for it.
      expect((yield* incidents.one(other, id(4)))?.status).toBe("open")
      expect((yield* incidents.one(other, id(4)))?.title).toBe("theirs")
      expect(dropped).toEqual([])
    }).pipe(Effect.provide(layer))
  })

  it.effect("lists newest first with status, monitor and range filters and paging", () => {
    const { layer } = setup(seeded)
    return Effect.gen(function* () {
      const incidents = yield* Incidents
      const ids = (page: { readonly rows: ReadonlyArray<{ readonly id: string }>; readonly total: number }) => [
        page.rows.map((r) => r.id),
        page.total
      ]
      expect(ids(yield* incidents.list(org, all))).toEqual([[id(2), id(3), id(1)], 3])
      expect(ids(yield* incidents.list(org, { ...all, status: "open" }))).toEqual([[id(2)], 1])
      expect(ids(yield* incidents.list(org, { ...all, status: "closed" }))).toEqual([[id(3), id(1)], 2])
      // A monitor's own incidents and the declared ones naming it.
      expect(ids(yield* incidents.list(org, { ...all, target_id: web }))).toEqual([[id(3), id(1)], 2])
      // Overlapping [from, to): ended at 10 overlaps from 10; started at 20 is outside to 20.
      expect(ids(yield* incidents.list(org, { ...all, from: utc(10), to: utc(20) }))).toEqual([[id(3), id(1)], 2])
      expect(ids(yield* incidents.list(org, { ...all, from: utc(11) }))).toEqual([[id(2), id(3)], 2])
      expect(ids(yield* incidents.list(org, { ...all, limit: 1, offset: 1 }))).toEqual([[id(3)], 3])
      expect(ids(yield* incidents.list(org, { ...all, offset: 5 }))).toEqual([[], 3])
      const [first] = (yield* incidents.list(org, { ...all, target_id: db })).rows
      // A monitor-opened incident without a title shows its monitor's name, and lists its monitor as component.
      expect(first).toMatchObject({ title: "db", components: [db], status: "open", origin: "monitor" })
    }).pipe(Effect.provide(layer))
  })

  it.effect("the severity filter keeps the incidents given that severity (the dashboard's list)", () => {
    const { layer } = setup(
      seeded.map((i) => (i.id === id(1) || i.id === id(4) ? { ...i, severity: "major" as const } : i))
    )
    return Effect.gen(function* () {
      const incidents = yield* Incidents
      const listed = (severity: "critical" | "major" | "minor") =>
        Effect.map(incidents.list(org, { ...all, severity }), (page) => [page.rows.map((r) => r.id), page.total])
      // The other org's major incident stays out; an incident without a severity matches none.
      expect(yield* listed("major")).toEqual([[id(1)], 1])
      expect(yield* listed("minor")).toEqual([[], 0])
      expect((yield* incidents.list(org, all)).total).toBe(3)
    }).pipe(Effect.provide(layer))
  })

  it.effect("the region filter keeps monitor-opened incidents whose regions_down include it", () => {
    const { layer } = setup([
      ...seeded.map((i) => (i.id === id(1) ? { ...i, regions_down: ["us-east", "eu-west"] } : i)),
      { id: id(5), org_id: other, target_id: foreign, started_at: at(2), regions_down: ["eu-west"] }
    ])
    return Effect.gen(function* () {
      const incidents = yield* Incidents
      const ids = (page: { readonly rows: ReadonlyArray<{ readonly id: string }> }) => page.rows.map((r) => r.id)
      // Sorted on the way out; another org's incident down in the same region stays out.
      expect((yield* incidents.one(org, id(1)))?.regions_down).toEqual(["eu-west", "us-east"])
      expect(ids(yield* incidents.list(org, { ...all, region: "eu-west" }))).toEqual([id(1)])
      // A monitor-opened incident seeded without regions was down in local; a declared one lists none.
      expect(ids(yield* incidents.list(org, { ...all, region: "local" }))).toEqual([id(2)])
      expect((yield* incidents.one(org, id(3)))?.regions_down).toEqual([])
      expect(ids(yield* incidents.list(org, { ...all, region: "ap-south" }))).toEqual([])
      // A monitor's periods by region: its own incidents down there only (the declared one naming it drops out).
      const periods = Option.getOrThrow(
        yield* incidents.periodsOfTarget(org, web, { ...periodQuery, region: "us-east" })
      )
      expect(periods.data.map((p) => p.incident_ids)).toEqual([[id(1)]])
      const none = Option.getOrThrow(yield* incidents.periodsOfTarget(org, web, { ...periodQuery, region: "local" }))
      expect(none.total).toBe(0)
    }).pipe(Effect.provide(layer))
  })

  it.effect("metrics: MTTA over acknowledged monitor incidents, MTTR over closed ones, started in the range", () => {
    const { layer } = setup(seeded)
    return Effect.gen(function* () {
      const incidents = yield* Incidents
      expect(yield* incidents.metrics(org, utc(0), utc(60), undefined)).toEqual({
        from: utc(0),
        to: utc(60),
        incidents: 3,
        acknowledged: 2,
        closed: 2,
        mtta_secs: 240,
        mttr_secs: 1200
      })
      // The declared incident counts for web; the open one on db has no resolution time.
      expect(yield* incidents.metrics(org, utc(0), utc(60), web)).toMatchObject({
        incidents: 2,
        acknowledged: 1,
        closed: 2,
        mtta_secs: 120,
        mttr_secs: 1200
      })
      expect(yield* incidents.metrics(org, utc(1), utc(20), undefined)).toMatchObject({
        incidents: 1,
        acknowledged: 0,
        mtta_secs: null,
        mttr_secs: 1800
      })
      expect(yield* incidents.metrics(org, utc(100), utc(200), undefined)).toMatchObject({
        incidents: 0,
        closed: 0,
        mtta_secs: null,
        mttr_secs: null
      })
    }).pipe(Effect.provide(layer))
  })

  it.effect("a monitor's periods coalesce its incidents; a foreign or unknown monitor has none", () => {
    const { layer } = setup(seeded)
    return Effect.gen(function* () {
      const incidents = yield* Incidents
      const periods = yield* incidents.periodsOfTarget(org, web, periodQuery)
      expect(Option.getOrThrow(periods)).toEqual({
        data: [{ started_at: utc(0), ended_at: utc(35), ongoing: false, incident_ids: [id(1), id(3)] }],
        total: 1,
        limit: 50,
        offset: 0
      })
      expect(
        Option.getOrThrow(yield* incidents.periodsOfTarget(org, web, { ...periodQuery, ongoing_only: true }))
      ).toMatchObject({ data: [], total: 0 })
      expect(Option.getOrThrow(yield* incidents.periodsOfTarget(org, db, periodQuery)).data).toEqual([
        { started_at: utc(20), ended_at: null, ongoing: true, incident_ids: [id(2)] }
      ])
      expect(yield* incidents.periodsOfTarget(org, foreign, periodQuery)).toEqual(Option.none())
      expect(yield* incidents.periodsOfTarget(other, web, periodQuery)).toEqual(Option.none())
      expect(yield* incidents.periodsOfTarget(org, id(77), periodQuery)).toEqual(Option.none())
    }).pipe(Effect.provide(layer))
  })

  it.effect("declare: components must be the org's monitors, once each; the incident opens acknowledged", () => {
    const { layer, events, dropped } = setup()
    return Effect.gen(function* () {
      const incidents = yield* Incidents
      const refusal = (body: unknown) =>
        Effect.flip(incidents.declare(org, user, declareBody(body))).pipe(
          Effect.map((e: ApiError.ApiError) => [e.status, e.code, e.field])
        )
      expect(yield* refusal({ title: "Slow", impact: "degraded", components: [web, foreign] })).toEqual([
        400,
        "VALIDATION_FAILED",
        "components[1]"
      ])
      expect(yield* refusal({ title: "Slow", impact: "degraded", components: [web, web.toUpperCase()] })).toEqual([
        400,
        "VALIDATION_FAILED",
        "components[1]"
      ])
      expect((yield* incidents.list(org, all)).total).toBe(0)

      const declared = yield* incidents.declare(
        org,
        user,
        declareBody({ title: "Slow", impact: "degraded", components: [web.toUpperCase(), db], message: "Looking" })
      )
      const detail = yield* incidents.detail(org, declared)
      expect(detail).toMatchObject({
        origin: "declared",
        status: "open",
        title: "Slow",
        number: null,
        target_id: null,
        impact: "degraded",
        counts_as_downtime: false,
        components: [web, db],
        acknowledged_by: user,
        created_by: user
      })
      expect(detail?.acknowledged_at).toEqual(detail?.started_at)
      expect(detail?.updates.map((u) => [u.kind, u.phase, u.message])).toEqual([
        ["note", null, "Incident declared"],
        ["update", "investigating", "Looking"]
      ])
      expect(events).toEqual([`${declared}:opened`])
      expect(dropped).toEqual([declared])
      expect(yield* incidents.one(other, declared)).toBeUndefined()
    }).pipe(Effect.provide(layer))
  })

  it.effect("declare is all or nothing: a failing page event leaves no incident", () => {
    const { layer, dropped } = setup([], { failEvents: true })
    return Effect.gen(function* () {
      const incidents = yield* Incidents
      const exit = yield* Effect.exit(
        incidents.declare(org, user, declareBody({ title: "Slow", impact: "degraded", components: [web] }))
      )
      expect(Exit.isFailure(exit)).toBe(true)
      expect(yield* incidents.list(org, all)).toEqual({ rows: [], total: 0 })
      expect(dropped).toEqual([])
    }).pipe(Effect.provide(layer))
  })

  it.effect("resolveDeclared resolves only an open declared incident of the org, once", () => {
    const { layer, events, dropped } = setup(seeded)
    return Effect.gen(function* () {
      const incidents = yield* Incidents
      // A monitor-opened incident moves through the writer, not here.
      yield* incidents.resolveDeclared(org, id(2), user)
      expect((yield* incidents.one(org, id(2)))?.status).toBe("open")
      // An already closed declared incident stays as it was.
      yield* incidents.resolveDeclared(org, id(3), user)
      expect((yield* incidents.one(org, id(3)))?.ended_at).toEqual(utc(35))
      expect(events).toEqual([])

      const declared = yield* incidents.declare(
        org,
        user,
        declareBody({ title: "Slow", impact: "degraded", components: [] })
      )
      yield* incidents.resolveDeclared(org, declared, user)
      yield* incidents.resolveDeclared(org, declared, user)
      const detail = yield* incidents.detail(org, declared)
      expect(detail).toMatchObject({ status: "closed", close_reason: "resolved", resolved_by: user, components: [] })
      expect(detail?.updates.map((u) => u.message)).toEqual(["Incident declared", "Resolved"])
      expect(events).toEqual([`${declared}:opened`, `${declared}:resolved`])
      expect(dropped).toEqual([declared, declared])
    }).pipe(Effect.provide(layer))
  })

  it.effect("narrate applies the checked patch; a refused check changes nothing and drops no page", () => {
    const { layer, dropped } = setup(seeded)
    return Effect.gen(function* () {
      const incidents = yield* Incidents
      expect(
        yield* incidents.narrate(org, id(2), () => Effect.succeed({ title: "Checkout down", severity: "major" }))
      ).toBe(true)
      expect(yield* incidents.one(org, id(2))).toMatchObject({ title: "Checkout down", severity: "major" })
      // Null clears: the monitor's name shows again; omitted keys keep their values.
      yield* incidents.narrate(org, id(2), () => Effect.succeed({ title: null, public_title: "Checkout" }))
      expect(yield* incidents.one(org, id(2))).toMatchObject({
        title: "db",
        severity: "major",
        public_title: "Checkout",
        counts_as_downtime: true
      })
      expect(dropped).toEqual([id(2), id(2)])

      const refused = ApiError.make("INCIDENT_NARRATION_DISABLED", "no", { field: "public_title" })
      const seen: Array<string> = []
      const error = yield* Effect.flip(
        incidents.narrate(org, id(2), (row) => {
          seen.push(`${row.origin}:${row.public_title}`)
          return Effect.fail(refused)
        })
      )
      expect(error).toBe(refused)
      expect(seen).toEqual(["monitor:Checkout"])
      expect((yield* incidents.one(org, id(2)))?.public_title).toBe("Checkout")
      expect(dropped).toEqual([id(2), id(2)])
    }).pipe(Effect.provide(layer))
  })

  it.effect("updates and postmortems are written on the org's incidents and read back", () => {
    const { layer, events, dropped } = setup(seeded)
    return Effect.gen(function* () {
      const incidents = yield* Incidents
      const update = yield* incidents.postUpdate(org, id(2), user, { phase: "identified", message: "Found it" })
      expect(update).toMatchObject({ kind: "update", phase: "identified", message: "Found it", created_by: user })
      expect(events).toEqual([`${id(2)}:update`])
      expect(dropped).toEqual([id(2)])
      expect((yield* incidents.detail(org, id(2)))?.updates.map((u) => u.id)).toEqual([update?.id])

      expect(yield* incidents.postmortem(org, id(1))).toBeUndefined()
      expect(yield* incidents.putPostmortem(org, id(1), user, "first")).toMatchObject({
        incident_id: id(1),
        body: "first",
        created_by: user,
        updated_by: user
      })
      const editor = "01900000-0000-7000-8000-0000000000d2"
      expect(yield* incidents.putPostmortem(org, id(1), editor, "second")).toMatchObject({
        body: "second",
        created_by: user,
        updated_by: editor
      })
      expect(yield* incidents.postmortem(other, id(1))).toBeUndefined()
    }).pipe(Effect.provide(layer))
  })
})
