/**
 * The `targets` group: for now the one-shot test of a check (`POST /api/v1/targets/test`).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as TargetAddress from "@signalman/checks/TargetAddress"
import * as ApiError from "@signalman/core/ApiError"
import { SignalmanApi } from "@signalman/core/api/Api"
import type { AccountId } from "@signalman/core/Identity"
import * as Variables from "@signalman/core/Variables"
import * as Effect from "effect/Effect"
import { requireOrg, requireScope } from "../auth/Policy.js"
import { AppConfig } from "../Config.js"
import { Plans } from "../limits/Plans.js"
import { Probes } from "../probes/Probes.js"

export const layer = HttpApiBuilder.group(SignalmanApi, "targets", (handlers) =>
  Effect.gen(function* () {
    const probes = yield* Probes
    const plans = yield* Plans
    const config = yield* AppConfig
    const allowPrivate = config["checker.allow_private_targets"]

    return handlers.handle("test", ({ payload }) =>
      Effect.gen(function* () {
        yield* requireScope("targets:execute")
        const org = yield* requireOrg
        const spec = payload.check
        if (spec.type === "heartbeat" || spec.type === "manual") {
          return yield* Effect.fail(
            ApiError.make("HEARTBEAT_NOT_PROBEABLE", `A ${spec.type} monitor has no probe to test`, {
              field: "check.type"
            })
          )
        }
        if (spec.type === "flow") {
          const plan = yield* plans.forAccount(org.accountId as AccountId)
          if (plan.quotas.max_flow_checks === 0) {
            return yield* Effect.fail(
              ApiError.make("FLOW_CHECKS_DISABLED", "Browser flows are not part of this plan", {
                field: "check.type",
                details: { quota: "max_flow_checks", limit: 0, plan: plan.id }
              })
            )
          }
        }
        const refused = TargetAddress.refusal(spec, allowPrivate)
        if (refused !== undefined) {
          return yield* Effect.fail(ApiError.make(refused.code, refused.message, { field: `check.${refused.field}` }))
        }
        // The org has no variables yet (they arrive with the targets resource), so any reference is unresolved.
        const reference = Variables.references(spec)[0]
        if (reference !== undefined) {
          return yield* Effect.fail(
            ApiError.make("UNRESOLVED_VARIABLE", `{{${reference.key}}} does not name a variable of this org`, {
              field: `check.${reference.field}`,
              details: { key: reference.key }
            })
          )
        }
        return yield* probes
          .runOnce(spec)
          .pipe(
            Effect.catchTag("Unprobeable", (e) =>
              Effect.fail(ApiError.make("NO_FLOW_CAPABLE_AGENT", e.message, { field: "check.type" }))
            )
          )
      })
    )
  })
)
