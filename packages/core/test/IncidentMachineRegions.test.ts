/**
 * The incident engine across regions: each region policy with some regions failing, silent regions abstaining
 * (judged from the clock alone, on a tick), the regions an incident records as down, and the per-region advisories a
 * monitor carries while the policy is not met.
 */
import { describe, expect, it } from "@effect/vitest"
import * as DateTime from "effect/DateTime"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import type { CheckStatus } from "../src/CheckResult.js"
import * as IncidentMachine from "../src/IncidentMachine.js"
import * as RegionAgreement from "../src/RegionAgreement.js"
import type { RegionPolicy } from "../src/Target.js"

const t0 = DateTime.unsafeMake("2026-11-22T10:00:00.000Z")
const at = (secs: number): DateTime.Utc => DateTime.add(t0, { seconds: secs })
const iso = (time: DateTime.Utc | null | undefined) => (time == null ? time : DateTime.formatIso(time))
const secsOf = (time: DateTime.Utc) => (DateTime.toEpochMillis(time) - DateTime.toEpochMillis(t0)) / 1000

const regions = ["eu", "us", "ap"]

const config = (over: Partial<IncidentMachine.AlertConfig> = {}): IncidentMachine.AlertConfig => ({
  alert_confirmations: 1,
  interval: 60,
  notify_recovery: true,
  renotify_interval_secs: 0,
  recovery_period_secs: 0,
  region_policy: "majority",
  regions,
  ...over
})

interface Timed {
  readonly event: IncidentMachine.Event
  readonly now: DateTime.Utc
}

/** A result from `region` taken at `secs`, folded then (or at `nowSecs`: delivered late). */
const r = (
  status: CheckStatus,
  secs: number,
  region: string,
  options: { nowSecs?: number; suppressed?: boolean } = {}
) => ({
  event: {
    _tag: "Result" as const,
    region,
    status,
    error: status === "up" || status === "degraded" ? null : "connection refused",
    checked_at: at(secs),
    suppressed: options.suppressed ?? false
  },
  now: at(options.nowSecs ?? secs)
})
const tick = (secs: number, suppressed = false): Timed => ({ event: { _tag: "Tick", suppressed }, now: at(secs) })

/** One result from each region at `secs`, in the order given. */
const round = (secs: number, statuses: Readonly<Record<string, CheckStatus>>): Array<Timed> =>
  Object.entries(statuses).map(([region, status]) => r(status, secs, region))

interface Run {
  readonly state: IncidentMachine.State
  readonly effects: ReadonlyArray<IncidentMachine.SideEffect>
}

const run = (cfg: IncidentMachine.AlertConfig, events: ReadonlyArray<Timed>, from = IncidentMachine.initial): Run => {
  const machine = IncidentMachine.step(cfg)
  let state = from
  const effects: Array<IncidentMachine.SideEffect> = []
  for (const { event, now } of events) {
    const next = machine(state, event, now)
    effects.push(...next.effects)
    state = next.state
  }
  return { state, effects }
}

const tags = (effects: ReadonlyArray<IncidentMachine.SideEffect>) =>
  effects.map((e) =>
    e._tag === "Notify" ? `Notify:${e.kind}` : e._tag === "UpdateIncident" ? `Update:${e.change}` : e._tag
  )

const advisories = (cfg: IncidentMachine.AlertConfig, state: IncidentMachine.State, secs: number) =>
  IncidentMachine.advisories(cfg, state, at(secs)).map((a) => `${a.region}:${a.status}:${secsOf(a.since)}`)

const closeOf = (effects: ReadonlyArray<IncidentMachine.SideEffect>) => {
  const close = effects.find((e) => e._tag === "CloseIncident")
  return close?._tag === "CloseIncident" ? close : undefined
}

describe("IncidentMachine across regions: each policy with some regions failing", () => {
  const policies: ReadonlyArray<[RegionPolicy, number]> = [
    ["any", 1],
    ["majority", 2],
    ["all", 3],
    [{ count: 2 }, 2]
  ]
  for (const [policy, needed] of policies) {
    it(`${JSON.stringify(policy)} opens on ${needed} of 3 regions; fewer carry advisories and open nothing`, () => {
      const cfg = config({ region_policy: policy })
      for (let failing = 0; failing <= 3; failing++) {
        const statuses = Object.fromEntries(regions.map((region, i) => [region, i < failing ? "down" : "up"] as const))
        const { state, effects } = run(cfg, round(0, statuses))
        const failed = regions.slice(0, failing)
        if (failing >= needed) {
          // One incident and one notification however many regions agree; later regions join its list (the last
          // of three raises the impact to a major outage).
          expect(tags(effects), `${failing} failing`).toEqual([
            "OpenIncident",
            "Notify:opened",
            ...regions.slice(needed, failing).map((_, i) => (needed + i + 1 === 3 ? "Update:impact" : "Update:regions"))
          ])
          expect(state.incident?.regions_down).toEqual([...failed].sort())
          expect(advisories(cfg, state, 0)).toEqual([])
        } else {
          expect(effects, `${failing} failing`).toEqual([])
          expect(advisories(cfg, state, 0)).toEqual(failed.map((region) => `${region}:down:0`))
        }
      }
    })
  }
})

describe("IncidentMachine across regions: silent regions abstain", () => {
  it("a down region falling silent ends agreement on a tick, dated to when it fell silent", () => {
    const cfg = config()
    const open = run(cfg, [
      ...round(0, { eu: "down", us: "down", ap: "up" }),
      ...round(60, { eu: "down", ap: "up" }),
      ...round(120, { eu: "down", ap: "up" })
    ])
    expect(tags(open.effects)).toEqual(["OpenIncident", "Notify:opened"])
    // us reported last at 10:00:00: it falls silent three intervals later, and the clock is to tick then.
    expect(iso(IncidentMachine.wakeAt(cfg, open.state, at(120)))).toBe("2026-11-22T10:03:00.000Z")
    expect(run(cfg, [tick(179)], open.state).effects).toEqual([])
    const ticked = run(cfg, [tick(185)], open.state)
    expect(tags(ticked.effects)).toEqual(["CloseIncident", "Notify:recovered"])
    expect(iso(closeOf(ticked.effects)?.ended_at)).toBe("2026-11-22T10:03:00.000Z")
    // The incident keeps the regions that were down; eu, down alone, is now an advisory.
    expect(closeOf(ticked.effects)?.incident.regions_down).toEqual(["eu", "us"])
    expect(advisories(cfg, ticked.state, 185)).toEqual(["eu:down:0"])
  })

  it("an up region falling silent brings agreement on a tick, dated to when it fell silent", () => {
    const cfg = config({ region_policy: "all" })
    const split = run(cfg, [
      ...round(0, { eu: "down", us: "down", ap: "up" }),
      ...round(60, { eu: "down", us: "down" }),
      ...round(120, { eu: "down", us: "down" })
    ])
    expect(split.effects).toEqual([])
    expect(advisories(cfg, split.state, 120)).toEqual(["eu:down:0", "us:down:0"])
    expect(iso(IncidentMachine.wakeAt(cfg, split.state, at(120)))).toBe("2026-11-22T10:03:00.000Z")
    const ticked = run(cfg, [tick(180)], split.state)
    expect(tags(ticked.effects)).toEqual(["OpenIncident", "Notify:opened"])
    expect(iso(ticked.state.incident?.started_at)).toBe("2026-11-22T10:03:00.000Z")
    expect(ticked.state.incident?.impact).toBe("major_outage")
    expect(ticked.state.incident?.regions_down).toEqual(["eu", "us"])
    expect(advisories(cfg, ticked.state, 180)).toEqual([])
    // ap reporting up again ends it (all needs every reporting region), dated to its pass.
    const back = run(cfg, [r("up", 240, "ap")], ticked.state)
    expect(iso(closeOf(back.effects)?.ended_at)).toBe("2026-11-22T10:04:00.000Z")
  })

  it("a count is held to the number of reporting regions", () => {
    const cfg = config({ region_policy: { count: 3 } })
    const two = run(cfg, [...round(0, { eu: "down", us: "down", ap: "up" }), ...round(60, { eu: "down", us: "down" })])
    expect(two.effects).toEqual([])
    expect(tags(run(cfg, [tick(180)], two.state).effects)).toEqual(["OpenIncident", "Notify:opened"])
  })

  it("any: a silent region that was down no longer counts as down", () => {
    const cfg = config({ region_policy: "any" })
    const open = run(cfg, [...round(0, { eu: "down", us: "up", ap: "up" }), ...round(150, { us: "up", ap: "up" })])
    expect(open.state.incident?.regions_down).toEqual(["eu"])
    const ticked = run(cfg, [tick(180)], open.state)
    expect(iso(closeOf(ticked.effects)?.ended_at)).toBe("2026-11-22T10:03:00.000Z")
  })

  it("with no region reporting nothing changes: an open incident stays open, a closed one stays closed", () => {
    const cfg = config({ renotify_interval_secs: 600 })
    const open = run(cfg, round(0, { eu: "down", us: "down", ap: "up" }))
    expect(open.state.incident).not.toBeNull()
    // Every region reported last at 10:00:00, so all fall silent together at 10:03:00: nothing to tick for.
    expect(iso(IncidentMachine.wakeAt(cfg, open.state, at(0)))).toBe("2026-11-22T10:03:00.000Z")
    const silent = run(cfg, [tick(180), tick(5000)], open.state)
    expect(tags(silent.effects)).toEqual(["Notify:reminder"])
    expect(silent.state.incident?.recovering_since).toBeNull()
    expect(advisories(cfg, silent.state, 5000)).toEqual([])

    const quiet = run(cfg, [...round(0, { eu: "down", us: "up", ap: "up" }), tick(200), tick(9000)])
    expect(quiet.effects).toEqual([])
    expect(quiet.state.incident).toBeNull()
    expect(advisories(cfg, quiet.state, 9000)).toEqual([])
    expect(IncidentMachine.wakeAt(cfg, quiet.state, at(9000))).toBeUndefined()
  })

  it("the first region to report does not decide alone: the others have three intervals to report", () => {
    const cfg = config()
    const first = run(cfg, [r("down", 0, "eu")])
    expect(first.effects).toEqual([])
    expect(iso(first.state.reporting_since)).toBe("2026-11-22T10:00:00.000Z")
    expect(advisories(cfg, first.state, 0)).toEqual(["eu:down:0"])
    // us and ap never report: at 10:03 they are silent, and eu is a majority of the one reporting region.
    const alone = run(cfg, [r("down", 60, "eu"), r("down", 120, "eu")], first.state)
    expect(alone.effects).toEqual([])
    expect(iso(IncidentMachine.wakeAt(cfg, alone.state, at(120)))).toBe("2026-11-22T10:03:00.000Z")
    const ticked = run(cfg, [tick(180)], alone.state)
    expect(tags(ticked.effects)).toEqual(["OpenIncident", "Notify:opened"])
    expect(iso(ticked.state.incident?.started_at)).toBe("2026-11-22T10:03:00.000Z")
  })

  it("after every region fell silent, the first to report again starts a fresh three intervals", () => {
    const cfg = config()
    const before = run(cfg, [...round(0, { eu: "up", us: "up", ap: "up" }), tick(600)])
    expect(before.effects).toEqual([])
    const resumed = run(cfg, [r("down", 1000, "eu"), r("up", 1010, "us"), r("up", 1015, "ap")], before.state)
    expect(resumed.effects).toEqual([])
    expect(iso(resumed.state.reporting_since)).toBe("2026-11-22T10:16:40.000Z")
    expect(advisories(cfg, resumed.state, 1015)).toEqual(["eu:down:1000"])
    // A result while others still report does not move it.
    expect(iso(run(cfg, [r("down", 1060, "eu")], resumed.state).state.reporting_since)).toBe("2026-11-22T10:16:40.000Z")
  })

  it("a late result from one region is judged when it was taken and again now", () => {
    const cfg = config({ region_policy: "all" })
    const reporting = run(cfg, [
      ...round(0, { eu: "up", us: "up", ap: "up" }),
      ...round(60, { eu: "down", us: "down" }),
      ...round(120, { eu: "down", us: "down" })
    ])
    // ap's agent delivers at 10:04 a down result it took at 10:01: all three were down then, so the incident opens
    // dated to then; by now ap has been silent since 10:04, and eu and us are still all of the reporting regions.
    const late = run(cfg, [r("down", 61, "ap", { nowSecs: 241 })], reporting.state)
    expect(tags(late.effects)).toEqual(["OpenIncident", "Notify:opened"])
    expect(iso(late.state.incident?.started_at)).toBe("2026-11-22T10:01:01.000Z")
    expect(late.state.incident?.regions_down).toEqual(["ap", "eu", "us"])
    expect(late.state.reporting_since).toEqual(reporting.state.reporting_since)
  })

  it("one region: silence is never ticked for and changes nothing", () => {
    const cfg = config({ regions: ["local"] })
    const open = run(cfg, [r("down", 0, "local")])
    expect(IncidentMachine.wakeAt(cfg, open.state, at(0))).toBeUndefined()
    const later = run(cfg, [tick(100_000)], open.state)
    expect(later.effects).toEqual([])
    expect(later.state.incident).toEqual(open.state.incident)
  })
})

describe("IncidentMachine across regions: regions_down", () => {
  it("lists the agreeing regions, and grows as more regions go down; a region coming back stays listed", () => {
    const cfg = config()
    const open = run(cfg, round(0, { eu: "down", us: "down", ap: "up" }))
    expect(open.state.incident?.regions_down).toEqual(["eu", "us"])
    const open_ = open.effects[0]
    expect(open_?._tag === "OpenIncident" && open_.incident.regions_down).toEqual(["eu", "us"])
    const third = run(cfg, [r("down", 60, "ap")], open.state)
    expect(tags(third.effects)).toEqual(["Update:impact"])
    expect(third.state.incident?.regions_down).toEqual(["ap", "eu", "us"])
    const back = run(cfg, [r("up", 120, "eu")], third.state)
    expect(tags(back.effects)).toEqual(["Update:impact"])
    expect(back.state.incident?.regions_down).toEqual(["ap", "eu", "us"])
  })

  it("a region joining without changing the impact is an update of its own", () => {
    const cfg = config({ region_policy: "any" })
    const open = run(cfg, round(0, { eu: "down", us: "up", ap: "up" }))
    const joined = run(cfg, [r("down", 60, "us")], open.state)
    expect(tags(joined.effects)).toEqual(["Update:regions"])
    const update = joined.effects[0]
    expect(update?._tag === "UpdateIncident" && update.incident.regions_down).toEqual(["eu", "us"])
    // Nothing new: nothing written.
    expect(run(cfg, [r("down", 120, "us")], joined.state).effects).toEqual([])
  })

  it("a region going down during the recovery wait joins too, and the close carries the list", () => {
    const cfg = config({ recovery_period_secs: 600 })
    const waiting = run(cfg, [
      ...round(0, { eu: "down", us: "down", ap: "up" }),
      ...round(60, { eu: "up", us: "up", ap: "up" })
    ])
    expect(tags(waiting.effects)).toEqual(["OpenIncident", "Notify:opened", "Update:recovering"])
    const joined = run(cfg, round(120, { eu: "up", us: "up", ap: "down" }), waiting.state)
    expect(tags(joined.effects)).toEqual(["Update:regions"])
    const closed = run(cfg, [...round(180, { eu: "up", us: "up", ap: "up" }), tick(660)], joined.state)
    expect(closeOf(closed.effects)?.incident.regions_down).toEqual(["ap", "eu", "us"])
  })
})

describe("IncidentMachine across regions: advisories", () => {
  it("appear while regions are down without meeting the policy, follow the latest status, and clear", () => {
    const cfg = config({ alert_confirmations: 2 })
    const once = run(cfg, round(0, { eu: "down", us: "up", ap: "up" }))
    // One failure does not confirm eu: no advisory yet.
    expect(advisories(cfg, once.state, 0)).toEqual([])
    const confirmed = run(cfg, round(60, { eu: "degraded", us: "up", ap: "up" }), once.state)
    expect(advisories(cfg, confirmed.state, 60)).toEqual(["eu:degraded:0"])
    const worse = run(cfg, round(120, { eu: "error", us: "up", ap: "up" }), confirmed.state)
    expect(advisories(cfg, worse.state, 120)).toEqual(["eu:error:0"])
    // Two passes confirm eu up again.
    const cleared = run(
      cfg,
      [...round(180, { eu: "up" }), ...round(240, { eu: "up", us: "up", ap: "up" })],
      worse.state
    )
    expect(advisories(cfg, cleared.state, 240)).toEqual([])
  })

  it("clear when the policy is met and an incident opens, and when the region falls silent", () => {
    const cfg = config()
    const one = run(cfg, round(0, { eu: "down", us: "up", ap: "up" }))
    expect(advisories(cfg, one.state, 0)).toEqual(["eu:down:0"])
    const two = run(cfg, round(60, { eu: "down", us: "down", ap: "up" }), one.state)
    expect(two.state.incident).not.toBeNull()
    expect(advisories(cfg, two.state, 60)).toEqual([])
    const silent = run(cfg, [...round(120, { us: "up", ap: "up" })], one.state)
    expect(advisories(cfg, silent.state, 179)).toEqual(["eu:down:0"])
    expect(advisories(cfg, silent.state, 180)).toEqual([])
  })

  it("none while a maintenance window holds an outage back", () => {
    const cfg = config()
    const held = run(cfg, [
      r("down", 0, "eu", { suppressed: true }),
      r("down", 0, "us", { suppressed: true }),
      r("up", 0, "ap", { suppressed: true })
    ])
    expect(held.state.held).toBe(true)
    expect(advisories(cfg, held.state, 0)).toEqual([])
  })
})

describe("IncidentMachine across regions: stored state", () => {
  it("regions_down and reporting_since survive the JSON form; a state stored before them reads as none", () => {
    const { state } = run(config(), round(0, { eu: "down", us: "down", ap: "up" }))
    const json = JSON.parse(JSON.stringify(Schema.encodeSync(IncidentMachine.State)(state)))
    expect(Schema.decodeUnknownSync(IncidentMachine.State)(json)).toEqual(state)
    const { reporting_since: _, incident, ...older } = json
    const { regions_down: __, ...olderIncident } = incident
    const decoded = Schema.decodeUnknownSync(IncidentMachine.State)({ ...older, incident: olderIncident })
    expect(decoded.reporting_since).toBeNull()
    expect(decoded.incident?.regions_down).toEqual([])
  })
})

// Laws -----------------------------------------------------------------------------------------------------------

describe("IncidentMachine across regions: laws", () => {
  const policyArb = FastCheck.constantFrom<RegionPolicy>(
    "any",
    "majority",
    "all",
    { count: 1 },
    { count: 2 },
    {
      count: 3
    }
  )
  const trackArb = FastCheck.option(
    FastCheck.record({
      down: FastCheck.boolean(),
      since: FastCheck.integer({ min: 0, max: 600 }),
      last: FastCheck.integer({ min: 0, max: 600 }),
      status: FastCheck.constantFrom<"degraded" | "down" | "error">("degraded", "down", "error")
    }),
    { nil: undefined }
  )

  it.prop(
    "the verdict is the policy applied to the reporting regions alone",
    {
      policy: policyArb,
      tracks: FastCheck.tuple(trackArb, trackArb, trackArb),
      extra: FastCheck.integer({ min: 0, max: 600 }),
      reportingSince: FastCheck.option(FastCheck.integer({ min: 0, max: 600 }), { nil: null })
    },
    ({ policy, tracks, extra, reportingSince }) => {
      // Judged after every result the tracks took.
      const judgedAt = Math.max(0, ...tracks.map((t) => t?.last ?? 0)) + extra
      const silence = { interval_secs: 60, reporting_since: reportingSince === null ? null : at(reportingSince) }
      const stored = Object.fromEntries(
        tracks.flatMap((t, i) =>
          t === undefined
            ? []
            : [
                [
                  regions[i] ?? "",
                  {
                    down: t.down,
                    since: t.down ? at(Math.min(t.since, t.last)) : null,
                    failing: t.down ? 1 : 0,
                    passing: t.down ? 0 : 1,
                    streak_since: at(Math.min(t.since, t.last)),
                    status: t.status,
                    last_at: at(t.last)
                  }
                ]
              ]
        )
      )
      const judged = RegionAgreement.judge(policy, regions, stored, at(judgedAt), silence)
      // The model: which regions report, how many of them are down, and the policy's threshold over them.
      const reporting = regions.filter((name) => {
        const last = stored[name]?.last_at
        const base = [last, silence.reporting_since].filter((t) => t != null) as Array<DateTime.Utc>
        if (base.length === 0) return false
        const newest = Math.max(...base.map((t) => DateTime.toEpochMillis(t)))
        return DateTime.toEpochMillis(at(judgedAt)) < newest + 180_000
      })
      const down = reporting.filter((name) => stored[name]?.down === true)
      const n = reporting.length
      const needed =
        typeof policy === "object"
          ? Math.min(policy.count, n)
          : policy === "any"
            ? 1
            : policy === "all"
              ? n
              : Math.floor(n / 2) + 1
      if (n === 0) {
        expect(judged.verdict).toBe("silent")
        return
      }
      expect(judged.verdict).toBe(down.length >= needed ? "down" : "up")
      expect(judged.verdict !== "silent" && judged.down).toEqual(down)
      // Agreement never dates from before the streaks that make it, nor after the moment judged.
      if (judged.verdict === "down") expect(secsOf(judged.since)).toBeLessThanOrEqual(judgedAt)
    }
  )

  const opArb = FastCheck.oneof(
    FastCheck.record({
      op: FastCheck.constant<"result">("result"),
      region: FastCheck.constantFrom(...regions),
      status: FastCheck.constantFrom<CheckStatus>("up", "down", "degraded", "error"),
      dt: FastCheck.integer({ min: 0, max: 200 })
    }),
    FastCheck.record({ op: FastCheck.constant<"tick">("tick"), dt: FastCheck.integer({ min: 0, max: 900 }) })
  )
  const cfgArb = FastCheck.record({
    alert_confirmations: FastCheck.integer({ min: 1, max: 2 }),
    interval: FastCheck.constantFrom(30, 60),
    notify_recovery: FastCheck.constant(true),
    renotify_interval_secs: FastCheck.constantFrom(0, 600),
    recovery_period_secs: FastCheck.constantFrom(0, 120),
    region_policy: policyArb,
    regions: FastCheck.constant(regions)
  })

  it.prop(
    "between two wakes the clock alone changes nothing; advisories only without an incident; regions_down only grows",
    {
      cfg: cfgArb,
      ops: FastCheck.array(opArb, { maxLength: 50 }),
      probe: FastCheck.double({ min: 0, max: 1, noNaN: true })
    },
    ({ cfg, ops, probe }) => {
      const machine = IncidentMachine.step(cfg)
      let state = IncidentMachine.initial
      let secs = 0
      for (const op of ops) {
        secs += op.dt
        const now = at(secs)
        const event: IncidentMachine.Event =
          op.op === "result"
            ? {
                _tag: "Result",
                region: op.region,
                status: op.status,
                error: op.status === "up" ? null : "failed",
                checked_at: now,
                suppressed: false
              }
            : { _tag: "Tick", suppressed: false }
        const next = machine(state, event, now)
        const before = state.incident
        state = next.state
        const after = state.incident
        if (before !== null && after !== null && before.number === after.number) {
          for (const region of before.regions_down) expect(after.regions_down).toContain(region)
        }
        if (after !== null) expect([...after.regions_down].sort()).toEqual(after.regions_down)

        const advised = IncidentMachine.advisories(cfg, state, now)
        if (advised.length > 0) expect(state.incident).toBeNull()
        for (const advisory of advised) {
          expect(state.regions[advisory.region]?.down).toBe(true)
          expect(
            RegionAgreement.reports(
              state.regions[advisory.region],
              {
                interval_secs: cfg.interval,
                reporting_since: state.reporting_since
              },
              now
            )
          ).toBe(true)
        }

        // Any moment before the next wake: a tick there changes nothing and the advisories read the same.
        const wake = IncidentMachine.wakeAt(cfg, state, now)
        if (wake !== undefined) expect(DateTime.greaterThan(wake, now)).toBe(true)
        const horizon = wake === undefined ? secs + 5000 : secsOf(wake)
        const probeSecs = secs + Math.floor((horizon - secs) * probe)
        if (probeSecs < horizon) {
          const quiet = machine(state, { _tag: "Tick", suppressed: false }, at(probeSecs))
          expect(quiet.effects).toEqual([])
          expect(IncidentMachine.advisories(cfg, state, at(probeSecs))).toEqual(advised)
        }
      }
    }
  )
})
