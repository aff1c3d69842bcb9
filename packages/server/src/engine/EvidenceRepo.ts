/**
 * The SQL of `result_evidence`, what a run kept beside its result (a failed flow's PNG screenshot): written in the
 * result store's transaction, read by the screenshot route, pruned by the engine's upkeep. Rows are rare (failed
 * flows only) and each holds a picture, so each goes in a statement of its own with the bytes as a binary
 * parameter, never inside a JSON batch.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/** One screenshot to keep, named by `id` (the id its result's `screenshot_url` carries). */
export const EvidenceRecord = Schema.Struct({
  id: Schema.String,
  target_id: Schema.String,
  region: Schema.String,
  /** ISO 8601: the result's time. */
  checked_at: Schema.String,
  png: Schema.Uint8ArrayFromSelf
})
export type EvidenceRecord = typeof EvidenceRecord.Type

/** A stored screenshot and when it stops being served. */
export const Screenshot = Schema.Struct({ png: Schema.Uint8ArrayFromSelf, expires_at: Schema.DateFromSelf })
export type Screenshot = typeof Screenshot.Type

const Count = Schema.Struct({ n: Schema.Number })

export class EvidenceRepo extends Effect.Service<EvidenceRepo>()("Signalman/EvidenceRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // Kept for the account's evidence_days (an override only raises it, as in core/Plan.effective) from the result's
    // time. A monitor deleted meanwhile has no account to read: its evidence is not written.
    const insert = SqlSchema.void({
      Request: EvidenceRecord,
      execute: (r) => sql`
        INSERT INTO result_evidence (id, target_id, region, checked_at, png, expires_at)
        SELECT ${r.id}::uuid, t.id, ${r.region}, ${r.checked_at}::timestamptz, ${r.png},
          ${r.checked_at}::timestamptz + make_interval(days =>
            GREATEST(p.evidence_days, COALESCE((ov.limits->>'evidence_days')::int, 0)))
        FROM targets t
        JOIN accounts a ON a.id = t.account_id
        JOIN plans p ON p.id = a.plan_id
        LEFT JOIN account_overrides ov ON ov.account_id = a.id
        WHERE t.id = ${r.target_id}::uuid
      `
    })

    const screenshot = SqlSchema.findOne({
      Request: Schema.Struct({ target_id: Schema.String, id: Schema.String }),
      Result: Screenshot,
      execute: ({ target_id, id }) => sql`
        SELECT png, expires_at FROM result_evidence
        WHERE id = ${id}::uuid AND target_id = ${target_id}::uuid AND expires_at > now()
      `
    })

    const prune = SqlSchema.single({
      Request: Schema.Void,
      Result: Count,
      execute: () => sql`
        WITH deleted AS (
          DELETE FROM result_evidence e
          WHERE e.expires_at <= now() OR NOT EXISTS (SELECT 1 FROM targets t WHERE t.id = e.target_id)
          RETURNING e.id
        )
        SELECT count(*)::int AS n FROM deleted
      `
    })

    // The database failing, or our own rows failing their schema, is a defect at this boundary.
    return {
      /** Writes the screenshots; run inside the transaction that stores their results. */
      insert: (records: ReadonlyArray<EvidenceRecord>) =>
        Effect.forEach(records, (record) => Effect.orDie(insert(record)), { discard: true }),
      /** The monitor's screenshot by its id while it is kept, or undefined (unknown, another monitor's, expired). */
      screenshot: (targetId: string, id: string) =>
        Effect.map(Effect.orDie(screenshot({ target_id: targetId, id })), Option.getOrUndefined),
      /** Deletes the screenshots past their `expires_at` and those of deleted monitors; answers how many. */
      prune: Effect.map(Effect.orDie(prune()), (row) => row.n)
    }
  })
}) {}
