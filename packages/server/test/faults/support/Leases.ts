/**
 * The leases of the `schedules` table as a fault test reads them: which rows each worker holds now (`leased_by` is
 * a token a worker process draws at boot, one per process, and shows nowhere else), and which token belongs to a
 * worker that stopped: its rows keep the very leases they had, while a live worker's change with every claim.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export interface Lease {
  readonly target_id: string
  readonly leased_by: string
  /** The slot it was claimed for (epoch ms). */
  readonly due_ms: number
  readonly until_ms: number
}

/** Every leased row of the local region now. */
export const leased = (sql: SqlClient.SqlClient) =>
  Effect.map(
    Effect.orDie(sql<{ target_id: string; leased_by: string; due_ms: number; until_ms: number }>`
      SELECT target_id::text AS target_id, leased_by,
        round(extract(epoch FROM next_run_at) * 1000)::float8 AS due_ms,
        round(extract(epoch FROM leased_until) * 1000)::float8 AS until_ms
      FROM schedules WHERE leased_by IS NOT NULL AND region = 'local'
    `),
    (rows) => rows.map((row): Lease => ({ ...row, due_ms: Number(row.due_ms), until_ms: Number(row.until_ms) }))
  )

/** The tokens holding rows in a snapshot. */
export const holders = (snapshot: ReadonlyArray<Lease>): Set<string> => new Set(snapshot.map((l) => l.leased_by))

const key = (l: Lease) => `${l.target_id}@${l.due_ms}@${l.until_ms}`

/**
 * The token of a worker that stopped between two snapshots: one holding rows in both, whose later rows are all
 * among the earlier ones, unchanged (a live worker claims new slots, with new leases, between them). Undefined
 * when no token or more than one looks so (the snapshots were too close together to tell).
 */
export const stopped = (earlier: ReadonlyArray<Lease>, later: ReadonlyArray<Lease>): string | undefined => {
  const before = new Set(earlier.map(key))
  const still = [...holders(later)].filter((token) =>
    later.filter((l) => l.leased_by === token).every((l) => before.has(key(l)))
  )
  return still.length === 1 ? still[0] : undefined
}
