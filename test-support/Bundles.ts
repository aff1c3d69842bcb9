/**
 * A global setup of every test project (`vitest.config.ts`): the `signalman` CLI and the probe agent bundled once per
 * run with esbuild, for the tests that start them as processes. Started from source through tsx, each process spent
 * two to four seconds compiling before its first line, and the suite starts about a hundred of them. The bundles go
 * to `<package>/.test-build/` (ignored by git), beside the package's own `node_modules`, so what stays outside them
 * (a browser package, jiti) resolves as it does for the package. One test of each still starts the program from
 * source, the way `pnpm signalman` and `pnpm agent` do, and the packages' Dist tests build them as they ship.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"
import type {} from "vitest"
import type { TestProject } from "vitest/node"

declare module "vitest" {
  export interface ProvidedContext {
    /** The bundled `signalman` CLI: a file to run with plain node. */
    readonly cliBin: string
    /** The bundled probe agent: a file to run with plain node. */
    readonly agentBin: string
  }
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

interface Program {
  readonly key: "cliBin" | "agentBin"
  readonly dir: string
  /** Entry points besides `src/bin.ts`: modules the program finds beside itself at run time. */
  readonly beside: ReadonlyArray<string>
  /** What is left for node to resolve: packages with files of their own (a browser, a loader), optional natives. */
  readonly external: ReadonlyArray<string>
}

const programs: ReadonlyArray<Program> = [
  // A config file's `import ... from "@signalman/cli"` is the Define module next to the running one.
  { key: "cliBin", dir: "packages/cli", beside: ["src/Define.ts"], external: ["jiti"] },
  {
    key: "agentBin",
    dir: "packages/agent",
    beside: [],
    external: ["@sparticuz/chromium", "puppeteer-core", "bufferutil", "utf-8-validate"]
  }
]

const bundle = async (program: Program): Promise<string> => {
  const dir = path.join(root, program.dir)
  const out = path.join(dir, ".test-build")
  const bin = path.join(out, "bin.js")
  // Each project runs this setup in the one vitest process: the first builds, the others take what it built.
  const stamp = path.join(out, ".run")
  const built = await fs.readFile(stamp, "utf8").catch(() => "")
  if (built === String(process.pid)) return bin
  // Built beside, then swapped in whole: a build cut short never leaves half a program behind.
  const staging = `${out}-${process.pid}-${Date.now()}`
  await build({
    absWorkingDir: dir,
    entryPoints: ["src/bin.ts", ...program.beside],
    outdir: staging,
    entryNames: "[name]",
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external: [...program.external],
    logLevel: "warning",
    // CommonJS dependencies bundled into an ES module still call require() for node's built-ins.
    banner: {
      js: 'import { createRequire as __bundleRequire } from "node:module"; const require = __bundleRequire(import.meta.url);'
    }
  })
  await fs.writeFile(path.join(staging, ".run"), String(process.pid))
  await fs.rm(out, { recursive: true, force: true })
  await fs.rename(staging, out)
  return bin
}

export default async function setup(project: TestProject): Promise<void> {
  for (const program of programs) project.provide(program.key, await bundle(program))
}
