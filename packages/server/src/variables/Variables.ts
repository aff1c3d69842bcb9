/**
 * Org variables: the values checks reference as `{{key}}`. Every value is sealed at rest, secret or not; the
 * API opens a value only to show a non-secret one, or to run a check once (`POST /targets/test`).
 *
 * `used_by` counts the org's monitors whose recorded `variable_keys` hold the key (written with every target
 * save), so neither the count nor the delete guard needs to open a sealed check.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { OrgId } from "@signalman/core/Identity"
import { Variable, VariableId } from "@signalman/core/Variable"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Sealer } from "../crypto/Sealer.js"
import { uuidv7 } from "../Ids.js"
import * as References from "../targets/References.js"

const VariableRow = Schema.Struct({
  id: VariableId,
  key: Schema.String,
  is_secret: Schema.Boolean,
  value_sealed: Schema.String,
  used_by: Schema.Int
})
export type VariableRow = typeof VariableRow.Type

export interface ListQuery {
  readonly limit: number
  readonly offset: number
}

export class Variables extends Effect.Service<Variables>()("Signalman/Variables", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const sealer = yield* Sealer
    const decode = Schema.decodeUnknown(Schema.Array(VariableRow))

    // Every read answers used_by alongside the row; `v` is the variables alias of the query it sits in.
    const select = sql`
      SELECT v.id, v.key, v.is_secret, v.value_sealed,
        (SELECT count(*) FROM targets t WHERE t.org_id = v.org_id AND v.key = ANY(t.variable_keys))::int AS used_by
      FROM variables v
    `

    const one = (orgId: OrgId, id: string) =>
      sql`${select} WHERE v.id = ${id} AND v.org_id = ${orgId}`.pipe(
        Effect.flatMap(decode),
        Effect.map((rows) => rows[0]),
        Effect.orDie
      )

    const list = (orgId: OrgId, query: ListQuery) =>
      Effect.gen(function* () {
        const [count] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM variables WHERE org_id = ${orgId}`
        const rows = yield* sql`
          ${select} WHERE v.org_id = ${orgId} ORDER BY v.key LIMIT ${query.limit} OFFSET ${query.offset}
        `.pipe(Effect.flatMap(decode))
        return { rows, total: count?.n ?? 0 }
      }).pipe(Effect.orDie)

    /** The org's variables with these keys (those that exist), for resolving a check's references. */
    const forKeys = (orgId: OrgId, keys: ReadonlyArray<string>) =>
      keys.length === 0
        ? Effect.succeed<ReadonlyArray<VariableRow>>([])
        : sql`${select} WHERE v.org_id = ${orgId} AND v.key IN ${sql.in([...keys])}`.pipe(
            Effect.flatMap(decode),
            Effect.orDie
          )

    /** A new variable, or `Exists` when the org already has the key (the unique index decides a race). */
    const create = (
      orgId: OrgId,
      input: { readonly key: string; readonly is_secret: boolean; readonly value: string }
    ) =>
      Effect.gen(function* () {
        const id = uuidv7()
        const inserted = yield* sql<{ id: string }>`
          INSERT INTO variables (id, org_id, key, is_secret, value_sealed)
          VALUES (${id}, ${orgId}, ${input.key}, ${input.is_secret}, ${sealer.seal(input.value)})
          ON CONFLICT (org_id, key) DO NOTHING
          RETURNING id
        `.pipe(Effect.orDie)
        if (inserted.length === 0) return { _tag: "Exists" } as const
        const row = yield* one(orgId, id)
        if (row === undefined) return yield* Effect.dieMessage("variable vanished after insert")
        return { _tag: "Created", row } as const
      })

    const rotate = (orgId: OrgId, id: string, value: string) =>
      Effect.gen(function* () {
        const updated = yield* sql<{ id: string }>`
          UPDATE variables SET value_sealed = ${sealer.seal(value)}, updated_at = now()
          WHERE id = ${id} AND org_id = ${orgId}
          RETURNING id
        `.pipe(Effect.orDie)
        return updated.length === 0 ? undefined : yield* one(orgId, id)
      })

    /**
     * Deletes unless a monitor references the key, in one statement so the guard and the delete see the same
     * targets. A monitor saved concurrently with the delete can still slip past; it then fails to resolve at
     * probe time rather than running with a missing value.
     */
    const remove = (orgId: OrgId, id: string) =>
      Effect.gen(function* () {
        // Under the org's reference lock, so no monitor saved meanwhile can take up the key being deleted.
        const deleted = yield* sql
          .withTransaction(
            Effect.zipRight(
              References.lock(orgId),
              sql<{ id: string }>`
                DELETE FROM variables v
                WHERE v.id = ${id} AND v.org_id = ${orgId}
                  AND NOT EXISTS (SELECT 1 FROM targets t WHERE t.org_id = v.org_id AND v.key = ANY(t.variable_keys))
                RETURNING v.id
              `
            )
          )
          .pipe(Effect.orDie)
        if (deleted.length > 0) return { _tag: "Deleted" } as const
        const row = yield* one(orgId, id)
        return row === undefined ? ({ _tag: "NotFound" } as const) : ({ _tag: "InUse", row } as const)
      })

    /** The value in the clear. A value that will not open means the key changed under the data: a defect. */
    const open = (row: VariableRow) => sealer.open(row.value_sealed).pipe(Effect.orDie)

    /** The row as the API shows it: a secret's value is null on every read. */
    const show = (row: VariableRow) =>
      Effect.map(
        row.is_secret ? Effect.succeed(null) : open(row),
        (value) => new Variable({ id: row.id, key: row.key, is_secret: row.is_secret, value, used_by: row.used_by })
      )

    return { one, list, forKeys, create, rotate, remove, open, show }
  }),
  dependencies: [Sealer.Default]
}) {}
