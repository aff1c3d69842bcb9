/**
 * On-call schedules: creating one under the account's `max_on_call_schedules` quota (counted under the account's
 * lock, so concurrent creates settle exactly at the limit), reading, listing, changing and deleting them, and
 * answering who is on call when (core's `OnCall`, over the org's members: a person listed who is no longer a
 * member is left out, so the layer falls to the next participant or the layer below).
 *
 * Every participant and override user of a write must be a member of the org (400 VALIDATION_FAILED naming the
 * field); a schedule a policy's step names cannot be deleted (409 SCHEDULE_IN_USE), checked under the org's
 * reference lock, which a policy write naming schedules holds too.
 */
import * as ApiError from "@signalman/core/ApiError"
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import { type OrgId, UserId } from "@signalman/core/Identity"
import * as OnCall from "@signalman/core/oncall/OnCall"
import * as Schedule from "@signalman/core/oncall/Schedule"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import { AuditLog } from "../audit/AuditLog.js"
import { uuidv7 } from "../infra/Ids.js"
import { Plans } from "../limits/Plans.js"
import { QuotaEvents } from "../limits/Quota.js"
import { pooledCreate } from "./PooledCreate.js"
import { OnCallRepo, type ScheduleRow } from "./Repo.js"

export const notFound = ApiError.make("NOT_FOUND", "No such on-call schedule")

/** The schedule as answered. */
export const toSchedule = (row: ScheduleRow): Schedule.Schedule =>
  new Schedule.Schedule({
    id: row.id,
    name: row.name,
    time_zone: row.time_zone,
    layers: row.layers,
    overrides: row.overrides,
    created_at: row.created_at,
    updated_at: row.updated_at
  })

/** Each user id a schedule names, with the field a refusal of it points at. */
const namedUsers = (
  layers: ReadonlyArray<Schedule.Layer> | undefined,
  overrides: ReadonlyArray<Schedule.Override> | undefined
): ReadonlyArray<{ readonly id: string; readonly field: string }> => [
  ...(layers ?? []).flatMap((layer, i) =>
    layer.participants.map((id, j) => ({ id, field: `layers[${i}].participants[${j}]` }))
  ),
  ...(overrides ?? []).map((override, k) => ({ id: override.user_id, field: `overrides[${k}].user_id` }))
]

// Stored lower-case: ids are compared as text (membership, the on-call answer) and the wire accepts either case.
const lower = (id: UserId): UserId => UserId.make(id.toLowerCase())
const lowerLayers = (layers: ReadonlyArray<Schedule.Layer>): ReadonlyArray<Schedule.Layer> =>
  layers.map((layer) => ({ ...layer, participants: layer.participants.map(lower) }))
const lowerOverrides = (overrides: ReadonlyArray<Schedule.Override>): ReadonlyArray<Schedule.Override> =>
  overrides.map((override) => ({ ...override, user_id: lower(override.user_id) }))

export class Schedules extends Effect.Service<Schedules>()("Signalman/OnCallSchedules", {
  effect: Effect.gen(function* () {
    const repo = yield* OnCallRepo
    const plans = yield* Plans
    const quotaEvents = yield* QuotaEvents
    const audit = yield* AuditLog

    const one = (org: ActiveOrg, id: string) =>
      Effect.flatMap(repo.schedule(org.id, id), (row) =>
        row === undefined ? Effect.fail(notFound) : Effect.succeed(row)
      )

    /** Refuses the first user named who is not a member of the org. */
    const membersOnly = (org: ActiveOrg, named: ReadonlyArray<{ readonly id: string; readonly field: string }>) =>
      Effect.gen(function* () {
        const members = yield* repo.members(
          org.id,
          named.map((n) => n.id)
        )
        const stranger = named.find((n) => !members.has(n.id.toLowerCase()))
        if (stranger !== undefined) {
          return yield* Effect.fail(
            ApiError.make("VALIDATION_FAILED", "Not a member of this org", {
              field: stranger.field,
              details: { user_id: stranger.id }
            })
          )
        }
      })

    const list = (org: ActiveOrg, limit: number, offset: number) =>
      Effect.map(repo.schedules(org.id, limit, offset), ({ rows, total }) => ({ data: rows.map(toSchedule), total }))

    const create = (org: ActiveOrg, userId: string, body: Schedule.ScheduleCreate) =>
      Effect.gen(function* () {
        yield* membersOnly(org, namedUsers(body.layers, body.overrides))
        const row = yield* pooledCreate(
          { repo, plans, quotaEvents },
          org,
          userId,
          { table: "on_call_schedules", quota: "max_on_call_schedules" },
          repo.insertSchedule({
            id: uuidv7(),
            org_id: org.id,
            account_id: org.accountId,
            name: body.name,
            time_zone: body.time_zone,
            layers: lowerLayers(body.layers),
            overrides: lowerOverrides(body.overrides)
          })
        )
        yield* audit.append({
          event: "oncall.schedule_created",
          orgId: org.id,
          details: { schedule_id: row.id, name: row.name }
        })
        return toSchedule(row)
      })

    const update = (org: ActiveOrg, id: string, patch: Schedule.SchedulePatch) =>
      Effect.gen(function* () {
        const row = yield* one(org, id)
        // Only the lists sent are judged: a stored list naming someone who has since left stays readable.
        yield* membersOnly(org, namedUsers(patch.layers, patch.overrides))
        const updated = yield* repo.updateSchedule({
          id: row.id,
          org_id: org.id,
          account_id: org.accountId,
          name: patch.name ?? row.name,
          time_zone: patch.time_zone ?? row.time_zone,
          layers: patch.layers === undefined ? row.layers : lowerLayers(patch.layers),
          overrides: patch.overrides === undefined ? row.overrides : lowerOverrides(patch.overrides)
        })
        if (updated === undefined) return yield* Effect.fail(notFound)
        yield* audit.append({
          event: "oncall.schedule_updated",
          orgId: org.id,
          details: { schedule_id: updated.id, fields: Object.keys(patch) }
        })
        return toSchedule(updated)
      })

    /** Deletes the schedule unless a policy's step names it (409 SCHEDULE_IN_USE, the policies in details). */
    const remove = (org: ActiveOrg, id: string) =>
      Effect.gen(function* () {
        const row = yield* one(org, id)
        yield* repo.transaction(
          Effect.gen(function* () {
            yield* repo.lockReferences(org.id)
            const naming = yield* repo.policiesNaming(org.id, row.id)
            if (naming.length > 0) {
              return yield* Effect.fail(
                ApiError.make(
                  "SCHEDULE_IN_USE",
                  `${naming.length} escalation polic${naming.length === 1 ? "y names" : "ies name"} this schedule: ` +
                    "change their steps first",
                  { details: { escalation_policies: naming } }
                )
              )
            }
            const removed = yield* repo.remove("on_call_schedules", org.id, row.id)
            if (!removed) return yield* Effect.fail(notFound)
          })
        )
        yield* audit.append({
          event: "oncall.schedule_deleted",
          orgId: org.id,
          details: { schedule_id: row.id, name: row.name }
        })
      })

    const rulesOf = (org: { readonly id: OrgId }, row: ScheduleRow) =>
      Effect.map(
        repo.members(
          org.id,
          namedUsers(row.layers, row.overrides).map((n) => n.id)
        ),
        (members) => OnCall.overMembers(row, members)
      )

    /**
     * Who the org's schedule has on call at `at`, as the escalation walk asks it (no caller, no HTTP): undefined
     * when the org has no such schedule.
     */
    const onCallFor = (orgId: OrgId, scheduleId: string, at: Date) =>
      Effect.gen(function* () {
        const row = yield* repo.schedule(orgId, scheduleId)
        if (row === undefined) return undefined
        const { rules, layerOf } = yield* rulesOf({ id: orgId }, row)
        const answer = OnCall.onCallAt(rules, at)
        return { user_id: answer.user_id, layer: layerOf(answer.layer) }
      })

    /** Who is on call at `at` in the org's schedule. */
    const onCall = (org: ActiveOrg, id: string, at: DateTime.Utc) =>
      Effect.gen(function* () {
        const { rules, layerOf } = yield* rulesOf(org, yield* one(org, id))
        const answer = OnCall.onCallAt(rules, DateTime.toDate(at))
        return { at, user_id: answer.user_id, layer: layerOf(answer.layer) }
      })

    /** The shifts of `[from, to)`; the handler has bounded the window. */
    const shifts = (org: ActiveOrg, id: string, from: DateTime.Utc, to: DateTime.Utc) =>
      Effect.gen(function* () {
        const { rules, layerOf } = yield* rulesOf(org, yield* one(org, id))
        const data = OnCall.shifts(rules, DateTime.toDate(from), DateTime.toDate(to)).map((shift) => ({
          user_id: shift.user_id,
          starts_at: DateTime.unsafeFromDate(shift.starts_at),
          ends_at: DateTime.unsafeFromDate(shift.ends_at),
          layer: layerOf(shift.layer)
        }))
        return { from, to, data }
      })

    return {
      one,
      list,
      onCall,
      onCallFor,
      shifts,
      create,
      update,
      remove,
      get: (org: ActiveOrg, id: string) => Effect.map(one(org, id), toSchedule)
    }
  }),
  dependencies: [OnCallRepo.Default, Plans.Default, QuotaEvents.Default, AuditLog.Default]
}) {}
