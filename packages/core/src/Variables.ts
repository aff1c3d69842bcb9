/**
 * `{{key}}` references to org variables inside a check (service-api.md, http and flow): where they may appear and
 * where a secret may appear.
 *
 * @since 0.1.0
 */
import type { CheckSpec } from "./CheckSpec.js"

/**
 * The key pattern of a variable.
 *
 * @since 0.1.0
 * @category constants
 */
export const KEY_PATTERN = /^[a-z][a-z0-9_]{0,62}$/

const reference = /\{\{\s*([^{}\s]*)\s*\}\}/g

/**
 * One reference: the field it sits in (path under the check), the key, and whether a secret may go there.
 *
 * @since 0.1.0
 * @category models
 */
export interface Reference {
  readonly field: string
  readonly key: string
  /** Secrets only in a header value, the body, or a flow fill value. */
  readonly secretAllowed: boolean
}

const scan = (field: string, text: string | undefined, secretAllowed: boolean): ReadonlyArray<Reference> =>
  text === undefined ? [] : [...text.matchAll(reference)].map((m) => ({ field, key: m[1] ?? "", secretAllowed }))

/**
 * Every reference in a check, in field order.
 *
 * @since 0.1.0
 * @category parsing
 */
export const references = (spec: CheckSpec): ReadonlyArray<Reference> => {
  switch (spec.type) {
    case "http":
      return [
        ...scan("url", spec.url, false),
        ...Object.entries(spec.headers).flatMap(([name, value]) => scan(`headers.${name}`, value, true)),
        ...scan("body", spec.body, true),
        ...scan("expected_body_contains", spec.expected_body_contains, false)
      ]
    case "flow":
      return spec.steps.flatMap((step, i) =>
        step.action === "fill" ? scan(`steps[${i}].value`, step.value, true) : []
      )
    default:
      return []
  }
}

/**
 * The distinct keys a check references, in first-seen order (what a stored monitor records to answer `used_by`).
 *
 * @since 0.1.0
 * @category parsing
 */
export const keys = (spec: CheckSpec): ReadonlyArray<string> => [...new Set(references(spec).map((r) => r.key))]

const fill = (text: string, values: ReadonlyMap<string, string>): string =>
  // One pass with a replacer: a value that itself contains `{{...}}` is inserted as written, never expanded again.
  text.replace(reference, (whole, key: string) => values.get(key) ?? whole)

/**
 * The check with every reference whose key is in `values` replaced by its value, in the fields where references
 * may appear; a reference to a key not given stays as typed.
 *
 * @since 0.1.0
 * @category combinators
 */
export const substitute = <S extends CheckSpec>(spec: S, values: ReadonlyMap<string, string>): S => {
  switch (spec.type) {
    case "http":
      return {
        ...spec,
        url: fill(spec.url, values),
        headers: Object.fromEntries(Object.entries(spec.headers).map(([name, value]) => [name, fill(value, values)])),
        ...(spec.body === undefined ? {} : { body: fill(spec.body, values) }),
        ...(spec.expected_body_contains === undefined
          ? {}
          : { expected_body_contains: fill(spec.expected_body_contains, values) })
      }
    case "flow":
      return {
        ...spec,
        steps: spec.steps.map((step) => (step.action === "fill" ? { ...step, value: fill(step.value, values) } : step))
      }
    default:
      return spec
  }
}
