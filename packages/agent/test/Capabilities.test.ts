import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Capabilities from "../src/Capabilities.js"
import type { BrowserChoice, Settings } from "../src/Settings.js"

const settings = (browser: BrowserChoice): Settings => ({
  url: "http://127.0.0.1:8080",
  token: Redacted.make("sm_agent_x"),
  browser,
  concurrency: 1,
  flowConcurrency: 2,
  allowPrivateTargets: false,
  perHostMaxInflight: 2,
  rdapBootstrapUrl: "https://data.iana.org/rdap/dns.json",
  rdapMaxInflight: 4,
  bufferSize: 10,
  logLevel: "info",
  reconnectMinMs: 1,
  reconnectMaxMs: 1,
  drainTimeoutSecs: 1
})

// Stand-in browsers: executables that answer --version as a browser would, or do not.
const standIns = Effect.acquireRelease(
  Effect.sync(() => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "signalman-agent-browser-"))
    const write = (name: string, script: string) => {
      const file = path.join(dir, name)
      fs.writeFileSync(file, `#!/bin/sh\n${script}\n`, { mode: 0o755 })
      return file
    }
    return {
      dir,
      speaking: write("chromium", 'echo "Chromium 999.0.1 built on Debian"'),
      silent: write("mute-chromium", "exit 1"),
      notExecutable: path.join(dir, "missing-chromium")
    }
  }),
  ({ dir }) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

describe("Capabilities", () => {
  it.effect("flows off: no browser is reported, none is looked for", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* Capabilities.browser(settings({ _tag: "off" })), Option.none())
    })
  )

  it.scopedLive("an explicit browser is reported by what it says of itself", () =>
    Effect.gen(function* () {
      const { speaking } = yield* standIns
      const reported = yield* Capabilities.browser(
        settings({ _tag: "path", path: speaking, setting: "AGENT__BROWSER_PATH" })
      )
      assert.deepStrictEqual(reported, Option.some("Chromium 999.0.1 built on Debian"))
    })
  )

  it.scopedLive("a browser that does not say its version is reported by where it was found", () =>
    Effect.gen(function* () {
      const { silent } = yield* standIns
      const reported = yield* Capabilities.browser(settings({ _tag: "path", path: silent, setting: "CHROMIUM_PATH" }))
      assert.deepStrictEqual(reported, Option.some(`${silent} (from CHROMIUM_PATH)`))
    })
  )

  it.scopedLive("an explicit path that is not an executable fails, naming the setting", () =>
    Effect.gen(function* () {
      const { notExecutable } = yield* standIns
      const error = yield* Effect.flip(
        Capabilities.browser(settings({ _tag: "path", path: notExecutable, setting: "AGENT__BROWSER_PATH" }))
      )
      assert.strictEqual(error._tag, "BrowserNotFound")
      assert.include(error.message, "AGENT__BROWSER_PATH")
    })
  )
})
