/**
 * Where a manual monitor's sets go beyond its own row: its results (and through them the incident writer), and the
 * open incident's timeline. The calls run inside the set's transaction, so a set and its result commit together.
 */
import type { ManualEffect } from "@signalman/core/ManualState"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import { MonitorResults } from "../engine/MonitorResults.js"
import { IncidentsRepo } from "../incidents/Repo.js"
import { uuidv7 } from "../infra/Ids.js"
import { ManualRepo } from "./Repo.js"

/** A manual monitor's result stands for its fixed minute (TargetRules: manual monitors run at 60 s). */
export const MANUAL_INTERVAL_SECS = 60

export class ManualOutcomes extends Effect.Service<ManualOutcomes>()("Signalman/ManualOutcomes", {
  effect: Effect.gen(function* () {
    const repo = yield* ManualRepo
    const incidents = yield* IncidentsRepo
    const results = yield* MonitorResults

    const openIncident = repo.openIncident

    const note = (incidentId: string, message: string, at: DateTime.Utc) =>
      incidents.insertUpdate({
        id: uuidv7(),
        incident_id: incidentId,
        phase: null,
        message,
        created_by: null,
        created_at: DateTime.toDateUtc(at)
      })

    return {
      /** Whether the monitor's incident is open (raising degraded to down needs it). */
      incidentOpen: (targetId: string): Effect.Effect<boolean> =>
        Effect.map(openIncident(targetId), (id) => id !== undefined),
      /**
       * A set's results and incident effects (everything but the audit entry). The result goes first: a set to
       * down confirms at once, so the incident it opens or raises exists before its notes are written.
       */
      apply: (targetId: string, effects: ReadonlyArray<ManualEffect>): Effect.Effect<void> =>
        Effect.gen(function* () {
          for (const effect of effects) {
            if (effect._tag !== "WriteResult") continue
            yield* results.write([
              { targetId, outcome: effect.outcome, at: effect.checked_at, weightSecs: 0, atOnce: true }
            ])
          }
          for (const effect of effects) {
            if (effect._tag === "RaiseIncident") {
              const id = yield* openIncident(targetId)
              if (id !== undefined) yield* note(id, effect.system_note, effect.at)
            } else if (effect._tag === "ReplaceIncidentCause" && effect.note !== null) {
              const id = yield* openIncident(targetId)
              if (id !== undefined) yield* note(id, `Cause: ${effect.note}`, yield* DateTime.now)
            }
          }
        })
    }
  }),
  dependencies: [ManualRepo.Default, IncidentsRepo.Default]
}) {}
