/**
 * `${env:NAME}` in the config file: a string value may read the environment, so a secret (a token, a webhook URL)
 * lives in the CI's secrets rather than in the repository. `$${` writes a literal `${`.
 *
 * Only string values are read; keys and other types are left as written. A name that is not set is a problem at the
 * value's path, not a silent empty string.
 *
 * @since 0.1.0
 */
import type { KeyPath } from "./KeyPath.js"

/**
 * One string that read the environment: where, the names it read, the text as written and the text it became.
 *
 * @since 0.1.0
 * @category models
 */
export interface Substitution {
  readonly path: KeyPath
  readonly names: ReadonlyArray<string>
  readonly written: string
  readonly value: string
  /** The whole string was one `${env:NAME}`. */
  readonly whole: boolean
}

/**
 * A reference to a name the environment does not set.
 *
 * @since 0.1.0
 * @category models
 */
export interface Unset {
  readonly path: KeyPath
  readonly name: string
}

/**
 * The value with every reference replaced, what was replaced where, and the names that were not set.
 *
 * @since 0.1.0
 * @category models
 */
export interface Interpolated {
  readonly value: unknown
  readonly substitutions: ReadonlyArray<Substitution>
  readonly unset: ReadonlyArray<Unset>
}

/**
 * The form of a reference, for messages that tell how to write one.
 *
 * @since 0.1.0
 * @category constants
 */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the file's own syntax, shown as written
export const form = "${env:NAME}"

const reference = /\$\$\{|\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g
const wholeReference = /^\$\{env:[A-Za-z_][A-Za-z0-9_]*\}$/

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * Replaces every `${env:NAME}` in the string values of `value` with `env[NAME]`.
 *
 * @since 0.1.0
 * @category interpolation
 */
export const interpolate = (value: unknown, env: Readonly<Record<string, string | undefined>>): Interpolated => {
  const substitutions: Array<Substitution> = []
  const unset: Array<Unset> = []
  const walk = (node: unknown, path: KeyPath): unknown => {
    if (typeof node === "string") {
      if (!node.includes("${")) return node
      const names: Array<string> = []
      const replaced = node.replace(reference, (match, name: string | undefined) => {
        if (name === undefined) return "${"
        names.push(name)
        const found = env[name]
        if (found === undefined) {
          unset.push({ path, name })
          return match
        }
        return found
      })
      if (names.length > 0) {
        substitutions.push({ path, names, written: node, value: replaced, whole: wholeReference.test(node) })
      }
      return replaced
    }
    if (Array.isArray(node)) return node.map((item, i) => walk(item, [...path, i]))
    if (isRecord(node)) return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v, [...path, k])]))
    return node
  }
  return { value: walk(value, []), substitutions, unset }
}
