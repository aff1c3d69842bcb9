/**
 * Where a monitor runs: the enabled probe regions, a monitor's regions, and replacing them (`PUT
 * /targets/{id}/regions`), judged as a create's regions are (a flow keeps at least one region that can run a
 * browser: 422 `NO_FLOW_CAPABLE_AGENT`).
 */
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import type * as Target from "@signalman/core/Target"
import * as TargetRules from "@signalman/core/TargetRules"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Admission, type Writer } from "./Admission.js"
import { TargetsRepo } from "./Repo.js"
import { notFound, Targets } from "./Targets.js"
import * as Validation from "./Validation.js"

export class Regions extends Effect.Service<Regions>()("Signalman/TargetRegions", {
  effect: Effect.gen(function* () {
    const repo = yield* TargetsRepo
    const targets = yield* Targets
    const admission = yield* Admission

    /** The monitor's regions, in its order. */
    const ofTarget = (org: ActiveOrg, id: string) =>
      Effect.gen(function* () {
        const row = yield* targets.one(org, id)
        if (row === undefined) return yield* Effect.fail(notFound)
        return yield* repo.regionsNamed(row.regions)
      })

    /** Replaces the monitor's regions (named once each); answers them as stored. */
    const set = (writer: Writer, id: string, regions: ReadonlyArray<string>, source: Target.WriteSource) =>
      Effect.gen(function* () {
        const row = yield* targets.one(writer.org, id)
        if (row === undefined) return yield* Effect.fail(notFound)
        const refused = TargetRules.regionAssignment(row.kind)
        if (refused !== undefined) return yield* Effect.fail(Validation.toApiError(refused))
        const distinct = [...new Set(regions)]
        const index = yield* admission.enabledRegions
        yield* admission.checkRegions(writer, distinct, index)
        const unplaced = TargetRules.placement(row.kind, distinct, (r) => index.flowCapable.has(r), "regions")
        if (Option.isSome(unplaced)) return yield* Effect.fail(unplaced.value)
        yield* repo.setRegions({ id: row.id, regions: distinct, write_source: source })
        return yield* repo.regionsNamed(distinct)
      })

    return { enabled: repo.enabledRegions, ofTarget, set }
  }),
  dependencies: [TargetsRepo.Default, Targets.Default, Admission.Default]
}) {}
