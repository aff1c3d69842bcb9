/**
 * Real headless Chromium for tests of the server-rendered pages, through the browser module of
 * `@signalman/checks`: `CHROMIUM_PATH` when set, otherwise a system Chromium or Chrome, otherwise the Chromium
 * packaged in `@sparticuz/chromium` (x64 Linux), so a fresh clone needs no browser installed (docs/browser.md).
 * Each test gets a browser context of its own, closed with its scope, and the browser is closed after it. Every
 * wait a test makes through it is bounded.
 */
import * as Browser from "@signalman/checks/Browser"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type { BrowserContext } from "puppeteer-core"

/** A browser context for the scope; a browser that cannot be found or started fails the test with its one line. */
export const context: Effect.Effect<BrowserContext, never, Scope.Scope> = Effect.gen(function* () {
  const browser = Context.get(
    yield* Layer.build(Browser.layer({ executablePath: process.env["CHROMIUM_PATH"], setting: "CHROMIUM_PATH" })),
    Browser.Browser
  )
  const located = yield* browser.located
  // Printed rather than logged: the server under test sets the log level for the test's fiber.
  yield* Console.log(`browser: ${located.source}: ${located.description}`)
  return yield* browser.context
}).pipe(Effect.orDieWith((error) => new Error(error.message)))

/** The longest any page load or wait may take. */
export const WAIT_MS = 30_000
