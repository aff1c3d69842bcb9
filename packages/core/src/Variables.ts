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
