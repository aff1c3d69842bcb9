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

/** Down since `sinceSecs`, its newest result at `lastSecs`. */
const downUntil = (sinceSecs: number, lastSecs: number): Confirmation.Track => ({
  ...down(sinceSecs),
  last_at: at(lastSecs)
})
const up = (lastSecs: number): Confirmation.Track => Confirmation.fresh(at(lastSecs))
/** Every region reports (interval 60 s: silent 180 s after its newest result). */
const every60 = { interval_secs: 60, reporting_since: null }
const verdictOf = (agreement: RegionAgreement.Agreement) =>
  agreement.verdict === "down" ? agreement.impact : agreement.verdict

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
      // Regions removed after the policy was saved, or fallen silent: the count is held to what is left.
      [{ count: 3 }, 2, 2]
    ]
    for (const [policy, regions, needed] of table) {
      expect(RegionAgreement.required(policy, regions), JSON.stringify([policy, regions])).toBe(needed)
    }
  })

  it("agreement dates from when the required number of regions had all begun failing", () => {
    const tracks = { eu: down(100), us: down(0), ap: down(50) }
    const judged = RegionAgreement.judge("majority", ["eu", "us", "ap"], tracks, at(120), every60)
    expect(judged.verdict === "down" && DateTime.formatIso(judged.since)).toBe("2026-11-22T10:00:50.000Z")
    const all = RegionAgreement.judge("all", ["eu", "us", "ap"], tracks, at(120), every60)
    expect(all.verdict === "down" && [DateTime.formatIso(all.since), all.impact, all.down]).toEqual([
      "2026-11-22T10:01:40.000Z",
      "major_outage",
      ["eu", "us", "ap"]
    ])
  })

  it("impact: degraded when only degraded, partial when some regions are out, major when all are", () => {
    const regions = ["eu", "us"]
    const judge = (tracks: Record<string, Confirmation.Track>) =>
      verdictOf(RegionAgreement.judge("any", regions, { us: up(0), eu: up(0), ...tracks }, at(60), every60))
    expect(judge({})).toBe("up")
    expect(judge({ eu: down(0, "degraded") })).toBe("degraded")
    expect(judge({ eu: down(0, "degraded"), us: down(0, "degraded") })).toBe("degraded")
    expect(judge({ eu: down(0, "down") })).toBe("partial_outage")
    expect(judge({ eu: down(0, "error"), us: down(0, "degraded") })).toBe("partial_outage")
    expect(judge({ eu: down(0, "down"), us: down(0, "error") })).toBe("major_outage")
  })

  it("tracks of regions the monitor no longer probes from do not count", () => {
    expect(RegionAgreement.judge("any", ["eu"], { eu: up(0), us: down(0) }, at(60), every60)).toEqual({
      verdict: "up",
      down: [],
      since: undefined
    })
  })

  it("the regions confirmed down without meeting the policy are named when it is not met", () => {
    const tracks = { eu: down(0), us: up(0), ap: up(0) }
    expect(RegionAgreement.judge("majority", ["eu", "us", "ap"], tracks, at(60), every60)).toEqual({
      verdict: "up",
      down: ["eu"],
      since: undefined
    })
  })
})

describe("RegionAgreement: silent regions", () => {
  const regions = ["eu", "us", "ap"]

  it("a region with no result in the last three intervals is silent from then, not a moment sooner", () => {
    const track = up(0)
    expect(DateTime.formatIso(RegionAgreement.silentFrom(track, every60) ?? t0)).toBe("2026-11-22T10:03:00.000Z")
    expect(RegionAgreement.reports(track, every60, at(179))).toBe(true)
    expect(RegionAgreement.reports(track, every60, at(180))).toBe(false)
    // Never heard from, with nothing to count from: silent all along.
    expect(RegionAgreement.silentFrom(undefined, every60)).toBeUndefined()
    expect(RegionAgreement.reports(undefined, every60, at(0))).toBe(false)
    // Counted from when the monitor began reporting, when that is later than the region's newest result.
    const resumed = { interval_secs: 60, reporting_since: at(1000) }
    expect(RegionAgreement.reports(track, resumed, at(1179))).toBe(true)
    expect(RegionAgreement.reports(undefined, resumed, at(1179))).toBe(true)
    expect(RegionAgreement.reports(undefined, resumed, at(1180))).toBe(false)
  })

  it("with no region reporting the verdict is silent", () => {
    expect(RegionAgreement.judge("any", regions, {}, at(0), every60)).toEqual({ verdict: "silent" })
    const tracks = { eu: down(0), us: down(0), ap: down(0) }
    expect(RegionAgreement.judge("any", regions, tracks, at(180), every60)).toEqual({ verdict: "silent" })
  })

  it("majority and all are judged over the reporting regions; a count is held to how many report", () => {
    // eu is down and reporting; us is up but silent since 10:03; ap is down and reporting.
    const tracks = { eu: down(200), us: up(0), ap: down(200) }
    const judge = (policy: Parameters<typeof RegionAgreement.judge>[0], secs: number) =>
      verdictOf(RegionAgreement.judge(policy, regions, tracks, at(secs), every60))
    // Before us falls silent, all needs it; after, the two reporting regions are all of them.
    expect(judge("all", 179)).toBe("up")
    expect(judge("all", 200)).toBe("major_outage")
    expect(judge({ count: 3 }, 200)).toBe("major_outage")
    expect(judge("majority", 200)).toBe("major_outage")
    // A silent region that was down does not count as down either.
    const lone = { eu: down(0), us: up(200), ap: up(200) }
    expect(verdictOf(RegionAgreement.judge("any", regions, lone, at(179), every60))).toBe("partial_outage")
    expect(RegionAgreement.judge("any", regions, lone, at(180), every60)).toEqual({
      verdict: "up",
      down: [],
      since: DateTime.unsafeMake("2026-11-22T10:03:00.000Z")
    })
  })

  it("agreement a region's silence brought is dated to that moment; one it ended says when", () => {
    // us (up) fell silent at 10:03; eu and ap had been down since 10:01 but were one short of all.
    const brought = RegionAgreement.judge(
      "all",
      regions,
      { eu: downUntil(60, 380), us: up(0), ap: downUntil(60, 390) },
      at(400),
      every60
    )
    expect(brought.verdict === "down" && DateTime.formatIso(brought.since)).toBe("2026-11-22T10:03:00.000Z")
    // When the streaks began after the silence, they date it.
    const later = RegionAgreement.judge(
      "all",
      regions,
      { eu: downUntil(300, 380), us: up(0), ap: downUntil(250, 390) },
      at(400),
      every60
    )
    expect(later.verdict === "down" && DateTime.formatIso(later.since)).toBe("2026-11-22T10:05:00.000Z")
    // eu (down) fell silent at 10:04; ap alone is not a majority of the two reporting regions.
    const ended = RegionAgreement.judge(
      "majority",
      regions,
      { eu: downUntil(60, 60), us: up(290), ap: downUntil(60, 290) },
      at(300),
      { interval_secs: 80, reporting_since: null }
    )
    expect(ended).toEqual({ verdict: "up", down: ["ap"], since: DateTime.unsafeMake("2026-11-22T10:05:00.000Z") })
  })

  it("the next silence is the earliest moment after now a reporting region falls silent; none for one region", () => {
    const tracks = { eu: up(100), us: up(10), ap: up(50) }
    const next = (secs: number) => {
      const time = RegionAgreement.nextSilence(regions, tracks, at(secs), every60)
      return time === undefined ? undefined : DateTime.formatIso(time)
    }
    expect(next(0)).toBe("2026-11-22T10:03:10.000Z")
    expect(next(190)).toBe("2026-11-22T10:03:50.000Z")
    expect(next(280)).toBeUndefined()
    expect(RegionAgreement.nextSilence(["eu"], tracks, at(0), every60)).toBeUndefined()
  })
})
