/**
 * Who may change on-call: a token's `oncall:write` scope, the owner role and the plan's `on_call_enabled`. On the
 * on-call routes the scope is the route's own declaration (the `Authentication` middleware refuses first); a
 * monitor's `escalation_policy_id` is written through the targets routes (`targets:write`), so binding one asks all
 * three here, naming the field. Duplicate rule 3 uses the same answer to decide whether a copy keeps its source's
 * policy.
 */
import * as ApiError from "@signalman/core/ApiError"
import type { CallerShape } from "@signalman/core/api/Authentication"
import type { Role } from "@signalman/core/Identity"
import type * as Plan from "@signalman/core/Plan"
import * as PlanLimits from "@signalman/core/PlanLimits"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { hasScope, insufficientScope } from "../auth/Policy.js"

const withField = <E extends ApiError.ApiError>(error: E, field: string | null): E =>
  field === null ? error : ApiError.atField(error, field)

/**
 * The first on-call gate the caller fails, if any: the `oncall:write` scope, the owner role, then the plan.
 * `field` names what asked for it (a monitor's `escalation_policy_id`), null on the on-call routes themselves.
 */
export const refusal = (
  credential: CallerShape["credential"],
  role: Role,
  plan: Plan.Plan,
  field: string | null = null
): Option.Option<ApiError.ApiError> => {
  if (!hasScope(credential, "oncall:write")) return Option.some(withField(insufficientScope("oncall:write"), field))
  if (role !== "owner") {
    return Option.some(ApiError.make("OWNER_REQUIRED", "Only an owner of the org may change on-call", { field }))
  }
  return PlanLimits.gate(plan, "on_call", field)
}

/** Fails with the first gate the caller fails. */
export const check = (
  credential: CallerShape["credential"],
  role: Role,
  plan: Plan.Plan,
  field: string | null = null
): Effect.Effect<void, ApiError.ApiError> => {
  const refused = refusal(credential, role, plan, field)
  return Option.isSome(refused) ? Effect.fail(refused.value) : Effect.void
}
