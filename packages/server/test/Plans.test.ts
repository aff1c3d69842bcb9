import { describe, expect, it } from "@effect/vitest"
import { AccountId } from "@signalman/core/Identity"
import * as Plan from "@signalman/core/Plan"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Config from "../src/config/Config.js"
import { Plans } from "../src/limits/Plans.js"
import { LimitsRepo, type PlanRow } from "../src/limits/Repo.js"

const account = AccountId.make("01900000-0000-7000-8000-0000000000a1")

// A plan row as the database holds it: the free plan's figures, one column each, with the account's overrides.
const freeRow = (overrides: Plan.Overrides | null): PlanRow => {
  const free = Plan.plans.free
  return {
    id: free.id,
    name: free.name,
    listed: free.listed,
    ...free.quotas,
    ...free.rates,
    ...free.flags,
    overrides
  }
}

const plansWith = (row: PlanRow) =>
  Effect.provide(
    Plans,
    Plans.DefaultWithoutDependencies.pipe(
      Layer.provide(LimitsRepo.Test({ [account]: row })),
      Layer.provide(Config.layer(Config.fromEnv({})))
    )
  )

describe("Plans", () => {
  it.effect("an account's plan is its row raised by its overrides, never lowered", () =>
    Effect.gen(function* () {
      const free = Plan.plans.free
      const plans = yield* plansWith(
        freeRow({ max_targets: free.quotas.max_targets + 100, api_reads_per_minute: 1, min_check_interval_secs: 10 })
      )
      const plan = yield* plans.forAccount(account)
      expect(plan.quotas.max_targets).toBe(free.quotas.max_targets + 100)
      // A lower override does not lower a rate...
      expect(plan.rates.api_reads_per_minute).toBe(free.rates.api_reads_per_minute)
      // ...but a smaller interval floor is the raised allowance.
      expect(plan.quotas.min_check_interval_secs).toBe(Math.min(free.quotas.min_check_interval_secs, 10))
    })
  )

  it.effect("a loaded plan is served from memory (peek) until invalidated", () =>
    Effect.gen(function* () {
      const plans = yield* plansWith(freeRow(null))
      expect(plans.peek(account)).toBeUndefined()
      const loaded = yield* plans.forAccount(account)
      expect(plans.peek(account)).toBe(loaded)
      expect(yield* plans.forAccount(account)).toBe(loaded)
      yield* plans.invalidate(account)
      expect(plans.peek(account)).toBeUndefined()
    })
  )
})
