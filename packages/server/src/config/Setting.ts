/**
 * One configuration setting: its parser from a raw value (a string from the environment, or any JSON or YAML
 * value from the config file) and its default. Parsers answer with a reason phrase so the boot error can say, in
 * one line, which setting is wrong and why.
 */
import * as Either from "effect/Either"
import { type AddressRange, parseRange } from "./AddressRange.js"

export interface Setting<A> {
  readonly parse: (raw: unknown) => Either.Either<A, string>
  readonly default: A | (() => A) | undefined
  readonly description: string
  /** Shown in the documentation instead of the default value (for derived defaults). */
  readonly defaultLabel?: string
  /** Environment variables read besides the dotted form, weakest first. */
  readonly aliases?: ReadonlyArray<string>
  readonly secret?: boolean
}

export type Value<S> = S extends Setting<infer A> ? A : never

const show = (raw: unknown): string => (typeof raw === "string" ? JSON.stringify(raw) : String(JSON.stringify(raw)))

interface Common<A> {
  readonly description: string
  readonly default?: A | (() => A)
  readonly defaultLabel?: string
  readonly aliases?: ReadonlyArray<string>
  readonly secret?: boolean
}

const make = <A>(common: Common<A>, parse: (raw: unknown) => Either.Either<A, string>): Setting<A> => ({
  parse,
  default: common.default,
  description: common.description,
  ...(common.defaultLabel === undefined ? {} : { defaultLabel: common.defaultLabel }),
  ...(common.aliases === undefined ? {} : { aliases: common.aliases }),
  ...(common.secret === undefined ? {} : { secret: common.secret })
})

/** A whole number in `[min, max]`. Quotas, rates and intervals use `min: 1` (spec: Enforcement rules 3). */
export const integer = (options: Common<number> & { readonly min: number; readonly max?: number }) =>
  make(options, (raw) => {
    const max = options.max ?? Number.MAX_SAFE_INTEGER
    const range = options.max === undefined ? `at least ${options.min}` : `from ${options.min} to ${max}`
    const n = typeof raw === "number" ? raw : typeof raw === "string" && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : NaN
    if (!Number.isSafeInteger(n)) return Either.left(`must be a whole number ${range}, got ${show(raw)}`)
    if (n < options.min || n > max) return Either.left(`must be ${range}, got ${n}`)
    return Either.right(n)
  })

export const boolean = (options: Common<boolean>) =>
  make(options, (raw) => {
    if (typeof raw === "boolean") return Either.right(raw)
    if (typeof raw === "string") {
      const v = raw.trim().toLowerCase()
      if (v === "true" || v === "1" || v === "yes" || v === "on") return Either.right(true)
      if (v === "false" || v === "0" || v === "no" || v === "off") return Either.right(false)
    }
    return Either.left(`must be true or false, got ${show(raw)}`)
  })

export const string = (options: Common<string> & { readonly nonEmpty?: boolean }) =>
  make(options, (raw) => {
    if (typeof raw !== "string") return Either.left(`must be a string, got ${show(raw)}`)
    if (options.nonEmpty === true && raw.trim() === "") return Either.left("must not be empty")
    return Either.right(raw)
  })

export const optionalString = (options: Common<string | undefined>) =>
  make<string | undefined>(options, (raw) => {
    if (raw === null || raw === undefined) return Either.right(undefined)
    if (typeof raw !== "string") return Either.left(`must be a string, got ${show(raw)}`)
    return Either.right(raw === "" ? undefined : raw)
  })

export const url = (options: Common<string | undefined> & { readonly protocols: ReadonlyArray<string> }) =>
  make<string | undefined>(options, (raw) => {
    if (raw === null || raw === undefined || raw === "") return Either.right(undefined)
    if (typeof raw !== "string") return Either.left(`must be a URL, got ${show(raw)}`)
    let parsed: URL
    try {
      parsed = new URL(raw)
    } catch {
      return Either.left("must be a URL")
    }
    if (!options.protocols.includes(parsed.protocol)) {
      return Either.left(`must be a URL with scheme ${options.protocols.map((p) => p.slice(0, -1)).join(" or ")}`)
    }
    return Either.right(raw)
  })

export const literal = <const L extends string>(options: Common<L> & { readonly values: ReadonlyArray<L> }) =>
  make<L>(options, (raw) => {
    const found = options.values.find((v) => v === raw)
    return found === undefined
      ? Either.left(`must be one of ${options.values.join(", ")}, got ${show(raw)}`)
      : Either.right(found)
  })

/** A value only one of `values` or unset (`billing.provider`: unset means the feature is off). */
export const optionalLiteral = <const L extends string>(
  options: Common<L | undefined> & { readonly values: ReadonlyArray<L> }
) =>
  make<L | undefined>(options, (raw) => {
    if (raw === null || raw === undefined || raw === "") return Either.right(undefined)
    const found = options.values.find((v) => v === raw)
    return found === undefined
      ? Either.left(`must be one of ${options.values.join(", ")} or unset, got ${show(raw)}`)
      : Either.right(found)
  })

/** A setting with a parser of its own (`billing.prices`). */
export const custom = <A>(options: Common<A>, parse: (raw: unknown) => Either.Either<A, string>) => make(options, parse)

/** The items of a list value: an array from the file, or the comma-separated parts of an environment string. */
const itemsOf = (raw: unknown): ReadonlyArray<unknown> | undefined =>
  typeof raw === "string"
    ? raw
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "")
    : Array.isArray(raw)
      ? raw
      : undefined

/** A list: a JSON or YAML array in the file, a comma-separated string in the environment. */
export const list = <const L extends string>(
  options: Common<ReadonlyArray<L>> & { readonly values: ReadonlyArray<L> }
) =>
  make<ReadonlyArray<L>>(options, (raw) => {
    const items = itemsOf(raw)
    if (items === undefined) return Either.left(`must be a list, got ${show(raw)}`)
    const out: Array<L> = []
    for (const item of items) {
      const found = options.values.find((v) => v === item)
      if (found === undefined) return Either.left(`has ${show(item)}; allowed: ${options.values.join(", ")}`)
      if (!out.includes(found)) out.push(found)
    }
    return Either.right(out)
  })

/**
 * A list of free-form names, each matching `pattern` (region ids): a JSON or YAML array in the file, a
 * comma-separated string in the environment. A name given twice is kept once; an empty list is refused when
 * `nonEmpty`. `item` names one entry in messages (`a region id`).
 */
export const names = (
  options: Common<ReadonlyArray<string>> & {
    readonly pattern: RegExp
    readonly item: string
    readonly nonEmpty?: boolean
  }
) =>
  make<ReadonlyArray<string>>(options, (raw) => {
    const items = itemsOf(raw)
    if (items === undefined) return Either.left(`must be a list, got ${show(raw)}`)
    const out: Array<string> = []
    for (const entry of items) {
      if (typeof entry !== "string" || !options.pattern.test(entry)) {
        return Either.left(`${show(entry)} is not ${options.item}`)
      }
      if (!out.includes(entry)) out.push(entry)
    }
    if (options.nonEmpty === true && out.length === 0) return Either.left("must not be empty")
    return Either.right(out)
  })

/**
 * Address ranges (`10.0.0.0/8`, `192.0.2.7`, `fd00::/8`): a JSON or YAML array in the file, a comma-separated string
 * in the environment.
 */
export const addressRanges = (options: Common<ReadonlyArray<AddressRange>>) =>
  make<ReadonlyArray<AddressRange>>(options, (raw) => {
    const items = itemsOf(raw)
    if (items === undefined) return Either.left(`must be a list of IP addresses or CIDR ranges, got ${show(raw)}`)
    const out: Array<AddressRange> = []
    for (const item of items) {
      if (typeof item !== "string") return Either.left(`${show(item)} is not an IP address or CIDR range`)
      const range = parseRange(item)
      if (typeof range === "string") return Either.left(range)
      out.push(range)
    }
    return Either.right(out)
  })
