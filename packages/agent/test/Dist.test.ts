/**
 * The built agent runs with plain node: the build (this package's own tsup config) bundles the workspace packages,
 * whose exports are TypeScript sources, and leaves outside only npm packages the agent declares as dependencies.
 * The build goes to a temporary directory whose only `node_modules` is a link to the agent's own, so nothing but the
 * agent's declared dependencies can be found, neither tsx nor any workspace source.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { builtinModules, createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { agentDir, baseEnv, eventually, runToExit, start, waitExit } from "./support/AgentProcess.js"
import * as FakeService from "./support/FakeService.js"
import * as Target from "./support/Target.js"

const PackageJson = Schema.Struct({ dependencies: Schema.Record({ key: Schema.String, value: Schema.String }) })

// The build `pnpm --filter @signalman/agent build` runs (tsup with this package's config, from this package's
// directory), into a directory of the test's own and without declarations, which plain node does not need.
const tsupCli = path.join(path.dirname(createRequire(import.meta.url).resolve("tsup")), "cli-default.js")

const built = Effect.acquireRelease(
  Effect.promise(async () => {
    const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "signalman-agent-dist-"))
    await fs.promises.symlink(path.join(agentDir, "node_modules"), path.join(dir, "node_modules"), "dir")
    const outDir = path.join(dir, "dist")
    const { status, stderr } = spawnSync(
      process.execPath,
      [tsupCli, "--out-dir", outDir, "--no-dts", "--no-sourcemap", "--silent"],
      { cwd: agentDir, encoding: "utf8", timeout: 120_000 }
    )
    if (status !== 0) throw new Error(`the build failed (${status}): ${stderr}`)
    return { dir, outDir }
  }),
  ({ dir }) => Effect.promise(() => fs.promises.rm(dir, { recursive: true, force: true }))
)

// The package a bare import specifier names: `@scope/name/sub` is `@scope/name`, `name/sub` is `name`.
const packageOf = (specifier: string): string => {
  const parts = specifier.split("/")
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier)
}

describe("the built agent", () => {
  it.scopedLive(
    "bundles the workspace packages, imports only its declared dependencies, and runs with plain node",
    () =>
      Effect.gen(function* () {
        const { outDir } = yield* built
        const bin = path.join(outDir, "bin.js")
        const text = fs.readFileSync(bin, "utf8")
        assert.isTrue(text.startsWith("#!/usr/bin/env node\n"), "bin.js has no shebang")

        const manifest = Schema.decodeUnknownSync(Schema.parseJson(PackageJson))(
          fs.readFileSync(path.join(agentDir, "package.json"), "utf8")
        )
        const declared = new Set(Object.keys(manifest.dependencies))
        const builtins = new Set(builtinModules)
        const imported = new Set<string>()
        for (const file of fs.readdirSync(outDir).filter((name) => name.endsWith(".js"))) {
          const source = fs.readFileSync(path.join(outDir, file), "utf8")
          for (const match of source.matchAll(/(?:from\s*|import\s*\(\s*|import\s+)"([^".][^"]*)"/g)) {
            if (match[1] !== undefined) imported.add(match[1])
          }
        }
        assert.isAbove(imported.size, 0)
        for (const specifier of imported) {
          const name = specifier.replace(/^node:/, "")
          assert.isFalse(specifier.startsWith("@signalman/"), `${specifier} is not bundled`)
          if (builtins.has(name) || builtins.has(name.split("/")[0] ?? name)) continue
          assert.isTrue(declared.has(packageOf(specifier)), `${specifier} is imported but not a dependency`)
        }

        const help = yield* runToExit({ entry: { _tag: "built", file: bin }, args: ["--help"] })
        assert.strictEqual(help.code, 0, help.stderr)
        assert.match(help.stdout, /^signalman-agent 0\.1\.0: /)

        // And it does the work: a job against a loopback target, its result delivered, a clean drain.
        const service = yield* FakeService.make()
        const target = yield* Target.make
        const agent = yield* start({
          entry: { _tag: "built", file: bin },
          env: {
            ...baseEnv,
            SIGNALMAN_URL: service.url,
            SIGNALMAN_AGENT_TOKEN: FakeService.TOKEN,
            AGENT__ALLOW_PRIVATE_TARGETS: "true"
          }
        })
        yield* eventually(
          () => service.messages.length,
          (n) => n > 0
        )
        service.enqueue(FakeService.job(service, Target.check({ type: "http", url: `${target.origin}/ok` }), 50))
        const stored = yield* eventually(
          () => [...service.stored.values()],
          (results) => results.length > 0
        )
        assert.strictEqual(stored[0]?.outcome?.status, "up", agent.stdout() + agent.stderr())
        agent.child.kill("SIGTERM")
        const exited = yield* waitExit(agent)
        assert.strictEqual(exited.code, 0, exited.stderr)
      })
  )
})
