import { describe, expect, it } from "@effect/vitest"
import { type AddressRange, normalize, parseRange } from "../src/config/AddressRange.js"
import { resolver } from "../src/http/ClientAddress.js"

const ranges = (...texts: Array<string>): ReadonlyArray<AddressRange> =>
  texts.map((text) => {
    const range = parseRange(text)
    if (typeof range === "string") throw new Error(range)
    return range
  })

describe("ClientAddress", () => {
  it("parses addresses and CIDR ranges of both families", () => {
    expect(parseRange("10.0.0.0/8")).toEqual({ address: "10.0.0.0", prefix: 8, family: 4 })
    expect(parseRange(" 192.0.2.7 ")).toEqual({ address: "192.0.2.7", prefix: 32, family: 4 })
    expect(parseRange("fd00::/8")).toEqual({ address: "fd00::", prefix: 8, family: 6 })
    expect(parseRange("::1")).toEqual({ address: "::1", prefix: 128, family: 6 })
  })

  it("refuses what is not an address or range, naming it", () => {
    expect(parseRange("proxy.internal")).toContain('"proxy.internal" is not an IP address')
    expect(parseRange("10.0.0.0/33")).toContain("at most 32")
    expect(parseRange("fd00::/129")).toContain("at most 128")
    expect(parseRange("10.0.0.0/8/8")).toContain("malformed prefix")
    expect(parseRange("10.0.0.0/x")).toContain("malformed prefix")
    expect(parseRange("10.0.0.0/")).toContain("malformed prefix")
  })

  it("writes an IPv4-mapped IPv6 address in its IPv4 form", () => {
    expect(normalize("::ffff:192.0.2.1")).toBe("192.0.2.1")
    expect(normalize("::FFFF:10.1.2.3")).toBe("10.1.2.3")
    expect(normalize("2001:db8::1")).toBe("2001:db8::1")
  })

  it("with no trusted proxies the peer is the client and the header is never read", () => {
    const resolve = resolver([])
    expect(resolve("192.0.2.1", "203.0.113.9")).toBe("192.0.2.1")
    expect(resolve("::ffff:192.0.2.1", undefined)).toBe("192.0.2.1")
    expect(resolve(undefined, "203.0.113.9")).toBeUndefined()
  })

  it("a peer that is not a trusted proxy keeps its own address, whatever it forwards", () => {
    const resolve = resolver(ranges("10.0.0.0/8"))
    expect(resolve("192.0.2.1", "203.0.113.9")).toBe("192.0.2.1")
  })

  it("behind trusted hops the client is the nearest address that is not one of them", () => {
    const resolve = resolver(ranges("10.0.0.0/8", "fd00::/8"))
    expect(resolve("10.0.0.5", "203.0.113.9")).toBe("203.0.113.9")
    // Two proxies: the load balancer (peer) and an inner one (10.1.1.1) named by the header.
    expect(resolve("10.0.0.5", "203.0.113.9, 10.1.1.1")).toBe("203.0.113.9")
    // A client-written spoof on the left is not believed past the first untrusted hop.
    expect(resolve("10.0.0.5", "1.1.1.1, 203.0.113.9")).toBe("203.0.113.9")
    expect(resolve("::ffff:10.0.0.5", "2001:db8::7")).toBe("2001:db8::7")
    expect(resolve("fd00::1", "::ffff:203.0.113.9")).toBe("203.0.113.9")
  })

  it("reads entries with ports, and stops at an entry that is not an address", () => {
    const resolve = resolver(ranges("10.0.0.0/8"))
    expect(resolve("10.0.0.5", "203.0.113.9:5123")).toBe("203.0.113.9")
    expect(resolve("10.0.0.5", "[2001:db8::7]:443")).toBe("2001:db8::7")
    expect(resolve("10.0.0.5", "unknown")).toBe("10.0.0.5")
    expect(resolve("10.0.0.5", "203.0.113.9, garbage, 10.1.1.1")).toBe("10.1.1.1")
    expect(resolve("10.0.0.5", "")).toBe("10.0.0.5")
  })

  it("when every hop is trusted, the farthest one is the client", () => {
    const resolve = resolver(ranges("10.0.0.0/8"))
    expect(resolve("10.0.0.5", "10.9.9.9, 10.1.1.1")).toBe("10.9.9.9")
    expect(resolve("10.0.0.5", undefined)).toBe("10.0.0.5")
  })
})
