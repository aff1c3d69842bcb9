/**
 * What the SDK costs an application: each entry point bundled for the browser the way an app's bundler would
 * (minified, tree-shaken, every dependency included), measured raw and gzipped, with the share of each package.
 * Bundling for the browser also proves the SDK reaches for no Node built-in (`node:*` fails the build). Last, the
 * packages a published `@signalman/sdk` installs, read from the `package.json` files, with a failure if anything
 * beyond core, effect and @effect/platform (and their own dependencies) appears.
 *
 * `pnpm bench:sdk-size` (root) or `pnpm --filter @signalman/sdk bench:size`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as zlib from "node:zlib"
import { bundle, index, root } from "./BrowserBundle.js"

const entries = [
  ["createClient (the Promise client)", `export { createClient, SignalmanError } from ${JSON.stringify(index)}`],
  ["SignalmanClient (the Effect client)", `export { SignalmanClient } from ${JSON.stringify(index)}`],
  ["everything @signalman/sdk exports", `export * from ${JSON.stringify(index)}`]
] as const

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`

// Which package an input of the bundle belongs to, by its path (relative to the SDK's folder).
const packageOf = (input: string): string => {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(input)
  if (match?.[1] !== undefined) return match[1]
  if (input.startsWith("../core/")) return "@signalman/core"
  return "@signalman/sdk"
}

const measure = async (label: string, contents: string) => {
  const result = await bundle(contents, { minify: true })
  const [output] = result.outputFiles
  if (output === undefined) throw new Error(`${label}: no output`)
  const raw = output.contents.byteLength
  const gzip = zlib.gzipSync(output.contents, { level: 9 }).byteLength
  const brotli = zlib.brotliCompressSync(output.contents).byteLength
  const shares = new Map<string, number>()
  for (const meta of Object.values(result.metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(meta.inputs)) {
      const name = packageOf(input)
      shares.set(name, (shares.get(name) ?? 0) + bytesInOutput)
    }
  }
  const parts = [...shares].sort((a, b) => b[1] - a[1]).map(([name, bytes]) => `${name} ${kb(bytes)}`)
  console.log(`${label}: ${kb(raw)} minified, ${kb(gzip)} gzip, ${kb(brotli)} brotli`)
  console.log(`  by package (minified): ${parts.join(", ")}`)
  return { label, raw, gzip, brotli }
}

interface Manifest {
  readonly name: string
  readonly dependencies?: Record<string, string>
}

const readManifest = (dir: string): Manifest => JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"))

// Where `name` resolves from `dir`, by Node's walk up the `node_modules` folders (pnpm puts a package's
// dependencies beside it).
const locate = (dir: string, name: string): string => {
  for (let at = dir; ; at = path.dirname(at)) {
    const candidate = path.join(at, "node_modules", name, "package.json")
    if (fs.existsSync(candidate)) return path.dirname(fs.realpathSync(candidate))
    if (path.dirname(at) === at) throw new Error(`${name} is not installed (from ${dir})`)
  }
}

// The install closure of the published package: its dependencies and theirs, as resolved in this checkout.
const closure = (): ReadonlyArray<string> => {
  const seen = new Set<string>()
  const visit = (dir: string) => {
    for (const name of Object.keys(readManifest(dir).dependencies ?? {})) {
      if (seen.has(name)) continue
      seen.add(name)
      visit(locate(dir, name))
    }
  }
  visit(root)
  return [...seen].sort()
}

for (const [label, contents] of entries) await measure(label, contents)

// The SDK and core may depend on effect and @effect/platform only (and the SDK on core); what those two bring is
// theirs. Nothing of the server (a database driver, a mailer, a browser) may come along.
const allowed = new Set(["@signalman/core", "effect", "@effect/platform"])
const direct = [root, locate(root, "@signalman/core")].flatMap((dir) =>
  Object.keys(readManifest(dir).dependencies ?? {}).filter((name) => !allowed.has(name))
)
console.log(`installing @signalman/sdk brings: ${closure().join(", ")}`)
if (direct.length > 0) {
  console.error(`the SDK or core depends on more than effect and @effect/platform: ${direct.join(", ")}`)
  process.exit(1)
}
