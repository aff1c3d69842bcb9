/**
 * The published clients against the real server, run as a user runs them: the `signalman` CLI and the SDK
 * examples, each in its own process.
 */

import { execFile } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as CountingOrigin from "../support/CountingOrigin.js"
import * as Fixture from "../support/Fixture.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..")

const run = (dir: string, script: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.promise(
    () =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          process.execPath,
          ["--import", "tsx", script, ...args],
          { cwd: path.join(root, dir), env: { PATH: process.env["PATH"] ?? "", ...env }, timeout: 30_000 },
          (error, stdout, stderr) => resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr })
        )
      })
  )

// The status clients need only a running server; the monitors example a token, and a site on loopback it may check.
Fixture.describe("clients", { env: { CHECKER__ALLOW_PRIVATE_TARGETS: "true" } }, (it) => {
  it.effect("signalman status reports a ready service and exits 0", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* Fixture.server
      const out = yield* run("packages/cli", "src/bin.ts", ["status", "--url", baseUrl])
      expect(out.code).toBe(0)
      expect(out.stdout.trim()).toBe(`${baseUrl}: up and ready (database ok)`)
    })
  )

  it.effect("signalman status reads SIGNALMAN_URL and exits 1 when nothing answers", () =>
    Effect.gen(function* () {
      const out = yield* run("packages/cli", "src/bin.ts", ["status"], { SIGNALMAN_URL: "http://127.0.0.1:9" })
      expect(out.code).toBe(1)
      expect(out.stderr).toContain("http://127.0.0.1:9: not answering")
    })
  )

  it.effect("the SDK example runs against the server", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* Fixture.server
      const out = yield* run("examples/sdk-status", "src/main.ts", [], { SIGNALMAN_URL: baseUrl })
      expect(out.code).toBe(0)
      expect(out.stdout.trim()).toBe(`${baseUrl}: ok, ready (database ok)`)
    })
  )

  it.scoped("the SDK monitors example creates monitors, lists them a page at a time and reads their results", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* Fixture.server
      const alice = yield* Fixture.person({ label: "sdk-example" })
      const url = (yield* CountingOrigin.make).base
      const env = { SIGNALMAN_URL: baseUrl, SIGNALMAN_TOKEN: alice.token, SITE_URL: url }
      const first = yield* run("examples/sdk-monitors", "src/main.ts", [], env)
      expect(first.code, first.stderr).toBe(0)
      const lines = first.stdout.trim().split("\n")
      expect(lines.slice(0, 2)).toEqual([
        `created 3 monitors of ${url}`,
        "listed 3 monitors tagged sdk-example in 2 pages"
      ])
      expect(lines.slice(2)).toEqual([
        expect.stringMatching(/^sdk-example health: up in \d+ ms; latest stored up; uptime (n\/a|[\d.]+%)$/),
        expect.stringMatching(/^sdk-example home: up in \d+ ms; latest stored up; uptime (n\/a|[\d.]+%)$/),
        expect.stringMatching(/^sdk-example status: up in \d+ ms; latest stored up; uptime (n\/a|[\d.]+%)$/)
      ])
    })
  )

  it.effect("the SDK monitors example with a refused token prints the service's code and trace id, and exits 1", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* Fixture.server
      const refused = yield* run("examples/sdk-monitors", "src/main.ts", [], {
        SIGNALMAN_URL: baseUrl,
        SIGNALMAN_TOKEN: "sm_live_not-a-real-token"
      })
      expect(refused.code).toBe(1)
      expect(refused.stderr).toMatch(/^UNAUTHENTICATED \(401\): .+\ntrace id: \S+/)
    })
  )
})
