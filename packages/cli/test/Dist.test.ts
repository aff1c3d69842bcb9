/**
 * The built CLI on plain node (no tsx, no loader flag) reads a `signalman.config.ts` through jiti, in a directory
 * where `@signalman/cli` is not installed: the config's import of it is this build's own `Define` module.
 *
 * The published package takes `@signalman/core` and `@signalman/sdk` from npm; in the workspace they export their
 * TypeScript sources, so this build bundles them (as the agent's does) and leaves outside only npm packages, found
 * through a link to the CLI's own `node_modules`.
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { build } from "tsup"
import { cliDir, directory, run } from "./support/CliProcess.js"

// tsup reads the dependencies to leave outside from the working directory's package.json, which in a test run is
// the repository's: the CLI's own are named here.
const PackageJson = Schema.parseJson(
  Schema.Struct({ dependencies: Schema.Record({ key: Schema.String, value: Schema.String }) })
)

const externals = async (): Promise<ReadonlyArray<RegExp>> => {
  const manifest = Schema.decodeUnknownSync(PackageJson)(await fs.readFile(path.join(cliDir, "package.json"), "utf8"))
  return Object.keys(manifest.dependencies)
    .filter((name) => !name.startsWith("@signalman/"))
    .map((name) => new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}(/|$)`))
}

const built = Effect.acquireRelease(
  Effect.promise(async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "signalman-cli-dist-"))
    await fs.symlink(path.join(cliDir, "node_modules"), path.join(dir, "node_modules"), "dir")
    await build({
      entry: [path.join(cliDir, "src/**/*.ts")],
      outDir: path.join(dir, "dist"),
      format: ["esm"],
      target: "node20",
      noExternal: [/^@signalman\//],
      external: [...(await externals())],
      splitting: true,
      dts: false,
      sourcemap: false,
      silent: true,
      config: false,
      tsconfig: path.join(cliDir, "tsconfig.json")
    })
    return dir
  }),
  (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
)

const config = (url: string) => `import { defineConfig } from "@signalman/cli"

export default defineConfig({
  project: "shop",
  monitors: [{ key: "api", name: "API", check: { type: "http", url: "${url}" } }]
})
`

describe("the built signalman", () => {
  it.scopedLive(
    "validates a TypeScript config with plain node",
    () =>
      Effect.gen(function* () {
        const dist = yield* built
        const bin = path.join(dist, "dist/bin.js")
        const dir = yield* directory({
          "signalman.config.ts": config("https://shop.example"),
          "bad.ts": config("ftp://x")
        })
        const [good, bad] = yield* Effect.all(
          [run(["validate"], { cwd: dir, bin }), run(["validate", "-c", "bad.ts"], { cwd: dir, bin })],
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(good, {
          code: 0,
          stdout:
            'signalman.config.ts: valid (project "shop": 0 variables, 0 channels, 1 monitor, 0 status pages, 0 maintenance windows)\n',
          stderr: ""
        })
        assert.strictEqual(bad.code, 1)
        assert.match(
          bad.stderr,
          /^bad\.ts: monitors\[0\]\.check\.url: check\.url must be an http or https URL, not ftp:\n/
        )
      }),
    180_000
  )
})
