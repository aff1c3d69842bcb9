/**
 * On-call's SQL (migration 0028): schedules and escalation policies, each a row whose documents (layers and
 * overrides, steps) are stored in their wire encoding and decoded with core's Schemas on the way out; the account's
 * counts for the pooled quotas; the org's default policy; and the lookups a write checks its references with (the
 * org's members, schedules and channels) and a delete checks its dependants with (policies naming a schedule,
 * monitors binding a policy).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { AccountId, OrgId } from "@signalman/core/Identity"
import { EscalationPolicyId, Step } from "@signalman/core/oncall/EscalationPolicy"
import { Layer, Override, ScheduleId } from "@signalman/core/oncall/Schedule"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as AccountLock from "../database/AccountLock.js"
import * as ReferenceLock from "../database/ReferenceLock.js"
import * as Transaction from "../database/Transaction.js"

const Layers = Schema.Array(Layer)
const Overrides = Schema.Array(Override)
const Steps = Schema.Array(Step)

/** A stored schedule; the documents arrive parsed from jsonb and decode through core's Schemas. */
export const ScheduleRow = Schema.Struct({
  id: ScheduleId,
  org_id: OrgId,
  name: Schema.String,
  time_zone: Schema.String,
  layers: Layers,
  overrides: Overrides,
  created_at: Schema.DateTimeUtcFromDate,
  updated_at: Schema.DateTimeUtcFromDate
})
export type ScheduleRow = typeof ScheduleRow.Type

/** A stored escalation policy. */
export const PolicyRow = Schema.Struct({
  id: EscalationPolicyId,
  org_id: OrgId,
  name: Schema.String,
  steps: Steps,
  repeat: Schema.Int,
  created_at: Schema.DateTimeUtcFromDate,
  updated_at: Schema.DateTimeUtcFromDate
})
export type PolicyRow = typeof PolicyRow.Type

/** A schedule as written: every column but the timestamps, the documents encoded to JSON text. */
export const ScheduleWrite = Schema.Struct({
  id: Schema.String,
  org_id: OrgId,
  account_id: AccountId,
  name: Schema.String,
  time_zone: Schema.String,
  layers: Schema.parseJson(Layers),
  overrides: Schema.parseJson(Overrides)
})

/** A policy as written. */
export const PolicyWrite = Schema.Struct({
  id: Schema.String,
  org_id: OrgId,
  account_id: AccountId,
  name: Schema.String,
  steps: Schema.parseJson(Steps),
  repeat: Schema.Int
})

const Page = Schema.Struct({ org_id: OrgId, limit: Schema.Int, offset: Schema.Int })
const OneOf = Schema.Struct({ org_id: OrgId, id: Schema.String })
const Among = Schema.Struct({ org_id: OrgId, ids: Schema.Array(Schema.String) })
const Count = Schema.Struct({ n: Schema.Int })
const Id = Schema.Struct({ id: Schema.String })
const Named = Schema.Struct({ id: Schema.String, name: Schema.String })
const DefaultRow = Schema.Struct({ id: Schema.NullOr(EscalationPolicyId) })

/** What an org's quota'd on-call table is. */
export type Table = "on_call_schedules" | "escalation_policies"

export class OnCallRepo extends Effect.Service<OnCallRepo>()("Signalman/OnCallRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const transaction = Transaction.make(sql)

    const schedule = SqlSchema.findOne({
      Request: OneOf,
      Result: ScheduleRow,
      execute: ({ org_id, id }) => sql`SELECT * FROM on_call_schedules WHERE id = ${id} AND org_id = ${org_id}`
    })

    const schedules = SqlSchema.findAll({
      Request: Page,
      Result: ScheduleRow,
      execute: ({ org_id, limit, offset }) => sql`
        SELECT * FROM on_call_schedules WHERE org_id = ${org_id} ORDER BY created_at, id LIMIT ${limit} OFFSET ${offset}
      `
    })

    const insertSchedule = SqlSchema.single({
      Request: ScheduleWrite,
      Result: ScheduleRow,
      execute: (row) => sql`
        INSERT INTO on_call_schedules (id, org_id, account_id, name, time_zone, layers, overrides)
        VALUES (${row.id}, ${row.org_id}, ${row.account_id}, ${row.name}, ${row.time_zone}, ${row.layers}::jsonb,
          ${row.overrides}::jsonb)
        RETURNING *
      `
    })

    const updateSchedule = SqlSchema.findOne({
      Request: ScheduleWrite,
      Result: ScheduleRow,
      execute: (row) => sql`
        UPDATE on_call_schedules SET name = ${row.name}, time_zone = ${row.time_zone}, layers = ${row.layers}::jsonb,
          overrides = ${row.overrides}::jsonb, updated_at = now()
        WHERE id = ${row.id} AND org_id = ${row.org_id}
        RETURNING *
      `
    })

    const policy = SqlSchema.findOne({
      Request: OneOf,
      Result: PolicyRow,
      execute: ({ org_id, id }) => sql`SELECT * FROM escalation_policies WHERE id = ${id} AND org_id = ${org_id}`
    })

    const policies = SqlSchema.findAll({
      Request: Page,
      Result: PolicyRow,
      execute: ({ org_id, limit, offset }) => sql`
        SELECT * FROM escalation_policies WHERE org_id = ${org_id} ORDER BY created_at, id LIMIT ${limit} OFFSET ${offset}
      `
    })

    const insertPolicy = SqlSchema.single({
      Request: PolicyWrite,
      Result: PolicyRow,
      execute: (row) => sql`
        INSERT INTO escalation_policies (id, org_id, account_id, name, steps, repeat)
        VALUES (${row.id}, ${row.org_id}, ${row.account_id}, ${row.name}, ${row.steps}::jsonb, ${row.repeat})
        RETURNING *
      `
    })

    const updatePolicy = SqlSchema.findOne({
      Request: PolicyWrite,
      Result: PolicyRow,
      execute: (row) => sql`
        UPDATE escalation_policies SET name = ${row.name}, steps = ${row.steps}::jsonb, repeat = ${row.repeat},
          updated_at = now()
        WHERE id = ${row.id} AND org_id = ${row.org_id}
        RETURNING *
      `
    })

    const countOf = (table: Table) =>
      SqlSchema.single({
        Request: OrgId,
        Result: Count,
        execute: (orgId) => sql`SELECT count(*)::int AS n FROM ${sql(table)} WHERE org_id = ${orgId}`
      })

    // Pooled per account: the live orgs' rows (a deleted org's rows wait for its purge and count no more).
    const countOfAccount = (table: Table) =>
      SqlSchema.single({
        Request: AccountId,
        Result: Count,
        execute: (accountId) => sql`
          SELECT count(*)::int AS n FROM ${sql(table)} t JOIN orgs o ON o.id = t.org_id
          WHERE t.account_id = ${accountId} AND o.deleted_at IS NULL
        `
      })

    const remove = (table: Table) =>
      SqlSchema.findOne({
        Request: OneOf,
        Result: Id,
        execute: ({ org_id, id }) =>
          sql`DELETE FROM ${sql(table)} WHERE id = ${id} AND org_id = ${org_id} RETURNING id::text AS id`
      })

    // A user who has left (or whose account was purged) is no member, though a schedule may still list them.
    const members = SqlSchema.findAll({
      Request: Among,
      Result: Id,
      execute: ({ org_id, ids }) => sql`
        SELECT m.user_id::text AS id FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.org_id = ${org_id} AND m.user_id = ANY(${ids}::uuid[]) AND u.deleted_at IS NULL
      `
    })

    const schedulesAmong = SqlSchema.findAll({
      Request: Among,
      Result: Id,
      execute: ({ org_id, ids }) =>
        sql`SELECT id::text AS id FROM on_call_schedules WHERE org_id = ${org_id} AND id = ANY(${ids}::uuid[])`
    })

    const channelsAmong = SqlSchema.findAll({
      Request: Among,
      Result: Id,
      execute: ({ org_id, ids }) =>
        sql`SELECT id::text AS id FROM channels WHERE org_id = ${org_id} AND id = ANY(${ids}::uuid[])`
    })

    const policiesAmong = SqlSchema.findAll({
      Request: Among,
      Result: Id,
      execute: ({ org_id, ids }) =>
        sql`SELECT id::text AS id FROM escalation_policies WHERE org_id = ${org_id} AND id = ANY(${ids}::uuid[])`
    })

    // Steps are stored with lower-case ids, so containment finds every step naming the schedule.
    const policiesNaming = SqlSchema.findAll({
      Request: OneOf,
      Result: Named,
      execute: ({ org_id, id }) => sql`
        SELECT id::text AS id, name FROM escalation_policies
        WHERE org_id = ${org_id}
          AND steps @> jsonb_build_array(jsonb_build_object('targets',
            jsonb_build_array(jsonb_build_object('type', 'schedule', 'id', ${id}::text))))
        ORDER BY created_at, id
      `
    })

    const monitorsBinding = SqlSchema.findAll({
      Request: OneOf,
      Result: Id,
      execute: ({ org_id, id }) => sql`
        SELECT id::text AS id FROM targets WHERE org_id = ${org_id} AND escalation_policy_id = ${id}
        ORDER BY created_at, id
      `
    })

    const defaultOf = SqlSchema.findOne({
      Request: OrgId,
      Result: DefaultRow,
      execute: (orgId) => sql`SELECT default_escalation_policy_id::text AS id FROM orgs WHERE id = ${orgId}`
    })

    const setDefault = SqlSchema.void({
      Request: Schema.Struct({ org_id: OrgId, id: Schema.NullOr(Schema.String) }),
      execute: ({ org_id, id }) => sql`UPDATE orgs SET default_escalation_policy_id = ${id} WHERE id = ${org_id}`
    })

    const asSet = (rows: ReadonlyArray<{ readonly id: string }>) => new Set(rows.map((r) => r.id))
    const among =
      (query: (request: typeof Among.Type) => Effect.Effect<ReadonlyArray<{ readonly id: string }>, unknown>) =>
      (orgId: OrgId, ids: ReadonlyArray<string>) =>
        ids.length === 0
          ? Effect.succeed(new Set<string>())
          : Effect.map(Effect.orDie(query({ org_id: orgId, ids: ids.map((id) => id.toLowerCase()) })), asSet)

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      transaction,
      /** Holds the account's lock to the end of the transaction: its quota counts serialise on it. */
      lockAccount: (accountId: AccountId) => AccountLock.lock(sql, accountId),
      /** Holds the org's reference lock: a write naming a thing and a delete of it cannot interleave. */
      lockReferences: (orgId: OrgId) =>
        Effect.orDie(Effect.provideService(ReferenceLock.lock(orgId), SqlClient.SqlClient, sql)),
      schedule: (orgId: OrgId, id: string) =>
        Effect.map(Effect.orDie(schedule({ org_id: orgId, id })), Option.getOrUndefined),
      schedules: (orgId: OrgId, limit: number, offset: number) =>
        Effect.orDie(
          Effect.all({
            rows: schedules({ org_id: orgId, limit, offset }),
            total: Effect.map(countOf("on_call_schedules")(orgId), (row) => row.n)
          })
        ),
      insertSchedule: (row: typeof ScheduleWrite.Type) => Effect.orDie(insertSchedule(row)),
      updateSchedule: (row: typeof ScheduleWrite.Type) =>
        Effect.map(Effect.orDie(updateSchedule(row)), Option.getOrUndefined),
      policy: (orgId: OrgId, id: string) =>
        Effect.map(Effect.orDie(policy({ org_id: orgId, id })), Option.getOrUndefined),
      policies: (orgId: OrgId, limit: number, offset: number) =>
        Effect.orDie(
          Effect.all({
            rows: policies({ org_id: orgId, limit, offset }),
            total: Effect.map(countOf("escalation_policies")(orgId), (row) => row.n)
          })
        ),
      insertPolicy: (row: typeof PolicyWrite.Type) => Effect.orDie(insertPolicy(row)),
      updatePolicy: (row: typeof PolicyWrite.Type) =>
        Effect.map(Effect.orDie(updatePolicy(row)), Option.getOrUndefined),
      /** How many rows of `table` the account's live orgs hold. */
      countOfAccount: (table: Table, accountId: AccountId) =>
        Effect.map(Effect.orDie(countOfAccount(table)(accountId)), (row) => row.n),
      /** True when the org had such a row to delete. */
      remove: (table: Table, orgId: OrgId, id: string) =>
        Effect.map(Effect.orDie(remove(table)({ org_id: orgId, id })), Option.isSome),
      /** Which of these user ids (lower-case) are members of the org. */
      members: among(members),
      /** Which of these ids (lower-case) name a schedule of the org. */
      schedulesAmong: among(schedulesAmong),
      /** Which of these ids (lower-case) name a notification channel of the org. */
      channelsAmong: among(channelsAmong),
      /** Which of these ids (lower-case) name an escalation policy of the org. */
      policiesAmong: among(policiesAmong),
      /** The org's policies with a step naming the schedule. */
      policiesNaming: (orgId: OrgId, scheduleId: string) =>
        Effect.orDie(policiesNaming({ org_id: orgId, id: scheduleId.toLowerCase() })),
      /** The ids of the org's monitors bound to the policy. */
      monitorsBinding: (orgId: OrgId, policyId: string) =>
        Effect.map(Effect.orDie(monitorsBinding({ org_id: orgId, id: policyId })), (rows) => rows.map((r) => r.id)),
      /** The org's default policy id, or null. */
      defaultPolicy: (orgId: OrgId) =>
        Effect.map(Effect.orDie(defaultOf(orgId)), (row) => (Option.isSome(row) ? row.value.id : null)),
      setDefaultPolicy: (orgId: OrgId, id: string | null) => Effect.orDie(setDefault({ org_id: orgId, id }))
    }
  })
}) {}
