/**
 * `managed_by` as the five managed tables store it (migration 0022): two columns, both null or both set, so the
 * unique index and the per-project list read plain text columns. Rows carry the columns; answers carry the object.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as ManagedBy from "@signalman/core/ManagedBy"
import * as Schema from "effect/Schema"

/** The columns, for a row schema. */
export const fields = {
  managed_by_project: Schema.NullOr(ManagedBy.Project),
  managed_by_key: Schema.NullOr(ManagedBy.Key)
}

/** The columns of a row. */
export interface Columns {
  readonly managed_by_project: string | null
  readonly managed_by_key: string | null
}

/** The columns a write stores: null for nobody. */
export const columns = (managedBy: ManagedBy.ManagedBy | null | undefined): Columns => ({
  managed_by_project: managedBy?.project ?? null,
  managed_by_key: managedBy?.key ?? null
})

/**
 * The assignments an UPDATE makes of a `managed_by` it carries, each followed by a comma; nothing when the write
 * leaves it as stored (placed before the statement's other assignments).
 */
export const stamp = (sql: SqlClient.SqlClient, managedBy: ManagedBy.ManagedBy | undefined) =>
  managedBy === undefined ? sql`` : sql`managed_by_project = ${managedBy.project}, managed_by_key = ${managedBy.key},`

/** A lookup of the resource of an org that holds a (project, key), other than `except` (the one being written). */
export const Claim = Schema.Struct({
  org_id: Schema.String,
  claim: ManagedBy.ManagedBy,
  except: Schema.NullOr(Schema.String)
})

/** The condition of {@link Claim} on a managed table's own columns (no alias), for a `WHERE`. */
export const holding = (sql: SqlClient.SqlClient, { org_id, claim, except }: typeof Claim.Encoded) =>
  sql.and([
    sql`org_id = ${org_id}`,
    sql`managed_by_project = ${claim.project}`,
    sql`managed_by_key = ${claim.key}`,
    ...(except === null ? [] : [sql`id <> ${except}`])
  ])

/** A row's `managed_by` as answered. */
export const managedBy = (row: Columns): ManagedBy.ManagedBy | null =>
  row.managed_by_project === null || row.managed_by_key === null
    ? null
    : { project: row.managed_by_project, key: row.managed_by_key }
