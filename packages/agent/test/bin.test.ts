/**
 * The command itself: usage, version, refused settings and a refused token, each with its exit code and, where an
 * operator must act, its one line on stderr.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { baseEnv, runToExit } from "./support/AgentProcess.js"
import * as FakeService from "./support/FakeService.js"

describe("signalman-agent", () => {
  it.live("--help prints the usage on stdout and exits 0", () =>
    Effect.gen(function* () {
      const exited = yield* runToExit({ args: ["--help"] })
      assert.strictEqual(exited.code, 0)
      assert.strictEqual(exited.stderr, "")
      assert.match(exited.stdout, /^signalman-agent 0\.1\.0: /)
      for (const name of ["SIGNALMAN_URL", "SIGNALMAN_AGENT_TOKEN", "AGENT__BROWSER_PATH", "AGENT__CONCURRENCY"]) {
        assert.include(exited.stdout, name)
      }
    })
  )

  it.live("--version prints the package's version (from source, as pnpm agent runs it)", () =>
    Effect.gen(function* () {
      const exited = yield* runToExit({ entry: { _tag: "source" }, args: ["--version"] })
      assert.deepStrictEqual([exited.code, exited.stdout, exited.stderr], [0, "0.1.0\n", ""])
    })
  )

  it.live("a bad setting stops before anything starts: one line naming it, exit 2", () =>
    Effect.gen(function* () {
      const exited = yield* runToExit({
        env: { SIGNALMAN_URL: "http://127.0.0.1:9", SIGNALMAN_AGENT_TOKEN: "sm_agent_x", AGENT__CONCURRENCY: "0" }
      })
      assert.strictEqual(exited.code, 2)
      assert.strictEqual(
        exited.stderr,
        'signalman-agent: AGENT__CONCURRENCY (--concurrency) must be a whole number from 1 to 100000, got "0"\n'
      )
      assert.strictEqual(exited.stdout, "")
    })
  )

  it.live("an explicit browser path that is not an executable: one line, exit 2", () =>
    Effect.gen(function* () {
      const exited = yield* runToExit({
        env: {
          SIGNALMAN_URL: "http://127.0.0.1:9",
          SIGNALMAN_AGENT_TOKEN: "sm_agent_x",
          AGENT__BROWSER_PATH: "/nonexistent/chromium"
        }
      })
      assert.strictEqual(exited.code, 2)
      assert.strictEqual(exited.stderr.split("\n").length, 2, exited.stderr)
      assert.match(
        exited.stderr,
        /^signalman-agent: browser: AGENT__BROWSER_PATH is \/nonexistent\/chromium, which is not an executable file/
      )
    })
  )

  it.scopedLive("hello answered 401: one clear line with the service's reason, exit 3, no retry", () =>
    Effect.gen(function* () {
      const service = yield* FakeService.make()
      const exited = yield* runToExit({
        env: { ...baseEnv, SIGNALMAN_URL: service.url, SIGNALMAN_AGENT_TOKEN: "sm_agent_revoked0000" }
      })
      assert.strictEqual(exited.code, 3)
      assert.strictEqual(
        exited.stderr,
        "signalman-agent: the server refused the agent token: This agent token is not valid (revoked?)\n"
      )
      assert.strictEqual(service.helloAttempts.count, 1)
      assert.notInclude(exited.stdout, "sm_agent_revoked0000")
    })
  )
})
