/// <reference lib="dom" />
/**
 * The dashboard in real headless Chromium (through `Chromium.ts`): a tab signed in as a fixture person (their
 * session cookie, as the magic link set it), an accessibility audit with axe-core (WCAG 2.0/2.1/2.2 A and AA rules;
 * no serious or critical violation may pass), screenshots in light and dark into `test-artifacts/dashboard/`, and
 * bounded waits. The pages run under their real content security policy: axe is evaluated through the DevTools
 * protocol, which that policy does not govern, so nothing is relaxed for the audit.
 */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { BrowserContext, Page } from "puppeteer-core"
import * as Chromium from "./Chromium.js"
import type * as Identity from "./Identity.js"

const ARTIFACTS = path.resolve(__dirname, "../../../../test-artifacts/dashboard")

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

export type Theme = "light" | "dark"

/** A browser context for the test's scope. */
export const context: Effect.Effect<BrowserContext, never, Scope.Scope> = Chromium.context

/** A new tab carrying the person's cookies for the server, closed with the scope. */
export const tab = (
  context: BrowserContext,
  baseUrl: string,
  person?: Identity.Person
): Effect.Effect<Page, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const page = await context.newPage()
      page.setDefaultTimeout(Chromium.WAIT_MS)
      page.setDefaultNavigationTimeout(Chromium.WAIT_MS)
      if (person !== undefined) {
        const cookies = [...person.browser.cookies].map(([name, value]) => ({ name, value, url: baseUrl }))
        if (cookies.length > 0) await page.setCookie(...cookies)
      }
      return page
    }),
    (page) => Effect.promise(() => page.close().catch(() => undefined))
  )

/** Goes to a path and returns the HTTP status; the page has loaded and its deferred script has run. */
export const visit = (page: Page, url: string) =>
  Effect.promise(async () => {
    const response = await page.goto(url, { waitUntil: "load" })
    return response?.status() ?? 0
  })

export const setTheme = (page: Page, theme: Theme) =>
  Effect.promise(() => page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: theme }]))

export interface Violation {
  readonly id: string
  readonly impact: string | null
  readonly help: string
  readonly nodes: ReadonlyArray<string>
}

/** axe-core's violations of the page as it is now, serious and critical only. */
export const violations = (page: Page): Effect.Effect<ReadonlyArray<Violation>> =>
  Effect.promise(async () => {
    const loaded = await page.evaluate(() => "axe" in window)
    if (!loaded) await page.evaluate(axeSource)
    return page.evaluate(async () => {
      const axe = (
        window as unknown as {
          axe: {
            run: (
              context: Document,
              options: object
            ) => Promise<{
              violations: Array<{
                id: string
                impact: string | null
                help: string
                nodes: Array<{ target: Array<unknown> }>
              }>
            }>
          }
        }
      ).axe
      const result = await axe.run(document, {
        runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"] },
        resultTypes: ["violations"]
      })
      return result.violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(" ")) }))
    })
  })

/**
 * The page's audit and screenshots in both themes: no serious or critical axe violation in either (contrast is
 * checked per theme), and `<name>-light.png` / `<name>-dark.png` written for people to look at.
 */
export const auditAndCapture = (page: Page, name: string) =>
  Effect.gen(function* () {
    fs.mkdirSync(ARTIFACTS, { recursive: true })
    for (const theme of ["light", "dark"] as const) {
      yield* setTheme(page, theme)
      expect(yield* violations(page), `${name} (${theme})`).toEqual([])
      yield* Effect.promise(() =>
        page.screenshot({ path: path.join(ARTIFACTS, `${name}-${theme}.png`), fullPage: true })
      )
    }
    yield* setTheme(page, "light")
  })

/** Waits, bounded, until `predicate` holds in the page. */
export const until = (page: Page, predicate: string) =>
  Effect.promise(() =>
    page.waitForFunction(predicate, { timeout: Chromium.WAIT_MS, polling: 50 }).then(() => undefined)
  )
