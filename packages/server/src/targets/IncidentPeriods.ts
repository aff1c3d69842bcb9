/**
 * A monitor's incident periods, answered under the targets group (`GET /targets/{id}/incidents`) but kept by the
 * incidents feature. The targets group sees this port, bound in `incidents/TargetPeriods.ts`, so targets does not
 * depend on incidents (which depends, through status pages and the engine, on targets).
 */
import type { IncidentPeriodPage, ListIncidentPeriods } from "@signalman/core/api/Incidents"
import type { OrgId } from "@signalman/core/Identity"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"

export class IncidentPeriods extends Context.Tag("Signalman/TargetIncidentPeriods")<
  IncidentPeriods,
  {
    /** The page of the monitor's periods, or none when the org has no such monitor. */
    readonly ofTarget: (
      orgId: OrgId,
      targetId: string,
      query: typeof ListIncidentPeriods.Type
    ) => Effect.Effect<Option.Option<typeof IncidentPeriodPage.Type>>
  }
>() {}
