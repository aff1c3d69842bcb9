/**
 * The copies of a stored monitor (service-api.md "Duplicate rules"): each copy is the stored row with its check
 * (credentials included) pointed at the copy's address, judged as a create would judge that check. Interval,
 * regions, paused state, tags, group, alert bindings and region policy come from the row as stored, even where
 * the plan now allows less; the escalation policy only as rule 3 allows. Status page components, share links and
 * history are not copied.
 */
import * as ApiError from "@signalman/core/ApiError"
import * as TargetCopy from "@signalman/core/TargetCopy"
import * as TargetRules from "@signalman/core/TargetRules"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Gates from "../oncall/Gates.js"
import type { Variables } from "../variables/Variables.js"
import { Admission, type Writer } from "./Admission.js"
import { type TargetRow, Targets } from "./Targets.js"
import * as Validation from "./Validation.js"

export class Duplicates extends Effect.Service<Duplicates>()("Signalman/TargetDuplicates", {
  effect: Effect.gen(function* () {
    const targets = yield* Targets
    const admission = yield* Admission

    const copies = (
      writer: Writer,
      row: TargetRow,
      requests: ReadonlyArray<typeof TargetCopy.CopyRequest.Type>
    ): Effect.Effect<ReadonlyArray<TargetRules.ResolvedTarget>, ApiError.ApiError, Variables> =>
      Effect.gen(function* () {
        const source = yield* targets.resolved(row)
        const check = source.check
        const index = yield* admission.enabledRegions
        const unplaced = TargetRules.placement(check.type, row.regions, (r) => index.flowCapable.has(r))
        if (Option.isSome(unplaced)) return yield* Effect.fail(unplaced.value)
        // Rule 3: the source's policy only for a caller who could bind it (owner, on-call plan, oncall:write);
        // otherwise the org's default, if any.
        const mayBind = Option.isNone(Gates.refusal(writer.credential, writer.org.role, writer.plan))
        const policy = mayBind ? source.escalation_policy_id : yield* admission.defaultPolicy(writer.org)
        return yield* Effect.forEach(requests, (request, i) =>
          Effect.gen(function* () {
            const addressed = TargetCopy.withAddress(check, request.address)
            if (Either.isLeft(addressed)) return yield* Effect.fail(Validation.toApiError(addressed.left))
            // The copy's check passes what a create's would: address rules, dns rules, variable references.
            yield* Validation.checkSpec(addressed.right, admission.allowPrivate, writer.org.id)
            yield* admission.abuse.check(addressed.right)
            const copy = TargetRules.resolveCopy(source, { name: request.name, check: addressed.right }, writer.plan)
            if (Either.isLeft(copy)) return yield* Effect.fail(Validation.toApiError(copy.left))
            return { ...copy.right, escalation_policy_id: policy }
          }).pipe(Effect.mapError((e) => ApiError.underField(e, `copies[${i}].`)))
        )
      })

    return { copies }
  }),
  dependencies: [Targets.Default, Admission.Default]
}) {}
