/**
 * Escalation policies: creating one under the account's `max_escalation_policies` quota (counted under the
 * account's lock), reading, listing, changing and deleting them, and the org's default policy.
 *
 * Every step target must be the org's: a member (`user`), a schedule or a notification channel (400
 * VALIDATION_FAILED on `steps[i].targets[j].id`). The check runs under the org's reference lock, which a schedule's
 * delete and a monitor's write take too, so nothing named can go between the check and the commit. A policy a
 * monitor binds, or the org's default, cannot be deleted (409 ESCALATION_POLICY_IN_USE).
 */
import * as ApiError from "@signalman/core/ApiError"
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import * as EscalationPolicy from "@signalman/core/oncall/EscalationPolicy"
import * as Effect from "effect/Effect"
import { AuditLog } from "../audit/AuditLog.js"
import { uuidv7 } from "../infra/Ids.js"
import { Plans } from "../limits/Plans.js"
import { QuotaEvents } from "../limits/Quota.js"
import { pooledCreate } from "./PooledCreate.js"
import { OnCallRepo, type PolicyRow } from "./Repo.js"

export const notFound = ApiError.make("NOT_FOUND", "No such escalation policy")

/** The policy as answered. */
export const toPolicy = (row: PolicyRow): EscalationPolicy.EscalationPolicy =>
  new EscalationPolicy.EscalationPolicy({
    id: row.id,
    name: row.name,
    steps: row.steps,
    repeat: row.repeat,
    created_at: row.created_at,
    updated_at: row.updated_at
  })

// Stored lower-case, so a schedule's delete finds every step naming it by JSON containment (`Repo.policiesNaming`).
const lowerSteps = (steps: ReadonlyArray<EscalationPolicy.Step>): ReadonlyArray<EscalationPolicy.Step> =>
  steps.map((step) => ({ ...step, targets: step.targets.map((t) => ({ ...t, id: t.id.toLowerCase() })) }))

const what: Record<EscalationPolicy.TargetType, string> = {
  user: "No member of this org has this id",
  schedule: "No on-call schedule of this org has this id",
  channel: "No notification channel of this org has this id"
}

export class EscalationPolicies extends Effect.Service<EscalationPolicies>()("Signalman/EscalationPolicies", {
  effect: Effect.gen(function* () {
    const repo = yield* OnCallRepo
    const plans = yield* Plans
    const quotaEvents = yield* QuotaEvents
    const audit = yield* AuditLog

    const one = (org: ActiveOrg, id: string) =>
      Effect.flatMap(repo.policy(org.id, id), (row) =>
        row === undefined ? Effect.fail(notFound) : Effect.succeed(row)
      )

    /** Under the reference lock: every step target exists in the org, or the first that does not, by its field. */
    const targetsExist = (org: ActiveOrg, steps: ReadonlyArray<EscalationPolicy.Step>) =>
      Effect.gen(function* () {
        const named = steps.flatMap((step, i) =>
          step.targets.map((target, j) => ({ ...target, field: `steps[${i}].targets[${j}].id` }))
        )
        const idsOf = (type: EscalationPolicy.TargetType) => named.filter((t) => t.type === type).map((t) => t.id)
        const found = {
          user: yield* repo.members(org.id, idsOf("user")),
          schedule: yield* repo.schedulesAmong(org.id, idsOf("schedule")),
          channel: yield* repo.channelsAmong(org.id, idsOf("channel"))
        }
        const missing = named.find((t) => !found[t.type].has(t.id.toLowerCase()))
        if (missing !== undefined) {
          return yield* Effect.fail(
            ApiError.make("VALIDATION_FAILED", what[missing.type], {
              field: missing.field,
              details: { type: missing.type, id: missing.id }
            })
          )
        }
      })

    const list = (org: ActiveOrg, limit: number, offset: number) =>
      Effect.map(repo.policies(org.id, limit, offset), ({ rows, total }) => ({ data: rows.map(toPolicy), total }))

    const create = (org: ActiveOrg, userId: string, body: EscalationPolicy.EscalationPolicyCreate) =>
      Effect.gen(function* () {
        const row = yield* pooledCreate(
          { repo, plans, quotaEvents },
          org,
          userId,
          { table: "escalation_policies", quota: "max_escalation_policies" },
          Effect.gen(function* () {
            yield* repo.lockReferences(org.id)
            yield* targetsExist(org, body.steps)
            return yield* repo.insertPolicy({
              id: uuidv7(),
              org_id: org.id,
              account_id: org.accountId,
              name: body.name,
              steps: lowerSteps(body.steps),
              repeat: body.repeat
            })
          })
        )
        yield* audit.append({
          event: "oncall.policy_created",
          orgId: org.id,
          details: { escalation_policy_id: row.id, name: row.name }
        })
        return toPolicy(row)
      })

    const update = (org: ActiveOrg, id: string, patch: EscalationPolicy.EscalationPolicyPatch) =>
      Effect.gen(function* () {
        const row = yield* one(org, id)
        const updated = yield* repo.transaction(
          Effect.gen(function* () {
            yield* repo.lockReferences(org.id)
            if (patch.steps !== undefined) yield* targetsExist(org, patch.steps)
            return yield* repo.updatePolicy({
              id: row.id,
              org_id: org.id,
              account_id: org.accountId,
              name: patch.name ?? row.name,
              steps: patch.steps === undefined ? row.steps : lowerSteps(patch.steps),
              repeat: patch.repeat ?? row.repeat
            })
          })
        )
        if (updated === undefined) return yield* Effect.fail(notFound)
        yield* audit.append({
          event: "oncall.policy_updated",
          orgId: org.id,
          details: { escalation_policy_id: updated.id, fields: Object.keys(patch) }
        })
        return toPolicy(updated)
      })

    /** Deletes the policy unless a monitor binds it or it is the org's default. */
    const remove = (org: ActiveOrg, id: string) =>
      Effect.gen(function* () {
        const row = yield* one(org, id)
        yield* repo.transaction(
          Effect.gen(function* () {
            yield* repo.lockReferences(org.id)
            const monitors = yield* repo.monitorsBinding(org.id, row.id)
            const isDefault = (yield* repo.defaultPolicy(org.id)) === row.id
            if (monitors.length > 0 || isDefault) {
              const why = [
                ...(monitors.length > 0
                  ? [`${monitors.length} monitor${monitors.length === 1 ? "" : "s"} bind it`]
                  : []),
                ...(isDefault ? ["it is the org's default"] : [])
              ].join(" and ")
              return yield* Effect.fail(
                ApiError.make("ESCALATION_POLICY_IN_USE", `This escalation policy is in use: ${why}`, {
                  details: { target_ids: monitors, default: isDefault }
                })
              )
            }
            const removed = yield* repo.remove("escalation_policies", org.id, row.id)
            if (!removed) return yield* Effect.fail(notFound)
          })
        )
        yield* audit.append({
          event: "oncall.policy_deleted",
          orgId: org.id,
          details: { escalation_policy_id: row.id, name: row.name }
        })
      })

    const defaultPolicy = (org: ActiveOrg) =>
      Effect.map(repo.defaultPolicy(org.id), (id) => ({ escalation_policy_id: id }))

    /** Sets or (null) clears the org's default; the policy must be the org's. */
    const setDefault = (org: ActiveOrg, id: string | null) =>
      Effect.gen(function* () {
        const stored = id === null ? null : id.toLowerCase()
        yield* repo.transaction(
          Effect.gen(function* () {
            yield* repo.lockReferences(org.id)
            if (stored !== null && !(yield* repo.policiesAmong(org.id, [stored])).has(stored)) {
              return yield* Effect.fail(
                ApiError.make("VALIDATION_FAILED", "No escalation policy of this org has this id", {
                  field: "escalation_policy_id"
                })
              )
            }
            yield* repo.setDefaultPolicy(org.id, stored)
          })
        )
        yield* audit.append({
          event: "oncall.default_policy_set",
          orgId: org.id,
          details: { escalation_policy_id: stored }
        })
        return yield* defaultPolicy(org)
      })

    return {
      list,
      get: (org: ActiveOrg, id: string) => Effect.map(one(org, id), toPolicy),
      create,
      update,
      remove,
      defaultPolicy,
      setDefault
    }
  }),
  dependencies: [OnCallRepo.Default, Plans.Default, QuotaEvents.Default, AuditLog.Default]
}) {}
