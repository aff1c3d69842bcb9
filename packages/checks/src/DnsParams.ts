/**
 * The save-time rules of a dns check (service-api.md "dns"): the domain (an address only for PTR, `*` only as the
 * leftmost label), the resolver (ip or ip:port), and `expected_records` (the limits of `DnsRules`, each value in its
 * record type's form, no value twice, never beside `expected_contains`). Each broken rule is 400
 * `INVALID_DNS_PARAMS` naming the field, built by `DnsRules.invalid`.
 *
 * The forms are the ones the probe compares with (`Dns.normaliseDomain`, `Dns.normaliseValue`), so a value saved
 * here is read the same way when an answer arrives.
 *
 * @since 0.1.0
 */
import type { DnsCheck } from "@signalman/core/CheckSpec"
import * as DnsRules from "@signalman/core/DnsRules"
import type { Violation } from "@signalman/core/TargetRules"
import * as Either from "effect/Either"
import * as Dns from "./Dns.js"

const expectedRecords = (check: DnsCheck): Violation | undefined => {
  // Keyed by the normalised value, so two spellings of one record (`010.0.0.1`, `10.0.0.1`) count as the same.
  const seen = new Map<string, number>()
  for (const [index, value] of (check.expected_records ?? []).entries()) {
    const field = `check.expected_records[${index}]`
    const normalised = Dns.normaliseValue(check.record_type, value)
    if (Either.isLeft(normalised)) {
      return DnsRules.invalid(field, `expected_records[${index}] ${normalised.left}`)
    }
    const earlier = seen.get(normalised.right)
    if (earlier !== undefined) {
      return DnsRules.invalid(
        field,
        `expected_records[${index}] repeats expected_records[${earlier}] (${normalised.right})`,
        {
          duplicate_of: earlier
        }
      )
    }
    seen.set(normalised.right, index)
  }
  return undefined
}

/**
 * The first dns rule a check breaks, as 400 `INVALID_DNS_PARAMS` on its field, or undefined when it keeps them all.
 *
 * @since 0.1.0
 * @category validation
 */
export const validate = (check: DnsCheck): Violation | undefined => {
  // The list's size first, as the shape of the body: a value too long is not worth reading in its form.
  const limits = DnsRules.expectedRecordsLimits(check)
  if (limits !== undefined) return limits
  const domain = Dns.normaliseDomain(check.domain, check.record_type)
  if (Either.isLeft(domain)) return DnsRules.invalid("check.domain", `domain ${domain.left}`)
  if (check.resolver !== undefined) {
    const resolver = Dns.parseResolver(check.resolver)
    if (Either.isLeft(resolver)) return DnsRules.invalid("check.resolver", `resolver ${resolver.left}`)
  }
  // The spec reads an empty expected_records as none, so only a non-empty set conflicts with expected_contains.
  if (check.expected_contains !== undefined && (check.expected_records ?? []).length > 0) {
    return DnsRules.invalid(
      "check.expected_contains",
      "set expected_records (the exact answer set) or expected_contains (a substring), not both"
    )
  }
  return expectedRecords(check)
}
