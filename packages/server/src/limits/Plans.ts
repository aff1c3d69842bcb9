/**
 * The plan in force for an account: its plan row raised by the account's overrides, cached for
 * `plan_cache_ttl_secs` (changes by an operator take effect within that time, as the spec says).
 */
import type { AccountId } from "@signalman/core/Identity"
import * as Plan from "@signalman/core/Plan"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { AppConfig } from "../config/Config.js"
import { LimitsRepo, type PlanRow } from "./Repo.js"

const toPlan = (row: PlanRow): Plan.Plan => {
  const plan: Plan.Plan = {
    id: row.id,
    name: row.name,
    listed: row.listed,
    quotas: Object.fromEntries(Plan.quotaNames.map((q) => [q, row[q]])) as Plan.Plan["quotas"],
    rates: Object.fromEntries(Plan.rateNames.map((r) => [r, row[r]])) as Plan.Plan["rates"],
    flags: Object.fromEntries(Plan.flagNames.map((f) => [f, row[f]])) as Plan.Plan["flags"]
  }
  return Plan.effective(plan, row.overrides ?? {})
}

export class Plans extends Effect.Service<Plans>()("Signalman/Plans", {
  effect: Effect.gen(function* () {
    const repo = yield* LimitsRepo
    const config = yield* AppConfig
    const ttl = Duration.toMillis(Duration.seconds(config.plan_cache_ttl_secs))
    const cache = new Map<string, { readonly plan: Plan.Plan; readonly until: number }>()

    const load = (accountId: AccountId) => Effect.map(repo.plan(accountId), toPlan)

    return {
      forAccount: (accountId: AccountId): Effect.Effect<Plan.Plan> =>
        Effect.suspend(() => {
          const hit = cache.get(accountId)
          if (hit !== undefined && hit.until > Date.now()) return Effect.succeed(hit.plan)
          return Effect.tap(load(accountId), (plan) =>
            Effect.sync(() => cache.set(accountId, { plan, until: Date.now() + ttl }))
          )
        }),
      /** The cached plan of an account while it is fresh, or undefined (then `forAccount` loads it). */
      peek: (accountId: AccountId): Plan.Plan | undefined => {
        const hit = cache.get(accountId)
        return hit !== undefined && hit.until > Date.now() ? hit.plan : undefined
      },
      /**
       * The plan as the database has it now, past the cache (which it refreshes): for the few reads that must
       * follow a change at once (the holds, after a downgrade).
       */
      fresh: (accountId: AccountId): Effect.Effect<Plan.Plan> =>
        Effect.tap(load(accountId), (plan) =>
          Effect.sync(() => cache.set(accountId, { plan, until: Date.now() + ttl }))
        ),
      /** Forget a cached plan (after an operator change in this process). */
      invalidate: (accountId: AccountId) => Effect.sync(() => cache.delete(accountId))
    }
  }),
  dependencies: [LimitsRepo.Default]
}) {}
