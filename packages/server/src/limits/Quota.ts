/**
 * Refusals at a limit: the `QUOTA_EXCEEDED` and `RATE_LIMITED` errors in the spec's shape, each appended to the
 * quota-event log.
 */
import * as ApiError from "@signalman/core/ApiError"
import type * as Plan from "@signalman/core/Plan"
import * as PlanLimits from "@signalman/core/PlanLimits"
import * as Effect from "effect/Effect"
import { uuidv7 } from "../infra/Ids.js"
import { LimitsRepo } from "./Repo.js"

export class QuotaEvents extends Effect.Service<QuotaEvents>()("Signalman/QuotaEvents", {
  effect: Effect.gen(function* () {
    const repo = yield* LimitsRepo
    const log = (event: {
      readonly accountId: string | null
      readonly userId: string | null
      readonly kind: "quota" | "rate"
      readonly name: string
      readonly limit: number
      readonly current: number
    }) =>
      repo.log({
        id: uuidv7(),
        account_id: event.accountId,
        user_id: event.userId,
        kind: event.kind,
        name: event.name,
        limit_value: event.limit,
        current_value: event.current
      })

    return {
      /**
       * Fails with the plan's refusal at one of its quotas (`PlanLimits.exceeded`: the code, the limit and the
       * plan's id read from the plan), after appending it to the quota-event log.
       */
      refuse: (input: {
        readonly plan: Plan.Plan
        readonly quota: Plan.QuotaName
        readonly accountId: string
        readonly userId: string | null
        readonly current: number
        /** How many a bulk write asked for at once. */
        readonly requested?: number
        readonly code?: PlanLimits.QuotaCode
      }) => {
        const refusal = PlanLimits.exceeded(input.plan, input.quota, input.current, {
          requested: input.requested,
          code: input.code
        })
        return Effect.zipRight(
          log({
            accountId: input.accountId,
            userId: input.userId,
            kind: "quota",
            name: refusal.quota,
            limit: refusal.limit,
            current: refusal.current
          }),
          Effect.fail(refusal.error)
        )
      },
      /** 429 RATE_LIMITED: details with scope and retry_after_secs; the renderer adds Retry-After. */
      rateLimited: (input: {
        readonly accountId: string | null
        readonly userId: string | null
        readonly scope: string
        readonly limit: number
        readonly retryAfterSecs: number
      }) =>
        Effect.as(
          log({ ...input, kind: "rate", name: input.scope, current: input.limit }),
          ApiError.make(
            "RATE_LIMITED",
            `Too many requests: the ${input.scope} budget of ${input.limit} a minute is spent`,
            {
              details: { scope: input.scope, retry_after_secs: input.retryAfterSecs, limit: input.limit }
            }
          )
        )
    }
  }),
  dependencies: [LimitsRepo.Default]
}) {}
