/**
 * A monitor's state from its regions' (the worst status stands for it, since the earliest of the regions in it
 * entered it), and the range a reading of history covers (held within what the plan keeps).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as MonitorState from "../src/engine/MonitorState.js"
import * as ReadableRange from "../src/engine/ReadableRange.js"

const at = (minutesAgo: number) => new Date(Date.UTC(2026, 4, 1, 12, 0) - minutesAgo * 60_000)

describe("monitor state", () => {
  it("no region with a result is no state", () => {
    expect(MonitorState.fold([])).toBeUndefined()
  })

  it("the worst status wins (down, then error, then degraded, then up); down since the first region still down went down", () => {
    const state = MonitorState.fold([
      { region: "us", status: "down", last_at: at(1), since: at(5) },
      { region: "eu", status: "degraded", last_at: at(0), since: at(30) },
      { region: "ap", status: "down", last_at: at(2), since: at(12) }
    ])
    expect(state?.status).toBe("down")
    expect(state?.since).toEqual(at(12))
    expect(state?.last_at).toEqual(at(0))
    expect(state?.regions.map((r) => r.region)).toEqual(["ap", "eu", "us"])
    expect(
      MonitorState.fold([
        { region: "a", status: "degraded", last_at: at(0), since: at(3) },
        { region: "b", status: "error", last_at: at(0), since: at(9) },
        { region: "c", status: "up", last_at: at(0), since: at(60) }
      ])?.status
    ).toBe("error")
  })

  it("any other status holds since the last region entered its own: before that, that region may have been worse", () => {
    // Every region up: up since the last one came back.
    expect(
      MonitorState.fold([
        { region: "eu", status: "up", last_at: at(0), since: at(180) },
        { region: "us", status: "up", last_at: at(0), since: at(2) }
      ])?.since
    ).toEqual(at(2))
    // Degraded in one region since 30 minutes; another only up for 10 (it may have been down before).
    expect(
      MonitorState.fold([
        { region: "eu", status: "degraded", last_at: at(0), since: at(30) },
        { region: "us", status: "up", last_at: at(0), since: at(10) }
      ])
    ).toMatchObject({ status: "degraded", since: at(10) })
  })

  it("one region: its own status and since", () => {
    expect(MonitorState.fold([{ region: "local", status: "up", last_at: at(1), since: at(90) }])).toMatchObject({
      status: "up",
      since: at(90)
    })
  })
})

describe("readable range", () => {
  const DAY = 86_400_000
  const now = Date.UTC(2026, 4, 1, 12, 0)
  const keeping = { retention_days: 30, raw_days: 7 }

  it("defaults: to now, from a day before; raw results from raw_days ago", () => {
    const range = Either.getOrThrow(ReadableRange.clamp(keeping, now, {}))
    expect(range).toEqual({ from: new Date(now - DAY), to: new Date(now), rawFrom: new Date(now - 7 * DAY) })
  })

  it("a from older than the plan keeps starts at the retention instead", () => {
    const range = Either.getOrThrow(ReadableRange.clamp(keeping, now, { from: new Date(now - 90 * DAY) }))
    expect(range.from).toEqual(new Date(now - 30 * DAY))
  })

  it("a to before the retention is lifted to it: an empty range, not a backwards one", () => {
    const range = Either.getOrThrow(
      ReadableRange.clamp(keeping, now, { from: new Date(now - 60 * DAY), to: new Date(now - 40 * DAY) })
    )
    expect(range.to).toEqual(range.from)
  })

  it("from not before to is refused, naming from", () => {
    const refused = ReadableRange.clamp(keeping, now, { from: new Date(now), to: new Date(now) })
    expect(Either.isLeft(refused) && refused.left.code).toBe("VALIDATION_FAILED")
    expect(Either.isLeft(refused) && refused.left.field).toBe("from")
  })
})
