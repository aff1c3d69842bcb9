/**
 * Real headless Chromium for tests of the server-rendered pages: launched from `/usr/bin/chromium` (or
 * `CHROMIUM_PATH`) with no sandbox, GPU, sync or background networking, and closed when the scope closes. Every wait
 * a test makes through it is bounded.
 */
import * as Effect from "effect/Effect"
import puppeteer, { type Browser } from "puppeteer-core"

export const executablePath = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium"

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
  "--disable-dev-shm-usage"
]

/** A browser for the scope. */
export const launch = Effect.acquireRelease(
  Effect.promise(() => puppeteer.launch({ executablePath, args: ARGS, headless: true, timeout: 60_000 })),
  (browser: Browser) => Effect.promise(() => browser.close().catch(() => undefined))
)

/** The longest any page load or wait may take. */
export const WAIT_MS = 30_000
