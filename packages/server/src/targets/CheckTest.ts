/**
 * The one-shot test of a check (`POST /targets/test`): it passes what a saved check would, then runs once with the
 * variables it names substituted, in the region asked for (`region`, default `local`): `local` runs in this
 * process, another region on one of its connected agents (`OneOffs`, which bounds the wait and answers 503
 * `NOT_READY` when no agent answers in time). Nothing is stored.
 */
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import type { CheckSpec } from "@signalman/core/CheckSpec"
import type * as Plan from "@signalman/core/Plan"
import * as PlanLimits from "@signalman/core/PlanLimits"
import * as Regions from "@signalman/core/Region"
import * as TargetRules from "@signalman/core/TargetRules"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { OneOffs, refusal } from "../oneoffs/OneOffs.js"
import { Probes } from "../probes/Probes.js"
import { Admission } from "./Admission.js"
import * as Validation from "./Validation.js"

/** What is tested: the check, where (absent: `local`), and who asks. */
export interface Test {
  readonly org: ActiveOrg
  readonly plan: Plan.Plan
  readonly userId: string
  readonly spec: CheckSpec
  readonly region: string | undefined
}

export class CheckTest extends Effect.Service<CheckTest>()("Signalman/TargetCheckTest", {
  effect: Effect.gen(function* () {
    const probes = yield* Probes
    const oneOffs = yield* OneOffs
    const admission = yield* Admission
    const { abuse, allowPrivate } = admission

    const run = ({ org, plan, userId, spec, region }: Test) =>
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
        const where = region ?? Regions.LOCAL
        const standing = (yield* oneOffs.standings([where])).get(where)
        // In local, a flow needs this process to have a browser; elsewhere, a connected agent with one.
        const localFlows = where === Regions.LOCAL && spec.type === "flow" && (yield* probes.flowCapable)
        // Without a region in the body, a flow refused in local is the check's kind's fault, as before regions.
        const field = region === undefined && spec.type === "flow" ? "check.type" : "region"
        const refused = refusal(where, standing, spec.type, localFlows, field)
        if (Option.isSome(refused)) return yield* Effect.fail(refused.value)
        if (where !== Regions.LOCAL) {
          return yield* oneOffs.run({
            orgId: org.id,
            requestedBy: userId,
            region: where,
            spec: runnable,
            targetId: null,
            field: "region"
          })
        }
        // Every kind left has a probe here: a refusal now is a defect, not an answer.
        return yield* probes.runOnce(runnable).pipe(Effect.catchTag("Unprobeable", Effect.die))
      })

    return { run }
  }),
  dependencies: [Admission.Default, Probes.Default, OneOffs.Default]
}) {}
