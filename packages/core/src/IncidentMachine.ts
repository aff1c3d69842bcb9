/**
 * The incident engine of one monitor (service-api.md "States and transitions: Incident", "Alert config", "Events"):
 * a pure function of `(state, event, now) -> (state, effects)`. The incident writer keeps the state per target,
 * folds every check result, clock tick, acknowledgement and resolution into it, and writes the state and the
 * effects in one transaction; the effects (incident rows, notifications) are then carried out through the outbox.
 *
 * - Each region confirms its own verdict after `alert_confirmations` consecutive results (`Confirmation`); the
 *   region policy weighs the confirmed verdicts of the regions that are reporting (`RegionAgreement`: a region
 *   with no result in the last three intervals abstains, and with none reporting nothing changes). Agreement opens
 *   an incident, the end of agreement starts the recovery: it closes at once with `recovery_period_secs` 0,
 *   otherwise after that wait, while `recovering_since` is set and paging pauses. Agreement again inside the wait
 *   resumes the same incident and lists the recovered stretch. The end is dated to when the final recovery began.
 * - Silence is judged from the clock alone: the writer ticks a monitor of several regions when the next of them
 *   would fall silent ({@link wakeAt}), so a region going quiet can end or bring agreement without another result.
 * - The incident lists the regions that were down (`regions_down`): the ones that agreed when it opened, and every
 *   reporting region confirmed down while it stays open (recovery waits included). The list only grows.
 * - While regions are confirmed down without meeting the policy and no incident is open, the monitor carries
 *   per-region advisories ({@link advisories}).
 * - Reminders follow `ReminderSchedule` until the incident is acknowledged, resolved or recovering.
 * - While a maintenance window with alert suppression covers the monitor (the event says so), no notification
 *   goes out and no incident opens; an outage still confirmed when the window ends opens then.
 * - Exactly once: every effect carries a key that depends only on the state and the event, so two workers folding
 *   the same event write the same keys (the outbox keeps one), and an event folded twice changes nothing the
 *   second time (results older than a region's newest are ignored; the rest is judged from the state).
 *
 * @since 0.1.0
 */
import * as DateTime from "effect/DateTime"
import * as Schema from "effect/Schema"
import { CheckStatus } from "./CheckResult.js"
import * as Confirmation from "./Confirmation.js"
import { Impact, RecoveredStretch } from "./Incident.js"
import type { RegionAdvisory } from "./RegionAdvisory.js"
import * as RegionAgreement from "./RegionAgreement.js"
import * as ReminderSchedule from "./ReminderSchedule.js"
import type { ResolvedTarget } from "./TargetRules.js"

/**
 * The target's settings the engine reads, as stored (every default filled).
 *
 * @since 0.1.0
 * @category models
 */
export type AlertConfig = Pick<
  ResolvedTarget,
  | "alert_confirmations"
  | "interval"
  | "notify_recovery"
  | "renotify_interval_secs"
  | "recovery_period_secs"
  | "region_policy"
  | "regions"
>

/**
 * The ongoing incident. `number` counts the monitor's incidents from 1 (the incident writer maps it to the row's
 * id). `next_reminder_at` is null while no reminder is due: reminders off, acknowledged, or recovering.
 * `regions_down` lists, sorted, the regions that were confirmed down while it was open (absent from a state stored
 * before regions were recorded: read as none).
 *
 * @since 0.1.0
 * @category models
 */
export const Ongoing = Schema.Struct({
  number: Schema.Int,
  started_at: Schema.DateTimeUtc,
  impact: Impact,
  acknowledged_at: Schema.NullOr(Schema.DateTimeUtc),
  acknowledged_by: Schema.NullOr(Schema.String),
  recovering_since: Schema.NullOr(Schema.DateTimeUtc),
  recovered: Schema.Array(RecoveredStretch),
  reminders_sent: Schema.Int,
  next_reminder_at: Schema.NullOr(Schema.DateTimeUtc),
  regions_down: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] })
}).annotations({ identifier: "OngoingIncident" })

/**
 * @since 0.1.0
 * @category models
 */
export type Ongoing = typeof Ongoing.Type

/**
 * The engine's state for one monitor. `seq` counts the steps that produced effects and stamps them; `opened`
 * counts incidents opened; `held` is true while an outage is confirmed but a maintenance window keeps it from
 * opening. `reporting_since` is when the monitor's regions began reporting: its first result, or the first after
 * every region had fallen silent; silence is counted from it as well as from each region's newest result
 * (`RegionAgreement.Silence`). Null in a state stored before the silence rule.
 *
 * @since 0.1.0
 * @category models
 */
export const State = Schema.Struct({
  seq: Schema.Int,
  opened: Schema.Int,
  held: Schema.Boolean,
  regions: Schema.Record({ key: Schema.String, value: Confirmation.Track }),
  incident: Schema.NullOr(Ongoing),
  reporting_since: Schema.optionalWith(Schema.NullOr(Schema.DateTimeUtc), { default: () => null })
}).annotations({ identifier: "IncidentEngineState" })

/**
 * @since 0.1.0
 * @category models
 */
export type State = typeof State.Type

/**
 * A monitor that has never reported.
 *
 * @since 0.1.0
 * @category constructors
 */
export const initial: State = { seq: 0, opened: 0, held: false, regions: {}, incident: null, reporting_since: null }

/**
 * A check result from one region. `suppressed`: a running maintenance window with alert suppression covers the
 * monitor now (`MaintenanceWindow.suppresses`).
 *
 * @since 0.1.0
 * @category events
 */
export const Result = Schema.TaggedStruct("Result", {
  region: Schema.String,
  status: CheckStatus,
  error: Schema.NullOr(Schema.String),
  checked_at: Schema.DateTimeUtc,
  suppressed: Schema.Boolean,
  /**
   * The monitored job reported this itself (a heartbeat's `/fail` or exit code, a run past `max_runtime`, a
   * person setting a manual monitor): it confirms at once instead of after `alert_confirmations` results.
   */
  at_once: Schema.optional(Schema.Boolean)
})

/**
 * The clock: due reminders, the end of a recovery wait, and regions falling silent. The writer ticks a monitor at
 * {@link wakeAt}.
 *
 * @since 0.1.0
 * @category events
 */
export const Tick = Schema.TaggedStruct("Tick", { suppressed: Schema.Boolean })

/**
 * A person acknowledges incident `incident` (its number): reminders stop.
 *
 * @since 0.1.0
 * @category events
 */
export const Acknowledge = Schema.TaggedStruct("Acknowledge", { incident: Schema.Int, by: Schema.String })

/**
 * A person resolves incident `incident`: it closes now, and the monitor must confirm failures afresh before
 * another opens.
 *
 * @since 0.1.0
 * @category events
 */
export const Resolve = Schema.TaggedStruct("Resolve", {
  incident: Schema.Int,
  by: Schema.String,
  suppressed: Schema.Boolean
})

/**
 * @since 0.1.0
 * @category events
 */
export const Event = Schema.Union(Result, Tick, Acknowledge, Resolve)

/**
 * @since 0.1.0
 * @category events
 */
export type Event = typeof Event.Type

const effectFields = { key: Schema.String, seq: Schema.Int }

/**
 * Write a new incident row.
 *
 * @since 0.1.0
 * @category effects
 */
export const OpenIncident = Schema.TaggedStruct("OpenIncident", { ...effectFields, incident: Ongoing })

/**
 * Write the incident row's new state. `change` says what moved, for the system note the timeline shows
 * (`regions`: more regions joined `regions_down`, and nothing else moved).
 *
 * @since 0.1.0
 * @category effects
 */
export const UpdateIncident = Schema.TaggedStruct("UpdateIncident", {
  ...effectFields,
  incident: Ongoing,
  change: Schema.Literal("impact", "acknowledged", "recovering", "resumed", "regions")
})

/**
 * Close the incident row: `ended_at` is when the final recovery began (or when a person resolved it).
 *
 * @since 0.1.0
 * @category effects
 */
export const CloseIncident = Schema.TaggedStruct("CloseIncident", {
  ...effectFields,
  incident: Ongoing,
  ended_at: Schema.DateTimeUtc,
  reason: Schema.Literal("recovered", "resolved"),
  resolved_by: Schema.NullOr(Schema.String)
})

/**
 * Notify the monitor's channels. `reminder` is the reminder's ordinal (1, 2, ...), 0 for the other kinds.
 *
 * @since 0.1.0
 * @category effects
 */
export const Notify = Schema.TaggedStruct("Notify", {
  ...effectFields,
  incident: Schema.Int,
  kind: Schema.Literal("opened", "reminder", "recovered", "resolved"),
  reminder: Schema.Int
})

/**
 * Everything a step asks the world to do.
 *
 * @since 0.1.0
 * @category effects
 */
export const SideEffect = Schema.Union(OpenIncident, UpdateIncident, CloseIncident, Notify)

/**
 * @since 0.1.0
 * @category effects
 */
export type SideEffect = typeof SideEffect.Type

/**
 * @since 0.1.0
 * @category models
 */
export interface Step {
  readonly state: State
  readonly effects: ReadonlyArray<SideEffect>
}

type Draft =
  | Omit<typeof OpenIncident.Type, "key" | "seq">
  | Omit<typeof UpdateIncident.Type, "key" | "seq">
  | Omit<typeof CloseIncident.Type, "key" | "seq">
  | Omit<typeof Notify.Type, "key" | "seq">

// A notification's key names what it announces, so it is unique per incident whatever step produced it; the
// other effects are keyed by the step and their place in it.
const keyOf = (draft: Draft, seq: number, index: number): string => {
  switch (draft._tag) {
    case "Notify":
      return draft.kind === "reminder"
        ? `incident/${draft.incident}/notify/reminder/${draft.reminder}`
        : `incident/${draft.incident}/notify/${draft.kind}`
    case "OpenIncident":
    case "UpdateIncident":
    case "CloseIncident":
      return `incident/${draft.incident.number}/step/${seq}/${index}`
  }
}

const seal = (draft: Draft, seq: number, index: number): SideEffect => {
  const key = keyOf(draft, seq, index)
  switch (draft._tag) {
    case "OpenIncident":
      return { ...draft, key, seq }
    case "UpdateIncident":
      return { ...draft, key, seq }
    case "CloseIncident":
      return { ...draft, key, seq }
    case "Notify":
      return { ...draft, key, seq }
  }
}

const notBefore = (at: DateTime.Utc, floor: DateTime.Utc): DateTime.Utc => (DateTime.lessThan(at, floor) ? floor : at)

// The earliest a recovery can be dated: after the incident began and after the last recovered stretch ended.
const recoveryFloor = (incident: Ongoing): DateTime.Utc => {
  const last = incident.recovered[incident.recovered.length - 1]
  return last === undefined ? incident.started_at : notBefore(last.until, incident.started_at)
}

// `more` added to `regions`, sorted; `regions` itself when nothing is new, so a caller can tell by identity.
const joined = (regions: ReadonlyArray<string>, more: ReadonlyArray<string>): ReadonlyArray<string> => {
  const fresh = more.filter((region) => !regions.includes(region))
  return fresh.length === 0 ? regions : [...regions, ...fresh].sort()
}

/**
 * The engine for a monitor's settings: fold one event into the state at `now`.
 *
 * @since 0.1.0
 * @category transitions
 */
export const step =
  (config: AlertConfig) =>
  (state: State, event: Event, now: DateTime.Utc): Step => {
    // The step is a pure function; inside it the new state and its effects are built up in order.
    let s = state
    const silenceOf = (of: State): RegionAgreement.Silence => ({
      interval_secs: config.interval,
      reporting_since: of.reporting_since
    })
    const reporting = (of: State, at: DateTime.Utc) =>
      config.regions.some((region) => RegionAgreement.reports(of.regions[region], silenceOf(of), at))
    const drafts: Array<Draft> = []
    const period = Math.max(0, config.recovery_period_secs)

    const setIncident = (incident: Ongoing | null) => {
      s = { ...s, incident }
    }

    const update = (incident: Ongoing, change: typeof UpdateIncident.Type.change) => {
      setIncident(incident)
      drafts.push({ _tag: "UpdateIncident", incident, change })
    }

    // The reminder that follows `sent` reminders, one gap after `at` (an open, a resumption, a PATCH).
    const reminderAfter = (at: DateTime.Utc, sent: number): DateTime.Utc | null =>
      ReminderSchedule.nextAt(at, config.renotify_interval_secs, sent) ?? null

    const notify = (incident: number, kind: "opened" | "reminder" | "recovered" | "resolved", reminder = 0) =>
      drafts.push({ _tag: "Notify", incident, kind, reminder })

    // Reminders are due only while the incident is open, unacknowledged and not recovering; the schedule follows
    // the stored interval, so a PATCH turning reminders off or on takes effect at the next step.
    const reconcileReminders = (at: DateTime.Utc) => {
      const incident = s.incident
      if (incident === null) return
      const due = incident.acknowledged_at === null && incident.recovering_since === null
      if (!due || config.renotify_interval_secs <= 0) {
        if (incident.next_reminder_at !== null) setIncident({ ...incident, next_reminder_at: null })
        return
      }
      if (incident.next_reminder_at === null) {
        setIncident({ ...incident, next_reminder_at: reminderAfter(at, incident.reminders_sent) })
      }
    }

    const close = (
      incident: Ongoing,
      ended_at: DateTime.Utc,
      reason: "recovered" | "resolved",
      by: string | null,
      suppressed: boolean
    ) => {
      drafts.push({ _tag: "CloseIncident", incident, ended_at, reason, resolved_by: by })
      if (config.notify_recovery && !suppressed) notify(incident.number, reason)
      setIncident(null)
    }

    // What the clock alone moves: the end of a recovery wait, or one due reminder. A reminder that falls due while
    // alerts are suppressed is skipped, not postponed: the cadence carries on and the gap still doubles.
    const advance = (at: DateTime.Utc, suppressed: boolean) => {
      const incident = s.incident
      if (incident === null) return
      if (incident.recovering_since !== null) {
        const end = DateTime.add(incident.recovering_since, { seconds: period })
        if (DateTime.greaterThanOrEqualTo(at, end))
          close(incident, incident.recovering_since, "recovered", null, suppressed)
        return
      }
      const due = incident.next_reminder_at
      if (due === null || DateTime.lessThan(at, due)) return
      const sent = incident.reminders_sent + 1
      if (!suppressed) notify(incident.number, "reminder", sent)
      // After a long pause (the writer was down) one reminder goes out and the next is counted from now.
      const planned = ReminderSchedule.nextAt(due, config.renotify_interval_secs, sent)
      const next =
        planned === undefined || DateTime.greaterThan(planned, at)
          ? planned
          : ReminderSchedule.nextAt(at, config.renotify_interval_secs, sent)
      setIncident({ ...incident, reminders_sent: sent, next_reminder_at: next ?? null })
    }

    // Judge the regions' confirmed verdicts against the incident at `at`. `passed` is when the passing streak began
    // of a region the step's result just turned up. With no region reporting nothing is judged, so nothing changes.
    const evaluate = (at: DateTime.Utc, suppressed: boolean, passed: DateTime.Utc | undefined) => {
      const agreement = RegionAgreement.judge(config.region_policy, config.regions, s.regions, at, silenceOf(s))
      if (agreement.verdict === "silent") return
      const incident = s.incident
      if (incident === null) {
        if (agreement.verdict !== "down") {
          s = { ...s, held: false }
        } else if (suppressed) {
          s = { ...s, held: true }
        } else {
          // An outage held back by maintenance counts from when the window stopped covering it.
          const started_at = s.held ? at : agreement.since
          const opened: Ongoing = {
            number: s.opened + 1,
            started_at,
            impact: agreement.impact,
            acknowledged_at: null,
            acknowledged_by: null,
            recovering_since: null,
            recovered: [],
            reminders_sent: 0,
            next_reminder_at: reminderAfter(at, 0),
            regions_down: joined([], agreement.down)
          }
          s = { ...s, opened: opened.number, held: false, incident: opened }
          drafts.push({ _tag: "OpenIncident", incident: opened })
          notify(opened.number, "opened")
        }
        return
      }
      // Every region confirmed down while the incident is open joins its list; a change rides on the step's update.
      const regions_down = joined(incident.regions_down, agreement.down)
      const current = regions_down === incident.regions_down ? incident : { ...incident, regions_down }
      if (current.recovering_since === null) {
        if (agreement.verdict === "down") {
          if (agreement.impact !== current.impact) update({ ...current, impact: agreement.impact }, "impact")
          else if (current !== incident) update(current, "regions")
          return
        }
        // Agreement ended with the later of what could have ended it: a region turning up (its passing streak's
        // start) and a region falling silent; with neither (a PATCH of the policy), now.
        const silenced = agreement.since
        const ended =
          passed === undefined ? (silenced ?? at) : silenced === undefined ? passed : DateTime.max(passed, silenced)
        const began = notBefore(DateTime.min(ended, at), recoveryFloor(current))
        if (period === 0) {
          close(current, began, "recovered", null, suppressed)
        } else {
          update({ ...current, recovering_since: began, next_reminder_at: null }, "recovering")
        }
        return
      }
      if (agreement.verdict === "down") {
        const from = current.recovering_since
        const stretch: RecoveredStretch = { from, until: notBefore(agreement.since, from) }
        const next_reminder_at = current.acknowledged_at === null ? reminderAfter(at, current.reminders_sent) : null
        update(
          {
            ...current,
            impact: agreement.impact,
            recovering_since: null,
            recovered: [...current.recovered, stretch],
            next_reminder_at
          },
          "resumed"
        )
      } else if (current !== incident) {
        update(current, "regions")
      }
    }

    switch (event._tag) {
      case "Tick": {
        advance(now, event.suppressed)
        evaluate(now, event.suppressed, undefined)
        reconcileReminders(now)
        break
      }
      case "Result": {
        const track = s.regions[event.region]
        // A region the monitor no longer probes from, or a result already taken (or older), changes nothing.
        if (!config.regions.includes(event.region) || !Confirmation.isNewer(track, event.checked_at)) break
        // A result is judged at the moment it was taken (never later than now), then the clock catches up.
        const at = DateTime.min(event.checked_at, now)
        advance(at, event.suppressed)
        // The first result, or the first after every region fell silent: the others get three intervals to report
        // before they count as silent, so this one region does not decide alone.
        if (!reporting(s, at)) s = { ...s, reporting_since: at }
        const taken = Confirmation.take(
          track,
          event.status,
          event.error,
          event.checked_at,
          event.at_once === true ? 1 : config.alert_confirmations
        )
        s = { ...s, regions: { ...s.regions, [event.region]: taken } }
        const passed = track?.down === true && !taken.down && taken.since !== null ? taken.since : undefined
        evaluate(at, event.suppressed, passed)
        advance(now, event.suppressed)
        // A result taken a while ago (an agent's buffer): regions may have fallen silent between then and now.
        evaluate(now, event.suppressed, undefined)
        reconcileReminders(now)
        break
      }
      case "Acknowledge": {
        const incident = s.incident
        if (incident === null || incident.number !== event.incident || incident.acknowledged_at !== null) break
        update({ ...incident, acknowledged_at: now, acknowledged_by: event.by, next_reminder_at: null }, "acknowledged")
        break
      }
      case "Resolve": {
        const incident = s.incident
        if (incident === null || incident.number !== event.incident) break
        // Resolved while recovering: the outage ended when the recovery began, as if the wait had run out.
        close(incident, incident.recovering_since ?? now, "resolved", event.by, event.suppressed)
        // The person says it is over: failures must confirm afresh before another incident opens. The newest
        // result times stay, so a replayed result is still recognised.
        const regions: Record<string, Confirmation.Track> = {}
        for (const [name, track] of Object.entries(s.regions)) regions[name] = Confirmation.fresh(track.last_at)
        s = { ...s, regions, held: false }
        break
      }
    }

    if (drafts.length === 0) return { state: s, effects: [] }
    const seq = state.seq + 1
    return { state: { ...s, seq }, effects: drafts.map((draft, index) => seal(draft, seq, index)) }
  }

/**
 * When the writer must tick the monitor next: the end of the recovery wait, the next reminder, or the next moment
 * one of several regions falls silent after `now`; undefined when only a result can move it.
 *
 * @since 0.1.0
 * @category transitions
 */
export const wakeAt = (config: AlertConfig, state: State, now: DateTime.Utc): DateTime.Utc | undefined => {
  const incident = state.incident
  const clock =
    incident === null
      ? undefined
      : incident.recovering_since !== null
        ? DateTime.add(incident.recovering_since, { seconds: Math.max(0, config.recovery_period_secs) })
        : (incident.next_reminder_at ?? undefined)
  const silence = RegionAgreement.nextSilence(config.regions, state.regions, now, {
    interval_secs: config.interval,
    reporting_since: state.reporting_since
  })
  if (clock === undefined) return silence
  return silence === undefined ? clock : DateTime.min(clock, silence)
}

/**
 * The monitor's per-region advisories at `now`: while no incident is open and the policy is not met, one per
 * reporting region confirmed down, in the order of the monitor's regions; none otherwise (an open incident, an
 * outage held by maintenance, every region silent).
 *
 * @since 0.1.0
 * @category advisories
 */
export const advisories = (config: AlertConfig, state: State, now: DateTime.Utc): ReadonlyArray<RegionAdvisory> => {
  if (state.incident !== null) return []
  const agreement = RegionAgreement.judge(config.region_policy, config.regions, state.regions, now, {
    interval_secs: config.interval,
    reporting_since: state.reporting_since
  })
  if (agreement.verdict !== "up") return []
  return agreement.down.flatMap((region) => {
    const track = state.regions[region]
    return track?.since == null ? [] : [{ region, status: track.status, since: track.since }]
  })
}
