/**
 * The plan in force for an account: its plan row raised by the account's overrides, cached for
 * `plan_cache_ttl_secs` (changes by an operator take effect within that time, as the spec says).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { AccountId } from "@signalman/core/Identity"
import * as Plan from "@signalman/core/Plan"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { AppConfig } from "../Config.js"

const number = Schema.Number
const PlanRow = Schema.Struct({
  id: Plan.PlanId,
  name: Schema.String,
  listed: Schema.Boolean,
  ...(Object.fromEntries([...Plan.quotaNames, ...Plan.rateNames].map((n) => [n, number])) as {
    readonly [K in Plan.QuotaName | Plan.RateName]: typeof number
  }),
  ...(Object.fromEntries(Plan.flagNames.map((n) => [n, Schema.Boolean])) as {
    readonly [K in Plan.FlagName]: typeof Schema.Boolean
  }),
  overrides: Schema.NullOr(Plan.Overrides)
})

const toPlan = (row: typeof PlanRow.Type): Plan.Plan => {
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
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const ttl = Duration.toMillis(Duration.seconds(config.plan_cache_ttl_secs))
    const cache = new Map<string, { readonly plan: Plan.Plan; readonly until: number }>()
    const decode = Schema.decodeUnknown(PlanRow)

    const load = (accountId: AccountId) =>
      sql`
        SELECT p.*, o.limits AS overrides
        FROM accounts a
        JOIN plans p ON p.id = a.plan_id
        LEFT JOIN account_overrides o ON o.account_id = a.id
        WHERE a.id = ${accountId}
      `.pipe(
        Effect.flatMap((rows) =>
          rows[0] === undefined ? Effect.dieMessage(`no account ${accountId}`) : decode(rows[0])
        ),
        Effect.map(toPlan),
        Effect.orDie
      )

    return {
      forAccount: (accountId: AccountId): Effect.Effect<Plan.Plan> =>
        Effect.suspend(() => {
          const hit = cache.get(accountId)
          if (hit !== undefined && hit.until > Date.now()) return Effect.succeed(hit.plan)
          return Effect.tap(load(accountId), (plan) =>
            Effect.sync(() => cache.set(accountId, { plan, until: Date.now() + ttl }))
          )
        }),
      /** Forget a cached plan (after an operator change in this process). */
      invalidate: (accountId: AccountId) => Effect.sync(() => cache.delete(accountId))
    }
  })
}) {}
