/**
 * The browser: where it comes from and its life. {@link locate} finds one in a fixed order (an explicit path
 * setting, then a system Chromium or Chrome, then the Chromium packaged in `@sparticuz/chromium` on x64 Linux) and
 * says which it picked; {@link launch} starts it headless for a scope; the {@link Browser} service keeps one per
 * process, hands out a fresh browser context per run, and launches again after a crash. The flow probe, the agent
 * and the server's browser tests all go through here.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as SynchronizedRef from "effect/SynchronizedRef"
import type { BrowserContext, BrowserContextOptions, Browser as PuppeteerBrowser } from "puppeteer-core"
import * as PackagedChromium from "./internal/packagedChromium.js"

/**
 * Where the browser came from: the explicit path setting, a Chromium or Chrome installed on the system, or the
 * Chromium packaged in `@sparticuz/chromium`.
 *
 * @since 0.1.0
 * @category models
 */
export type Source = "setting" | "system" | "packaged"

/**
 * A browser found on this machine, with the flags it is launched with.
 *
 * @since 0.1.0
 * @category models
 */
export interface Located {
  readonly source: Source
  readonly executablePath: string
  /** For logs and test output: `system Chromium at /usr/bin/chromium`, `@sparticuz/chromium 153.0.0 at /tmp/chromium`. */
  readonly description: string
  readonly args: ReadonlyArray<string>
  /** puppeteer's headless mode: the packaged build is chrome-headless-shell, which has only the `shell` mode. */
  readonly headless: true | "shell"
}

/**
 * No browser could be found (or the explicit one does not exist); `message` is one line saying what to install or set.
 *
 * @since 0.1.0
 * @category errors
 */
export class BrowserNotFound extends Data.TaggedError("BrowserNotFound")<{ readonly message: string }> {}

/**
 * The browser was found but did not start, or stopped answering; `message` is one line naming it.
 *
 * @since 0.1.0
 * @category errors
 */
export class BrowserError extends Data.TaggedError("BrowserError")<{ readonly message: string }> {}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** An explicit browser. When set it is the only candidate: a wrong path is an error, never a silent fallback. */
  readonly executablePath?: string | undefined
  /** What that setting is called where it is set (`CHROMIUM_PATH`, `checker.browser_path`), for messages. */
  readonly setting?: string | undefined
}

/**
 * The packaged Chromium once unpacked, as {@link Machine} reports it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Packaged {
  readonly executablePath: string
  readonly version: string
  /** The flags `@sparticuz/chromium` recommends; {@link packagedArgs} adapts them. */
  readonly args: ReadonlyArray<string>
}

/**
 * What locating asks of the machine, as a service so tests can stage any machine: its platform, its environment
 * (PATH, HOME, program folders), which files are executable, and the packaged Chromium's unpacking.
 *
 * @since 0.1.0
 * @category services
 */
export class Machine extends Context.Tag("Signalman/Browser/Machine")<
  Machine,
  {
    readonly platform: NodeJS.Platform
    readonly arch: string
    readonly env: Readonly<Record<string, string | undefined>>
    readonly isExecutable: (file: string) => Effect.Effect<boolean>
    readonly exists: (file: string) => Effect.Effect<boolean>
    /** Unpack the packaged Chromium (fails with the reason, one line). */
    readonly unpackPackaged: Effect.Effect<Packaged, string>
  }
>() {}

const isExecutable = (file: string): Effect.Effect<boolean> =>
  Effect.promise(async () => {
    try {
      const stat = await fs.promises.stat(file)
      if (!stat.isFile()) return false
      await fs.promises.access(file, fs.constants.X_OK)
      return true
    } catch {
      return false
    }
  })

/**
 * This machine.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMachine: Layer.Layer<Machine> = Layer.sync(Machine, () => ({
  platform: process.platform,
  arch: process.arch,
  env: process.env,
  isExecutable,
  exists: (file) =>
    Effect.promise(() =>
      fs.promises.access(file).then(
        () => true,
        () => false
      )
    ),
  unpackPackaged: PackagedChromium.unpack.pipe(Effect.mapError((error) => error.message))
}))

const systemNames = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"] as const

/**
 * The places a system Chromium or Chrome is looked for on a platform, in order: the usual install paths, then
 * each usual command name on the PATH.
 *
 * @since 0.1.0
 * @category constructors
 */
export const systemCandidates = (
  platform: NodeJS.Platform,
  env: Readonly<Record<string, string | undefined>>
): ReadonlyArray<string> => {
  const paths = (dirs: ReadonlyArray<string | undefined>, join: (dir: string) => string): Array<string> =>
    dirs.flatMap((dir) => (dir === undefined || dir === "" ? [] : [join(dir)]))
  const onPath = (names: ReadonlyArray<string>, delimiter: string, join: (dir: string, name: string) => string) =>
    (env["PATH"] ?? "")
      .split(delimiter)
      .filter((dir) => dir !== "")
      .flatMap((dir) => names.map((name) => join(dir, name)))
  let candidates: Array<string>
  switch (platform) {
    case "linux":
      candidates = [
        ...systemNames.map((name) => `/usr/bin/${name}`),
        ...onPath(systemNames, ":", (dir, name) => path.posix.join(dir, name))
      ]
      break
    case "darwin": {
      const apps = ["Google Chrome.app/Contents/MacOS/Google Chrome", "Chromium.app/Contents/MacOS/Chromium"]
      candidates = [
        ...apps.map((app) => `/Applications/${app}`),
        ...paths([env["HOME"]], (home) => home).flatMap((home) => apps.map((app) => `${home}/Applications/${app}`)),
        ...onPath(systemNames, ":", (dir, name) => path.posix.join(dir, name))
      ]
      break
    }
    case "win32":
      candidates = [
        ...paths([env["PROGRAMFILES"], env["PROGRAMFILES(X86)"], env["LOCALAPPDATA"]], (dir) =>
          path.win32.join(dir, "Google", "Chrome", "Application", "chrome.exe")
        ),
        ...onPath(["chrome.exe"], ";", (dir, name) => path.win32.join(dir, name))
      ]
      break
    default:
      candidates = onPath(systemNames, ":", (dir, name) => path.posix.join(dir, name))
  }
  return [...new Set(candidates)]
}

// The headless Chromium of every source is kept off the network except for the pages it is sent to: the machines
// it runs on may have no route out (CI, this project's test machines), and a probe's traffic is its own.
const quiet = [
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  // QUIC would bypass the forward proxy the flow probe sends the browser through (DESIGN.md, flows and the guard),
  // and so would WebRTC's UDP: a page may still use WebRTC, only over the proxy.
  "--disable-quic",
  "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
  // Docker gives /dev/shm 64 MB, too little for a renderer; /tmp is used instead.
  "--disable-dev-shm-usage"
]

/**
 * Flags for a system (or explicitly set) Chromium or Chrome. The sandbox is off because Chromium refuses to
 * start sandboxed as root and containers rarely allow the user namespaces it would use otherwise; there is no GPU.
 *
 * @since 0.1.0
 * @category constants
 */
export const systemArgs: ReadonlyArray<string> = ["--headless", "--no-sandbox", "--disable-gpu", ...quiet]

// Flags of @sparticuz/chromium that are wrong here: one process for everything (made for Lambda) crashes the
// browser when a page opens in a new browser context ("Target closed"), and a probe must see a site as a user's
// browser does, with the same-origin policy and mixed-content blocking on.
const droppedPackagedArgs = new Set(["--single-process", "--disable-web-security", "--allow-running-insecure-content"])

/**
 * The packaged Chromium's flags: those `@sparticuz/chromium` recommends, less the ones made for Lambda that break
 * browser contexts or weaken what a page is allowed, plus the same quiet flags as a system browser.
 *
 * @since 0.1.0
 * @category constructors
 */
export const packagedArgs = (recommended: ReadonlyArray<string>): ReadonlyArray<string> => [
  ...new Set([...recommended.filter((arg) => !droppedPackagedArgs.has(arg)), ...quiet])
]

// The interpreter the packaged binary is linked against: without it (Alpine, musl) the binary cannot run at all.
const glibcLoader = "/lib64/ld-linux-x86-64.so.2"

const whatToInstall = (platform: NodeJS.Platform): string => {
  switch (platform) {
    case "linux":
      return "install Chromium (Debian/Ubuntu: apt-get install chromium; Alpine: apk add chromium)"
    case "darwin":
      return "install Google Chrome or Chromium (brew install --cask chromium)"
    case "win32":
      return "install Google Chrome"
    default:
      return "install Chromium"
  }
}

/**
 * Find a browser, in order: the explicit path when one is set (and only it), then a system Chromium or Chrome
 * ({@link systemCandidates}), then the packaged Chromium on x64 Linux with glibc. Otherwise fail with one line
 * saying what to install or set.
 *
 * @since 0.1.0
 * @category constructors
 */
export const locate = (options: Options = {}): Effect.Effect<Located, BrowserNotFound, Machine> =>
  Effect.gen(function* () {
    const machine = yield* Machine
    const setting = options.setting ?? "the browser path setting"
    const explicit = options.executablePath?.trim()
    if (explicit !== undefined && explicit !== "") {
      if (!(yield* machine.isExecutable(explicit))) {
        return yield* new BrowserNotFound({
          message: `browser: ${setting} is ${explicit}, which is not an executable file; fix it or unset it to use a system or packaged browser`
        })
      }
      return {
        source: "setting",
        executablePath: explicit,
        description: `${explicit} (from ${setting})`,
        args: systemArgs,
        headless: true
      } satisfies Located
    }

    for (const candidate of systemCandidates(machine.platform, machine.env)) {
      if (yield* machine.isExecutable(candidate)) {
        return {
          source: "system",
          executablePath: candidate,
          description: `system browser at ${candidate}`,
          args: systemArgs,
          headless: true
        } satisfies Located
      }
    }

    const instead = `${whatToInstall(machine.platform)}, or set ${setting}`
    if (machine.platform !== "linux" || machine.arch !== "x64") {
      const packagedNote =
        machine.platform === "linux" ? `; @sparticuz/chromium ships an x64 build only, this is ${machine.arch}` : ""
      return yield* new BrowserNotFound({
        message: `browser: no Chromium or Chrome found on this ${machine.platform}/${machine.arch} machine${packagedNote}; ${instead}`
      })
    }
    if (!(yield* machine.exists(glibcLoader))) {
      return yield* new BrowserNotFound({
        message: `browser: no Chromium or Chrome found, and the packaged one (@sparticuz/chromium) needs glibc (${glibcLoader} is missing); ${instead}`
      })
    }
    const packaged = yield* machine.unpackPackaged.pipe(
      Effect.mapError(
        (reason) =>
          new BrowserNotFound({
            message: `browser: no Chromium or Chrome found, and the packaged one (@sparticuz/chromium) did not unpack (${reason}); ${instead}`
          })
      )
    )
    // The unpacked binary is private to whoever unpacked it (mode 0700 in a shared /tmp).
    if (!(yield* machine.isExecutable(packaged.executablePath))) {
      return yield* new BrowserNotFound({
        message: `browser: the packaged Chromium at ${packaged.executablePath} is not executable by this user (unpacked by another?); set TMPDIR to a directory of your own, ${instead}`
      })
    }
    return {
      source: "packaged",
      executablePath: packaged.executablePath,
      description: `@sparticuz/chromium ${packaged.version} at ${packaged.executablePath}`,
      args: packagedArgs(packaged.args),
      headless: "shell"
    } satisfies Located
  })

const firstLine = (cause: unknown): string => {
  const text = cause instanceof Error ? cause.message : String(cause)
  return text.split("\n")[0]?.trim() || "unknown error"
}

const stopped = (browser: PuppeteerBrowser): Effect.Effect<void> =>
  Effect.tryPromise(() => browser.close()).pipe(
    // A browser that is wedged does not answer close; its process is killed below either way. Releases run
    // uninterruptibly, and without this the timeout could not cut the wait short.
    Effect.interruptible,
    Effect.timeout("10 seconds"),
    Effect.ignore,
    Effect.andThen(
      Effect.sync(() => {
        const child = browser.process()
        if (child !== null && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
      })
    )
  )

/**
 * Start a located browser headless for the scope, with a fresh profile of its own (its user-data-dir, removed
 * afterwards), over a pipe rather than a debugging port, so no other local process can drive it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const launch = (
  located: Located,
  options: { readonly timeout?: Duration.DurationInput } = {}
): Effect.Effect<PuppeteerBrowser, BrowserError, Scope.Scope> =>
  Effect.gen(function* () {
    const profile = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => fs.promises.mkdtemp(path.join(os.tmpdir(), "signalman-browser-")),
        catch: (cause) => new BrowserError({ message: `browser: cannot make a profile directory: ${firstLine(cause)}` })
      }),
      (dir) =>
        Effect.promise(() =>
          fs.promises.rm(dir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined)
        )
    )
    const { default: puppeteer } = yield* Effect.tryPromise({
      try: () => import("puppeteer-core"),
      catch: (cause) => new BrowserError({ message: `browser: cannot load puppeteer-core: ${firstLine(cause)}` })
    })
    return yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () =>
          puppeteer.launch({
            executablePath: located.executablePath,
            args: [...located.args, `--user-data-dir=${profile}`],
            headless: located.headless,
            pipe: true,
            timeout: Duration.toMillis(options.timeout ?? "60 seconds"),
            // puppeteer's own SIGINT handler exits the process at once, which would cut the server's graceful
            // shutdown short; the scope closes the browser, and puppeteer still kills it when the process exits.
            handleSIGINT: false,
            handleSIGTERM: false,
            handleSIGHUP: false
          }),
        catch: (cause) =>
          new BrowserError({ message: `browser: cannot launch ${located.description}: ${firstLine(cause)}` })
      }),
      stopped
    )
  })

/**
 * The browser of a process: one at a time, launched on first use, a fresh browser context (cookies, storage and
 * cache of its own) per run, and launched again for the next run after it crashes or disconnects.
 *
 * @since 0.1.0
 * @category services
 */
export class Browser extends Context.Tag("Signalman/Browser")<
  Browser,
  {
    /** The browser this process uses, located on first ask (a failure is not remembered, so a later ask retries). */
    readonly located: Effect.Effect<Located, BrowserNotFound>
    /** A new browser context for one run, closed when the scope closes. */
    readonly context: Effect.Effect<BrowserContext, BrowserNotFound | BrowserError, Scope.Scope>
    /**
     * A new browser context with options of its own, closed when the scope closes: a flow gives each run its own
     * proxy (`proxyServer`, `proxyBypassList`), so one run's settings never reach another's requests.
     */
    readonly contextWith: (
      options: BrowserContextOptions
    ) => Effect.Effect<BrowserContext, BrowserNotFound | BrowserError, Scope.Scope>
  }
>() {}

interface Running {
  readonly browser: PuppeteerBrowser
  readonly scope: Scope.CloseableScope
}

interface State {
  readonly located: Option.Option<Located>
  readonly running: Option.Option<Running>
}

// The browser went away between being handed out and opening the context: worth one more try on a new one.
class Disconnected extends Data.TaggedError("Disconnected")<{ readonly message: string }> {}

/**
 * The {@link Browser} service on the {@link Machine} in context; the browser is closed when the layer is.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options = {}
): Effect.Effect<Context.Tag.Service<Browser>, never, Machine | Scope.Scope> =>
  Effect.gen(function* () {
    const machine = yield* Machine
    const layerScope = yield* Effect.scope
    const state = yield* SynchronizedRef.make<State>({ located: Option.none(), running: Option.none() })

    const locateOnce = (current: State): Effect.Effect<Located, BrowserNotFound> =>
      Option.match(current.located, {
        onSome: Effect.succeed,
        onNone: () => Effect.provideService(locate(options), Machine, machine)
      })

    const located = SynchronizedRef.modifyEffect(state, (current) =>
      Effect.map(locateOnce(current), (found) => [found, { ...current, located: Option.some(found) }] as const)
    )

    // Serialised by the ref, so runs arriving together share one launch.
    const browser = SynchronizedRef.modifyEffect(state, (current) =>
      Effect.gen(function* () {
        if (Option.isSome(current.running)) {
          if (current.running.value.browser.connected) return [current.running.value.browser, current] as const
          // Crashed or disconnected: reap what is left of it (the process, its profile) before the next launch.
          yield* Scope.close(current.running.value.scope, Exit.void)
          yield* Effect.logWarning("browser: the browser stopped; launching a new one")
        }
        const found = yield* locateOnce(current)
        const scope = yield* Scope.fork(layerScope, ExecutionStrategy.sequential)
        const launched = yield* launch(found).pipe(
          Scope.extend(scope),
          // Failed or interrupted (a run given up on while it waited): nothing may outlive the attempt.
          Effect.onError(() => Scope.close(scope, Exit.void))
        )
        yield* Effect.logInfo(`browser: launched ${found.description}`).pipe(
          Effect.annotateLogs({ browser_source: found.source, browser_path: found.executablePath })
        )
        const next: State = {
          located: Option.some(found),
          running: Option.some({ browser: launched, scope })
        }
        return [launched, next] as const
      })
    )

    const open = (
      options: BrowserContextOptions
    ): Effect.Effect<BrowserContext, BrowserNotFound | BrowserError | Disconnected, Scope.Scope> =>
      Effect.flatMap(browser, (current) =>
        Effect.acquireRelease(
          Effect.tryPromise({
            try: () => current.createBrowserContext(options),
            catch: (cause) =>
              current.connected
                ? new BrowserError({ message: `browser: cannot open a browser context: ${firstLine(cause)}` })
                : new Disconnected({ message: `browser: the browser stopped: ${firstLine(cause)}` })
          }).pipe(
            // Acquisitions run uninterruptibly; the wait is made interruptible so the timeout can end it.
            Effect.interruptible,
            Effect.timeoutFail({
              duration: "30 seconds",
              onTimeout: () => new BrowserError({ message: "browser: no browser context within 30 s" })
            })
          ),
          (context) =>
            Effect.tryPromise(() => context.close()).pipe(
              Effect.interruptible,
              Effect.timeout("10 seconds"),
              Effect.ignore
            )
        )
      )

    const contextWith = (options: BrowserContextOptions) =>
      open(options).pipe(
        Effect.retry({ times: 1, while: (error) => error._tag === "Disconnected" }),
        Effect.catchTag("Disconnected", (error) => Effect.fail(new BrowserError({ message: error.message })))
      )

    return { located, context: contextWith({}), contextWith }
  })

/**
 * The {@link Browser} service on this machine. Nothing is located or launched until a run asks for a context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<Browser> =>
  Layer.scoped(Browser, make(options)).pipe(Layer.provide(layerMachine))
