/**
 * The boot's check of `checker.default_regions` (`targets/DefaultRegions.ts`) on the in-memory monitor repository:
 * the ids that are not enabled regions are the ones reported.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Config from "../src/config/Config.js"
import { unavailable } from "../src/targets/DefaultRegions.js"
import { TargetsRepo } from "../src/targets/Repo.js"

const region = (id: string, enabled: boolean) => ({
  id,
  name: id,
  city: null,
  country_code: null,
  continent: null,
  latitude: null,
  longitude: null,
  enabled
})

const setup = (defaults: string) =>
  Layer.merge(
    TargetsRepo.Test({ regions: [region("local", true), region("eu", true), region("off", false)] }),
    Config.layer(Config.fromEnv({ CHECKER__DEFAULT_REGIONS: defaults }))
  )

describe("checker.default_regions at boot", () => {
  it.effect("names the default regions that are unknown or disabled, and none when all are enabled", () =>
    Effect.gen(function* () {
      expect(yield* unavailable.pipe(Effect.provide(setup("local,eu")))).toEqual([])
      expect(yield* unavailable.pipe(Effect.provide(setup("eu,off,mars")))).toEqual(["off", "mars"])
    })
  )
})
