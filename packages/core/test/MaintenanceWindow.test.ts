import { describe, expect, it } from "@effect/vitest"
import * as Arr from "effect/Array"
import * as DateTime from "effect/DateTime"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as ApiError from "../src/ApiError.js"
import * as MaintenanceWindow from "../src/MaintenanceWindow.js"

const t0 = DateTime.unsafeMake("2026-11-22T10:00:00.000Z")
const at = (secs: number): DateTime.Utc => DateTime.add(t0, { seconds: secs })
const iso = (time: DateTime.Utc | null) => (time === null ? null : DateTime.formatIso(time))

const schedule = (startsSecs: number, endsSecs: number, over: Partial<MaintenanceWindow.Schedule> = {}) =>
  MaintenanceWindow.schedule(
    {
      title: "Database upgrade",
      description: "",
      starts_at: at(startsSecs),
      ends_at: at(endsSecs),
      components: ["t-1"],
      suppress_alerts: true,
      ...over
    },
    at(0)
  )

const window = (startsSecs: number, endsSecs: number): MaintenanceWindow.Window =>
  Either.getOrThrow(schedule(startsSecs, endsSecs))

const refusal = <A>(either: Either.Either<A, ApiError.ApiError>) =>
  Either.match(either, {
    onLeft: (e) => ({ status: e.status, code: e.code, field: e.field }),
    onRight: () => "accepted"
  })

describe("MaintenanceWindow: states", () => {
  it("upcoming before the start, running inside, completed from the end (half-open), cancelled once deleted", () => {
    const w = window(3600, 7200)
    expect(MaintenanceWindow.statusAt(w, at(3599))).toBe("upcoming")
    expect(MaintenanceWindow.statusAt(w, at(3600))).toBe("running")
    expect(MaintenanceWindow.statusAt(w, at(7199))).toBe("running")
    expect(MaintenanceWindow.statusAt(w, at(7200))).toBe("completed")
    const cancelled = Either.getOrThrow(MaintenanceWindow.cancel(w, "user-1", at(10)))
    expect(MaintenanceWindow.statusAt(cancelled, at(5000))).toBe("cancelled")
  })
})

describe("MaintenanceWindow: schedule", () => {
  it("a window must end after it starts and in the future; a past start runs at once; components deduplicated", () => {
    expect(refusal(schedule(100, 100))).toEqual({ status: 400, code: "VALIDATION_FAILED", field: "ends_at" })
    expect(refusal(schedule(100, 50))).toEqual({ status: 400, code: "VALIDATION_FAILED", field: "ends_at" })
    expect(refusal(schedule(-100, 0))).toEqual({ status: 400, code: "VALIDATION_FAILED", field: "ends_at" })
    const running = Either.getOrThrow(schedule(-100, 100, { components: ["a", "b", "a"] }))
    expect(MaintenanceWindow.statusAt(running, at(0))).toBe("running")
    expect(running.components).toEqual(["a", "b"])
    expect([running.deleted_at, running.deleted_by, running.update_count]).toEqual([null, null, 0])
  })
})

describe("MaintenanceWindow: edit", () => {
  it("an upcoming window takes edits; its ends_at must stay in the future and after the start", () => {
    const w = window(3600, 7200)
    const edited = Either.getOrThrow(
      MaintenanceWindow.edit(w, { title: "Longer", ends_at: at(9000), suppress_alerts: false }, at(60))
    )
    expect([edited.title, iso(edited.ends_at), edited.suppress_alerts]).toEqual([
      "Longer",
      "2026-11-22T12:30:00.000Z",
      false
    ])
    expect(refusal(MaintenanceWindow.edit(w, { ends_at: at(60) }, at(60)))).toEqual({
      status: 400,
      code: "VALIDATION_FAILED",
      field: "ends_at"
    })
    expect(refusal(MaintenanceWindow.edit(w, { starts_at: at(8000) }, at(60)))).toEqual({
      status: 400,
      code: "VALIDATION_FAILED",
      field: "ends_at"
    })
    // Moving the start to now starts it.
    const started = Either.getOrThrow(MaintenanceWindow.edit(w, { starts_at: at(60) }, at(60)))
    expect(MaintenanceWindow.statusAt(started, at(60))).toBe("running")
  })

  it("a running window ends at the server's clock when ends_at is at or before now", () => {
    const w = window(0, 7200)
    // Even an end before the start: the condition is "any", and the window is over at the server's clock.
    for (const ends of [100, 50, -3600]) {
      const ended = Either.getOrThrow(MaintenanceWindow.edit(w, { ends_at: at(ends) }, at(100)))
      expect(iso(ended.ends_at)).toBe("2026-11-22T10:01:40.000Z")
      expect(MaintenanceWindow.statusAt(ended, at(100))).toBe("completed")
    }
    const extended = Either.getOrThrow(MaintenanceWindow.edit(w, { ends_at: at(9000) }, at(100)))
    expect(MaintenanceWindow.statusAt(extended, at(8000))).toBe("running")
  })

  it("a running window keeps its start; sending the same start back is fine", () => {
    const w = window(0, 7200)
    expect(refusal(MaintenanceWindow.edit(w, { starts_at: at(50) }, at(100)))).toEqual({
      status: 400,
      code: "VALIDATION_FAILED",
      field: "starts_at"
    })
    expect(refusal(MaintenanceWindow.edit(w, { starts_at: at(0), title: "Same" }, at(100)))).toBe("accepted")
  })

  it("an ended or cancelled window refuses edits", () => {
    const w = window(0, 7200)
    expect(refusal(MaintenanceWindow.edit(w, { title: "x" }, at(7200)))).toEqual({
      status: 422,
      code: "MAINTENANCE_ENDED",
      field: null
    })
    const cancelled = Either.getOrThrow(MaintenanceWindow.cancel(w, "user-1", at(10)))
    expect(refusal(MaintenanceWindow.edit(cancelled, { title: "x" }, at(20)))).toEqual({
      status: 422,
      code: "MAINTENANCE_CANCELLED",
      field: null
    })
  })
})

describe("MaintenanceWindow: cancel", () => {
  it("an upcoming or running window is cancelled with deleted_at and deleted_by; an ended or cancelled one is refused", () => {
    for (const [starts, ends] of [
      [3600, 7200],
      [0, 7200]
    ] as const) {
      const cancelled = Either.getOrThrow(MaintenanceWindow.cancel(window(starts, ends), "user-9", at(30)))
      expect([iso(cancelled.deleted_at), cancelled.deleted_by]).toEqual(["2026-11-22T10:00:30.000Z", "user-9"])
      expect(MaintenanceWindow.suppresses(cancelled, "t-1", at(60))).toBe(false)
      expect(refusal(MaintenanceWindow.cancel(cancelled, "user-9", at(40)))).toEqual({
        status: 422,
        code: "MAINTENANCE_CANCELLED",
        field: null
      })
    }
    expect(refusal(MaintenanceWindow.cancel(window(0, 60), "user-9", at(60)))).toEqual({
      status: 422,
      code: "MAINTENANCE_ENDED",
      field: null
    })
  })
})

describe("MaintenanceWindow: updates", () => {
  it("upcoming, running and completed windows take 50 updates; the 51st is MAINTENANCE_UPDATE_LIMIT", () => {
    let w = window(0, 60)
    for (let i = 0; i < 50; i++) w = Either.getOrThrow(MaintenanceWindow.postUpdate(w))
    expect(w.update_count).toBe(50)
    const refused = MaintenanceWindow.postUpdate(w)
    expect(refusal(refused)).toEqual({ status: 422, code: "MAINTENANCE_UPDATE_LIMIT", field: null })
    expect(Either.isLeft(refused) && refused.left.details).toEqual({ limit: 50 })
  })

  it("a cancelled window takes none (MAINTENANCE_CANCELLED wins over the limit)", () => {
    const cancelled = Either.getOrThrow(MaintenanceWindow.cancel(window(100, 200), "u", at(0)))
    expect(refusal(MaintenanceWindow.postUpdate(cancelled))).toEqual({
      status: 422,
      code: "MAINTENANCE_CANCELLED",
      field: null
    })
    expect(refusal(MaintenanceWindow.postUpdate({ ...cancelled, update_count: 50 }))).toEqual({
      status: 422,
      code: "MAINTENANCE_CANCELLED",
      field: null
    })
    expect(ApiError.codes.MAINTENANCE_CANCELLED).toBe(422)
  })
})

describe("MaintenanceWindow: suppression and filters", () => {
  it("suppresses alerts only while running, with suppression on, for a covered monitor", () => {
    const w = window(100, 200)
    expect(MaintenanceWindow.suppresses(w, "t-1", at(99))).toBe(false)
    expect(MaintenanceWindow.suppresses(w, "t-1", at(100))).toBe(true)
    expect(MaintenanceWindow.suppresses(w, "t-2", at(150))).toBe(false)
    expect(MaintenanceWindow.suppresses({ ...w, suppress_alerts: false }, "t-1", at(150))).toBe(false)
    expect(MaintenanceWindow.suppresses(w, "t-1", at(200))).toBe(false)
  })

  it("active is running, upcoming not started, past completed or cancelled, all everything", () => {
    const now = at(1000)
    const upcoming = window(2000, 3000)
    const running = window(500, 1500)
    const completed = window(100, 900)
    const cancelled = Either.getOrThrow(MaintenanceWindow.cancel(window(2000, 3000), "u", at(10)))
    const all = [upcoming, running, completed, cancelled]
    const pick = (filter: MaintenanceWindow.StatusFilter) =>
      all.filter((w) => MaintenanceWindow.matches(filter, w, now))
    expect(pick("active")).toEqual([running])
    expect(pick("upcoming")).toEqual([upcoming])
    expect(pick("past")).toEqual([completed, cancelled])
    expect(pick("all")).toEqual(all)
  })

  it("upcoming lists the soonest first; the other lists the latest start first", () => {
    const a = window(100, 200)
    const b = window(300, 400)
    const c = window(200, 250)
    expect(Arr.sort([a, b, c], MaintenanceWindow.order("upcoming"))).toEqual([a, c, b])
    expect(Arr.sort([a, b, c], MaintenanceWindow.order("past"))).toEqual([b, c, a])
  })

  it.prop(
    "every window is in exactly one of active, upcoming and past, and always in all",
    {
      starts: FastCheck.integer({ min: -5000, max: 5000 }),
      length: FastCheck.integer({ min: 1, max: 5000 }),
      now: FastCheck.integer({ min: -10000, max: 10000 }),
      cancelled: FastCheck.boolean()
    },
    ({ starts, length, now, cancelled }) => {
      const w: MaintenanceWindow.Window = {
        ...window(1, 2),
        starts_at: at(starts),
        ends_at: at(starts + length),
        deleted_at: cancelled ? at(starts - 1) : null,
        deleted_by: cancelled ? "u" : null
      }
      const filters = (["active", "upcoming", "past"] as const).filter((f) => MaintenanceWindow.matches(f, w, at(now)))
      expect(filters.length).toBe(1)
      expect(MaintenanceWindow.matches("all", w, at(now))).toBe(true)
      if (MaintenanceWindow.suppresses(w, "t-1", at(now))) expect(filters).toEqual(["active"])
    }
  )
})
