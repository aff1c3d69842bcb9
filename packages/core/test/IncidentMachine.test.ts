import { describe, expect, it } from "@effect/vitest"
import * as DateTime from "effect/DateTime"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import type { CheckStatus } from "../src/CheckResult.js"
import * as IncidentMachine from "../src/IncidentMachine.js"

const t0 = DateTime.unsafeMake("2026-11-22T10:00:00.000Z")
const at = (secs: number): DateTime.Utc => DateTime.add(t0, { seconds: secs })
const iso = (time: DateTime.Utc | null | undefined) => (time == null ? time : DateTime.formatIso(time))

const config = (over: Partial<IncidentMachine.AlertConfig> = {}): IncidentMachine.AlertConfig => ({
  alert_confirmations: 2,
  interval: 60,
  notify_recovery: true,
  renotify_interval_secs: 3600,
  recovery_period_secs: 0,
  region_policy: "majority",
  regions: ["local"],
  ...over
})

interface Timed {
  readonly event: IncidentMachine.Event
  readonly now: DateTime.Utc
}

const result = (
  status: CheckStatus,
  secs: number,
  options: { region?: string; error?: string | null; suppressed?: boolean } = {}
): Timed => ({
  event: {
    _tag: "Result",
    region: options.region ?? "local",
    status,
    error: options.error ?? (status === "up" || status === "degraded" ? null : "connection refused"),
    checked_at: at(secs),
    suppressed: options.suppressed ?? false
  },
  now: at(secs)
})
const tick = (secs: number, suppressed = false): Timed => ({ event: { _tag: "Tick", suppressed }, now: at(secs) })
const acknowledge = (incident: number, secs: number): Timed => ({
  event: { _tag: "Acknowledge", incident, by: "user-1" },
  now: at(secs)
})
const resolve = (incident: number, secs: number, suppressed = false): Timed => ({
  event: { _tag: "Resolve", incident, by: "user-1", suppressed },
  now: at(secs)
})

interface Run {
  readonly state: IncidentMachine.State
  readonly effects: ReadonlyArray<IncidentMachine.SideEffect>
  readonly steps: ReadonlyArray<IncidentMachine.Step>
}

const run = (cfg: IncidentMachine.AlertConfig, events: ReadonlyArray<Timed>, from = IncidentMachine.initial): Run => {
  const machine = IncidentMachine.step(cfg)
  let state = from
  const steps: Array<IncidentMachine.Step> = []
  for (const { event, now } of events) {
    const next = machine(state, event, now)
    steps.push(next)
    state = next.state
  }
  return { state, effects: steps.flatMap((s) => s.effects), steps }
}

const tags = (effects: ReadonlyArray<IncidentMachine.SideEffect>) =>
  effects.map((e) =>
    e._tag === "Notify" ? `Notify:${e.kind}` : e._tag === "UpdateIncident" ? `Update:${e.change}` : e._tag
  )

const notifications = (effects: ReadonlyArray<IncidentMachine.SideEffect>) =>
  effects.flatMap((e) => (e._tag === "Notify" ? [e] : []))

const downs = (n: number, fromSecs: number, every = 60) =>
  Array.from({ length: n }, (_, i) => result("down", fromSecs + i * every))
const ups = (n: number, fromSecs: number, every = 60) =>
  Array.from({ length: n }, (_, i) => result("up", fromSecs + i * every))

describe("IncidentMachine: opening", () => {
  it("two consecutive failures open an incident dated to the first; one notification", () => {
    const first = run(config(), [result("down", 0)])
    expect(first.effects).toEqual([])
    expect(first.state.incident).toBeNull()
    const { effects, state } = run(config(), [result("down", 60)], first.state)
    expect(tags(effects)).toEqual(["OpenIncident", "Notify:opened"])
    expect(state.incident?.number).toBe(1)
    expect(iso(state.incident?.started_at)).toBe("2026-11-22T10:00:00.000Z")
    expect(state.incident?.impact).toBe("major_outage")
    expect(state.seq).toBe(1)
    expect(effects.map((e) => e.seq)).toEqual([1, 1])
    expect(effects.map((e) => e.key)).toEqual(["incident/1/step/1/0", "incident/1/notify/opened"])
  })

  it("a pass between failures restarts the count", () => {
    const { state, effects } = run(config(), [result("down", 0), result("up", 60), result("down", 120)])
    expect(effects).toEqual([])
    expect(state.incident).toBeNull()
    expect(tags(run(config(), [result("down", 180)], state).effects)).toEqual(["OpenIncident", "Notify:opened"])
  })

  it("alert_confirmations 1 opens on the first failure", () => {
    expect(tags(run(config({ alert_confirmations: 1 }), [result("down", 0)]).effects)).toEqual([
      "OpenIncident",
      "Notify:opened"
    ])
  })

  it("a blocked result is neutral: it opens nothing and neither counts nor breaks a streak", () => {
    const blocked = (secs: number) => result("error", secs, { error: "blocked: 10.0.0.1 is an internal address" })
    const alone = run(config({ alert_confirmations: 1 }), [blocked(0), blocked(60), blocked(120)])
    expect(alone.effects).toEqual([])
    expect(alone.state.incident).toBeNull()
    const between = run(config(), [result("down", 0), blocked(60), result("down", 120)])
    expect(tags(between.effects)).toEqual(["OpenIncident", "Notify:opened"])
    expect(iso(between.state.incident?.started_at)).toBe("2026-11-22T10:00:00.000Z")
  })

  it("an error that is not blocked fails like down", () => {
    const { state } = run(config(), [
      result("error", 0, { error: "timeout" }),
      result("error", 60, { error: "tls: handshake failure" })
    ])
    expect(state.incident?.impact).toBe("major_outage")
  })

  it("degraded opens an incident of impact degraded; down raises it with an update", () => {
    const opened = run(config(), [result("degraded", 0), result("degraded", 60)])
    expect(tags(opened.effects)).toEqual(["OpenIncident", "Notify:opened"])
    expect(opened.state.incident?.impact).toBe("degraded")
    const raised = run(config(), [result("down", 120)], opened.state)
    expect(tags(raised.effects)).toEqual(["Update:impact"])
    expect(raised.state.incident?.impact).toBe("major_outage")
    expect(raised.state.incident?.number).toBe(1)
  })

  it("a result from a region the monitor does not probe from, or one already taken, changes nothing", () => {
    const first = run(config({ alert_confirmations: 1 }), [result("down", 0, { region: "eu-west" })])
    expect(first.effects).toEqual([])
    expect(first.state).toEqual(IncidentMachine.initial)
    const taken = run(config(), [result("down", 60)])
    const again = run(config(), [result("down", 60), result("down", 30)], taken.state)
    expect(again.effects).toEqual([])
    expect(again.state).toEqual(taken.state)
  })
})

describe("IncidentMachine: region policy", () => {
  const regions = ["eu", "us", "ap"]
  const r = (status: CheckStatus, secs: number, region: string) => result(status, secs, { region })

  it("majority of three needs two regions confirmed down; the third raises the impact to major", () => {
    const cfg = config({ alert_confirmations: 1, regions })
    const one = run(cfg, [r("down", 0, "eu")])
    expect(one.effects).toEqual([])
    const two = run(cfg, [r("up", 5, "us"), r("down", 10, "ap")], one.state)
    expect(tags(two.effects)).toEqual(["OpenIncident", "Notify:opened"])
    expect(two.state.incident?.impact).toBe("partial_outage")
    // Agreement began when the second region's failing streak did.
    expect(iso(two.state.incident?.started_at)).toBe("2026-11-22T10:00:10.000Z")
    const three = run(cfg, [r("down", 20, "us")], two.state)
    expect(tags(three.effects)).toEqual(["Update:impact"])
    expect(three.state.incident?.impact).toBe("major_outage")
  })

  it("each region confirms its own failures: failures spread over regions do not add up", () => {
    const cfg = config({ alert_confirmations: 2, regions, region_policy: "any" })
    const spread = run(cfg, [r("down", 0, "eu"), r("down", 1, "us"), r("down", 2, "ap")])
    expect(spread.effects).toEqual([])
    expect(tags(run(cfg, [r("down", 60, "us")], spread.state).effects)).toEqual(["OpenIncident", "Notify:opened"])
  })

  it("any opens on one region; all needs every region; a count needs that many", () => {
    const any = run(config({ alert_confirmations: 1, regions, region_policy: "any" }), [r("down", 0, "ap")])
    expect(tags(any.effects)).toEqual(["OpenIncident", "Notify:opened"])
    const all = config({ alert_confirmations: 1, regions, region_policy: "all" })
    expect(run(all, [r("down", 0, "eu"), r("down", 1, "us")]).effects).toEqual([])
    expect(tags(run(all, [r("down", 0, "eu"), r("down", 1, "us"), r("down", 2, "ap")]).effects)).toEqual([
      "OpenIncident",
      "Notify:opened"
    ])
    const count = config({ alert_confirmations: 1, regions, region_policy: { count: 2 } })
    expect(run(count, [r("down", 0, "eu")]).effects).toEqual([])
    expect(run(count, [r("down", 0, "eu"), r("down", 1, "ap")]).state.incident?.impact).toBe("partial_outage")
  })

  it("recovery begins when agreement ends, dated to the first pass of the region that ended it", () => {
    const cfg = config({ alert_confirmations: 2, regions })
    const open = run(cfg, [r("down", 0, "eu"), r("down", 0, "us"), r("down", 60, "eu"), r("down", 60, "us")])
    expect(open.state.incident).not.toBeNull()
    const closed = run(cfg, [r("up", 120, "eu"), r("up", 180, "eu")], open.state)
    expect(tags(closed.effects)).toEqual(["CloseIncident", "Notify:recovered"])
    const close = closed.effects[0]
    expect(close?._tag === "CloseIncident" && iso(close.ended_at)).toBe("2026-11-22T10:02:00.000Z")
  })
})

describe("IncidentMachine: recovery", () => {
  const opened = run(config(), downs(2, 0)).state

  it("recovery_period_secs 0 closes when passes confirm, dated to the first pass", () => {
    const first = run(config(), [result("up", 120)], opened)
    expect(first.effects).toEqual([])
    const { effects, state } = run(config(), [result("up", 180)], first.state)
    expect(tags(effects)).toEqual(["CloseIncident", "Notify:recovered"])
    const close = effects[0]
    expect(close?._tag === "CloseIncident" && [iso(close.ended_at), close.reason, close.resolved_by]).toEqual([
      "2026-11-22T10:02:00.000Z",
      "recovered",
      null
    ])
    expect(state.incident).toBeNull()
    expect(IncidentMachine.wakeAt(config(), state, at(180))).toBeUndefined()
  })

  it("notify_recovery false closes silently", () => {
    const { effects } = run(config({ notify_recovery: false }), ups(2, 120), opened)
    expect(tags(effects)).toEqual(["CloseIncident"])
  })

  it("with a recovery period the incident waits with recovering_since, then closes dated to it", () => {
    const cfg = config({ recovery_period_secs: 180 })
    const waiting = run(cfg, ups(2, 120), opened)
    expect(tags(waiting.effects)).toEqual(["Update:recovering"])
    expect(iso(waiting.state.incident?.recovering_since)).toBe("2026-11-22T10:02:00.000Z")
    expect(waiting.state.incident?.next_reminder_at).toBeNull()
    expect(iso(IncidentMachine.wakeAt(cfg, waiting.state, at(180)))).toBe("2026-11-22T10:05:00.000Z")
    expect(run(cfg, [tick(299)], waiting.state).effects).toEqual([])
    const closed = run(cfg, [tick(300)], waiting.state)
    expect(tags(closed.effects)).toEqual(["CloseIncident", "Notify:recovered"])
    const close = closed.effects[0]
    expect(close?._tag === "CloseIncident" && iso(close.ended_at)).toBe("2026-11-22T10:02:00.000Z")
  })

  it("a result after the wait ran out closes the incident first", () => {
    const cfg = config({ recovery_period_secs: 60 })
    const waiting = run(cfg, ups(2, 120, 10), opened)
    expect(tags(waiting.effects)).toEqual(["Update:recovering"])
    expect(tags(run(cfg, [result("up", 200)], waiting.state).effects)).toEqual(["CloseIncident", "Notify:recovered"])
  })

  it("a failure that confirms inside the wait resumes the same incident and lists the recovered stretch", () => {
    const cfg = config({ recovery_period_secs: 600 })
    const waiting = run(cfg, ups(2, 120), opened)
    const single = run(cfg, [result("down", 240)], waiting.state)
    expect(single.effects).toEqual([])
    expect(single.state.incident?.recovering_since).not.toBeNull()
    const resumed = run(cfg, [result("down", 300)], single.state)
    expect(tags(resumed.effects)).toEqual(["Update:resumed"])
    const incident = resumed.state.incident
    expect(incident?.number).toBe(1)
    expect(incident?.recovering_since).toBeNull()
    expect(incident?.recovered.map((s) => [iso(s.from), iso(s.until)])).toEqual([
      ["2026-11-22T10:02:00.000Z", "2026-11-22T10:04:00.000Z"]
    ])
    // Paging resumes: the next reminder is counted from the resumption.
    expect(iso(incident?.next_reminder_at)).toBe("2026-11-22T11:05:00.000Z")
    // The final recovery dates the end.
    const final = run(cfg, [...ups(2, 360), tick(960)], resumed.state)
    expect(tags(final.effects)).toEqual(["Update:recovering", "CloseIncident", "Notify:recovered"])
    const close = final.effects[1]
    expect(close?._tag === "CloseIncident" && iso(close.ended_at)).toBe("2026-11-22T10:06:00.000Z")
    expect(close?._tag === "CloseIncident" && close.incident.recovered.length).toBe(1)
  })

  it("paging pauses while recovering: a reminder due during the wait is not sent", () => {
    const cfg = config({ recovery_period_secs: 1800, renotify_interval_secs: 600 })
    const waiting = run(cfg, ups(2, 120), run(cfg, downs(2, 0)).state)
    expect(run(cfg, [tick(660), tick(1200)], waiting.state).effects).toEqual([])
  })

  it("the next incident gets the next number", () => {
    const closed = run(config(), ups(2, 120), opened)
    const second = run(config(), downs(2, 300), closed.state)
    expect(second.state.incident?.number).toBe(2)
    expect(second.effects.map((e) => e.key)).toEqual(["incident/2/step/3/0", "incident/2/notify/opened"])
  })
})

describe("IncidentMachine: reminders", () => {
  it("the first reminder comes one interval after the open, then the gap doubles up to a day", () => {
    const cfg = config({ renotify_interval_secs: 3600 })
    let state = run(cfg, downs(2, 0)).state
    const sentAt: Array<number> = []
    for (let i = 0; i < 8; i++) {
      const due = IncidentMachine.wakeAt(cfg, state, at(60))
      if (due === undefined) throw new Error("no reminder scheduled")
      const secs = (DateTime.toEpochMillis(due) - DateTime.toEpochMillis(t0)) / 1000
      const next = run(cfg, [tick(secs)], state)
      expect(notifications(next.effects).map((n) => [n.kind, n.reminder, n.key])).toEqual([
        ["reminder", i + 1, `incident/1/notify/reminder/${i + 1}`]
      ])
      sentAt.push(secs)
      state = next.state
    }
    const opened = 60
    const gaps = sentAt.map((secs, i) => secs - (i === 0 ? opened : (sentAt[i - 1] ?? 0)))
    expect(gaps).toEqual([3600, 7200, 14400, 28800, 57600, 86400, 86400, 86400])
  })

  it("an interval over a day keeps its own cadence", () => {
    const cfg = config({ renotify_interval_secs: 100_000 })
    const state = run(cfg, downs(2, 0)).state
    const first = run(cfg, [tick(60 + 100_000)], state)
    expect(notifications(first.effects).length).toBe(1)
    expect(iso(first.state.incident?.next_reminder_at)).toBe(iso(at(60 + 200_000)))
  })

  it("0 sends no reminders", () => {
    const cfg = config({ renotify_interval_secs: 0 })
    const state = run(cfg, downs(2, 0)).state
    expect(IncidentMachine.wakeAt(cfg, state, at(60))).toBeUndefined()
    expect(run(cfg, [tick(86_400 * 3)], state).effects).toEqual([])
  })

  it("after a long pause one reminder goes out and the next is counted from then", () => {
    const cfg = config({ renotify_interval_secs: 600 })
    const state = run(cfg, downs(2, 0)).state
    const late = run(cfg, [tick(60 + 10_000)], state)
    expect(notifications(late.effects).map((n) => n.reminder)).toEqual([1])
    expect(iso(late.state.incident?.next_reminder_at)).toBe(iso(at(60 + 10_000 + 1200)))
  })

  it("acknowledging stops reminders; acknowledging again, or another incident, changes nothing", () => {
    const cfg = config({ renotify_interval_secs: 600 })
    const state = run(cfg, downs(2, 0)).state
    const acked = run(cfg, [acknowledge(1, 300)], state)
    expect(tags(acked.effects)).toEqual(["Update:acknowledged"])
    expect(iso(acked.state.incident?.acknowledged_at)).toBe(iso(at(300)))
    expect(acked.state.incident?.acknowledged_by).toBe("user-1")
    expect(IncidentMachine.wakeAt(cfg, acked.state, at(300))).toBeUndefined()
    expect(run(cfg, [tick(660), tick(5000), ...downs(3, 6000)], acked.state).effects).toEqual([])
    expect(run(cfg, [acknowledge(1, 400)], acked.state).effects).toEqual([])
    expect(run(cfg, [acknowledge(2, 400)], state).effects).toEqual([])
  })

  it("an acknowledged incident that resumes after a recovery stays quiet", () => {
    const cfg = config({ renotify_interval_secs: 600, recovery_period_secs: 900 })
    const acked = run(cfg, [...downs(2, 0), acknowledge(1, 100)]).state
    const resumed = run(cfg, [...ups(2, 120), ...downs(2, 240)], acked)
    expect(tags(resumed.effects)).toEqual(["Update:recovering", "Update:resumed"])
    expect(resumed.state.incident?.next_reminder_at).toBeNull()
    expect(notifications(run(cfg, [tick(5000), tick(50_000)], resumed.state).effects)).toEqual([])
  })

  it("a PATCH turning reminders on schedules the first one from the next step", () => {
    const state = run(config({ renotify_interval_secs: 0 }), downs(2, 0)).state
    const on = config({ renotify_interval_secs: 600 })
    const next = run(on, [tick(1000)], state)
    expect(next.effects).toEqual([])
    expect(iso(next.state.incident?.next_reminder_at)).toBe(iso(at(1600)))
  })

  it("a PATCH turning reminders off takes effect at the next step", () => {
    const state = run(config({ renotify_interval_secs: 600 }), downs(2, 0)).state
    const off = config({ renotify_interval_secs: 0 })
    const next = run(off, [result("down", 120)], state)
    expect(next.state.incident?.next_reminder_at).toBeNull()
    expect(run(off, [tick(5000)], next.state).effects).toEqual([])
  })
})

describe("IncidentMachine: resolve", () => {
  it("resolving closes now, announces it, and failures must confirm afresh", () => {
    const cfg = config({ renotify_interval_secs: 600 })
    const state = run(cfg, downs(3, 0)).state
    const resolved = run(cfg, [resolve(1, 200)], state)
    expect(tags(resolved.effects)).toEqual(["CloseIncident", "Notify:resolved"])
    const close = resolved.effects[0]
    expect(close?._tag === "CloseIncident" && [iso(close.ended_at), close.reason, close.resolved_by]).toEqual([
      "2026-11-22T10:03:20.000Z",
      "resolved",
      "user-1"
    ])
    expect(resolved.state.incident).toBeNull()
    expect(run(cfg, [tick(5000)], resolved.state).effects).toEqual([])
    expect(run(cfg, [resolve(1, 300)], resolved.state).effects).toEqual([])
    // The failing streak was reset: one more failure opens nothing, two do.
    const one = run(cfg, [result("down", 240)], resolved.state)
    expect(one.effects).toEqual([])
    expect(one.state.incident).toBeNull()
    expect(run(cfg, [result("down", 300)], one.state).state.incident?.number).toBe(2)
    // A result from before the resolution is still recognised as taken.
    expect(run(cfg, [result("down", 120)], resolved.state).state).toEqual(resolved.state)
  })

  it("resolving while recovering dates the end to when the recovery began", () => {
    const cfg = config({ recovery_period_secs: 600 })
    const waiting = run(cfg, [...downs(2, 0), ...ups(2, 120)]).state
    const close = run(cfg, [resolve(1, 300)], waiting).effects[0]
    expect(close?._tag === "CloseIncident" && iso(close.ended_at)).toBe("2026-11-22T10:02:00.000Z")
  })

  it("notify_recovery false resolves silently", () => {
    const cfg = config({ notify_recovery: false })
    expect(tags(run(cfg, [...downs(2, 0), resolve(1, 200)]).effects)).toEqual([
      "OpenIncident",
      "Notify:opened",
      "CloseIncident"
    ])
  })
})

describe("IncidentMachine: maintenance", () => {
  const suppressed = (status: CheckStatus, secs: number) => result(status, secs, { suppressed: true })

  it("an outage confirmed under suppression opens nothing until the window ends, then counts from there", () => {
    const held = run(config(), [suppressed("down", 0), suppressed("down", 60), suppressed("down", 120)])
    expect(held.effects).toEqual([])
    expect(held.state.held).toBe(true)
    const after = run(config(), [result("down", 180)], held.state)
    expect(tags(after.effects)).toEqual(["OpenIncident", "Notify:opened"])
    expect(iso(after.state.incident?.started_at)).toBe(iso(at(180)))
  })

  it("a tick after the window opens a held outage at once", () => {
    const held = run(config(), [suppressed("down", 0), suppressed("down", 60)])
    expect(tags(run(config(), [tick(90)], held.state).effects)).toEqual(["OpenIncident", "Notify:opened"])
  })

  it("an outage that recovers inside the window never opens", () => {
    const { effects, state } = run(config(), [
      suppressed("down", 0),
      suppressed("down", 60),
      suppressed("up", 120),
      suppressed("up", 180),
      result("up", 240)
    ])
    expect(effects).toEqual([])
    expect(state.held).toBe(false)
  })

  it("an open incident keeps its course but notifies nobody: reminders are skipped, recovery is silent", () => {
    const cfg = config({ renotify_interval_secs: 600 })
    const open = run(cfg, downs(2, 0)).state
    const skipped = run(cfg, [tick(660, true)], open)
    expect(skipped.effects).toEqual([])
    expect(skipped.state.incident?.reminders_sent).toBe(1)
    const next = run(cfg, [tick(660 + 1200)], skipped.state)
    expect(notifications(next.effects).map((n) => n.reminder)).toEqual([2])
    const closed = run(cfg, [suppressed("up", 2000), suppressed("up", 2060)], next.state)
    expect(tags(closed.effects)).toEqual(["CloseIncident"])
  })
})

describe("IncidentMachine: state", () => {
  it("the state and the effects survive their JSON form (what the writer stores)", () => {
    const cfg = config({ recovery_period_secs: 600 })
    const { state, effects } = run(cfg, [...downs(2, 0), ...ups(2, 120), ...downs(2, 300)])
    const json = JSON.parse(JSON.stringify(Schema.encodeSync(IncidentMachine.State)(state)))
    expect(Schema.decodeUnknownSync(IncidentMachine.State)(json)).toEqual(state)
    const encoded = JSON.parse(JSON.stringify(Schema.encodeSync(Schema.Array(IncidentMachine.SideEffect))(effects)))
    expect(Schema.decodeUnknownSync(Schema.Array(IncidentMachine.SideEffect))(encoded)).toEqual(effects)
  })
})

// Laws -----------------------------------------------------------------------------------------------------------

const secsOf = (time: DateTime.Utc) => (DateTime.toEpochMillis(time) - DateTime.toEpochMillis(t0)) / 1000

describe("IncidentMachine laws", () => {
  const statusArb = FastCheck.constantFrom<"up" | "down" | "blocked">("up", "down", "blocked")

  it.prop(
    "an incident opens after exactly N consecutive failures (blocked results skipped) and never before",
    { n: FastCheck.integer({ min: 1, max: 6 }), statuses: FastCheck.array(statusArb, { maxLength: 40 }) },
    ({ n, statuses }) => {
      const events = statuses.map((s, i) =>
        s === "blocked" ? result("error", i * 60, { error: "blocked: internal" }) : result(s, i * 60)
      )
      const { steps } = run(config({ alert_confirmations: n }), events)
      const opensAt = steps.findIndex((s) => s.effects.some((e) => e._tag === "OpenIncident"))
      // The model: count failures since the last pass, ignoring blocked results.
      let streak = 0
      let expected = -1
      statuses.forEach((s, i) => {
        if (expected !== -1) return
        if (s === "up") streak = 0
        if (s === "down") streak++
        if (streak === n) expected = i
      })
      expect(opensAt).toBe(expected)
    }
  )

  it.prop(
    "N passes plus the recovery period close the incident, not a second sooner, dated to the first pass",
    {
      n: FastCheck.integer({ min: 1, max: 5 }),
      period: FastCheck.integer({ min: 0, max: 1800 }),
      every: FastCheck.integer({ min: 10, max: 300 })
    },
    ({ n, period, every }) => {
      const cfg = config({ alert_confirmations: n, recovery_period_secs: period })
      const open = run(cfg, downs(n, 0, every))
      expect(open.state.incident).not.toBeNull()
      const firstPass = n * every
      const lastPass = firstPass + (n - 1) * every
      const passed = run(cfg, ups(n, firstPass, every), open.state)
      const closedByPasses = passed.state.incident === null
      // The wait counts from the first pass, so a short period may have run out by the N-th pass.
      expect(closedByPasses).toBe(firstPass + period <= lastPass)
      const end = firstPass + period
      const done = closedByPasses ? passed : run(cfg, [tick(end)], passed.state)
      if (!closedByPasses && period > 0) expect(run(cfg, [tick(end - 1)], passed.state).state.incident).not.toBeNull()
      expect(done.state.incident).toBeNull()
      const close = done.effects.find((e) => e._tag === "CloseIncident")
      expect(close?._tag === "CloseIncident" && secsOf(close.ended_at)).toBe(firstPass)
    }
  )

  it.prop(
    "any confirmed failure during recovery resumes the incident and adds a recovered stretch; the end is when the final recovery began",
    {
      n: FastCheck.integer({ min: 1, max: 4 }),
      cycles: FastCheck.integer({ min: 0, max: 4 }),
      period: FastCheck.integer({ min: 1, max: 1300 })
    },
    ({ n, cycles, period }) => {
      // Checks every 60 s, and a wait longer than N passes and N failures take, so failures confirm inside it.
      const cfg = config({ alert_confirmations: n, recovery_period_secs: period + 2 * n * 60 })
      let secs = 0
      let state = run(cfg, downs(n, secs)).state
      secs += n * 60
      let recoveryBegan = -1
      for (let c = 0; c < cycles; c++) {
        const recovering = run(cfg, ups(n, secs), state)
        expect(recovering.state.incident?.recovering_since).not.toBeNull()
        recoveryBegan = secs
        secs += n * 60
        const resumed = run(cfg, downs(n, secs), recovering.state)
        expect(tags(resumed.effects)).toEqual(["Update:resumed"])
        expect(resumed.state.incident?.number).toBe(1)
        expect(resumed.state.incident?.recovered.length).toBe(c + 1)
        const stretch = resumed.state.incident?.recovered[c]
        expect(stretch && [secsOf(stretch.from), secsOf(stretch.until)]).toEqual([recoveryBegan, secs])
        state = resumed.state
        secs += n * 60
      }
      const final = run(cfg, [...ups(n, secs), tick(secs + 10_000)], state)
      const close = final.effects.find((e) => e._tag === "CloseIncident")
      expect(close?._tag === "CloseIncident" && secsOf(close.ended_at)).toBe(secs)
      expect(close?._tag === "CloseIncident" && close.incident.number).toBe(1)
    }
  )

  it.prop(
    "reminders come at the gaps of the law until acknowledged or resolved",
    {
      interval: FastCheck.oneof(
        FastCheck.integer({ min: 60, max: 90_000 }),
        FastCheck.integer({ min: 86_401, max: 400_000 })
      ),
      reminders: FastCheck.integer({ min: 0, max: 12 }),
      stop: FastCheck.constantFrom<"acknowledge" | "resolve">("acknowledge", "resolve")
    },
    ({ interval, reminders, stop }) => {
      const cfg = config({ renotify_interval_secs: interval })
      let state = run(cfg, downs(2, 0)).state
      let last = 60
      for (let i = 0; i < reminders; i++) {
        const due = IncidentMachine.wakeAt(cfg, state, at(last))
        expect(due).toBeDefined()
        if (due === undefined) return
        const secs = secsOf(due)
        const expectedGap = interval > 86_400 ? interval : Math.min(86_400, interval * 2 ** i)
        expect(secs - last).toBe(expectedGap)
        const next = run(cfg, [tick(secs)], state)
        expect(notifications(next.effects).map((n) => n.reminder)).toEqual([i + 1])
        state = next.state
        last = secs
      }
      const stopped = run(cfg, [stop === "acknowledge" ? acknowledge(1, last + 1) : resolve(1, last + 1)], state)
      expect(IncidentMachine.wakeAt(cfg, stopped.state, at(last + 1))).toBeUndefined()
      const later = run(cfg, [tick(last + 400_000), tick(last + 4_000_000)], stopped.state)
      expect(notifications(later.effects)).toEqual([])
    }
  )

  const opArb = FastCheck.oneof(
    FastCheck.record({
      op: FastCheck.constant<"result">("result"),
      region: FastCheck.constantFrom("eu", "us", "ap"),
      status: FastCheck.constantFrom<CheckStatus>("up", "down", "degraded", "error"),
      blocked: FastCheck.boolean(),
      suppressed: FastCheck.boolean(),
      dt: FastCheck.integer({ min: 0, max: 400 })
    }),
    FastCheck.record({
      op: FastCheck.constant<"tick">("tick"),
      suppressed: FastCheck.boolean(),
      dt: FastCheck.integer({ min: 0, max: 5000 })
    }),
    FastCheck.record({
      op: FastCheck.constantFrom<"acknowledge" | "resolve">("acknowledge", "resolve"),
      dt: FastCheck.integer({ min: 0, max: 100 })
    })
  )
  const cfgArb = FastCheck.record({
    alert_confirmations: FastCheck.integer({ min: 1, max: 3 }),
    interval: FastCheck.constantFrom(30, 60, 300),
    notify_recovery: FastCheck.boolean(),
    renotify_interval_secs: FastCheck.constantFrom(0, 60, 600, 100_000),
    recovery_period_secs: FastCheck.constantFrom(0, 120, 900),
    region_policy: FastCheck.constantFrom<IncidentMachine.AlertConfig["region_policy"]>("any", "majority", "all", {
      count: 2
    }),
    regions: FastCheck.constant(["eu", "us", "ap"])
  })

  it.prop(
    "one effect per transition: folding the same event again yields nothing, and notification keys never repeat",
    { cfg: cfgArb, ops: FastCheck.array(opArb, { maxLength: 60 }) },
    ({ cfg, ops }) => {
      const machine = IncidentMachine.step(cfg)
      let state = IncidentMachine.initial
      let secs = 0
      const keys = new Set<string>()
      const notified: Array<string> = []
      for (const op of ops) {
        secs += op.dt
        const now = at(secs)
        const number = state.incident?.number ?? state.opened
        const event: IncidentMachine.Event =
          op.op === "result"
            ? {
                _tag: "Result",
                region: op.region,
                status: op.status,
                error: op.status === "error" && op.blocked ? "blocked: internal" : op.status === "up" ? null : "failed",
                checked_at: now,
                suppressed: op.suppressed
              }
            : op.op === "tick"
              ? { _tag: "Tick", suppressed: op.suppressed }
              : op.op === "acknowledge"
                ? { _tag: "Acknowledge", incident: number, by: "u" }
                : { _tag: "Resolve", incident: number, by: "u", suppressed: false }
        const once = machine(state, event, now)
        const twice = machine(once.state, event, now)
        expect(twice.effects).toEqual([])
        expect(twice.state).toEqual(once.state)
        for (const effect of once.effects) {
          expect(keys.has(effect.key)).toBe(false)
          keys.add(effect.key)
          expect(effect.seq).toBe(once.state.seq)
          if (effect._tag === "Notify") notified.push(`${effect.incident}:${effect.kind}`)
        }
        if (once.effects.length > 0) expect(once.state.seq).toBe(state.seq + 1)
        else expect(once.state.seq).toBe(state.seq)
        // An incident never closes twice nor opens twice.
        const opens = once.effects.filter((e) => e._tag === "OpenIncident").length
        const closes = once.effects.filter((e) => e._tag === "CloseIncident").length
        expect(opens).toBeLessThanOrEqual(1)
        expect(closes).toBeLessThanOrEqual(1)
        state = once.state
      }
      // One opened and at most one recovered or resolved notification per incident.
      for (const label of ["opened", "recovered", "resolved"]) {
        const seen = notified.filter((n) => n.endsWith(`:${label}`))
        expect(new Set(seen).size).toBe(seen.length)
      }
    }
  )
})
