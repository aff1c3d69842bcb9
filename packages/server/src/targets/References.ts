/**
 * What a monitor refers to by name or id, outside its own row: the org's variables (`{{key}}`) and notification
 * channels (alert bindings). Both are checked before a write, but a variable or channel deleted between that check
 * and the write's commit would leave a monitor pointing at nothing. So every write that stores references, and
 * every delete of a referenced thing, takes the org's reference lock inside its transaction; the write then checks
 * again under the lock, when no delete can slip in.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as ApiError from "@signalman/core/ApiError"
import * as Effect from "effect/Effect"
import * as ReferenceLock from "../database/ReferenceLock.js"

/** Holds the org's reference lock to the end of the current transaction (`database/ReferenceLock.ts`). */
export const lock = ReferenceLock.lock

interface Referencing {
  readonly variable_keys: ReadonlyArray<string>
  readonly alerts: ReadonlyArray<{ readonly channel_id: string }>
}

/**
 * Under the lock: every variable key and channel the monitors name still exists, or the refusal a save would
 * have given had the delete come first.
 */
export const verify = (orgId: string, monitors: ReadonlyArray<Referencing>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const keys = [...new Set(monitors.flatMap((m) => m.variable_keys))]
    const channels = [...new Set(monitors.flatMap((m) => m.alerts.map((a) => a.channel_id.toLowerCase())))]
    if (keys.length > 0) {
      const found = yield* sql<{ key: string }>`
        SELECT key FROM variables WHERE org_id = ${orgId} AND key = ANY(${keys}::text[])
      `
      const present = new Set(found.map((r) => r.key))
      const missing = keys.find((key) => !present.has(key))
      if (missing !== undefined) {
        return yield* Effect.fail(
          ApiError.make("UNRESOLVED_VARIABLE", `{{${missing}}} was deleted while this monitor was being saved`, {
            details: { key: missing }
          })
        )
      }
    }
    if (channels.length > 0) {
      const found = yield* sql<{ id: string }>`
        SELECT id::text AS id FROM channels WHERE org_id = ${orgId} AND id = ANY(${channels}::uuid[])
      `
      const present = new Set(found.map((r) => r.id))
      const missing = channels.find((id) => !present.has(id))
      if (missing !== undefined) {
        return yield* Effect.fail(
          ApiError.make("VALIDATION_FAILED", "A bound notification channel was deleted while this monitor was saved", {
            details: { channel_id: missing }
          })
        )
      }
    }
  })
