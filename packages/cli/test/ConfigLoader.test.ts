import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ConfigLoader from "../src/ConfigLoader.js"
import { directory } from "./support/CliProcess.js"

const failure = <A>(effect: Effect.Effect<A, ConfigLoader.Unreadable>) =>
  Effect.map(Effect.either(effect), (result) => {
    if (Either.isRight(result)) assert.fail("expected the file to be refused")
    return result.left.problems.map((p) => `${p.file}: ${p.message}`)
  })

const tsConfig = `import { defineConfig } from "@signalman/cli"

const interval: number = 30

export default defineConfig({
  project: "shop",
  monitors: [{ key: "api", name: "API", check: { type: "http", url: "https://shop.example" }, interval }]
})
`

describe("ConfigLoader", () => {
  it.scoped("finds the one config file of the working directory, or the one named", () =>
    Effect.gen(function* () {
      const one = yield* directory({ "signalman.yml": "project: shop\n" })
      assert.strictEqual(yield* ConfigLoader.discover(one, undefined), "signalman.yml")
      assert.strictEqual(yield* ConfigLoader.discover(one, "signalman.yml"), "signalman.yml")
      const none = yield* directory({ "other.yaml": "" })
      assert.deepStrictEqual(yield* failure(ConfigLoader.discover(none, undefined)), [
        `${none}: no config file here: looked for signalman.yaml, signalman.yml, signalman.json, signalman.config.ts (or name one with -c)`
      ])
      assert.deepStrictEqual(yield* failure(ConfigLoader.discover(none, "missing.yaml")), [
        "missing.yaml: no such file"
      ])
      const two = yield* directory({ "signalman.yaml": "", "signalman.config.ts": "" })
      assert.deepStrictEqual(yield* failure(ConfigLoader.discover(two, undefined)), [
        `${two}: signalman.yaml and signalman.config.ts are both here: name the one to use with -c`
      ])
    })
  )

  it.scoped(
    "a TypeScript config is compiled in-process; @signalman/cli is this package even where it is not installed",
    () =>
      Effect.gen(function* () {
        const dir = yield* directory({ "signalman.config.ts": tsConfig })
        const loaded = yield* ConfigLoader.load(dir, "signalman.config.ts")
        assert.isUndefined(loaded.locate)
        assert.deepStrictEqual(loaded.value, {
          project: "shop",
          monitors: [{ key: "api", name: "API", check: { type: "http", url: "https://shop.example" }, interval: 30 }]
        })
      })
  )

  it.scoped("a TypeScript config without a default export, or that does not compile, is refused with the reason", () =>
    Effect.gen(function* () {
      const dir = yield* directory({
        "named.ts": "export const config = { project: 'shop' }\n",
        "broken.ts": "export default {{ project: \n",
        "throws.ts": "throw new Error('no config today')\n",
        "signalman.toml": "project = 'shop'\n"
      })
      assert.deepStrictEqual(yield* failure(ConfigLoader.load(dir, "named.ts")), [
        "named.ts: has no default export: end it with export default defineConfig({ ... })"
      ])
      const [broken] = yield* failure(ConfigLoader.load(dir, "broken.ts"))
      assert.match(broken!, /^broken\.ts: could not load: /)
      assert.deepStrictEqual(yield* failure(ConfigLoader.load(dir, "throws.ts")), [
        "throws.ts: could not load: no config today"
      ])
      assert.deepStrictEqual(yield* failure(ConfigLoader.load(dir, "signalman.toml")), [
        "signalman.toml: is not a config file: name a .yaml, .yml, .json or .ts file"
      ])
    })
  )

  it.scoped("a TypeScript config edited between two loads is read again", () =>
    Effect.gen(function* () {
      const dir = yield* directory({ "a.ts": "export default { project: 'one' }\n" })
      assert.deepStrictEqual((yield* ConfigLoader.load(dir, "a.ts")).value, { project: "one" })
      yield* Effect.promise(() =>
        import("node:fs/promises").then((fs) => fs.writeFile(`${dir}/a.ts`, "export default { project: 'two' }\n"))
      )
      assert.deepStrictEqual((yield* ConfigLoader.load(dir, "a.ts")).value, { project: "two" })
    })
  )
})
