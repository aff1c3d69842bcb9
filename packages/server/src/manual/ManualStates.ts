/**
 * Manual monitors' state (`GET` and `PUT /targets/{id}/state`): what an operator set, stored in `manual_states`
 * (no row means up since the monitor's creation). A set goes through the manual machine (`core/ManualState`): a set
 * identical to the current status and note writes nothing; any other is stored, handed to `ManualOutcomes` (its
 * result, the incident) in the same transaction, and audited as `target.state_set` with the acting user once that
 * transaction has committed. A paused monitor keeps the set and writes no result; its restatement reports it.
 */
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import { CheckKind } from "@signalman/core/CheckSpec"
import type { UserId } from "@signalman/core/Identity"
import * as ManualState from "@signalman/core/ManualState"
import * as TargetRules from "@signalman/core/TargetRules"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { AuditLog } from "../audit/AuditLog.js"
import { notFound, type TargetRow, Targets } from "../targets/Targets.js"
import { ManualOutcomes } from "./ManualOutcomes.js"
import { ManualRepo } from "./Repo.js"

export class ManualStates extends Effect.Service<ManualStates>()("Signalman/ManualStates", {
  effect: Effect.gen(function* () {
    const repo = yield* ManualRepo
    const targets = yield* Targets
    const outcomes = yield* ManualOutcomes
    const audit = yield* AuditLog

    const manual = (org: ActiveOrg, id: string) =>
      Effect.gen(function* () {
        const row = yield* targets.one(org, id)
        if (row === undefined) return yield* Effect.fail(notFound)
        yield* ManualState.requireManual(yield* Schema.decodeUnknown(CheckKind)(row.kind).pipe(Effect.orDie))
        return row
      })

    // No row means up since the monitor's creation.
    const stored = (row: TargetRow, lock: boolean) =>
      Effect.map(
        repo.state(row.id, lock),
        (state): ManualState.ManualState => state ?? ManualState.initial(DateTime.unsafeFromDate(row.created_at))
      )

    const get = (org: ActiveOrg, id: string) => Effect.flatMap(manual(org, id), (row) => stored(row, false))

    const set = (org: ActiveOrg, id: string, body: ManualState.SetStateRequest, actor: UserId) =>
      Effect.gen(function* () {
        const row = yield* manual(org, id)
        const wanted = ManualState.validate(body)
        if (Either.isLeft(wanted)) return yield* Effect.fail(TargetRules.toApiError(wanted.left))
        const step = yield* repo
          .transaction(
            Effect.gen(function* () {
              // Serialises sets of one monitor (there may be no state row to lock yet).
              yield* repo.lockTarget(row.id)
              const current = yield* stored(row, true)
              const now = DateTime.unsafeMake(Date.now())
              const step = ManualState.step(
                current,
                ManualState.ManualEvent.Set({
                  set: wanted.right,
                  actor,
                  running: row.enabled,
                  incident_open: yield* outcomes.incidentOpen(row.id)
                }),
                now
              )
              if (step.effects.length === 0) return step
              yield* repo.saveState(row.id, step.state)
              yield* outcomes.apply(
                row.id,
                step.effects.filter((effect) => effect._tag !== "Audit")
              )
              return step
            })
          )
          .pipe(Effect.orDie)
        for (const effect of step.effects) {
          if (effect._tag !== "Audit") continue
          yield* audit.append({
            event: effect.action,
            userId: effect.actor,
            details: { target_id: row.id, before: effect.before, after: effect.after, running: row.enabled }
          })
        }
        return step.state
      })

    return { get, set }
  }),
  dependencies: [ManualRepo.Default, ManualOutcomes.Default, AuditLog.Default]
}) {}
