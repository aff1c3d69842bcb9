/**
 * How the monitoring features meet: results stored by the engine are folded by the incident writer, and uptime
 * leaves out the maintenance windows and incident recovery stretches that the spec excludes. Each side sees only a
 * small port of its own (`ResultObservers`, `UptimeExclusions`); this module binds them to the real services.
 */
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Engine from "./engine/Engine.js"
import { ResultObservers } from "./engine/ResultObservers.js"
import { type Period, UptimeExclusions } from "./engine/UptimeExclusions.js"
import { IncidentWriter } from "./incidents/IncidentWriter.js"
import { IncidentsRepo } from "./incidents/Repo.js"
import * as Writing from "./incidents/Writing.js"
import { Maintenance } from "./maintenance/Maintenance.js"

/** Every stored result, scheduled or check-now, is an observation of the monitor: the incident writer folds it. */
export const resultObservers = Layer.effect(
  ResultObservers,
  Effect.map(IncidentWriter, (writer) => ({
    observe: (batch) =>
      Effect.asVoid(
        writer.observeResults(
          batch.map((stored) => ({
            target_id: stored.targetId,
            region: stored.result.region,
            status: stored.result.status,
            error: stored.result.error,
            checked_at: stored.result.checked_at,
            at_once: stored.atOnce
          }))
        )
      )
  }))
)

/**
 * Maintenance windows covering the monitor (not cancelled ones: a cancelled window did not happen) and the
 * recovered stretches of its incidents, each clipped to the range by the reader.
 */
export const uptimeExclusions = Layer.effect(
  UptimeExclusions,
  Effect.gen(function* () {
    const incidents = yield* IncidentsRepo
    const maintenance = yield* Maintenance
    return {
      periods: (targetId: string, from: Date, to: Date) =>
        Effect.gen(function* () {
          const windows = yield* maintenance.forTargets([targetId], {
            from: DateTime.unsafeFromDate(from),
            to: DateTime.unsafeFromDate(to)
          })
          const recovered = yield* incidents.recoveredStretches(targetId, from, to)
          const periods: Array<Period> = [
            ...windows.map((w) => ({ from: DateTime.toDateUtc(w.starts_at), until: DateTime.toDateUtc(w.ends_at) })),
            ...recovered.map((s) => ({ from: DateTime.toDateUtc(s.from), until: DateTime.toDateUtc(s.until) }))
          ]
          return periods
        })
    }
  })
).pipe(Layer.provide(IncidentsRepo.Default))

// Each engine layer below is made once, here: the groups and workers that need one share the value, so its services
// (the result store, the readings) are one per process.
const observers = resultObservers.pipe(Layer.provide(Writing.layer))

/** The API's engine: check-now and the reads, with uptime leaving out maintenance and recovered stretches. */
export const reading = Engine.reading(observers, uptimeExclusions.pipe(Layer.provide(Maintenance.Default)))

/** A worker's engine: the local region's scheduler and the upkeep loops, results folded by the incident writer. */
export const work = Engine.work(observers)

/** Results of the monitors without a probe (heartbeat, manual), folded like the probes'. */
export const monitorResults = Engine.monitorResults(observers)
