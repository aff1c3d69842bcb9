/**
 * The incident writer: folds check results, clock ticks, acknowledgements and resolutions into a monitor's incident
 * engine (`IncidentMachine`, pure) and carries out what it asks, all in one transaction per monitor:
 *
 * 1. make sure the monitor has an engine row and lock it (`FOR UPDATE`), so however many workers fold events for
 *    the same monitor, each transition happens once and in order;
 * 2. read the monitor's alert settings as stored now and step the engine;
 * 3. write the effects: incident rows keyed by (target_id, number), the timeline's system notes, and notices
 *    through `IncidentNotices` (deduplicated by `target/{id}/{effect key}`);
 * 4. save the state, when the clock must tick it next (`wake_at`: a reminder, the end of a recovery wait, or the
 *    next region of several falling silent), and the monitor's per-region advisories when they changed.
 *
 * A result older than (or as old as) the newest one a region reported changes nothing, so folding a result twice,
 * concurrently or not, opens one incident and sends one notice. Results of every region of a monitor meet in the
 * same locked row, so however many regions and workers report, each transition happens once.
 */
import type { CheckStatus } from "@signalman/core/CheckResult"
import type { Impact } from "@signalman/core/Incident"
import * as IncidentMachine from "@signalman/core/IncidentMachine"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { uuidv7 } from "../infra/Ids.js"
import { Metrics } from "../metrics/Metrics.js"
import { IncidentsRepo } from "./Repo.js"
import { AlertSuppression, escalationWalks, IncidentEscalations, IncidentNotices } from "./Seams.js"
import { Advisories, type EngineRow, IncidentWriterRepo, type SavedState } from "./WriterRepo.js"

/** A check result as the scheduler stores it. */
export interface ObservedResult {
  readonly target_id: string
  readonly region: string
  readonly status: CheckStatus
  readonly error: string | null
  readonly checked_at: DateTime.Utc
  /** Confirms at once (`IncidentMachine.Result.at_once`). */
  readonly at_once?: boolean | undefined
}

/**
 * What the writer folds. Whether a maintenance window suppresses alerts is not the caller's to say: the writer asks
 * `AlertSuppression` at the event's time.
 */
export type Observation =
  | {
      readonly _tag: "Result"
      readonly region: string
      readonly status: CheckStatus
      readonly error: string | null
      readonly checked_at: DateTime.Utc
      readonly at_once?: boolean | undefined
    }
  | { readonly _tag: "Tick" }
  | { readonly _tag: "Acknowledge"; readonly incident: number; readonly by: string }
  | { readonly _tag: "Resolve"; readonly incident: number; readonly by: string }

/** Whether a monitor's alerts are suppressed at an instant. */
type Suppressed = (targetId: string, at: Date) => Effect.Effect<boolean>

// A result is judged at its own time, or now when it claims a later one.
const resultInstant = (observation: { readonly checked_at: DateTime.Utc }, now: DateTime.Utc): Date =>
  DateTime.toDateUtc(DateTime.min(observation.checked_at, now))

/** `now` overrides the clock (tests and replays). */
export interface Options {
  readonly now?: DateTime.Utc | undefined
}

// Advisories compare by their JSON form: the same regions, statuses and instants.
const advisoriesJson = Schema.encodeSync(Schema.parseJson(Advisories))

const impactWords: Record<Impact, string> = {
  degraded: "degraded performance",
  partial_outage: "partial outage",
  major_outage: "major outage"
}

/** The system note each effect leaves on the timeline. */
const noteOf = (effect: IncidentMachine.SideEffect): string | undefined => {
  switch (effect._tag) {
    case "OpenIncident":
      return `Incident opened: ${impactWords[effect.incident.impact]}`
    case "UpdateIncident":
      switch (effect.change) {
        case "impact":
          return `Impact changed to ${impactWords[effect.incident.impact]}`
        case "acknowledged":
          return "Acknowledged"
        case "recovering":
          return `Recovering since ${DateTime.formatIso(effect.incident.recovering_since ?? DateTime.unsafeMake(0))}`
        case "resumed":
          return "Failure confirmed again: the recovery ended and the incident continues"
        case "regions":
          return `Regions down: ${effect.incident.regions_down.join(", ")}`
      }
      break
    case "CloseIncident":
      return effect.reason === "resolved" ? "Resolved" : "Recovered"
    case "Notify":
      return undefined
  }
}

export class IncidentWriter extends Effect.Service<IncidentWriter>()("Signalman/IncidentWriter", {
  effect: Effect.gen(function* () {
    const repo = yield* IncidentWriterRepo
    const incidents = yield* IncidentsRepo
    const notices = yield* IncidentNotices
    const suppression = yield* AlertSuppression
    const metrics = yield* Metrics
    const escalations = yield* IncidentEscalations

    const toEvent = (row: EngineRow, observation: Observation, now: DateTime.Utc, suppressedAt: Suppressed) =>
      Effect.gen(function* () {
        switch (observation._tag) {
          case "Result": {
            const suppressed = yield* suppressedAt(row.target_id, resultInstant(observation, now))
            return { ...observation, suppressed } satisfies IncidentMachine.Event
          }
          case "Tick": {
            const maintenance = yield* suppressedAt(row.target_id, DateTime.toDateUtc(now))
            // A paused monitor stays quiet: its reminders are skipped (the cadence carries on, as inside a
            // maintenance window), while a recovery wait already running still ends and is announced.
            const recovering = row.state.incident?.recovering_since != null
            return {
              _tag: "Tick",
              suppressed: maintenance || (!row.enabled && !recovering)
            } satisfies IncidentMachine.Event
          }
          case "Acknowledge":
            return observation satisfies IncidentMachine.Event
          case "Resolve": {
            const suppressed = yield* suppressedAt(row.target_id, DateTime.toDateUtc(now))
            return { ...observation, suppressed } satisfies IncidentMachine.Event
          }
        }
      })

    const incidentId = (targetId: string, number: number) =>
      Effect.flatMap(repo.incidentId(targetId, number), (id) =>
        id === undefined ? Effect.dieMessage(`no incident ${number} of target ${targetId}`) : Effect.succeed(id)
      )

    const note = (id: string, message: string, by: string | null, at: DateTime.Utc) =>
      incidents.insertUpdate({
        id: uuidv7(),
        incident_id: id,
        phase: null,
        message,
        created_by: by,
        created_at: DateTime.toDateUtc(at)
      })

    const apply = (row: EngineRow, effect: IncidentMachine.SideEffect, now: DateTime.Utc, cause: string | null) =>
      Effect.gen(function* () {
        const message = noteOf(effect)
        switch (effect._tag) {
          case "OpenIncident": {
            const i = effect.incident
            const id = yield* repo.open({
              id: uuidv7(),
              org_id: row.org_id,
              target_id: row.target_id,
              number: i.number,
              impact: i.impact,
              started_at: i.started_at,
              acknowledged_at: i.acknowledged_at,
              acknowledged_by: i.acknowledged_by,
              recovering_since: i.recovering_since,
              recovered: i.recovered,
              regions_down: i.regions_down,
              now
            })
            if (id === undefined) return
            yield* metrics.incidentOpened(i.impact)
            if (message !== undefined) yield* note(id, message, null, i.started_at)
            // The walk's delays count from now, when the incident opened, not from its first failing check.
            yield* escalations.start({ incidentId: id, orgId: row.org_id, targetId: row.target_id, openedAt: now })
            return
          }
          case "UpdateIncident": {
            const i = effect.incident
            const id = yield* incidentId(row.target_id, i.number)
            yield* repo.update({
              id,
              impact: i.impact,
              acknowledged_at: i.acknowledged_at,
              acknowledged_by: i.acknowledged_by,
              recovering_since: i.recovering_since,
              recovered: i.recovered,
              regions_down: i.regions_down,
              now
            })
            const by = effect.change === "acknowledged" ? i.acknowledged_by : null
            if (message !== undefined) yield* note(id, message, by, now)
            if (effect.change === "acknowledged") yield* escalations.stop(id, "acknowledged", now)
            return
          }
          case "CloseIncident": {
            const i = effect.incident
            const id = yield* incidentId(row.target_id, i.number)
            yield* repo.close({
              id,
              impact: i.impact,
              ended_at: effect.ended_at,
              close_reason: effect.reason,
              resolved_by: effect.resolved_by,
              recovered: i.recovered,
              regions_down: i.regions_down,
              now
            })
            if (message !== undefined) yield* note(id, message, effect.resolved_by, now)
            yield* escalations.stop(id, effect.reason, now)
            return
          }
          case "Notify": {
            const id = yield* incidentId(row.target_id, effect.incident)
            // The incident as it stands after this step's earlier effects (a close is written before its notice).
            const stored = yield* repo.incidentNow(id)
            if (stored === undefined) return yield* Effect.dieMessage(`incident ${id} vanished`)
            yield* notices.enqueue({
              orgId: row.org_id,
              targetId: row.target_id,
              incidentId: id,
              kind: effect.kind,
              dedupeKey: effect.key,
              payload: {
                target: { id: row.target_id, name: row.name, type: row.kind },
                incident: {
                  id,
                  number: effect.incident,
                  started_at: stored.started_at,
                  ended_at: stored.ended_at,
                  impact: stored.impact,
                  cause
                },
                reminder: effect.reminder
              }
            })
            return
          }
        }
      })

    /**
     * Fold events into a locked engine row and write the effects; answers the effects and the state to save (the
     * caller saves it, alone or with other rows').
     */
    const step = (
      row: EngineRow,
      observations: ReadonlyArray<Observation>,
      now: DateTime.Utc,
      suppressedAt: Suppressed
    ) =>
      Effect.gen(function* () {
        const next = IncidentMachine.step(row)
        let state = row.state
        const effects: Array<IncidentMachine.SideEffect> = []
        // What a notice names as the cause: the error of the newest failing result folded in this call.
        let cause: string | null = null
        for (const observation of observations) {
          if (observation._tag === "Result" && observation.status !== "up") cause = observation.error
          const event = yield* toEvent({ ...row, state }, observation, now, suppressedAt)
          const stepped = next(state, event, now)
          for (const effect of stepped.effects) yield* apply(row, effect, now, cause)
          effects.push(...stepped.effects)
          state = stepped.state
        }
        const advisories = IncidentMachine.advisories(row, state, now)
        const changed = advisoriesJson(advisories) !== advisoriesJson(row.advisories)
        const saved: SavedState = {
          targetId: row.target_id,
          state,
          wakeAt: IncidentMachine.wakeAt(row, state, now),
          advisories: changed ? advisories : undefined
        }
        return { effects, saved }
      })

    /** Fold events into a locked engine row, write the effects and save the state; answers the effects. */
    const fold = (row: EngineRow, observations: ReadonlyArray<Observation>, now: DateTime.Utc) =>
      Effect.gen(function* () {
        const { effects, saved } = yield* step(row, observations, now, suppression.suppressed)
        yield* repo.saveState(saved.targetId, saved.state, saved.wakeAt, saved.advisories)
        return effects
      })

    /**
     * Fold events for one monitor, in order, in one transaction. Answers the effects, or undefined when the monitor
     * does not exist (deleted meanwhile: nothing to do).
     */
    const observeAll = (targetId: string, observations: ReadonlyArray<Observation>, options: Options = {}) =>
      repo.transaction(
        Effect.gen(function* () {
          const now = options.now ?? (yield* DateTime.now)
          yield* repo.ensureEngine(targetId, IncidentMachine.initial)
          const row = yield* repo.lockOne(targetId)
          if (row === undefined) return undefined
          return yield* fold(row, observations, now)
        })
      )

    const observe = (targetId: string, observation: Observation, options?: Options) =>
      observeAll(targetId, [observation], options)

    /**
     * Many monitors' results in one transaction: their engine rows made and locked with one statement each (in id
     * order, so concurrent batches queue rather than deadlock), the maintenance windows read once for the whole
     * batch, each monitor's results folded in the order they were taken, and the states saved with one statement.
     * At a few hundred results a second this is a handful of statements per batch where a transaction per monitor
     * was six per result. Should the batch fail (a defect in one monitor's fold), it is rolled back and each monitor
     * is folded alone, as a batch of one is: folding is idempotent, so nothing is lost or doubled, and one broken
     * monitor does not hold the others' incidents.
     */
    const foldBatch = (byTarget: ReadonlyMap<string, ReadonlyArray<Observation>>, options: Options) =>
      repo.transaction(
        Effect.gen(function* () {
          const now = options.now ?? (yield* DateTime.now)
          const ids = [...byTarget.keys()].sort()
          yield* repo.ensureEngines(ids, IncidentMachine.initial)
          const rows = yield* repo.lockMany(ids)
          let from = now
          let to = DateTime.unsafeMake(0)
          for (const observations of byTarget.values()) {
            for (const observation of observations) {
              if (observation._tag !== "Result") continue
              const at = DateTime.min(observation.checked_at, now)
              from = DateTime.min(from, at)
              to = DateTime.max(to, at)
            }
          }
          const judge = yield* suppression.within(
            ids,
            DateTime.toDateUtc(from),
            DateTime.toDateUtc(DateTime.max(to, now))
          )
          const suppressedAt: Suppressed = (targetId, at) => Effect.succeed(judge(targetId, at))
          const saved: Array<SavedState> = []
          for (const row of rows) {
            const observations = byTarget.get(row.target_id.toLowerCase())
            if (observations === undefined) continue
            saved.push((yield* step(row, observations, now, suppressedAt)).saved)
          }
          yield* repo.saveStates(saved)
        })
      )

    /** Many results: each monitor's results folded in the order they were taken; see `foldBatch`. */
    const observeResults = (batch: ReadonlyArray<ObservedResult>, options: Options = {}) => {
      const byTarget = new Map<string, Array<ObservedResult>>()
      for (const result of batch) {
        const id = result.target_id.toLowerCase()
        const list = byTarget.get(id) ?? []
        list.push(result)
        byTarget.set(id, list)
      }
      const observations = new Map<string, ReadonlyArray<Observation>>(
        [...byTarget].map(([targetId, results]) => [
          targetId,
          [...results]
            .sort((a, b) => DateTime.Order(a.checked_at, b.checked_at))
            .map((r) => ({
              _tag: "Result" as const,
              region: r.region,
              status: r.status,
              error: r.error,
              checked_at: r.checked_at,
              ...(r.at_once === true ? { at_once: true } : {})
            }))
        ])
      )
      const oneByOne = Effect.forEach(observations, ([targetId, list]) => observeAll(targetId, list, options), {
        discard: true
      })
      if (observations.size <= 1) return oneByOne
      // Each alone, and one failing does not stop the rest.
      const eachAlone = Effect.forEach(
        observations,
        ([targetId, list]) =>
          observeAll(targetId, list, options).pipe(
            Effect.catchAllCause((cause) =>
              Effect.logError("A monitor's results could not be folded", cause).pipe(
                Effect.annotateLogs("target_id", targetId)
              )
            )
          ),
        { discard: true }
      )
      return foldBatch(observations, options).pipe(
        Effect.catchAllCause((cause) =>
          Effect.logWarning("A batch of results could not be folded at once; folding each monitor alone", cause).pipe(
            Effect.annotateLogs({ monitors: observations.size }),
            Effect.zipRight(eachAlone)
          )
        )
      )
    }

    /**
     * One pass of the clock: claims the monitors whose `wake_at` has come, one transaction each (`SKIP LOCKED`, so
     * workers share the due rows instead of queueing on them), and folds a Tick. Answers how many it ticked; stops
     * after `limit` so one pass stays bounded.
     */
    const tickDue = (options: Options & { readonly limit?: number } = {}) =>
      Effect.gen(function* () {
        const now = options.now ?? (yield* DateTime.now)
        const limit = options.limit ?? 500
        let ticked = 0
        const seen = new Set<string>()
        while (ticked < limit) {
          const claimed = yield* repo.transaction(
            Effect.gen(function* () {
              const row = yield* repo.lockDue(now, [...seen])
              if (row === undefined) return undefined
              yield* fold(row, [{ _tag: "Tick" }], now)
              return row.target_id
            })
          )
          if (claimed === undefined) break
          // A monitor is ticked once per pass even if its next wake is already due again.
          seen.add(claimed)
          ticked++
        }
        return ticked
      })

    return { observe, observeAll, observeResults, tickDue }
  }),
  // The escalation walks come with the writer, so whoever builds it (the worker, a test) starts and stops them.
  dependencies: [IncidentWriterRepo.Default, IncidentsRepo.Default, escalationWalks]
}) {}
