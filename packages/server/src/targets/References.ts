/**
 * What a monitor refers to by name or id, outside its own row: the org's variables (`{{key}}`), notification
 * channels (alert bindings) and escalation policy. Each is checked before a write, but one deleted between that
 * check and the write's commit would leave a monitor pointing at nothing. So every write that stores references, and
 * every delete of a referenced thing, takes the org's reference lock inside its transaction; the write then checks
 * again under the lock, when no delete can slip in.
 */
import * as ApiError from "@signalman/core/ApiError"
import type { OrgId } from "@signalman/core/Identity"
import * as Effect from "effect/Effect"
import { TargetsRepo } from "./Repo.js"

/** What a monitor names: its variable keys, its alert bindings and its escalation policy. */
export interface Referencing {
  readonly variable_keys: ReadonlyArray<string>
  readonly alerts: ReadonlyArray<{ readonly channel_id: string }>
  readonly escalation_policy_id?: string | null
}

export class References extends Effect.Service<References>()("Signalman/TargetReferences", {
  effect: Effect.gen(function* () {
    const repo = yield* TargetsRepo

    /**
     * Under the lock: every variable key and channel the monitors name still exists, or the refusal a save would
     * have given had the delete come first.
     */
    const verify = (orgId: OrgId, monitors: ReadonlyArray<Referencing>) =>
      Effect.gen(function* () {
        const keys = [...new Set(monitors.flatMap((m) => m.variable_keys))]
        const channels = [...new Set(monitors.flatMap((m) => m.alerts.map((a) => a.channel_id.toLowerCase())))]
        if (keys.length > 0) {
          const present = yield* repo.variableKeys(orgId, keys)
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
          const present = yield* repo.channelIds(orgId, channels)
          const missing = channels.find((id) => !present.has(id))
          if (missing !== undefined) {
            return yield* Effect.fail(
              ApiError.make(
                "VALIDATION_FAILED",
                "A bound notification channel was deleted while this monitor was saved",
                { details: { channel_id: missing } }
              )
            )
          }
        }
        const policies = [
          ...new Set(monitors.flatMap((m) => (m.escalation_policy_id ? [m.escalation_policy_id.toLowerCase()] : [])))
        ]
        if (policies.length > 0) {
          const present = yield* repo.policyIds(orgId, policies)
          const missing = policies.find((id) => !present.has(id))
          if (missing !== undefined) {
            return yield* Effect.fail(
              ApiError.make("VALIDATION_FAILED", "No escalation policy of this org has this id", {
                field: "escalation_policy_id",
                details: { escalation_policy_id: missing }
              })
            )
          }
        }
      })

    /** Holds the org's reference lock, then verifies the monitors' references under it. */
    const lockAndVerify = (orgId: OrgId, monitors: ReadonlyArray<Referencing>) =>
      Effect.zipRight(repo.lockReferences(orgId), verify(orgId, monitors))

    return { lockAndVerify }
  }),
  dependencies: [TargetsRepo.Default]
}) {}
