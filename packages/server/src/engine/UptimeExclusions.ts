/**
 * The stretches uptime leaves out (service-api.md: an incident's recovery stretches, and maintenance windows): a
 * port, bound in `Monitoring.ts`, so the readings need not know where the periods come from.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

export interface Period {
  readonly from: Date
  readonly until: Date
}

export interface Source {
  /** The periods of this target, overlapping [from, to), that uptime leaves out. */
  readonly periods: (targetId: string, from: Date, to: Date) => Effect.Effect<ReadonlyArray<Period>>
}

export class UptimeExclusions extends Context.Tag("Signalman/UptimeExclusions")<UptimeExclusions, Source>() {}
