/**
 * Builds the configuration from its sources, later winning: built-in defaults, the optional config file
 * (`--config FILE` or `CONFIG_FILE`, JSON or YAML), then the environment (aliases such as `PORT` first, then the
 * dotted form `SERVER__PORT`, which wins over its alias). Pure apart from the file read, so it is unit-tested.
 */
import * as Either from "effect/Either"
import * as YAML from "yaml"
import type { Setting } from "./Setting.js"
import { type Key, settings } from "./Settings.js"

export type Values = { readonly [K in Key]: (typeof settings)[K] extends Setting<infer A> ? A : never }

/** Why the configuration cannot be used, as the one line the boot prints. */
export class ConfigError extends Error {
  override readonly name = "ConfigError"
}

export const envName = (key: string): string => key.toUpperCase().replaceAll(".", "__")

type Source = { readonly raw: unknown; readonly from: string }

const flatten = (value: unknown, prefix: string, out: Map<string, unknown>): void => {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const entries = Object.entries(value)
    // A nested object is a section unless its path is itself a setting (no setting takes an object today).
    if (prefix === "" || !(prefix in settings)) {
      for (const [k, v] of entries) flatten(v, prefix === "" ? k : `${prefix}.${k}`, out)
      return
    }
  }
  out.set(prefix, value)
}

export const parseFile = (text: string, path: string): Either.Either<Map<string, unknown>, ConfigError> => {
  let doc: unknown
  try {
    doc = path.endsWith(".json") ? JSON.parse(text) : YAML.parse(text)
  } catch (e) {
    return Either.left(
      new ConfigError(`config file ${path}: not valid ${path.endsWith(".json") ? "JSON" : "YAML"}: ${String(e)}`)
    )
  }
  if (doc === null || doc === undefined) return Either.right(new Map())
  if (typeof doc !== "object" || Array.isArray(doc)) {
    return Either.left(new ConfigError(`config file ${path}: must hold an object of settings`))
  }
  const flat = new Map<string, unknown>()
  flatten(doc, "", flat)
  for (const key of flat.keys()) {
    if (!(key in settings)) return Either.left(new ConfigError(`config file ${path}: unknown setting ${key}`))
  }
  return Either.right(flat)
}

export interface Sources {
  readonly env: Readonly<Record<string, string | undefined>>
  readonly file?: { readonly path: string; readonly settings: ReadonlyMap<string, unknown> }
}

const isKey = (key: string): key is Key => key in settings

export const resolve = (sources: Sources): Either.Either<Values, ConfigError> => {
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(settings)) {
    if (!isKey(key)) continue
    const setting: Setting<unknown> = settings[key]
    let source: Source | undefined
    const fromFile = sources.file?.settings.get(key)
    if (fromFile !== undefined && sources.file !== undefined)
      source = { raw: fromFile, from: `file ${sources.file.path}` }
    for (const alias of setting.aliases ?? []) {
      const v = sources.env[alias]
      if (v !== undefined && v !== "") source = { raw: v, from: `env ${alias}` }
    }
    const dotted = sources.env[envName(key)]
    if (dotted !== undefined && dotted !== "") source = { raw: dotted, from: `env ${envName(key)}` }
    if (source === undefined) {
      const d = setting.default
      out[key] = typeof d === "function" ? d() : d
      continue
    }
    const parsed = setting.parse(source.raw)
    if (Either.isLeft(parsed)) {
      return Either.left(new ConfigError(`invalid setting ${key} (${source.from}): ${parsed.left}`))
    }
    out[key] = parsed.right
  }
  return Either.right(out as Values)
}
