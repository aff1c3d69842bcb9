/**
 * The published clients against the real server, run as a user runs them: the `signalman` CLI and the SDK
 * example, each in its own process.
 */

import { execFile } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
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

// The clients need only a running server, no one signed in; the fixture's server is the one every file starts.
Fixture.describe("clients", (it) => {
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
})
