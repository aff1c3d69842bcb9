import { describe, expect, it } from "@effect/vitest"
import * as DateTime from "effect/DateTime"
import * as Confirmation from "../src/Confirmation.js"
import * as RegionAgreement from "../src/RegionAgreement.js"

const t0 = DateTime.unsafeMake("2026-11-22T10:00:00.000Z")
const at = (secs: number): DateTime.Utc => DateTime.add(t0, { seconds: secs })

const down = (sinceSecs: number, status: Confirmation.Track["status"] = "down"): Confirmation.Track => ({
  ...Confirmation.fresh(at(sinceSecs)),
  down: true,
  since: at(sinceSecs),
  failing: 2,
  streak_since: at(sinceSecs),
  status
})

describe("Confirmation", () => {
  it("up passes; down and degraded fail; error fails unless the guard blocked the address", () => {
    expect(Confirmation.verdictOf("up", null)).toBe("passing")
    expect(Confirmation.verdictOf("down", "connection refused")).toBe("failing")
    expect(Confirmation.verdictOf("degraded", "rate-limited 429")).toBe("failing")
    expect(Confirmation.verdictOf("error", "tls: handshake failure")).toBe("failing")
    expect(Confirmation.verdictOf("error", null)).toBe("failing")
    expect(Confirmation.verdictOf("error", "blocked: 10.0.0.1 is an internal address")).toBe("neutral")
    // Only an error result can be blocked: a down result whose text happens to start so still fails.
    expect(Confirmation.verdictOf("down", "blocked: x")).toBe("failing")
  })

  it("a region turns down after N failures, keeps the streak start, and needs N passes to turn up", () => {
    let track = Confirmation.take(undefined, "down", "x", at(0), 3)
    track = Confirmation.take(track, "down", "x", at(60), 3)
    expect(track.down).toBe(false)
    track = Confirmation.take(track, "degraded", null, at(120), 3)
    expect([track.down, DateTime.formatIso(track.since ?? t0), track.status]).toEqual([
      true,
      "2026-11-22T10:00:00.000Z",
      "degraded"
    ])
    track = Confirmation.take(track, "up", null, at(180), 3)
    track = Confirmation.take(track, "up", null, at(240), 3)
    expect(track.down).toBe(true)
    track = Confirmation.take(track, "up", null, at(300), 3)
    expect([track.down, DateTime.formatIso(track.since ?? t0)]).toEqual([false, "2026-11-22T10:03:00.000Z"])
  })

  it("only a newer result is taken", () => {
    const track = Confirmation.take(undefined, "down", "x", at(60), 2)
    expect(Confirmation.isNewer(undefined, at(0))).toBe(true)
    expect(Confirmation.isNewer(track, at(60))).toBe(false)
    expect(Confirmation.isNewer(track, at(59))).toBe(false)
    expect(Confirmation.isNewer(track, at(61))).toBe(true)
  })
})

describe("RegionAgreement", () => {
  it("required regions per policy", () => {
    const table: Array<[Parameters<typeof RegionAgreement.required>[0], number, number]> = [
      ["any", 3, 1],
      ["majority", 1, 1],
      ["majority", 2, 2],
      ["majority", 3, 2],
      ["majority", 4, 3],
      ["majority", 5, 3],
      ["all", 1, 1],
      ["all", 4, 4],
      [{ count: 2 }, 3, 2],
      // Regions removed after the policy was saved: the count is held to what is left.
      [{ count: 3 }, 2, 2]
    ]
    for (const [policy, regions, needed] of table) {
      expect(RegionAgreement.required(policy, regions), JSON.stringify([policy, regions])).toBe(needed)
    }
  })

  it("agreement dates from when the required number of regions had all begun failing", () => {
    const tracks = { eu: down(100), us: down(0), ap: down(50) }
    const judged = RegionAgreement.judge("majority", ["eu", "us", "ap"], tracks)
    expect(judged.down && DateTime.formatIso(judged.since)).toBe("2026-11-22T10:00:50.000Z")
    const all = RegionAgreement.judge("all", ["eu", "us", "ap"], tracks)
    expect(all.down && [DateTime.formatIso(all.since), all.impact]).toEqual([
      "2026-11-22T10:01:40.000Z",
      "major_outage"
    ])
  })

  it("impact: degraded when only degraded, partial when some regions are out, major when all are", () => {
    const regions = ["eu", "us"]
    const judge = (tracks: Record<string, Confirmation.Track>) => {
      const judged = RegionAgreement.judge("any", regions, tracks)
      return judged.down ? judged.impact : "none"
    }
    expect(judge({})).toBe("none")
    expect(judge({ eu: down(0, "degraded") })).toBe("degraded")
    expect(judge({ eu: down(0, "degraded"), us: down(0, "degraded") })).toBe("degraded")
    expect(judge({ eu: down(0, "down") })).toBe("partial_outage")
    expect(judge({ eu: down(0, "error"), us: down(0, "degraded") })).toBe("partial_outage")
    expect(judge({ eu: down(0, "down"), us: down(0, "error") })).toBe("major_outage")
  })

  it("tracks of regions the monitor no longer probes from do not count", () => {
    expect(RegionAgreement.judge("any", ["eu"], { us: down(0) }).down).toBe(false)
  })
})
