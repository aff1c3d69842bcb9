/**
 * The URLs a check fetches or navigates to (an http check's `url`; a flow's `start_url` and `goto` urls) are
 * absolute http or https URLs. Any other scheme (`data:`, `javascript:`, `file:`, `ftp:`) or a relative URL is
 * refused when the check is saved or tested, 400 `VALIDATION_FAILED` naming the field, rather than stored to fail
 * at every run.
 *
 * A URL may carry `{{key}}` variable references. When the scheme itself comes from one (`{{base}}/health`), the
 * URL cannot be judged as written: a test judges it again with the values in place, a run with the value it reads.
 *
 * @since 0.2.0
 */
import type { CheckSpec } from "./CheckSpec.js"
import type { Violation } from "./TargetRules.js"

const SCHEMES: ReadonlyArray<string> = ["http:", "https:"]

const notAbsolute = "must be an absolute http or https URL"
const otherScheme = (scheme: string) => `must be an http or https URL, not ${scheme}`

// The URL parser's scheme syntax; a scheme is compared lower-case, as the parser reports it.
const scheme = /^[a-z][a-z0-9+.-]*:$/
const schemeSoFar = /^([A-Za-z][A-Za-z0-9+.-]*)?$/

/**
 * Why `url` is not an absolute http or https URL, or undefined when it is one (or its scheme comes from a variable).
 *
 * @since 0.2.0
 * @category validation
 */
export const problem = (url: string): string | undefined => {
  const reference = url.indexOf("{{")
  if (reference !== -1) {
    const written = url.slice(0, reference).trimStart()
    const colon = written.indexOf(":")
    // Only scheme characters before the reference (`{{base}}/x`, `http{{s}}://`): the scheme ends in a value.
    if (colon === -1) return schemeSoFar.test(written) ? undefined : notAbsolute
    const literal = written.slice(0, colon + 1).toLowerCase()
    if (!scheme.test(literal)) return notAbsolute
    return SCHEMES.includes(literal) ? undefined : otherScheme(literal)
  }
  if (!URL.canParse(url)) return notAbsolute
  const protocol = new URL(url).protocol
  return SCHEMES.includes(protocol) ? undefined : otherScheme(protocol)
}

/**
 * The rule for one URL of a check, as 400 `VALIDATION_FAILED` on `field` (`check.url`, `check.steps[2].url`).
 *
 * @since 0.2.0
 * @category validation
 */
export const violation = (url: string, field: string): Violation | undefined => {
  const why = problem(url)
  return why === undefined ? undefined : { code: "VALIDATION_FAILED", field, message: `${field} ${why}` }
}

/**
 * The first URL of a check that breaks the rule: an http check's `url`. A flow's `start_url` and `goto` urls are
 * not judged here yet; the flow work, which guards every navigation, applies `violation` to each.
 *
 * @since 0.2.0
 * @category validation
 */
export const inCheck = (check: CheckSpec): Violation | undefined => {
  switch (check.type) {
    case "http":
      return violation(check.url, "check.url")
    default:
      return undefined
  }
}
