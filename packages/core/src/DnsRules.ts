/**
 * The dns check's parameter rules (service-api.md "dns") that need no knowledge of record forms: `expected_records`
 * holds at most 50 values of at most 2048 characters each. The spec's error table gives every DNS parameter rule one
 * answer, 400 `INVALID_DNS_PARAMS` with the field, so every refusal of a dns rule is built here (`invalid`), also
 * those of the record forms, which `@signalman/checks/DnsParams` judges with the probe's own normalisation.
 *
 * The limits are rules rather than schema bounds, so that a list over them answers `INVALID_DNS_PARAMS` like the
 * other dns rules, not a generic `VALIDATION_FAILED`.
 *
 * @since 0.2.0
 */
import type { DnsCheck } from "./CheckSpec.js"
import type { Violation } from "./TargetRules.js"
import * as TextLength from "./TextLength.js"

/**
 * The most values `expected_records` may hold.
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_EXPECTED_RECORDS = 50

/**
 * The most characters (code points) one `expected_records` value may hold.
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_EXPECTED_RECORD_LENGTH = 2048

/**
 * A broken dns rule: 400 `INVALID_DNS_PARAMS` on `field` (`check.domain`, `check.expected_records[3]`).
 *
 * @since 0.2.0
 * @category constructors
 */
export const invalid = (field: string, message: string, details?: Record<string, unknown>): Violation =>
  details === undefined
    ? { code: "INVALID_DNS_PARAMS", field, message }
    : { code: "INVALID_DNS_PARAMS", field, message, details }

/**
 * The first limit of `expected_records` the check breaks: too many values (on `check.expected_records`), or a value
 * too long (on `check.expected_records[i]`); undefined when it keeps them.
 *
 * @since 0.2.0
 * @category validation
 */
export const expectedRecordsLimits = (check: DnsCheck): Violation | undefined => {
  const records = check.expected_records ?? []
  if (records.length > MAX_EXPECTED_RECORDS) {
    return invalid("check.expected_records", `expected_records holds at most ${MAX_EXPECTED_RECORDS} values`, {
      max: MAX_EXPECTED_RECORDS,
      count: records.length
    })
  }
  const long = records.findIndex((value) => TextLength.characters(value) > MAX_EXPECTED_RECORD_LENGTH)
  return long === -1
    ? undefined
    : invalid(
        `check.expected_records[${long}]`,
        `expected_records[${long}] is longer than ${MAX_EXPECTED_RECORD_LENGTH} characters`,
        { max_length: MAX_EXPECTED_RECORD_LENGTH }
      )
}
