/**
 * Finding and reading the config file: `-c FILE`, or the one `signalman.yaml`, `signalman.yml`, `signalman.json` or
 * `signalman.config.ts` in the working directory. YAML and JSON are read with positions (`ConfigSource`); a
 * TypeScript config is loaded with jiti, which compiles it in-process on plain node (no loader flag, no build step),
 * and its default export is the config. A TypeScript config has no positions: its problems are named by key path.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { createJiti } from "jiti"
import * as ConfigSource from "./ConfigSource.js"
import type { KeyPath } from "./KeyPath.js"
import type * as Problem from "./Problem.js"

/**
 * The names looked for in the working directory, in this order.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultNames = ["signalman.yaml", "signalman.yml", "signalman.json", "signalman.config.ts"] as const

/**
 * A config read from its file: the value as written (before the environment is read into it) and, for YAML and
 * JSON, where each key path sits.
 *
 * @since 0.1.0
 * @category models
 */
export interface Loaded {
  /** The file as the user named it (relative to the working directory when found there). */
  readonly file: string
  readonly value: unknown
  readonly locate: ((path: KeyPath) => Problem.Position | undefined) | undefined
}

/**
 * The file could not be found or read, or is not YAML, JSON or a TypeScript module with a default export.
 *
 * @since 0.1.0
 * @category errors
 */
export class Unreadable extends Data.TaggedError("Unreadable")<{
  readonly problems: ReadonlyArray<Problem.Located>
}> {}

const unreadable = (file: string, message: string, position?: Problem.Position) =>
  new Unreadable({ problems: [{ file, path: [], message, position }] })

const exists = (file: string) =>
  Effect.promise(() =>
    fs.stat(file).then(
      (stat) => stat.isFile(),
      () => false
    )
  )

/**
 * The config file to read: the one named, or the single default name present in `cwd`.
 *
 * @since 0.1.0
 * @category discovery
 */
export const discover = (cwd: string, named: string | undefined): Effect.Effect<string, Unreadable> =>
  Effect.gen(function* () {
    if (named !== undefined) {
      if (!(yield* exists(path.resolve(cwd, named)))) return yield* unreadable(named, "no such file")
      return named
    }
    const found: Array<string> = []
    for (const name of defaultNames) if (yield* exists(path.join(cwd, name))) found.push(name)
    if (found.length === 0) {
      return yield* unreadable(cwd, `no config file here: looked for ${defaultNames.join(", ")} (or name one with -c)`)
    }
    if (found.length > 1) {
      return yield* unreadable(cwd, `${found.join(" and ")} are both here: name the one to use with -c`)
    }
    return found[0]!
  })

// `@signalman/cli` inside a config file is this package's `Define` module, whichever copy of the package runs: from
// source the sibling is Define.ts, built it is Define.js, and the extension of this module says which.
const defineModule = () => {
  const here = fileURLToPath(import.meta.url)
  return path.join(path.dirname(here), `Define${path.extname(here)}`)
}

const loadModule = (file: string, absolute: string): Effect.Effect<Loaded, Unreadable> =>
  Effect.tryPromise({
    try: async () => {
      const jiti = createJiti(import.meta.url, {
        alias: { "@signalman/cli": defineModule() },
        // Nothing written into the user's project, and a config edited between two loads is read again.
        fsCache: false,
        moduleCache: false,
        interopDefault: false
      })
      return await jiti.import<Record<string, unknown>>(absolute)
    },
    catch: (error) => unreadable(file, `could not load: ${error instanceof Error ? error.message : String(error)}`)
  }).pipe(
    Effect.flatMap((module) =>
      "default" in module && module["default"] !== undefined
        ? Effect.succeed({ file, value: module["default"], locate: undefined })
        : Effect.fail(unreadable(file, "has no default export: end it with export default defineConfig({ ... })"))
    )
  )

const formats: Readonly<Record<string, ConfigSource.Format | "module">> = {
  ".yaml": "yaml",
  ".yml": "yaml",
  ".json": "json",
  ".ts": "module",
  ".mts": "module",
  ".js": "module",
  ".mjs": "module"
}

/**
 * Reads a config file (`file` relative to `cwd`).
 *
 * @since 0.1.0
 * @category loading
 */
export const load = (cwd: string, file: string): Effect.Effect<Loaded, Unreadable> =>
  Effect.gen(function* () {
    const absolute = path.resolve(cwd, file)
    const format = formats[path.extname(file).toLowerCase()]
    if (format === undefined) {
      return yield* unreadable(file, "is not a config file: name a .yaml, .yml, .json or .ts file")
    }
    if (format === "module") return yield* loadModule(file, absolute)
    const text = yield* Effect.tryPromise({
      try: () => fs.readFile(absolute, "utf8"),
      catch: (error) => unreadable(file, `could not read: ${error instanceof Error ? error.message : String(error)}`)
    })
    const parsed = ConfigSource.parse(text, format)
    if (Either.isLeft(parsed)) {
      return yield* new Unreadable({
        problems: parsed.left.map((error) => ({ file, path: [], message: error.message, position: error.position }))
      })
    }
    return { file, value: parsed.right.value, locate: parsed.right.locate }
  })
