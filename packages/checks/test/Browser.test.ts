import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import type { BrowserContext } from "puppeteer-core"
import * as Browser from "../src/Browser.js"
import * as PackagedChromium from "../src/internal/packagedChromium.js"
import { httpServer } from "./support/Loopback.js"

interface Staged {
  readonly platform?: NodeJS.Platform
  readonly arch?: string
  readonly env?: Readonly<Record<string, string | undefined>>
  readonly executables?: ReadonlyArray<string>
  readonly files?: ReadonlyArray<string>
  /** What unpacking the packaged Chromium gives: the browser, or the reason it failed. */
  readonly packaged?: Browser.Packaged | string
}

const recommended = [
  "--ash-no-nudges",
  "--single-process",
  "--disable-features=AudioServiceOutOfProcess,IsolateOrigins,site-per-process",
  "--allow-running-insecure-content",
  "--disable-setuid-sandbox",
  "--disable-web-security",
  "--headless='shell'",
  "--no-sandbox",
  "--no-zygote"
]

const unpacked: Browser.Packaged = { executablePath: "/tmp/chromium", version: "153.0.0", args: recommended }

// A machine staged for one test: which files are executable, which exist, and what unpacking gives.
const machine = (staged: Staged, unpacks: Array<string> = []) =>
  Layer.succeed(Browser.Machine, {
    platform: staged.platform ?? "linux",
    arch: staged.arch ?? "x64",
    env: staged.env ?? { PATH: "/usr/local/bin:/usr/bin:/bin" },
    // The packaged binary, once unpacked, is executable unless a test says otherwise.
    isExecutable: (file) =>
      Effect.succeed((staged.executables ?? []).includes(file) || file === unpacked.executablePath),
    exists: (file) => Effect.succeed((staged.files ?? ["/lib64/ld-linux-x86-64.so.2"]).includes(file)),
    unpackPackaged: Effect.suspend(() => {
      unpacks.push("unpack")
      const packaged = staged.packaged ?? unpacked
      return typeof packaged === "string" ? Effect.fail(packaged) : Effect.succeed(packaged)
    })
  })

const locate = (staged: Staged, options: Browser.Options = {}, unpacks: Array<string> = []) =>
  Browser.locate(options).pipe(Effect.provide(machine(staged, unpacks)), Effect.either)

const notFound = (result: Either.Either<Browser.Located, Browser.BrowserNotFound>): string =>
  Either.match(result, {
    onLeft: (error) => error.message,
    onRight: (located) => assert.fail(`expected no browser, got ${located.description}`)
  })

const found = (result: Either.Either<Browser.Located, Browser.BrowserNotFound>): Browser.Located =>
  Either.match(result, {
    onLeft: (error) => assert.fail(error.message),
    onRight: (located) => located
  })

// The browser the real tests use: CHROMIUM_PATH when set, as the test suites' explicit setting.
const options: Browser.Options = { executablePath: process.env["CHROMIUM_PATH"], setting: "CHROMIUM_PATH" }

const page = `<!doctype html><title>Loopback page</title><p id="said">hello from loopback</p>`

describe("Browser", () => {
  describe("locate: the order of sources", () => {
    it.effect("an explicit path wins over a system Chromium and the packaged one", () =>
      Effect.gen(function* () {
        const unpacks: Array<string> = []
        const located = found(
          yield* locate(
            { executables: ["/opt/chrome/chrome", "/usr/bin/chromium"] },
            { executablePath: "/opt/chrome/chrome", setting: "CHROMIUM_PATH" },
            unpacks
          )
        )
        assert.strictEqual(located.source, "setting")
        assert.strictEqual(located.executablePath, "/opt/chrome/chrome")
        assert.strictEqual(located.description, "/opt/chrome/chrome (from CHROMIUM_PATH)")
        assert.deepStrictEqual(located.args, Browser.systemArgs)
        assert.deepStrictEqual(unpacks, [])
      })
    )

    it.effect("an explicit path that is not an executable file is BrowserNotFound naming it, with no fallback", () =>
      Effect.gen(function* () {
        const unpacks: Array<string> = []
        const message = notFound(
          yield* locate(
            { executables: ["/usr/bin/chromium"] },
            { executablePath: "/nowhere/chromium", setting: "CHROMIUM_PATH" },
            unpacks
          )
        )
        assert.strictEqual(
          message,
          "browser: CHROMIUM_PATH is /nowhere/chromium, which is not an executable file; fix it or unset it to use a system or packaged browser"
        )
        assert.deepStrictEqual(unpacks, [])
      })
    )

    it.effect("an empty explicit path counts as unset", () =>
      Effect.gen(function* () {
        const located = found(yield* locate({ executables: ["/usr/bin/chromium"] }, { executablePath: "  " }))
        assert.strictEqual(located.source, "system")
      })
    )

    it.effect("without a setting, a system browser at the usual paths, in order, before the packaged one", () =>
      Effect.gen(function* () {
        const unpacks: Array<string> = []
        const located = found(
          yield* locate({ executables: ["/usr/bin/google-chrome", "/usr/bin/chromium-browser"] }, {}, unpacks)
        )
        assert.strictEqual(located.source, "system")
        assert.strictEqual(located.executablePath, "/usr/bin/chromium-browser")
        assert.strictEqual(located.description, "system browser at /usr/bin/chromium-browser")
        assert.strictEqual(located.headless, true)
        assert.deepStrictEqual(unpacks, [])
      })
    )

    it.effect("a system browser found only on the PATH is used", () =>
      Effect.gen(function* () {
        const located = found(
          yield* locate({
            env: { PATH: "/home/me/bin:/opt/tools/bin" },
            executables: ["/opt/tools/bin/google-chrome-stable"]
          })
        )
        assert.strictEqual(located.source, "system")
        assert.strictEqual(located.executablePath, "/opt/tools/bin/google-chrome-stable")
      })
    )

    it("the system flags are headless, unsandboxed, without GPU, and quiet on the network", () => {
      for (const flag of [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync"
      ]) {
        assert.include(Browser.systemArgs, flag)
      }
    })

    it.effect(
      "no system browser on x64 Linux: the packaged Chromium in shell mode, less its Lambda-only and unsafe flags",
      () =>
        Effect.gen(function* () {
          const unpacks: Array<string> = []
          const located = found(yield* locate({}, {}, unpacks))
          assert.strictEqual(located.source, "packaged")
          assert.strictEqual(located.executablePath, "/tmp/chromium")
          assert.strictEqual(located.description, "@sparticuz/chromium 153.0.0 at /tmp/chromium")
          assert.strictEqual(located.headless, "shell")
          assert.deepStrictEqual(unpacks, ["unpack"])
          for (const dropped of ["--single-process", "--disable-web-security", "--allow-running-insecure-content"]) {
            assert.notInclude(located.args, dropped)
          }
          for (const kept of ["--no-sandbox", "--no-zygote", "--disable-quic", "--disable-background-networking"]) {
            assert.include(located.args, kept)
          }
          assert.strictEqual(new Set(located.args).size, located.args.length)
        })
    )

    it.effect("no system browser on arm64 Linux: one line saying what to install; nothing is unpacked", () =>
      Effect.gen(function* () {
        const unpacks: Array<string> = []
        const message = notFound(yield* locate({ arch: "arm64" }, { setting: "CHROMIUM_PATH" }, unpacks))
        assert.strictEqual(
          message,
          "browser: no Chromium or Chrome found on this linux/arm64 machine; @sparticuz/chromium ships an x64 build only, this is arm64; install Chromium (Debian/Ubuntu: apt-get install chromium; Alpine: apk add chromium), or set CHROMIUM_PATH"
        )
        assert.notInclude(message, "\n")
        assert.deepStrictEqual(unpacks, [])
      })
    )

    it.effect("no system browser on x64 Linux without glibc: says the packaged one needs it", () =>
      Effect.gen(function* () {
        const unpacks: Array<string> = []
        const message = notFound(yield* locate({ files: [] }, {}, unpacks))
        assert.match(message, /needs glibc \(\/lib64\/ld-linux-x86-64\.so\.2 is missing\); install Chromium/)
        assert.deepStrictEqual(unpacks, [])
      })
    )

    it.effect("a packaged Chromium this user cannot run (another user unpacked it) says to set TMPDIR", () =>
      Effect.gen(function* () {
        const message = notFound(
          yield* locate({ packaged: { ...unpacked, executablePath: "/tmp/someone-elses/chromium" } })
        )
        assert.match(
          message,
          /^browser: the packaged Chromium at \/tmp\/someone-elses\/chromium is not executable by this user \(unpacked by another\?\); set TMPDIR to a directory of your own, install Chromium/
        )
      })
    )

    it.effect("a packaged Chromium that does not unpack is BrowserNotFound with the reason", () =>
      Effect.gen(function* () {
        const message = notFound(yield* locate({ packaged: "cannot unpack @sparticuz/chromium into /tmp: ENOSPC" }))
        assert.strictEqual(
          message,
          "browser: no Chromium or Chrome found, and the packaged one (@sparticuz/chromium) did not unpack (cannot unpack @sparticuz/chromium into /tmp: ENOSPC); install Chromium (Debian/Ubuntu: apt-get install chromium; Alpine: apk add chromium), or set the browser path setting"
        )
      })
    )

    it.effect("macOS: Chrome or Chromium in /Applications or ~/Applications; otherwise what to install", () =>
      Effect.gen(function* () {
        const chrome = "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"
        const mine = "/Users/me/Applications/Chromium.app/Contents/MacOS/Chromium"
        const mac = { platform: "darwin", arch: "arm64", env: { HOME: "/Users/me", PATH: "/usr/bin" } } as const
        assert.strictEqual(found(yield* locate({ ...mac, executables: [mine, chrome] })).executablePath, chrome)
        assert.strictEqual(found(yield* locate({ ...mac, executables: [mine] })).executablePath, mine)
        assert.strictEqual(
          notFound(yield* locate(mac)),
          "browser: no Chromium or Chrome found on this darwin/arm64 machine; install Google Chrome or Chromium (brew install --cask chromium), or set the browser path setting"
        )
      })
    )

    it("Windows: Chrome under the program folders, then chrome.exe on the PATH", () => {
      assert.deepStrictEqual(
        Browser.systemCandidates("win32", {
          PROGRAMFILES: "C:\\Program Files",
          LOCALAPPDATA: "C:\\Users\\me\\AppData\\Local",
          PATH: "C:\\tools"
        }),
        [
          "C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe",
          "C:\\Users\\me\\AppData\\Local\\Google\\Chrome\\Application\\chrome.exe",
          "C:\\tools\\chrome.exe"
        ]
      )
    })
  })

  describe("the packaged Chromium's unpack lock", () => {
    const timing = { wait: "2 seconds", poll: "10 millis", ownerlessGrace: "10 seconds" } as const
    const lockIn = Effect.acquireRelease(
      Effect.promise(() => fs.promises.mkdtemp(path.join(os.tmpdir(), "signalman-lock-test-"))),
      (dir) => Effect.promise(() => fs.promises.rm(dir, { recursive: true, force: true }))
    ).pipe(Effect.map((dir) => path.join(dir, "lock")))

    it.scopedLive("holders never overlap, and the lock is gone afterwards", () =>
      Effect.gen(function* () {
        const lock = yield* lockIn
        const events: Array<string> = []
        const holder = (name: string) =>
          PackagedChromium.withLock(
            lock,
            Effect.gen(function* () {
              events.push(`${name} in`)
              yield* Effect.sleep("30 millis")
              events.push(`${name} out`)
            }),
            timing
          )
        yield* Effect.all([holder("a"), holder("b"), holder("c")], { concurrency: "unbounded" })
        assert.strictEqual(events.length, 6)
        for (let i = 0; i < events.length; i += 2) {
          assert.match(events[i]!, / in$/)
          assert.strictEqual(events[i + 1], events[i]!.replace(" in", " out"))
        }
        assert.isFalse(fs.existsSync(lock))
      })
    )

    it.scopedLive("a lock left by a process that died is broken", () =>
      Effect.gen(function* () {
        const lock = yield* lockIn
        const dead = yield* Effect.async<number>((resume) => {
          const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" })
          child.on("exit", () => resume(Effect.succeed(child.pid ?? 0)))
        })
        fs.mkdirSync(lock)
        fs.writeFileSync(path.join(lock, "pid"), String(dead))
        const result = yield* PackagedChromium.withLock(lock, Effect.succeed("held"), timing)
        assert.strictEqual(result, "held")
      })
    )

    it.scopedLive("a lock held by a live process is waited for, then given up on with the reason", () =>
      Effect.gen(function* () {
        const lock = yield* lockIn
        fs.mkdirSync(lock)
        fs.writeFileSync(path.join(lock, "pid"), String(process.pid))
        const result = yield* PackagedChromium.withLock(lock, Effect.succeed("held"), {
          ...timing,
          wait: "200 millis"
        }).pipe(Effect.either)
        assert.isTrue(Either.isLeft(result))
        if (Either.isLeft(result)) {
          assert.strictEqual(
            result.left.message,
            `another process has held ${lock} for over 0.2 s; remove it if no unpack is running`
          )
        }
      })
    )
  })

  describe("on this machine, for real", () => {
    it.scopedLive(
      "the located browser launches headless and loads a page from a loopback server",
      () =>
        Effect.gen(function* () {
          const server = yield* httpServer((_request, response) => {
            response.writeHead(200, { "content-type": "text/html" })
            response.end(page)
          })
          const located = yield* Browser.locate(options).pipe(Effect.provide(Browser.layerMachine))
          // Which source this machine gave, for whoever reads the test output.
          yield* Effect.logInfo(`browser: ${located.source}: ${located.description}`)
          const browser = yield* Browser.launch(located)
          const tab = yield* Effect.promise(() => browser.newPage())
          const response = yield* Effect.promise(() =>
            tab.goto(`${server.origin}/`, { waitUntil: "load", timeout: 30_000 })
          )
          assert.strictEqual(response?.status(), 200)
          assert.strictEqual(yield* Effect.promise(() => tab.title()), "Loopback page")
          const said = yield* Effect.promise(() => tab.$eval("#said", (element) => element.textContent))
          assert.strictEqual(said, "hello from loopback")
          assert.match(server.requests[0]?.headers["user-agent"] ?? "", /HeadlessChrome\//)
        }),
      120_000
    )

    const withService = <A, E>(
      use: (browser: Context.Tag.Service<Browser.Browser>) => Effect.Effect<A, E, Scope.Scope>
    ): Effect.Effect<A, E, Scope.Scope> =>
      Effect.gen(function* () {
        const context = yield* Layer.build(Browser.layer(options))
        return yield* use(Context.get(context, Browser.Browser))
      })

    it.scopedLive(
      "runs share one browser process, each in a browser context of its own (cookies do not cross)",
      () =>
        Effect.gen(function* () {
          const server = yield* httpServer((request, response) => {
            if (request.url === "/set") response.setHeader("set-cookie", "run=first; Path=/")
            response.writeHead(200, { "content-type": "text/plain" })
            response.end(request.headers.cookie ?? "no cookie")
          })
          yield* withService((service) =>
            Effect.gen(function* () {
              const [first, second] = yield* Effect.all([service.context, service.context], {
                concurrency: "unbounded"
              })
              assert.strictEqual(first.browser(), second.browser())
              const one = yield* Effect.promise(() => first.newPage())
              const two = yield* Effect.promise(() => second.newPage())
              yield* Effect.promise(() => one.goto(`${server.origin}/set`))
              const again = yield* Effect.promise(() => one.goto(`${server.origin}/echo`))
              const other = yield* Effect.promise(() => two.goto(`${server.origin}/echo`))
              assert.strictEqual(yield* Effect.promise(() => again?.text() ?? Promise.resolve("")), "run=first")
              assert.strictEqual(yield* Effect.promise(() => other?.text() ?? Promise.resolve("")), "no cookie")
            })
          )
        }),
      120_000
    )

    it.scopedLive(
      "after the browser crashes, the next run gets a new one; closing the layer stops it and removes its profile",
      () =>
        Effect.gen(function* () {
          const layerScope = yield* Scope.make()
          yield* Effect.addFinalizer(() => Scope.close(layerScope, Exit.void))
          const service = Context.get(yield* Layer.buildWithScope(Browser.layer(options), layerScope), Browser.Browser)
          const processOf = (context: BrowserContext): ChildProcess => {
            const child = context.browser().process()
            return child === null ? assert.fail("a launched browser has a process") : child
          }
          const hasExited = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null

          const first = yield* Effect.scoped(Effect.map(service.context, processOf))
          const exited = yield* Effect.fork(
            Effect.async<void>((resume) => {
              if (hasExited(first)) resume(Effect.void)
              else first.once("exit", () => resume(Effect.void))
            })
          )
          first.kill("SIGKILL")
          yield* Fiber.join(exited)

          const second = yield* Effect.scoped(
            Effect.gen(function* () {
              const context = yield* service.context
              const tab = yield* Effect.promise(() => context.newPage())
              yield* Effect.promise(() => tab.goto("about:blank"))
              return processOf(context)
            })
          )
          assert.notStrictEqual(second.pid, first.pid)
          const profile = second.spawnargs.find((arg) => arg.startsWith("--user-data-dir="))?.slice(16) ?? ""
          assert.isTrue(profile !== "" && fs.existsSync(profile), `profile ${profile}`)

          yield* Scope.close(layerScope, Exit.void)
          assert.isTrue(hasExited(second))
          assert.isFalse(fs.existsSync(profile))
        }),
      120_000
    )
  })
})
