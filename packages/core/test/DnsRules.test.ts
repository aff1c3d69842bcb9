import { describe, expect, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import { DnsCheck } from "../src/CheckSpec.js"
import * as DnsRules from "../src/DnsRules.js"
import * as TargetRules from "../src/TargetRules.js"

const check = (expected_records: ReadonlyArray<string> | undefined): DnsCheck =>
  Schema.decodeUnknownSync(DnsCheck)({
    type: "dns",
    domain: "example.com",
    record_type: "TXT",
    ...(expected_records === undefined ? {} : { expected_records })
  })

const records = (n: number) => Array.from({ length: n }, (_, i) => `value ${i}`)

describe("DnsRules", () => {
  it("up to 50 values of up to 2048 characters keep the limits; none and an empty list too", () => {
    expect(DnsRules.expectedRecordsLimits(check(undefined))).toBeUndefined()
    expect(DnsRules.expectedRecordsLimits(check([]))).toBeUndefined()
    expect(DnsRules.expectedRecordsLimits(check(records(50)))).toBeUndefined()
    expect(DnsRules.expectedRecordsLimits(check(["x".repeat(2048)]))).toBeUndefined()
  })

  it("a 51st value is 400 INVALID_DNS_PARAMS on check.expected_records", () => {
    const violation = DnsRules.expectedRecordsLimits(check(records(51)))
    expect(violation).toMatchObject({
      code: "INVALID_DNS_PARAMS",
      field: "check.expected_records",
      details: { max: 50, count: 51 }
    })
    expect(violation === undefined ? undefined : TargetRules.toApiError(violation).status).toBe(400)
  })

  it("a value over 2048 characters is 400 INVALID_DNS_PARAMS on its own path", () => {
    expect(DnsRules.expectedRecordsLimits(check(["short", "x".repeat(2049), "y".repeat(3000)]))).toMatchObject({
      code: "INVALID_DNS_PARAMS",
      field: "check.expected_records[1]",
      details: { max_length: 2048 }
    })
  })

  it("characters are code points: 2048 emoji are 2048 characters", () => {
    expect(DnsRules.expectedRecordsLimits(check(["🔥".repeat(2048)]))).toBeUndefined()
    expect(DnsRules.expectedRecordsLimits(check(["🔥".repeat(2049)]))).toMatchObject({
      field: "check.expected_records[0]"
    })
  })

  it("invalid builds the one refusal every dns rule answers with", () => {
    expect(DnsRules.invalid("check.domain", "domain is empty")).toEqual({
      code: "INVALID_DNS_PARAMS",
      field: "check.domain",
      message: "domain is empty"
    })
  })
})
