/**
 * The one-shot test of a check (`POST /targets/test`): it passes what a saved check would, then runs here, in the
 * local region, with the variables it names substituted.
 */
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import type { CheckSpec } from "@signalman/core/CheckSpec"
import type * as Plan from "@signalman/core/Plan"
import * as PlanLimits from "@signalman/core/PlanLimits"
import * as Regions from "@signalman/core/Region"
import * as TargetRules from "@signalman/core/TargetRules"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Probes } from "../probes/Probes.js"
import { Admission } from "./Admission.js"
import * as Validation from "./Validation.js"

export class CheckTest extends Effect.Service<CheckTest>()("Signalman/TargetCheckTest", {
  effect: Effect.gen(function* () {
    const probes = yield* Probes
    const admission = yield* Admission
    const { abuse, allowPrivate } = admission

    const run = (org: ActiveOrg, plan: Plan.Plan, spec: CheckSpec) =>
      Effect.gen(function* () {
        const unprobeable = TargetRules.probeable(spec.type, "check.type")
        if (Option.isSome(unprobeable)) return yield* Effect.fail(unprobeable.value)
        if (spec.type === "flow") {
          const gated = PlanLimits.gate(plan, "flow_checks", "check.type")
          if (Option.isSome(gated)) return yield* Effect.fail(gated.value)
        }
        const found = yield* Validation.checkSpec(spec, allowPrivate, org.id)
        // A test runs the check with the values in place. A saved monitor keeps its references as written and
        // the scheduler resolves them at probe time, so a rotation takes effect without touching the monitor.
        const runnable = yield* Validation.substitute(spec, found, allowPrivate)
        yield* abuse.check(runnable)
        // A test runs in this process, the local region, which has no browser engine.
        const unplaced = TargetRules.placement(spec.type, [Regions.LOCAL], () => false, "check.type")
        if (Option.isSome(unplaced)) return yield* Effect.fail(unplaced.value)
        // Every kind left has a probe here: a refusal now is a defect, not an answer.
        return yield* probes.runOnce(runnable).pipe(Effect.catchTag("Unprobeable", Effect.die))
      })

    return { run }
  }),
  dependencies: [Admission.Default, Probes.Default]
}) {}
