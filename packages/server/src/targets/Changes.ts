/**
 * A PATCH of a stored monitor: the changed check passes what a create's would, the patch is applied to the stored
 * target with its full check (`TargetRules.resolvePatch`), its bindings and regions are judged again, and the result
 * is stored under the reference lock, with `managed_by` when the request carries it. An empty patch changes nothing
 * but what every write stamps, which is how a monitor is adopted.
 */
import type * as ManagedBy from "@signalman/core/ManagedBy"
import type * as Target from "@signalman/core/Target"
import * as TargetRules from "@signalman/core/TargetRules"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { Admission, type Writer } from "./Admission.js"
import { toTarget } from "./Stored.js"
import { notFound, Targets } from "./Targets.js"
import * as Validation from "./Validation.js"

export class Changes extends Effect.Service<Changes>()("Signalman/TargetChanges", {
  effect: Effect.gen(function* () {
    const targets = yield* Targets
    const admission = yield* Admission

    const update = (
      writer: Writer,
      id: string,
      patch: Target.PatchTarget,
      source: Target.WriteSource,
      managedBy: ManagedBy.ManagedBy | undefined
    ) =>
      Effect.gen(function* () {
        const { org } = writer
        const row = yield* targets.one(org, id)
        if (row === undefined) return yield* Effect.fail(notFound)
        if (patch.check !== undefined) yield* Validation.checkSpec(patch.check, admission.allowPrivate, org.id)
        if (patch.check !== undefined) yield* admission.abuse.check(patch.check)
        const resolved = TargetRules.resolvePatch(yield* targets.resolved(row), patch, writer.plan)
        if (Either.isLeft(resolved)) return yield* Effect.fail(Validation.toApiError(resolved.left))
        yield* admission.checkAlerts(org, resolved.right.alerts)
        yield* admission.checkRegions(writer, resolved.right.regions, yield* admission.enabledRegions)
        yield* admission.changePolicy(writer, row.escalation_policy_id, resolved.right.escalation_policy_id)
        const updated = yield* targets.update(org, id, resolved.right, source, managedBy)
        return updated === undefined ? yield* Effect.fail(notFound) : toTarget(updated)
      })

    return { update }
  }),
  dependencies: [Targets.Default, Admission.Default]
}) {}
