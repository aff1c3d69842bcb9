/**
 * Manual monitors' state (`GET` and `PUT /targets/{id}/state`): what an operator set, stored in `manual_states`
 * (no row means up since the monitor's creation). A set goes through the manual machine (`core/ManualState`): a set
 * identical to the current status and note writes nothing; any other is stored, handed to `ManualOutcomes` (its
 * result, the incident) in the same transaction, and audited as `target.state_set` with the acting user once that
 * transaction has committed. A paused monitor keeps the set and writes no result; its restatement reports it.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import { CheckKind } from "@signalman/core/CheckSpec"
import { UserId } from "@signalman/core/Identity"
import * as ManualState from "@signalman/core/ManualState"
import * as TargetRules from "@signalman/core/TargetRules"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { AuditLog } from "../audit/AuditLog.js"
import { notFound, type TargetRow, Targets } from "../targets/Targets.js"
import { ManualOutcomes } from "./ManualOutcomes.js"

const StateRow = Schema.Struct({
  status: ManualState.ManualStatus,
  note: Schema.NullOr(Schema.String),
  set_at: Schema.DateFromSelf,
  set_by: Schema.NullOr(UserId)
})
const decodeRows = Schema.decodeUnknown(Schema.Array(StateRow))

export class ManualStates extends Effect.Service<ManualStates>()("Signalman/ManualStates", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
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

    const stored = (row: TargetRow, lock: boolean) =>
      (lock
        ? sql`SELECT status, note, set_at, set_by FROM manual_states WHERE target_id = ${row.id} FOR UPDATE`
        : sql`SELECT status, note, set_at, set_by FROM manual_states WHERE target_id = ${row.id}`
      ).pipe(
        Effect.flatMap(decodeRows),
        Effect.map(
          (rows): ManualState.ManualState =>
            rows[0] === undefined
              ? ManualState.initial(DateTime.unsafeFromDate(row.created_at))
              : {
                  status: rows[0].status,
                  note: rows[0].note,
                  set_at: DateTime.unsafeFromDate(rows[0].set_at),
                  set_by: rows[0].set_by
                }
        ),
        Effect.orDie
      )

    const get = (org: ActiveOrg, id: string) => Effect.flatMap(manual(org, id), (row) => stored(row, false))

    const set = (org: ActiveOrg, id: string, body: ManualState.SetStateRequest, actor: UserId) =>
      Effect.gen(function* () {
        const row = yield* manual(org, id)
        const wanted = ManualState.validate(body)
        if (Either.isLeft(wanted)) return yield* Effect.fail(TargetRules.toApiError(wanted.left))
        const step = yield* sql
          .withTransaction(
            Effect.gen(function* () {
              // Serialises sets of one monitor (there may be no state row to lock yet).
              yield* sql`SELECT id FROM targets WHERE id = ${row.id} FOR UPDATE`
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
              yield* sql`
                INSERT INTO manual_states (target_id, status, note, set_at, set_by)
                VALUES (${row.id}, ${step.state.status}, ${step.state.note}, ${DateTime.toDateUtc(step.state.set_at)}, ${step.state.set_by})
                ON CONFLICT (target_id) DO UPDATE SET status = EXCLUDED.status, note = EXCLUDED.note,
                  set_at = EXCLUDED.set_at, set_by = EXCLUDED.set_by
              `
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
  dependencies: [ManualOutcomes.Default, AuditLog.Default]
}) {}
