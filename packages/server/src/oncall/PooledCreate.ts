/**
 * Creating a schedule or an escalation policy within its quota, pooled per account (auth-and-limits.md): under the
 * account's lock, so two creates of one account (in any of its orgs) cannot both take the last place.
 */
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import * as PlanLimits from "@signalman/core/PlanLimits"
import * as Effect from "effect/Effect"
import type { Plans } from "../limits/Plans.js"
import type { QuotaEvents } from "../limits/Quota.js"
import type { OnCallRepo, Table } from "./Repo.js"

/** The pool a create counts against: its table and the plan's quota for it. */
export interface Pool {
  readonly table: Table
  readonly quota: "max_on_call_schedules" | "max_escalation_policies"
}

/**
 * Runs `insert` in a transaction holding the account's lock when the account has room in `pool`, answering its row;
 * otherwise records the refusal and fails with 422 `QUOTA_EXCEEDED`. The account's lock is taken first: the order
 * every monitor write takes its locks in, so `insert` may take the org's after it.
 */
export const pooledCreate = <Row, E, R>(
  services: { readonly repo: OnCallRepo; readonly plans: Plans; readonly quotaEvents: QuotaEvents },
  org: ActiveOrg,
  userId: string,
  pool: Pool,
  insert: Effect.Effect<Row, E, R>
) =>
  Effect.gen(function* () {
    const plan = yield* services.plans.forAccount(org.accountId)
    const outcome = yield* services.repo.transaction(
      Effect.gen(function* () {
        yield* services.repo.lockAccount(org.accountId)
        const current = yield* services.repo.countOfAccount(pool.table, org.accountId)
        if (!PlanLimits.fits(plan, pool.quota, current)) return { _tag: "Full", current } as const
        return { _tag: "Created", row: yield* insert } as const
      })
    )
    if (outcome._tag === "Full") {
      return yield* services.quotaEvents.refuse({
        plan,
        accountId: org.accountId,
        userId,
        quota: pool.quota,
        current: outcome.current
      })
    }
    return outcome.row
  })
