/**
 * What the agent tells the service it can do in its hello: its version, its concurrency and its browser. The
 * browser is found the way the flow probe will find it (`@signalman/checks/Browser`'s `locate`), and named by
 * what it says of itself (`Chromium 153.0.8010.0`); a region is flow-capable only while one of its agents reported
 * one. An explicit browser path that is not an executable stops the agent (a wrong setting is never a silent
 * fallback); with no explicit path and nothing found, the agent runs without flows.
 *
 * @since 0.1.0
 */
import { execFile } from "node:child_process"
import * as Browser from "@signalman/checks/Browser"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Settings } from "./Settings.js"

const maxName = 200

/**
 * What a browser says of itself (`<executable> --version`), its first line; none when it says nothing in time.
 *
 * @since 0.1.0
 * @category constructors
 */
export const browserVersion = (executablePath: string): Effect.Effect<Option.Option<string>> =>
  Effect.async<Option.Option<string>>((resume) => {
    const child = execFile(executablePath, ["--version"], { timeout: 10_000, windowsHide: true }, (error, stdout) => {
      const line = String(stdout).split("\n")[0]?.trim() ?? ""
      resume(Effect.succeed(error !== null || line === "" ? Option.none() : Option.some(line.slice(0, maxName))))
    })
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/**
 * The browser to report: its name and version, or none (flows off, or none found with no explicit path). Fails
 * with the locating module's one line when an explicit path is not an executable.
 *
 * @since 0.1.0
 * @category constructors
 */
export const browser = (settings: Settings): Effect.Effect<Option.Option<string>, Browser.BrowserNotFound> => {
  const choice = settings.browser
  if (choice._tag === "off") return Effect.succeedNone
  const options: Browser.Options =
    choice._tag === "path"
      ? { executablePath: choice.path, setting: choice.setting }
      : { setting: "AGENT__BROWSER_PATH" }
  const found = Browser.locate(options).pipe(
    Effect.flatMap((located) =>
      Effect.map(browserVersion(located.executablePath), (name) =>
        Option.some(Option.getOrElse(name, () => located.description.slice(0, maxName)))
      )
    ),
    Effect.provide(Browser.layerMachine)
  )
  if (choice._tag === "path") return found
  return found.pipe(
    Effect.catchTag("BrowserNotFound", (error) =>
      Effect.as(
        Effect.logInfo("No browser found: flows are off on this agent").pipe(
          Effect.annotateLogs("reason", error.message)
        ),
        Option.none()
      )
    )
  )
}
