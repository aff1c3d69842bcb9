import { assert, describe, it } from "@effect/vitest"
import * as AddressGuard from "../src/AddressGuard.js"
import { internalSpellings, publicSpellings } from "./support/Bypasses.js"

describe("AddressGuard", () => {
  it("the bypass list is at least 40 spellings long", () => {
    assert.isAtLeast(internalSpellings.length, 40)
  })

  describe("check refuses every internal spelling", () => {
    for (const [spelling, what] of internalSpellings) {
      it(`${spelling} (${what}) is refused`, () => {
        const verdict = AddressGuard.check(spelling)
        assert.isFalse(verdict.allowed, `${spelling} was allowed`)
      })
    }
  })

  describe("check allows public addresses in any spelling", () => {
    for (const spelling of publicSpellings) {
      it(`${spelling} is allowed`, () => {
        assert.isTrue(AddressGuard.check(spelling).allowed)
      })
    }
  })

  it("IPv6 outside 2000::/3 is refused even where ipaddr.js calls it unicast (IPv4-compatible ::7f00:1)", () => {
    for (const address of ["::7f00:1", "::a9fe:a9fe", "1::1", "4000::1", "e000::1"]) {
      const verdict = AddressGuard.check(address)
      assert.deepStrictEqual(verdict, { allowed: false, address, reason: "a reserved address (outside 2000::/3)" })
    }
  })

  it("a name is not an address: check refuses it (names are judged after DNS, on each answer)", () => {
    assert.deepStrictEqual(AddressGuard.check("example.com"), {
      allowed: false,
      address: "example.com",
      reason: "not an IP address"
    })
  })

  it("parseLiteral reads the WHATWG spellings and returns undefined for names", () => {
    assert.strictEqual(AddressGuard.parseLiteral("0x7f.1")?.toString(), "127.0.0.1")
    assert.strictEqual(AddressGuard.parseLiteral("[fe80::1%eth0]")?.toString(), "fe80::1")
    assert.strictEqual(AddressGuard.parseLiteral("127.0.0.1.")?.toString(), "127.0.0.1")
    assert.isUndefined(AddressGuard.parseLiteral("localhost"))
    assert.isUndefined(AddressGuard.parseLiteral("1.2.3.4.example"))
  })

  it("blockedMessage starts with blocked: and names the address, and the name when one resolved to it", () => {
    const verdict = AddressGuard.check("169.254.169.254")
    assert.isFalse(verdict.allowed)
    if (verdict.allowed) return
    assert.strictEqual(
      AddressGuard.blockedMessage("169.254.169.254", verdict),
      "blocked: 169.254.169.254 is a link-local address"
    )
    assert.strictEqual(
      AddressGuard.blockedMessage("metadata.google.internal", verdict),
      "blocked: metadata.google.internal resolves to 169.254.169.254, a link-local address"
    )
  })
})
