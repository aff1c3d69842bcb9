/**
 * Org variables' SQL. A row is core's `Variable` with the sealed value in place of the value and `managed_by` as its
 * two columns; every read counts `used_by`, the org's monitors whose recorded `variable_keys` hold the key. A write
 * taking a `managed_by` another variable holds is a `UniqueViolation`.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { OrgId } from "@signalman/core/Identity"
import * as ManagedBy from "@signalman/core/ManagedBy"
import { Variable } from "@signalman/core/Variable"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Struct from "effect/Struct"
import * as ManagedColumns from "../database/ManagedColumns.js"
import * as ReferenceLock from "../database/ReferenceLock.js"
import { refusable, UniqueViolation } from "../database/UniqueViolation.js"

/** A stored variable: its value sealed, whether secret or not. */
export const VariableRow = Schema.Struct({
  ...Struct.omit(Variable.fields, "value", "managed_by"),
  ...ManagedColumns.fields,
  value_sealed: Schema.String
})
export type VariableRow = typeof VariableRow.Type

/** A page of the org's variables, of one config project when `managed_by` is given. */
export interface ListQuery {
  readonly limit: number
  readonly offset: number
  readonly managed_by?: string | undefined
}

const Count = Schema.Struct({ n: Schema.Int })
const Id = Schema.Struct({ id: Schema.String })
const OfOrg = Schema.Struct({ org_id: OrgId, id: Schema.String })

/** A new variable's row. */
export const NewVariable = Schema.Struct({
  id: Schema.String,
  org_id: OrgId,
  key: Schema.String,
  is_secret: Schema.Boolean,
  value_sealed: Schema.String,
  ...ManagedColumns.fields
})

/** A changed variable: a new sealed value (null keeps the stored one), and `managed_by` to stamp when given. */
export const VariableChange = Schema.Struct({
  org_id: OrgId,
  id: Schema.String,
  value_sealed: Schema.NullOr(Schema.String),
  managed_by: Schema.UndefinedOr(ManagedBy.ManagedBy)
})

const Listing = Schema.Struct({
  org_id: OrgId,
  managed_by: Schema.UndefinedOr(Schema.String),
  limit: Schema.Int,
  offset: Schema.Int
})

export class VariablesRepo extends Effect.Service<VariablesRepo>()("Signalman/VariablesRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // Every read answers used_by alongside the row; `v` is the variables alias of the query it sits in.
    const select = sql`
      SELECT v.id, v.key, v.is_secret, v.value_sealed, v.managed_by_project, v.managed_by_key,
        (SELECT count(*) FROM targets t WHERE t.org_id = v.org_id AND v.key = ANY(t.variable_keys))::int AS used_by
      FROM variables v
    `

    const one = SqlSchema.findOne({
      Request: OfOrg,
      Result: VariableRow,
      execute: ({ org_id, id }) => sql`${select} WHERE v.id = ${id} AND v.org_id = ${org_id}`
    })

    const where = (listing: typeof Listing.Encoded) =>
      sql.and([
        sql`v.org_id = ${listing.org_id}`,
        ...(listing.managed_by === undefined ? [] : [sql`v.managed_by_project = ${listing.managed_by}`])
      ])

    const count = SqlSchema.single({
      Request: Listing,
      Result: Count,
      execute: (listing) => sql`SELECT count(*)::int AS n FROM variables v WHERE ${where(listing)}`
    })

    const page = SqlSchema.findAll({
      Request: Listing,
      Result: VariableRow,
      execute: (listing) => sql`
        ${select} WHERE ${where(listing)} ORDER BY v.key LIMIT ${listing.limit} OFFSET ${listing.offset}
      `
    })

    const forKeys = SqlSchema.findAll({
      Request: Schema.Struct({ org_id: OrgId, keys: Schema.Array(Schema.String) }),
      Result: VariableRow,
      execute: ({ org_id, keys }) => sql`${select} WHERE v.org_id = ${org_id} AND v.key IN ${sql.in(keys)}`
    })

    const insert = SqlSchema.findAll({
      Request: NewVariable,
      Result: Id,
      execute: (row) => sql`
        INSERT INTO variables (id, org_id, key, is_secret, value_sealed, managed_by_project, managed_by_key)
        VALUES (${row.id}, ${row.org_id}, ${row.key}, ${row.is_secret}, ${row.value_sealed},
          ${row.managed_by_project}, ${row.managed_by_key})
        ON CONFLICT (org_id, key) DO NOTHING
        RETURNING id
      `
    })

    const change = SqlSchema.findAll({
      Request: VariableChange,
      Result: Id,
      execute: (c) => sql`
        UPDATE variables SET ${ManagedColumns.stamp(sql, c.managed_by)}
          value_sealed = coalesce(${c.value_sealed}, value_sealed), updated_at = now()
        WHERE id = ${c.id} AND org_id = ${c.org_id}
        RETURNING id
      `
    })

    const holder = SqlSchema.findAll({
      Request: ManagedColumns.Claim,
      Result: Id,
      execute: (c) => sql`SELECT id::text AS id FROM variables WHERE ${ManagedColumns.holding(sql, c)}`
    })

    const remove = SqlSchema.findAll({
      Request: OfOrg,
      Result: Id,
      execute: ({ org_id, id }) =>
        // Under the org's reference lock, so no monitor saved meanwhile can take up the key being deleted.
        sql.withTransaction(
          Effect.zipRight(
            Effect.provideService(ReferenceLock.lock(org_id), SqlClient.SqlClient, sql),
            sql`
              DELETE FROM variables v
              WHERE v.id = ${id} AND v.org_id = ${org_id}
                AND NOT EXISTS (SELECT 1 FROM targets t WHERE t.org_id = v.org_id AND v.key = ANY(t.variable_keys))
              RETURNING v.id
            `
          )
        )
    })

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      one: (orgId: OrgId, id: string) => Effect.map(Effect.orDie(one({ org_id: orgId, id })), Option.getOrUndefined),
      list: (orgId: OrgId, query: ListQuery) => {
        const listing = { org_id: orgId, managed_by: query.managed_by, limit: query.limit, offset: query.offset }
        return Effect.orDie(
          Effect.all({
            total: Effect.map(count(listing), (row) => row.n),
            rows: page(listing)
          })
        )
      },
      /** The org's variables with these keys (those that exist). */
      forKeys: (orgId: OrgId, keys: ReadonlyArray<string>) =>
        keys.length === 0
          ? Effect.succeed<ReadonlyArray<VariableRow>>([])
          : Effect.orDie(forKeys({ org_id: orgId, keys })),
      /**
       * False when the org already has the key (the unique index decides a race); fails with `UniqueViolation` when
       * it takes a `managed_by` another variable holds.
       */
      insert: (row: typeof NewVariable.Type) => Effect.map(refusable(insert(row)), (rows) => rows.length > 0),
      /**
       * False when the org has no such variable; fails with `UniqueViolation` when it takes a `managed_by` another
       * variable holds.
       */
      change: (c: typeof VariableChange.Type) => Effect.map(refusable(change(c)), (rows) => rows.length > 0),
      /** The variable of the org, other than `except`, that holds this (project, key), if any. */
      holder: (orgId: OrgId, claim: ManagedBy.ManagedBy, except: string | null = null) =>
        Effect.map(Effect.orDie(holder({ org_id: orgId, claim, except })), (rows): string | undefined => rows[0]?.id),
      /**
       * Deletes unless a monitor references the key, in one statement so the guard and the delete see the same
       * targets; false when nothing was deleted.
       */
      remove: (orgId: OrgId, id: string) =>
        Effect.map(Effect.orDie(remove({ org_id: orgId, id })), (rows) => rows.length > 0)
    }
  })
}) {
  /**
   * An in-memory repository for unit tests of the service's rules: one store for every org, with `usedBy` giving
   * how many monitors reference each key (what the database counts from the monitors' `variable_keys`). A write
   * taking a `managed_by` another variable of the org holds fails as the unique index makes it.
   */
  static readonly Test = (usedBy: Readonly<Record<string, number>> = {}) =>
    Layer.sync(VariablesRepo, () => {
      const stored = new Map<string, typeof NewVariable.Type>()
      const row = (v: typeof NewVariable.Type): VariableRow =>
        VariableRow.make({
          id: VariableRow.fields.id.make(v.id),
          key: v.key,
          is_secret: v.is_secret,
          value_sealed: v.value_sealed,
          used_by: usedBy[v.key] ?? 0,
          managed_by_project: v.managed_by_project,
          managed_by_key: v.managed_by_key
        })
      const holderOf = (orgId: OrgId, claim: ManagedBy.ManagedBy, except: string | null) =>
        ofOrg(orgId).find(
          (v) => v.id !== except && v.managed_by_project === claim.project && v.managed_by_key === claim.key
        )
      const refuseClash = (v: typeof NewVariable.Type) => {
        const claim = ManagedColumns.managedBy(v)
        return claim !== null && holderOf(v.org_id, claim, v.id) !== undefined
          ? Effect.fail(new UniqueViolation({ constraint: "variables_managed_by" }))
          : Effect.void
      }
      const ofOrg = (orgId: OrgId) =>
        [...stored.values()].filter((v) => v.org_id === orgId).sort((a, b) => (a.key < b.key ? -1 : 1))
      const find = (orgId: OrgId, id: string) => {
        const v = stored.get(id)
        return v === undefined || v.org_id !== orgId ? undefined : v
      }
      return VariablesRepo.make({
        one: (orgId, id) =>
          Effect.sync(() => Option.getOrUndefined(Option.map(Option.fromNullable(find(orgId, id)), row))),
        list: (orgId, query) =>
          Effect.sync(() => {
            const all = ofOrg(orgId).filter(
              (v) => query.managed_by === undefined || v.managed_by_project === query.managed_by
            )
            return { total: all.length, rows: all.slice(query.offset, query.offset + query.limit).map(row) }
          }),
        forKeys: (orgId, keys) =>
          Effect.sync(() =>
            ofOrg(orgId)
              .filter((v) => keys.includes(v.key))
              .map(row)
          ),
        insert: (v) =>
          Effect.suspend(() => {
            if (ofOrg(v.org_id).some((other) => other.key === v.key)) return Effect.succeed(false)
            return Effect.as(
              Effect.zipRight(
                refuseClash(v),
                Effect.sync(() => stored.set(v.id, v))
              ),
              true
            )
          }),
        change: (c) =>
          Effect.suspend(() => {
            const v = find(c.org_id, c.id)
            if (v === undefined) return Effect.succeed(false)
            const changed = {
              ...v,
              value_sealed: c.value_sealed ?? v.value_sealed,
              ...(c.managed_by === undefined ? {} : ManagedColumns.columns(c.managed_by))
            }
            return Effect.as(
              Effect.zipRight(
                refuseClash(changed),
                Effect.sync(() => stored.set(c.id, changed))
              ),
              true
            )
          }),
        holder: (orgId, claim, except = null) => Effect.sync(() => holderOf(orgId, claim, except)?.id),
        remove: (orgId, id) =>
          Effect.sync(() => {
            const v = find(orgId, id)
            if (v === undefined || (usedBy[v.key] ?? 0) > 0) return false
            return stored.delete(id)
          })
      })
    })
}
