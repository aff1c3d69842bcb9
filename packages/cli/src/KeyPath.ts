/**
 * Key paths: where a value sits in the config file, as people write it (`monitors[2].check.url`).
 *
 * @since 0.1.0
 */

/**
 * A path from the file's top: map keys and list indexes.
 *
 * @since 0.1.0
 * @category models
 */
export type KeyPath = ReadonlyArray<string | number>

const identifier = /^[A-Za-z_][A-Za-z0-9_-]*$/

/**
 * The path as text: `monitors[2].check.url`; a key that is not a plain name is quoted (`headers["X-Api.Key"]`).
 *
 * @since 0.1.0
 * @category formatting
 */
export const format = (path: KeyPath): string =>
  path.reduce<string>((text, segment) => {
    if (typeof segment === "number") return `${text}[${segment}]`
    if (!identifier.test(segment)) return `${text}[${JSON.stringify(segment)}]`
    return text === "" ? segment : `${text}.${segment}`
  }, "")

/**
 * A field as the API names it in an error (`check.steps[3].value`, `access.email_code.allow[0]`) as a path.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (field: string): KeyPath =>
  [...field.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] === undefined ? (m[1] ?? "") : Number(m[2])))
