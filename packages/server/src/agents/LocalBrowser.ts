/**
 * The `local` region's browser, as the region's flow capability sees it. The processes that run the local region's
 * checks (roles `worker` and `all`) look for a browser once at boot, the way an agent does (`@signalman/checks`
 * `Browser.locate`: `checker.browser_path`, else `CHROMIUM_PATH`, else a system Chromium or Chrome, else the
 * packaged one; `none` turns flows off here), without launching it. While one was found, the process stamps the
 * region (`regions.browser_seen_at`) every minute, so `local` is flow-capable while a process that would run its
 * flows has a browser, seen within the same 5 minutes as an agent. An API process alone never decides it: in a split
 * deployment the API may run on a machine with no browser while the workers have one, or the other way round.
 */
import * as Browser from "@signalman/checks/Browser"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { AppConfig } from "../config/Config.js"
import { AgentsRepo } from "./Repo.js"

/** How often a process with a browser stamps the local region (well inside the 5 minutes the stamp counts). */
export const STAMP_EVERY = Duration.minutes(1)

/** What `checker.browser_path` is set to when flows must not run in this process. */
export const NONE = "none"

const detectAndStamp = Effect.gen(function* () {
  const setting = (yield* AppConfig)["checker.browser_path"]
  if (setting?.trim().toLowerCase() === NONE) {
    return yield* Effect.logInfo("local region: checker.browser_path is none; flows do not run in local")
  }
  const found = yield* Browser.locate({ executablePath: setting, setting: "checker.browser_path" }).pipe(
    Effect.provide(Browser.layerMachine),
    Effect.either
  )
  if (found._tag === "Left") {
    return yield* Effect.logInfo(`local region: no browser, so flows do not run in local (${found.left.message})`)
  }
  yield* Effect.logInfo(`local region: flows run with ${found.right.description}`)
  const repo = yield* AgentsRepo
  yield* repo.localBrowser.pipe(
    Effect.catchAllCause((cause) => Effect.logWarning("Stamping the local region's browser failed", cause)),
    Effect.repeat(Schedule.spaced(STAMP_EVERY))
  )
})

/** For the life of the process: the browser looked for once, in the background, then the region stamped. */
export const layer = Layer.scopedDiscard(Effect.forkScoped(detectAndStamp)).pipe(Layer.provide(AgentsRepo.Default))
