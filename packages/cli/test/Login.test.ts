/**
 * `signalman login` as a process against a stand-in service: the token checked before anything is stored, the
 * credentials file 0600 under the config directory, and a later command using what was stored.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { directory, run } from "./support/CliProcess.js"
import * as FakeService from "./support/FakeService.js"

// Each test starts its own processes; they are independent, so they run side by side.
describe.concurrent("signalman login", () => {
  it.scopedLive(
    "stores a token the service accepts (0600), refuses one it does not, and status uses what was stored",
    () =>
      Effect.gen(function* () {
        const service = yield* FakeService.make
        const home = yield* directory({})
        const env = { HOME: home }
        const file = path.join(home, ".config", "signalman", "credentials.json")

        const login = yield* run(["login", "--url", service.url, "--token", FakeService.GOOD_TOKEN, "--org", "shop"], {
          cwd: home,
          env
        })
        assert.deepStrictEqual(login, {
          code: 0,
          stdout: `Signed in to ${service.url} as ada@shop.example (org shop); credentials saved in ${file}, readable by you only.\n`,
          stderr: ""
        })
        const stat = yield* Effect.promise(() => fs.stat(file))
        assert.strictEqual(stat.mode & 0o777, 0o600)
        assert.deepStrictEqual(JSON.parse(yield* Effect.promise(() => fs.readFile(file, "utf8"))), {
          url: service.url,
          token: FakeService.GOOD_TOKEN,
          org: "shop"
        })
        assert.deepStrictEqual(service.seen.at(-1), {
          path: "/api/v1/me",
          authorization: `Bearer ${FakeService.GOOD_TOKEN}`,
          userAgent: "signalman-cli/0.1.0",
          org: "shop"
        })

        const refused = yield* run(["login", "--url", service.url], {
          cwd: home,
          env: { ...env, SIGNALMAN_TOKEN: "sm_live_bad" }
        })
        assert.strictEqual(refused.code, 1)
        assert.strictEqual(
          refused.stderr,
          `signalman login: ${service.url} refused the token: The API token is not valid (UNAUTHENTICATED)\n`
        )
        assert.notInclude(refused.stderr + refused.stdout, "sm_live_bad")
        // Nothing stored over the good credentials.
        assert.include(yield* Effect.promise(() => fs.readFile(file, "utf8")), FakeService.GOOD_TOKEN)

        const status = yield* run(["status"], { cwd: home, env })
        assert.deepStrictEqual(status, { code: 0, stdout: `${service.url}: up and ready (database ok)\n`, stderr: "" })
        assert.deepStrictEqual(service.seen.at(-1), {
          path: "/readyz",
          authorization: `Bearer ${FakeService.GOOD_TOKEN}`,
          userAgent: "signalman-cli/0.1.0",
          org: "shop"
        })
      })
  )

  it.scopedLive("without a token and without a terminal to ask on, it says how to give one: exit 1", () =>
    Effect.gen(function* () {
      const home = yield* directory({})
      const exited = yield* run(["login", "--url", "http://127.0.0.1:9"], { cwd: home, env: { HOME: home } })
      assert.deepStrictEqual(exited, {
        code: 1,
        stdout: "",
        stderr: "signalman login: no token: pass --token, or set SIGNALMAN_TOKEN\n"
      })
    })
  )
})
