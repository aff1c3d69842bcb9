/**
 * Binds the targets group's port for a monitor's per-region advisories (`targets/Advisories.ts`) to what the incident
 * writer stored beside the engine's state.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Advisories } from "../targets/Advisories.js"
import { IncidentsRepo } from "./Repo.js"

/** The advisories from `IncidentsRepo.advisoriesOf`: one read for any number of monitors. */
export const layer = Layer.effect(
  Advisories,
  Effect.map(IncidentsRepo, (repo) => ({ of: repo.advisoriesOf }))
).pipe(Layer.provide(IncidentsRepo.Default))
