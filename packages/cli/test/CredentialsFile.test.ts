import * as fs from "node:fs/promises"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as CredentialsFile from "../src/CredentialsFile.js"
import { directory } from "./support/CliProcess.js"

const mode = (file: string) => Effect.promise(() => fs.stat(file).then((s) => s.mode & 0o777))

describe("CredentialsFile", () => {
  it("lives under the user's config directory, as each platform has it", () => {
    assert.strictEqual(
      CredentialsFile.location({}, "linux", "/home/ada"),
      "/home/ada/.config/signalman/credentials.json"
    )
    assert.strictEqual(
      CredentialsFile.location({ XDG_CONFIG_HOME: "/xdg" }, "linux", "/home/ada"),
      "/xdg/signalman/credentials.json"
    )
    assert.strictEqual(
      CredentialsFile.location({ XDG_CONFIG_HOME: "relative" }, "linux", "/home/ada"),
      "/home/ada/.config/signalman/credentials.json"
    )
    assert.strictEqual(
      CredentialsFile.location({}, "darwin", "/Users/ada"),
      "/Users/ada/Library/Application Support/signalman/credentials.json"
    )
    assert.strictEqual(
      CredentialsFile.location({ APPDATA: "C:\\Users\\ada\\AppData\\Roaming" }, "win32", "C:\\Users\\ada"),
      path.join("C:\\Users\\ada\\AppData\\Roaming", "signalman", "credentials.json")
    )
  })

  it.scoped("is written readable by its owner only (0600 in a 0700 directory), also over a file that was not", () =>
    Effect.gen(function* () {
      const home = yield* directory({})
      const file = path.join(home, "config", "signalman", "credentials.json")
      assert.isUndefined(yield* CredentialsFile.read(file))
      yield* CredentialsFile.write(file, { url: "https://signalman.example", token: "sm_live_a" })
      assert.strictEqual(yield* mode(file), 0o600)
      assert.strictEqual(yield* mode(path.dirname(file)), 0o700)
      assert.deepStrictEqual(yield* CredentialsFile.read(file), {
        url: "https://signalman.example",
        token: "sm_live_a"
      })

      yield* Effect.promise(() => fs.chmod(file, 0o644))
      yield* CredentialsFile.write(file, { url: "https://signalman.example", token: "sm_live_b", org: "shop" })
      assert.strictEqual(yield* mode(file), 0o600)
      assert.deepStrictEqual(yield* CredentialsFile.read(file), {
        url: "https://signalman.example",
        token: "sm_live_b",
        org: "shop"
      })
      assert.deepStrictEqual(yield* Effect.promise(() => fs.readdir(path.dirname(file))), ["credentials.json"])
    })
  )

  it.scoped("a file that is not what login writes is an error naming it, not a silent sign-out", () =>
    Effect.gen(function* () {
      const home = yield* directory({ "credentials.json": '{ "url": "https://signalman.example" }' })
      const file = path.join(home, "credentials.json")
      const read = yield* Effect.either(CredentialsFile.read(file))
      assert.isTrue(Either.isLeft(read))
      assert.match(
        Either.isLeft(read) ? read.left.message : "",
        /credentials\.json: is not what signalman login writes/
      )
    })
  )
})
