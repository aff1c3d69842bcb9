/**
 * Org variables' SQL. A row is core's `Variable` with the sealed value in place of the value; every read counts
 * `used_by`, the org's monitors whose recorded `variable_keys` hold the key.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { OrgId } from "@signalman/core/Identity"
import { Variable } from "@signalman/core/Variable"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Struct from "effect/Struct"
import * as ReferenceLock from "../database/ReferenceLock.js"

/** A stored variable: its value sealed, whether secret or not. */
export const VariableRow = Schema.Struct({
  ...Struct.omit(Variable.fields, "value"),
  value_sealed: Schema.String
})
export type VariableRow = typeof VariableRow.Type

const Count = Schema.Struct({ n: Schema.Int })
const Id = Schema.Struct({ id: Schema.String })
const OfOrg = Schema.Struct({ org_id: OrgId, id: Schema.String })

/** A new variable's row. */
export const NewVariable = Schema.Struct({
  id: Schema.String,
  org_id: OrgId,
  key: Schema.String,
  is_secret: Schema.Boolean,
  value_sealed: Schema.String
})

export class VariablesRepo extends Effect.Service<VariablesRepo>()("Signalman/VariablesRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // Every read answers used_by alongside the row; `v` is the variables alias of the query it sits in.
    const select = sql`
      SELECT v.id, v.key, v.is_secret, v.value_sealed,
        (SELECT count(*) FROM targets t WHERE t.org_id = v.org_id AND v.key = ANY(t.variable_keys))::int AS used_by
      FROM variables v
    `

    const one = SqlSchema.findOne({
      Request: OfOrg,
      Result: VariableRow,
      execute: ({ org_id, id }) => sql`${select} WHERE v.id = ${id} AND v.org_id = ${org_id}`
    })

    const count = SqlSchema.single({
      Request: OrgId,
      Result: Count,
      execute: (orgId) => sql`SELECT count(*)::int AS n FROM variables WHERE org_id = ${orgId}`
    })

    const page = SqlSchema.findAll({
      Request: Schema.Struct({ org_id: OrgId, limit: Schema.Int, offset: Schema.Int }),
      Result: VariableRow,
      execute: ({ org_id, limit, offset }) => sql`
        ${select} WHERE v.org_id = ${org_id} ORDER BY v.key LIMIT ${limit} OFFSET ${offset}
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
        INSERT INTO variables (id, org_id, key, is_secret, value_sealed)
        VALUES (${row.id}, ${row.org_id}, ${row.key}, ${row.is_secret}, ${row.value_sealed})
        ON CONFLICT (org_id, key) DO NOTHING
        RETURNING id
      `
    })

    const rotate = SqlSchema.findAll({
      Request: Schema.Struct({ org_id: OrgId, id: Schema.String, value_sealed: Schema.String }),
      Result: Id,
      execute: ({ org_id, id, value_sealed }) => sql`
        UPDATE variables SET value_sealed = ${value_sealed}, updated_at = now()
        WHERE id = ${id} AND org_id = ${org_id}
        RETURNING id
      `
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
      list: (orgId: OrgId, query: { readonly limit: number; readonly offset: number }) =>
        Effect.orDie(
          Effect.all({
            total: Effect.map(count(orgId), (row) => row.n),
            rows: page({ org_id: orgId, limit: query.limit, offset: query.offset })
          })
        ),
      /** The org's variables with these keys (those that exist). */
      forKeys: (orgId: OrgId, keys: ReadonlyArray<string>) =>
        keys.length === 0
          ? Effect.succeed<ReadonlyArray<VariableRow>>([])
          : Effect.orDie(forKeys({ org_id: orgId, keys })),
      /** False when the org already has the key (the unique index decides a race). */
      insert: (row: typeof NewVariable.Type) => Effect.map(Effect.orDie(insert(row)), (rows) => rows.length > 0),
      /** False when the org has no such variable. */
      rotate: (orgId: OrgId, id: string, valueSealed: string) =>
        Effect.map(Effect.orDie(rotate({ org_id: orgId, id, value_sealed: valueSealed })), (rows) => rows.length > 0),
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
   * how many monitors reference each key (what the database counts from the monitors' `variable_keys`).
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
          used_by: usedBy[v.key] ?? 0
        })
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
            const all = ofOrg(orgId)
            return { total: all.length, rows: all.slice(query.offset, query.offset + query.limit).map(row) }
          }),
        forKeys: (orgId, keys) =>
          Effect.sync(() =>
            ofOrg(orgId)
              .filter((v) => keys.includes(v.key))
              .map(row)
          ),
        insert: (v) =>
          Effect.sync(() => {
            if (ofOrg(v.org_id).some((other) => other.key === v.key)) return false
            stored.set(v.id, v)
            return true
          }),
        rotate: (orgId, id, valueSealed) =>
          Effect.sync(() => {
            const v = find(orgId, id)
            if (v !== undefined) stored.set(id, { ...v, value_sealed: valueSealed })
            return v !== undefined
          }),
        remove: (orgId, id) =>
          Effect.sync(() => {
            const v = find(orgId, id)
            if (v === undefined || (usedBy[v.key] ?? 0) > 0) return false
            return stored.delete(id)
          })
      })
    })
}
