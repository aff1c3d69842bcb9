/**
 * The boot's word on `checker.default_regions`: an id there that is not an enabled region does not stop the boot
 * (regions are made through the running service, `POST /operator/regions`, so refusing to start would leave no way
 * to make it), but it is logged as a warning at once, and every create that would use it is refused with 422
 * `REGION_INVALID` naming the setting (`Admission`).
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppConfig } from "../config/Config.js"
import { TargetsRepo } from "./Repo.js"

/** The default regions that are not enabled regions now. */
export const unavailable = Effect.gen(function* () {
  const configured = (yield* AppConfig)["checker.default_regions"]
  const enabled = new Set((yield* (yield* TargetsRepo).enabledRegions).map((region) => region.id))
  return configured.filter((id) => !enabled.has(id))
})

/** Logs the default regions that are not enabled regions, once, when the API starts. */
export const report = Layer.effectDiscard(
  Effect.flatMap(unavailable, (missing) =>
    missing.length === 0
      ? Effect.void
      : Effect.logWarning(
          "checker.default_regions names regions that are not enabled: monitors created without regions are refused " +
            "until they are (create or enable them with /operator/regions, or change the setting)"
        ).pipe(Effect.annotateLogs({ regions: missing }))
  )
).pipe(Layer.provide(TargetsRepo.Default))
