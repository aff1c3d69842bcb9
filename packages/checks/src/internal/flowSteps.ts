/**
 * A flow's steps on a puppeteer page, as plain promises: each resolves when its step passed and rejects with a
 * {@link StepError} saying, in the step's own terms, why it did not (`not found within 10 s`, `answered 503`).
 * Waits are bounded by the step's wait (`step_timeout`) and end early when the run's signal aborts; navigations
 * by the time the run has left. `Flow` runs them in order, under the run's timeout, and reports.
 *
 * @internal
 */
import type { FlowStep } from "@signalman/core/CheckSpec"
import type { Page } from "puppeteer-core"

// The page's side, as far as the functions below that run there use it: this package is compiled without the DOM
// library, which would make `document` look available to Node code as well.
interface PageElement {
  readonly textContent: string | null
  readonly innerText?: string
  readonly style?: { setProperty(name: string, value: string, priority: string): void }
}
declare const document: {
  readonly body: PageElement | null
  querySelector(selector: string): PageElement | null
  querySelectorAll(selector: string): Iterable<PageElement>
}

/**
 * A step that did not pass; `message` is the step's error before any scrubbing.
 *
 * @internal
 */
export class StepError extends Error {
  readonly _tag = "StepError"
}

/**
 * How long a step may wait.
 *
 * @internal
 */
export interface Limits {
  /** A selector, a text or a URL to appear: `step_timeout`, or less when the run has less left. */
  readonly waitMs: number
  /** A navigation to load. */
  readonly navigationMs: number
  /** Aborted when the run gives the step up (its timeout, the run interrupted). */
  readonly signal: AbortSignal
}

const firstLine = (cause: unknown): string => {
  const text = cause instanceof Error ? cause.message : String(cause)
  return text.split("\n")[0]?.trim() || "unknown error"
}

const isTimeout = (cause: unknown): boolean => cause instanceof Error && cause.name === "TimeoutError"

/** `1 s`, `0.25 s`, `10 s`. */
const seconds = (ms: number): string => `${Math.round(ms) / 1000} s`

// Chromium's network errors end with " at <url>", which the step's label already names.
const networkError = (cause: unknown): string => firstLine(cause).replace(/^(net::[A-Z_]+) at .*$/, "$1")

/**
 * Loads `url` in the page; fails on a network error or an answer of 400 or above.
 *
 * @internal
 */
export const navigate = async (page: Page, url: string, limits: Limits): Promise<void> => {
  let status: number | undefined
  try {
    const response = await page.goto(url, { waitUntil: "load", timeout: limits.navigationMs })
    status = response?.status()
  } catch (cause) {
    throw new StepError(isTimeout(cause) ? `did not load within ${seconds(limits.navigationMs)}` : networkError(cause))
  }
  if (status !== undefined && status >= 400) throw new StepError(`answered ${status}`)
}

const present = async (page: Page, selector: string): Promise<boolean> => {
  try {
    return (await page.$(selector)) !== null
  } catch {
    return false
  }
}

// What an element step needs of an element it found, for the error when it never got it. puppeteer retries an
// action until its timeout without saying what was wrong, so the error names what could have been.
const unusable = {
  fill: "found but could not be filled (hidden, disabled, read-only, or the value does not fit the field)",
  click: "found but could not be clicked (hidden, disabled or still moving)",
  wait_for: "found but not visible"
} as const

// Why an element step failed: never there, there but never usable, or what puppeteer said (an invalid selector).
const elementError = async (
  page: Page,
  action: keyof typeof unusable,
  selector: string,
  limits: Limits,
  cause: unknown
): Promise<StepError> => {
  if (!isTimeout(cause)) return new StepError(firstLine(cause))
  const within = seconds(limits.waitMs)
  return new StepError(
    (await present(page, selector)) ? `${unusable[action]} within ${within}` : `not found within ${within}`
  )
}

// Runs in the page: is `text` in the visible text of the page, or of the first element `selector` matches?
const hasText = (selector: string | null, text: string): boolean => {
  const root = selector === null ? document.body : document.querySelector(selector)
  if (root === null) return false
  // The text a reader sees (innerText skips hidden elements, collapses white space); textContent for the rest (SVG).
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is the point: "on the page" means shown
  const seen = root.innerText ?? root.textContent
  return typeof seen === "string" && seen.includes(text)
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal.removeEventListener("abort", done)
      resolve()
    }
    signal.addEventListener("abort", done)
  })

/**
 * Runs one step on the page.
 *
 * @internal
 */
export const run = async (page: Page, step: FlowStep, limits: Limits): Promise<void> => {
  const { waitMs, signal } = limits
  switch (step.action) {
    case "goto":
      return navigate(page, step.url, limits)
    case "fill":
      try {
        await page.locator(step.selector).setTimeout(waitMs).fill(step.value, { signal })
      } catch (cause) {
        throw await elementError(page, step.action, step.selector, limits, cause)
      }
      return
    case "click":
      try {
        await page.locator(step.selector).setTimeout(waitMs).click({ signal })
      } catch (cause) {
        throw await elementError(page, step.action, step.selector, limits, cause)
      }
      return
    case "wait_for":
      try {
        await page.waitForSelector(step.selector, { visible: true, timeout: waitMs, signal })
      } catch (cause) {
        throw await elementError(page, step.action, step.selector, limits, cause)
      }
      return
    case "assert_text":
      try {
        await page.waitForFunction(hasText, { timeout: waitMs, polling: 100, signal }, step.selector, step.text)
      } catch (cause) {
        if (!isTimeout(cause)) throw new StepError(firstLine(cause))
        const within = seconds(waitMs)
        if (step.selector !== null && !(await present(page, step.selector))) {
          throw new StepError(`no element matches ${JSON.stringify(step.selector)} within ${within}`)
        }
        throw new StepError(
          step.selector === null ? `not on the page within ${within}` : `not in that element within ${within}`
        )
      }
      return
    case "assert_url": {
      // Polled here rather than in the page, so a navigation in flight cannot make it throw.
      const until = Date.now() + waitMs
      for (;;) {
        const url = page.url()
        if (url.includes(step.contains)) return
        if (Date.now() >= until || signal.aborted) {
          throw new StepError(`the URL is ${url} (waited ${seconds(waitMs)})`)
        }
        await sleep(Math.min(100, Math.max(0, until - Date.now())), signal)
      }
    }
  }
}

// Runs in the page: filled fields show their text as discs, and no caret blinks (so equal pages look equal).
const mask = (selectors: ReadonlyArray<string>): void => {
  for (const selector of selectors) {
    let found: Iterable<PageElement>
    try {
      found = document.querySelectorAll(selector)
    } catch {
      continue
    }
    for (const element of found) {
      element.style?.setProperty("-webkit-text-security", "disc", "important")
      element.style?.setProperty("caret-color", "transparent", "important")
    }
  }
}

/**
 * A PNG of the page as it is, with the fields the flow filled masked first: a fill value may be a secret, and the
 * screenshot is kept and shown. Undefined when the page cannot be captured (it crashed, or took too long).
 *
 * @internal
 */
export const screenshot = async (
  page: Page,
  filled: ReadonlyArray<string>,
  timeoutMs: number
): Promise<Uint8Array | undefined> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs)
  })
  const capture = (async () => {
    try {
      await page.evaluate(mask, filled)
      return await page.screenshot({ type: "png" })
    } catch {
      return undefined
    }
  })()
  try {
    return await Promise.race([capture, late])
  } finally {
    clearTimeout(timer)
  }
}
