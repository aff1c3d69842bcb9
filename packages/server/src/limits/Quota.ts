/**
 * Refusals at a limit: the `QUOTA_EXCEEDED` and `RATE_LIMITED` errors in the spec's shape, each appended to the
 * quota-event log.
 */
import * as ApiError from "@signalman/core/ApiError"
import type * as Plan from "@signalman/core/Plan"
import * as Effect from "effect/Effect"
import { uuidv7 } from "../Ids.js"
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

    /** 422 QUOTA_EXCEEDED: details name the quota with current, limit and plan; field is null. */
    const quotaExceeded = (input: {
      readonly accountId: string
      readonly userId: string | null
      readonly quota: string
      readonly current: number
      readonly limit: number
      readonly plan: string
      /** How many a bulk write asked for at once, when more than one. */
      readonly requested?: number
      readonly code?: "QUOTA_EXCEEDED" | "OWNER_ORG_LIMIT"
    }) =>
      Effect.as(
        log({ ...input, kind: "quota", name: input.quota }),
        ApiError.make(
          input.code ?? "QUOTA_EXCEEDED",
          `The ${input.quota} quota of the ${input.plan} plan is reached (${input.current} of ${input.limit})`,
          {
            details: {
              quota: input.quota,
              current: input.current,
              limit: input.limit,
              plan: input.plan,
              ...(input.requested === undefined ? {} : { requested: input.requested })
            }
          }
        )
      )

    return {
      quotaExceeded,
      /** Fails with `quotaExceeded` for one of the plan's own quotas: the limit and the plan's id are read from it. */
      refuse: (input: {
        readonly plan: Plan.Plan
        readonly quota: Plan.QuotaName
        readonly accountId: string
        readonly userId: string | null
        readonly current: number
        readonly requested?: number
        readonly code?: "QUOTA_EXCEEDED" | "OWNER_ORG_LIMIT"
      }) =>
        Effect.flatMap(
          quotaExceeded({
            accountId: input.accountId,
            userId: input.userId,
            quota: input.quota,
            current: input.current,
            limit: input.plan.quotas[input.quota],
            plan: input.plan.id,
            ...(input.requested === undefined ? {} : { requested: input.requested }),
            ...(input.code === undefined ? {} : { code: input.code })
          }),
          Effect.fail
        ),
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
