/**
 * Binds the targets group's port for a monitor's incident periods (`targets/IncidentPeriods.ts`) to this feature's
 * `Incidents` service.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { IncidentPeriods } from "../targets/IncidentPeriods.js"
import { Incidents } from "./Incidents.js"

/** The periods from `Incidents.periodsOfTarget`, which answers none for a monitor the org does not have. */
export const layer = Layer.effect(
  IncidentPeriods,
  Effect.map(Incidents, (incidents) => ({ ofTarget: incidents.periodsOfTarget }))
)
