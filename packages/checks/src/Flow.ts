/**
 * The flow probe: a scripted browser session (`start_url`, then its steps: goto, fill, click, wait_for,
 * assert_text, assert_url) in the process's headless Chromium ({@link Browser}), every step of which must pass.
 *
 * Each run gets a fresh incognito browser context, closed after it, and at most `maxConcurrency` runs share the
 * browser at once (the rest wait their turn, at most their own timeout). Every request the browser makes,
 * navigations, redirects and subresources alike, goes through the process's forward proxy (`internal/guardProxy.ts`)
 * on a loopback port of the run's own: the proxy resolves each host with the run's {@link Resolver}, applies the
 * internal-address guard to the address it dials, and connects to that address, so the browser's own resolution
 * never decides where a request goes. `start_url` and each goto URL are checked up front as well
 * ({@link TargetAddress}). Every request carries the probes' User-Agent and `X-Signalman-Region`. `verify_tls`
 * false accepts bad certificates for this run's context only.
 *
 * `timeout` caps the whole run; `step_timeout` each wait for a selector, a text or a URL. The outcome is `up` when
 * every step passed; `down` when one failed, the error naming it (`step 3 click "#login": not found within 10 s`)
 * and the steps after it skipped, with a PNG of the page at that moment as evidence; `error` when the run could not
 * judge: a request the guard refused (`blocked: ...`, neutral to the incident engine as for every probe), no
 * browser in this process, or the browser stopping mid-run (the next run gets a new one). Fill values never appear
 * in anything a run reports: they may be org secrets put in by the server.
 *
 * @since 0.1.0
 */
import type { CheckStatus, Evidence, ProbeOutcome } from "@signalman/core/CheckResult"
import type { FlowCheck, FlowStep } from "@signalman/core/CheckSpec"
import { BLOCKED_PREFIX } from "@signalman/core/Confirmation"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type { Page } from "puppeteer-core"
import * as Browser from "./Browser.js"
import * as Dial from "./Dial.js"
import * as Steps from "./internal/flowSteps.js"
import * as GuardProxy from "./internal/guardProxy.js"
import { mark, since } from "./internal/probe.js"
import * as Secrets from "./internal/secrets.js"
import { ProbeSettings, regionHeader } from "./ProbeSettings.js"
import type { Resolver } from "./Resolver.js"
import * as TargetAddress from "./TargetAddress.js"

/**
 * Flows one process runs at once by default (the server's `checker.flow_max_concurrency`): each is a browser
 * context with its renderer, a few hundred MB at worst, so a small box is not starved.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxConcurrency = 2

/**
 * How a step ended: `skipped` when the run never got to it.
 *
 * @since 0.1.0
 * @category models
 */
export type StepStatus = "passed" | "failed" | "skipped"

/**
 * One step in a result's `details.steps`: its position counted from 1 (as the error names it: `step 3`), its
 * action, how it ended, how long it took and, when it failed, why.
 *
 * @since 0.1.0
 * @category models
 */
export interface StepReport {
  readonly index: number
  readonly action: FlowStep["action"]
  readonly status: StepStatus
  readonly duration_ms: number
  readonly error: string | null
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Runs at once in this process; more wait for a turn, at most their own timeout. Default {@link defaultMaxConcurrency}. */
  readonly maxConcurrency?: number | undefined
  /** Connections one run may hold open to the proxy at once (default 64; Chromium opens at most 32 to a proxy). */
  readonly maxProxyConnections?: number | undefined
}

/**
 * Runs flows in this process: with a browser ({@link layer}) or, where there is none, answering every flow with
 * an `error` that says so ({@link layerWithoutBrowser}).
 *
 * @since 0.1.0
 * @category services
 */
export class Flows extends Context.Tag("Signalman/Flows")<
  Flows,
  {
    /** Runs one flow; never fails (every outcome, the refusals included, is a result). */
    readonly run: (check: FlowCheck) => Effect.Effect<ProbeOutcome, never, Resolver | ProbeSettings>
  }
>() {}

/**
 * Runs a flow check with the process's {@link Flows}.
 *
 * @since 0.1.0
 * @category probes
 */
export const probe = (check: FlowCheck): Effect.Effect<ProbeOutcome, never, Flows | Resolver | ProbeSettings> =>
  Effect.flatMap(Flows, (flows) => flows.run(check))

// How long capturing the failing page may add to a run that already ended.
const screenshotMs = 5_000

// Refusals of each kind a step keeps at most.
const maxRefusals = 256

// How long the proxy waits for a connection to an allowed address before answering 502.
const connectTimeoutMs = 15_000

// Viewport of every run: a common laptop screen, so a screenshot shows what most users see.
const viewport = { width: 1280, height: 800 }

/** Why a step did not pass: the step's own error, or a request the guard refused while it ran. */
class StepFailed extends Data.TaggedError("StepFailed")<{
  readonly at: number
  readonly message: string
  readonly blocked: boolean
}> {}

/** The browser went away mid-run (crashed, killed): nothing about the site can be said. */
class BrowserStopped extends Data.TaggedError("BrowserStopped")<{ readonly at: number }> {}

/** The run's own timeout ended it while step `at` ran. */
class RunTimedOut extends Data.TaggedError("RunTimedOut")<{ readonly at: number }> {}

// Where a run is: `start` is the navigation to start_url, before step 1.
const START = -1

const quoted = (text: string): string => JSON.stringify(text)

/** What an error calls a step: `step 3 click "#login"` (never a fill value), or `start_url "https://..."`. */
const label = (check: FlowCheck, at: number): string => {
  if (at === START) return `start_url ${quoted(check.start_url)}`
  const step = check.steps[at]
  const name = `step ${at + 1}`
  if (step === undefined) return name
  switch (step.action) {
    case "goto":
      return `${name} goto ${quoted(step.url)}`
    case "fill":
    case "click":
    case "wait_for":
      return `${name} ${step.action} ${quoted(step.selector)}`
    case "assert_text":
      return step.selector === null
        ? `${name} assert_text ${quoted(step.text)}`
        : `${name} assert_text ${quoted(step.text)} in ${quoted(step.selector)}`
    case "assert_url":
      return `${name} assert_url ${quoted(step.contains)}`
  }
}

/**
 * The run's error for a failure at a step: `step 3 click "#login": not found within 10 s`; a refusal by the guard
 * keeps `blocked:` in front (`blocked: step 2 goto "http://10.0.0.1/": 10.0.0.1 is a private address`), so the
 * incident engine counts it as no downtime, as it does every probe's.
 */
const runError = (named: string, message: string): string =>
  message.startsWith(BLOCKED_PREFIX)
    ? `${BLOCKED_PREFIX} ${named}: ${message.slice(BLOCKED_PREFIX.length).trim()}`
    : `${named}: ${message}`

const firstLine = (cause: unknown): string => {
  const text = cause instanceof Error ? cause.message : String(cause)
  return text.split("\n")[0]?.trim() || "unknown error"
}

/** Every URL the flow navigates to, with the field that names it. */
const navigations = (check: FlowCheck): ReadonlyArray<{ readonly at: number; readonly url: string }> => [
  { at: START, url: check.start_url },
  ...check.steps.flatMap((step, i) => (step.action === "goto" ? [{ at: i, url: step.url }] : []))
]

/**
 * Refusals before anything runs: a URL that is not http(s) (a browser would open `file:` or `chrome:` URLs
 * without any proxy), and an internal IP literal when private targets are not allowed.
 */
const upFront = (
  check: FlowCheck,
  allowPrivate: boolean
): { readonly at: number; readonly message: string } | undefined => {
  for (const { at, url } of navigations(check)) {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return { at, message: `invalid url: ${url}` }
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      return { at, message: `unsupported scheme ${parsed.protocol}` }
    }
  }
  const refused = TargetAddress.refusal(check, allowPrivate)
  if (refused?.code === "TARGET_ADDRESS_BLOCKED") {
    const at = refused.field === "start_url" ? START : Number(/^steps\[(\d+)\]/.exec(refused.field)?.[1] ?? START)
    return { at, message: `${BLOCKED_PREFIX} ${refused.message}` }
  }
  return undefined
}

const skippedReports = (check: FlowCheck): Array<StepReport> =>
  check.steps.map((step, i) => ({ index: i + 1, action: step.action, status: "skipped", duration_ms: 0, error: null }))

/** The outcome of a run that never reached the browser: every step skipped. */
const unrun = (check: FlowCheck, status: CheckStatus, error: string, duration_ms = 0): ProbeOutcome => ({
  status,
  duration_ms,
  error,
  details: { steps: skippedReports(check), final_url: null },
  phases: null
})

const isStopped = (page: Page, cause: unknown): boolean =>
  !page.browser().connected ||
  page.isClosed() ||
  (cause instanceof Error &&
    (cause.name === "TargetCloseError" || /(Target|Session|Connection) closed/i.test(cause.message)))

interface Engine {
  readonly browser: Context.Tag.Service<Browser.Browser>
  readonly permits: Effect.Semaphore
  readonly maxConcurrency: number
  readonly proxy: GuardProxy.GuardProxy
}

// The run itself, holding its permit: proxy port, browser context, page, steps, verdict.
const session = (
  engine: Engine,
  check: FlowCheck,
  scrub: Secrets.Scrub
): Effect.Effect<ProbeOutcome, never, Resolver | ProbeSettings | Scope.Scope> =>
  Effect.gen(function* () {
    const settings = yield* ProbeSettings
    const started = yield* mark
    const reports = skippedReports(check)
    // What the proxy did not carry during the current step, each kind apart and bounded (a page may make any
    // number of requests): a refused one fails the step, the first saying why; an unreachable one only explains a
    // failed navigation, the latest best.
    const blockedSeen: Array<GuardProxy.Refusal> = []
    const unreachableSeen: Array<GuardProxy.Refusal> = []

    // The proxy asks the run to resolve and guard each host, in fibers that end with the run.
    const runPromise = yield* FiberSet.makeRuntimePromise<Resolver | ProbeSettings>()
    const admit = (host: string): Promise<GuardProxy.Admission> =>
      runPromise(
        Effect.match(Dial.resolve(host, "any"), {
          onFailure: (failure): GuardProxy.Admission => ({
            ok: false,
            blocked: failure.reason === "blocked",
            message: failure.message
          }),
          onSuccess: (resolution): GuardProxy.Admission => ({ ok: true, addresses: resolution.addresses })
        })
      )

    const setUp = Effect.gen(function* () {
      const listener = yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: () =>
            engine.proxy.open({
              admit,
              refused: (refusal) => {
                if (refusal.blocked) {
                  if (blockedSeen.length < maxRefusals) blockedSeen.push(refusal)
                } else {
                  unreachableSeen.push(refusal)
                  if (unreachableSeen.length > maxRefusals) unreachableSeen.shift()
                }
              }
            }),
          catch: (cause) => new Browser.BrowserError({ message: `flows: cannot open the proxy: ${firstLine(cause)}` })
        }),
        (listener) => Effect.sync(listener.close)
      )
      const context = yield* engine.browser.contextWith({
        proxyServer: `http://127.0.0.1:${listener.port}`,
        // Chromium sends loopback straight out unless told otherwise; `<-loopback>` sends it through the proxy too.
        proxyBypassList: ["<-loopback>"],
        downloadBehavior: { policy: "deny" }
      })
      return yield* Effect.tryPromise({
        try: async () => {
          const page = await context.newPage()
          // A dialog would hold the page until answered: leaving is allowed, everything else is dismissed.
          page.on("dialog", (dialog) => {
            void (dialog.type() === "beforeunload" ? dialog.accept() : dialog.dismiss()).catch(() => undefined)
          })
          await page.setViewport(viewport)
          await page.setUserAgent({ userAgent: settings.userAgent })
          // The region goes on every request of the page as it leaves. Set this way (rather than as the page's extra
          // headers) it is no header the page's scripts set, so it cannot turn a cross-origin fetch the site allows
          // into one that needs a CORS preflight the site may not answer.
          await page.setRequestInterception(true)
          page.on("request", (request) => {
            if (request.isInterceptResolutionHandled()) return
            request
              .continue({ headers: { ...request.headers(), [regionHeader]: settings.region } })
              .catch(() => undefined)
          })
          if (!check.verify_tls) {
            // Sent to this page's own session: it holds for this run's context and no other.
            const cdp = await page.createCDPSession()
            await cdp.send("Security.setIgnoreCertificateErrors", { ignore: true })
          }
          return page
        },
        catch: (cause) => new Browser.BrowserError({ message: `browser: cannot open a page: ${firstLine(cause)}` })
      })
    })

    const ready = yield* Effect.either(setUp)
    if (Either.isLeft(ready)) {
      const error = ready.left
      const message =
        error._tag === "BrowserNotFound"
          ? `flows: no browser is available in this region (${error.message})`
          : error.message
      return unrun(check, "error", scrub(message), yield* since(started))
    }
    const page = ready.right

    let at = START
    let stepStarted = started
    let lastUrl = check.start_url
    // How a step ended, in its report (the navigation to start_url has none).
    const settle = (index: number, status: StepStatus, duration_ms: number, error: string | null): void => {
      const report = reports[index]
      if (report !== undefined) reports[index] = { ...report, status, duration_ms, error }
    }

    const deadlineMs = Date.now() + check.timeout * 1000
    const stepMs = check.step_timeout * 1000
    // The run's own timeout ends the run first: a step's waits are given a little longer than the time left.
    const limitsFor = (signal: AbortSignal): Steps.Limits => {
      const left = Math.max(0, deadlineMs - Date.now()) + 1_000
      return { waitMs: Math.min(stepMs, left), navigationMs: left, signal }
    }

    const attempt = (index: number, work: (limits: Steps.Limits) => Promise<void>) =>
      Effect.gen(function* () {
        at = index
        stepStarted = yield* mark
        blockedSeen.length = 0
        unreachableSeen.length = 0
        const done = yield* Effect.either(
          Effect.tryPromise({ try: (signal) => work(limitsFor(signal)), catch: (cause) => cause })
        )
        const blocked = blockedSeen[0]
        if (Either.isLeft(done) && isStopped(page, done.left)) return yield* new BrowserStopped({ at: index })
        if (blocked !== undefined) return yield* new StepFailed({ at: index, message: blocked.message, blocked: true })
        if (Either.isLeft(done)) {
          const cause = done.left
          let message = cause instanceof Steps.StepError ? cause.message : firstLine(cause)
          // A request the proxy could not carry explains a failed navigation better than the browser's code for it.
          const unreachable = unreachableSeen.at(-1)
          if (unreachable !== undefined && /^(net::ERR_TUNNEL_CONNECTION_FAILED|answered 502)/.test(message)) {
            message = `${unreachable.target}: ${unreachable.message}`
          }
          return yield* new StepFailed({ at: index, message, blocked: false })
        }
        settle(index, "passed", yield* since(stepStarted), null)
      })

    const steps = Effect.gen(function* () {
      yield* attempt(START, (limits) => Steps.navigate(page, check.start_url, limits))
      for (const [index, step] of check.steps.entries()) {
        if (step.action === "goto") lastUrl = step.url
        yield* attempt(index, (limits) => Steps.run(page, step, limits))
      }
    })

    const ended = yield* steps.pipe(
      Effect.timeoutFail({
        duration: Duration.seconds(check.timeout),
        onTimeout: () => new RunTimedOut({ at })
      }),
      Effect.exit
    )

    // Where the page got to (a failed load leaves an error page behind: then the URL it was sent to).
    const pageUrl = page.isClosed() ? "" : page.url()
    const final_url = scrub(/^https?:/.test(pageUrl) ? pageUrl : lastUrl)
    const details = (): Record<string, unknown> => ({ steps: reports, final_url })

    if (Exit.isSuccess(ended)) {
      return { status: "up", duration_ms: yield* since(started), error: null, details: details(), phases: null }
    }
    const failure = Option.getOrUndefined(Cause.failureOption(ended.cause))
    if (failure === undefined) {
      // Interrupted: the caller gave the run up; no result is read from this.
      return yield* Effect.interrupt
    }
    const failedAfter = yield* since(stepStarted)
    const fail = (index: number, error: string) => settle(index, "failed", failedAfter, error)

    switch (failure._tag) {
      case "BrowserStopped": {
        fail(failure.at, "the browser stopped")
        return {
          status: "error",
          duration_ms: yield* since(started),
          error: `browser: the browser stopped during ${scrub(label(check, failure.at))}`,
          details: details(),
          phases: null
        }
      }
      case "StepFailed":
      case "RunTimedOut": {
        const message =
          failure._tag === "StepFailed" ? scrub(failure.message) : `the flow's timeout of ${check.timeout} s ran out`
        const blocked = failure._tag === "StepFailed" && failure.blocked
        fail(failure.at, message)
        const error = runError(scrub(label(check, failure.at)), message)
        const shot = yield* Effect.promise(() =>
          Steps.screenshot(
            page,
            check.steps.flatMap((step) => (step.action === "fill" ? [step.selector] : [])),
            screenshotMs
          )
        )
        const evidence: Evidence | undefined = shot === undefined ? undefined : { screenshot_png: shot }
        return {
          status: blocked ? "error" : "down",
          duration_ms: yield* since(started),
          error,
          details: details(),
          phases: null,
          ...(evidence === undefined ? {} : { evidence })
        }
      }
    }
  })

const make = (
  browser: Context.Tag.Service<Browser.Browser>,
  options: Options
): Effect.Effect<Context.Tag.Service<Flows>> =>
  Effect.gen(function* () {
    const maxConcurrency = options.maxConcurrency ?? defaultMaxConcurrency
    const engine: Engine = {
      browser,
      maxConcurrency,
      permits: yield* Effect.makeSemaphore(maxConcurrency),
      proxy: GuardProxy.make({ maxConnections: options.maxProxyConnections ?? 64, connectTimeoutMs })
    }
    return {
      run: (check) =>
        Effect.gen(function* () {
          const settings = yield* ProbeSettings
          const scrub = Secrets.scrubber(check.steps.flatMap((step) => (step.action === "fill" ? [step.value] : [])))
          const refused = upFront(check, settings.allowPrivateTargets)
          if (refused !== undefined)
            return unrun(check, "error", scrub(runError(label(check, refused.at), refused.message)))
          return yield* Effect.scoped(
            Effect.gen(function* () {
              // A turn among the process's runs, waited for at most the run's own timeout.
              const permit = yield* Effect.acquireRelease(
                Effect.interruptible(engine.permits.take(1)).pipe(
                  Effect.timeoutOption(Duration.seconds(check.timeout))
                ),
                (taken) => (Option.isSome(taken) ? engine.permits.release(1) : Effect.void)
              )
              if (Option.isNone(permit)) {
                return unrun(
                  check,
                  "error",
                  `flows: no turn within ${check.timeout} s: this process runs at most ${engine.maxConcurrency} ${engine.maxConcurrency === 1 ? "flow" : "flows"} at once`,
                  check.timeout * 1000
                )
              }
              return yield* session(engine, check, scrub)
            })
          )
        })
    }
  })

/**
 * Flows on the {@link Browser} in context: nothing is launched until the first flow runs.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<Flows, never, Browser.Browser> =>
  Layer.effect(
    Flows,
    Effect.flatMap(Browser.Browser, (browser) => make(browser, options))
  )

/**
 * Flows where this process has no browser: each run is an `error` saying so (`reason`, one line, says why: a
 * setting turned flows off, or no browser was found).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWithoutBrowser = (reason: string): Layer.Layer<Flows> =>
  Layer.succeed(Flows, {
    run: (check) => Effect.succeed(unrun(check, "error", `flows: no browser is available in this region (${reason})`))
  })
