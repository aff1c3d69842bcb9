import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as DateTime from "effect/DateTime"
import { instantOf, localOf } from "../src/dashboard/client/instants.js"
import * as Time from "../src/dashboard/Time.js"

const utc = (iso: string) => DateTime.unsafeMake(iso)

describe("dashboard times on the server", () => {
  it("an instant is a <time> with the exact UTC instant and UTC words the script replaces", () => {
    expect(Time.time(utc("2026-05-01T22:05:09.250Z")).text).toBe(
      `<time datetime="2026-05-01T22:05:09.250Z" data-local>2026-05-01 22:05 UTC</time>`
    )
    expect(Time.utcText(new Date(Date.UTC(2026, 0, 2, 3, 4)))).toBe("2026-01-02 03:04 UTC")
  })

  it("a datetime-local value keeps the instant: minutes, seconds and milliseconds only when there are some", () => {
    expect(Time.localValue(utc("2026-05-01T22:00:00Z"))).toBe("2026-05-01T22:00")
    expect(Time.localValue(utc("2026-05-01T22:00:07Z"))).toBe("2026-05-01T22:00:07")
    expect(Time.localValue(utc("2026-05-01T22:00:07.123Z"))).toBe("2026-05-01T22:00:07.123")
    expect(Time.offMinute(utc("2026-05-01T22:00:00Z"))).toBe(false)
    expect(Time.offMinute(utc("2026-05-01T22:00:00.001Z"))).toBe(true)
  })

  it("durations in the unit people think in", () => {
    const s = 1000
    expect([-5 * s, 0, 59 * s, 60 * s, 59 * 60 * s, 60 * 60 * s, 125 * 60 * s].map(Time.duration)).toEqual([
      "0 s",
      "0 s",
      "59 s",
      "1 min",
      "59 min",
      "1 h",
      "2 h 5 min"
    ])
    expect(Time.duration(48 * 3600 * s)).toBe("2 d")
    expect(Time.duration(53 * 3600 * s + 59 * 60 * s)).toBe("2 d 5 h")
    expect(Time.between(utc("2026-05-01T22:00:00Z"), utc("2026-05-01T22:12:30Z"))).toBe("12 min")
  })
})

// The browser's zone is the process's here: set for this block, restored after.
describe("datetime-local values in the viewer's zone (client/instants)", () => {
  const saved = process.env["TZ"]
  beforeAll(() => {
    process.env["TZ"] = "Asia/Kolkata"
  })
  afterAll(() => {
    if (saved === undefined) delete process.env["TZ"]
    else process.env["TZ"] = saved
  })

  it("a wall-clock time is read in the zone and sent as a UTC instant", () => {
    expect(instantOf("2030-01-01T10:00")).toBe("2030-01-01T04:30:00.000Z")
    expect(instantOf(" 2030-01-01T10:00:30 ")).toBe("2030-01-01T04:30:30.000Z")
    expect(instantOf("2030-01-01T10:00:30.5")).toBe("2030-01-01T04:30:30.500Z")
  })

  it("what is no date and time is refused, not rolled over", () => {
    for (const bad of [
      "",
      "2030-02-30T10:00",
      "2030-13-01T10:00",
      "2030-01-01T24:00",
      "2030-01-01T10:60",
      "tomorrow"
    ]) {
      expect(instantOf(bad), bad).toBeUndefined()
    }
  })

  it("an instant is shown back in the zone, and round-trips", () => {
    expect(localOf("2030-01-01T04:30:00.000Z")).toBe("2030-01-01T10:00")
    expect(localOf("2030-01-01T04:30:07Z")).toBe("2030-01-01T10:00:07")
    expect(localOf("2030-01-01T04:30:07.040Z")).toBe("2030-01-01T10:00:07.040")
    expect(localOf("not a time")).toBeUndefined()
    for (const iso of ["2030-06-15T18:45:00.000Z", "2030-06-15T18:45:12.345Z"]) {
      expect(instantOf(localOf(iso) ?? "")).toBe(iso)
    }
  })

  it("across a daylight-saving change the offset is the one of that date", () => {
    process.env["TZ"] = "Europe/Paris"
    expect(instantOf("2030-01-15T12:00")).toBe("2030-01-15T11:00:00.000Z")
    expect(instantOf("2030-07-15T12:00")).toBe("2030-07-15T10:00:00.000Z")
    process.env["TZ"] = "Asia/Kolkata"
  })
})
