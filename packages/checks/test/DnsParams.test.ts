import { describe, expect, it } from "@effect/vitest"
import { DnsCheck } from "@signalman/core/CheckSpec"
import * as Schema from "effect/Schema"
import * as DnsParams from "../src/DnsParams.js"

const check = (fields: Record<string, unknown>): DnsCheck =>
  Schema.decodeUnknownSync(DnsCheck)({ type: "dns", domain: "example.com", record_type: "A", ...fields })

const validate = (fields: Record<string, unknown>) => DnsParams.validate(check(fields))

describe("DnsParams", () => {
  it("a plain name with no expectation keeps every rule", () => {
    expect(validate({})).toBeUndefined()
    expect(validate({ domain: "  _dmarc.Example.COM.  ", record_type: "TXT" })).toBeUndefined()
  })

  describe("rule 1: an address is a domain only for PTR", () => {
    it("an IPv4 or IPv6 address as the domain of a non-PTR check is INVALID_DNS_PARAMS on check.domain", () => {
      for (const domain of ["192.0.2.1", "2001:db8::1", "[2001:db8::1]"]) {
        for (const record_type of ["A", "AAAA", "TXT", "MX"]) {
          expect(validate({ domain, record_type })).toMatchObject({
            code: "INVALID_DNS_PARAMS",
            field: "check.domain"
          })
        }
      }
    })

    it("a PTR check takes an address or the reverse name itself", () => {
      expect(validate({ domain: "192.0.2.1", record_type: "PTR" })).toBeUndefined()
      expect(validate({ domain: "2001:db8::1", record_type: "PTR" })).toBeUndefined()
      expect(validate({ domain: "1.2.0.192.in-addr.arpa", record_type: "PTR" })).toBeUndefined()
    })
  })

  describe("the * label", () => {
    it("a leftmost * label is accepted (it queries the wildcard record)", () => {
      expect(validate({ domain: "*.example.com" })).toBeUndefined()
    })

    it("* anywhere but the whole leftmost label is INVALID_DNS_PARAMS on check.domain", () => {
      for (const domain of ["www.*.example.com", "example.*", "*www.example.com", "w*.example.com"]) {
        expect(validate({ domain })).toMatchObject({ code: "INVALID_DNS_PARAMS", field: "check.domain" })
      }
    })
  })

  describe("rule 4: expected_records", () => {
    it("more than 50 values, or a value over 2048 characters, is INVALID_DNS_PARAMS before the forms are read", () => {
      const records = Array.from({ length: 51 }, (_, i) => `192.0.2.${i}`)
      expect(validate({ expected_records: records })).toMatchObject({
        code: "INVALID_DNS_PARAMS",
        field: "check.expected_records"
      })
      // Not in an A record's form either: the length answers first.
      expect(validate({ expected_records: ["192.0.2.1", "x".repeat(2049)] })).toMatchObject({
        code: "INVALID_DNS_PARAMS",
        field: "check.expected_records[1]"
      })
      expect(validate({ record_type: "TXT", expected_records: ["x".repeat(2048)] })).toBeUndefined()
    })

    it("values in the record type's form, zone-file spellings included, are accepted", () => {
      expect(validate({ expected_records: ["192.0.2.1", "192.000.002.002"] })).toBeUndefined()
      expect(validate({ record_type: "AAAA", expected_records: ["2001:0db8::1"] })).toBeUndefined()
      expect(
        validate({ record_type: "MX", expected_records: ["10 mx1.example.com.", "mx2.example.com"] })
      ).toBeUndefined()
      expect(
        validate({ record_type: "TXT", expected_records: ['"v=spf1 " "-all"', "anything at all"] })
      ).toBeUndefined()
      expect(validate({ record_type: "CAA", expected_records: ['0 issue "letsencrypt.org"'] })).toBeUndefined()
    })

    it("a value not in the record type's form is INVALID_DNS_PARAMS on check.expected_records[i]", () => {
      expect(validate({ expected_records: ["192.0.2.1", "192.0.2.2", "not-an-address"] })).toMatchObject({
        code: "INVALID_DNS_PARAMS",
        field: "check.expected_records[2]"
      })
      expect(validate({ record_type: "AAAA", expected_records: ["192.0.2.1"] })).toMatchObject({
        field: "check.expected_records[0]"
      })
      expect(validate({ record_type: "MX", expected_records: ["ten mx.example.com"] })).toMatchObject({
        field: "check.expected_records[0]"
      })
      expect(validate({ record_type: "SRV", expected_records: ["10 5 sip.example.com"] })).toMatchObject({
        field: "check.expected_records[0]"
      })
      expect(validate({ record_type: "CNAME", expected_records: ["*.example.com"] })).toMatchObject({
        field: "check.expected_records[0]"
      })
    })

    it("the same value twice is INVALID_DNS_PARAMS on the repeat, naming the first", () => {
      expect(validate({ expected_records: ["192.0.2.1", "192.0.2.2", "192.0.2.1"] })).toMatchObject({
        code: "INVALID_DNS_PARAMS",
        field: "check.expected_records[2]",
        details: { duplicate_of: 0 }
      })
    })

    it("two spellings of one value count as the same value twice (compared after normalisation)", () => {
      expect(validate({ expected_records: ["192.0.2.1", "192.000.002.001"] })).toMatchObject({
        field: "check.expected_records[1]"
      })
      expect(validate({ record_type: "AAAA", expected_records: ["2001:DB8::1", "2001:0db8:0:0::1"] })).toMatchObject({
        field: "check.expected_records[1]"
      })
      expect(validate({ record_type: "NS", expected_records: ["NS1.Example.com.", "ns1.example.com"] })).toMatchObject({
        field: "check.expected_records[1]"
      })
      expect(validate({ record_type: "TXT", expected_records: ['"a" "b"', "ab"] })).toMatchObject({
        field: "check.expected_records[1]"
      })
    })

    it("TXT values differing only in case are different values", () => {
      expect(validate({ record_type: "TXT", expected_records: ["Token", "token"] })).toBeUndefined()
    })

    it("both expected_records and expected_contains set is INVALID_DNS_PARAMS on check.expected_contains", () => {
      expect(validate({ expected_records: ["192.0.2.1"], expected_contains: "192" })).toMatchObject({
        code: "INVALID_DNS_PARAMS",
        field: "check.expected_contains"
      })
    })

    it("an empty expected_records beside expected_contains is no conflict (an empty list equals none)", () => {
      expect(validate({ expected_records: [], expected_contains: "192" })).toBeUndefined()
    })
  })

  describe("resolver", () => {
    it("an ip or ip:port resolver, IPv6 bracketed with a port, is accepted", () => {
      for (const resolver of ["192.0.2.53", "192.0.2.53:5353", "2001:db8::53", "[2001:db8::53]:5353"]) {
        expect(validate({ resolver })).toBeUndefined()
      }
    })

    it("a resolver that is not an ip or ip:port is INVALID_DNS_PARAMS on check.resolver", () => {
      for (const resolver of ["dns.example.com", "192.0.2.53:0", "192.0.2.53:70000", "192.0.2.256", "[::1"]) {
        expect(validate({ resolver })).toMatchObject({ code: "INVALID_DNS_PARAMS", field: "check.resolver" })
      }
    })
  })
})
