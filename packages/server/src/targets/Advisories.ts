/**
 * A monitor's per-region advisories (decisions.md "Regions, probe agents and browser flows": `advisories` on
 * `GET /targets/{id}`), answered with the monitor but kept by the incidents feature, whose writer stores them as the
 * incident engine's state changes. The targets group sees this port, bound in `incidents/TargetAdvisories.ts`, so
 * targets does not depend on incidents (which depends, through status pages and the engine, on targets).
 */
import type { RegionAdvisory } from "@signalman/core/RegionAdvisory"
import { Target } from "@signalman/core/Target"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

export class Advisories extends Context.Tag("Signalman/TargetAdvisories")<
  Advisories,
  {
    /** The advisories of these monitors (already the caller's org's), in one read; a monitor with none is absent. */
    readonly of: (targetIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, ReadonlyArray<RegionAdvisory>>>
  }
>() {}

/** The monitors with their advisories as stored now, read once for all of them. */
export const attach = (targets: ReadonlyArray<Target>) =>
  Effect.flatMap(Advisories, (advisories) =>
    Effect.map(advisories.of(targets.map((t) => t.id)), (byId) =>
      targets.map((t) => {
        const found = byId.get(t.id)
        return found === undefined ? t : new Target({ ...t, advisories: found })
      })
    )
  )

/** One monitor with its advisories. */
export const attachOne = (target: Target) => Effect.map(attach([target]), (attached) => attached[0] ?? target)
