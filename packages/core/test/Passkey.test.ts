import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Passkey from "../src/Passkey.js"

describe("Passkey", () => {
  it("the relying-party id is the host of the public base URL, without port or path", () => {
    expect(Passkey.rpIdOf("http://localhost:8080")).toEqual(Either.right("localhost"))
    expect(Passkey.rpIdOf("https://status.example.com/base/")).toEqual(Either.right("status.example.com"))
    expect(Passkey.rpIdOf("https://Status.Example.COM.")).toEqual(Either.right("status.example.com"))
  })

  it("an IP address is never a relying-party id, however it is spelt", () => {
    for (const url of ["http://127.0.0.1:8080", "http://[::1]:3000", "http://0x7f.1", "http://2130706433/"]) {
      const rpId = Passkey.rpIdOf(url)
      expect(Either.isLeft(rpId), url).toBe(true)
      expect(
        Either.getLeft(rpId).pipe((o) => (o._tag === "Some" ? o.value : "")),
        url
      ).toContain("IP address")
    }
    expect(Either.isLeft(Passkey.rpIdOf("not a url"))).toBe(true)
  })

  it("ten passkeys fit and the eleventh does not", () => {
    expect(Passkey.MAX_PER_USER).toBe(10)
    expect(Passkey.roomForOneMore(0)).toBe(true)
    expect(Passkey.roomForOneMore(9)).toBe(true)
    expect(Passkey.roomForOneMore(10)).toBe(false)
    expect(Passkey.roomForOneMore(11)).toBe(false)
  })

  it("only an explicit rk false is a non-discoverable report; silence is not", () => {
    expect(Passkey.reportedNonDiscoverable({ credProps: { rk: false } })).toBe(true)
    expect(Passkey.reportedNonDiscoverable({ credProps: { rk: true } })).toBe(false)
    expect(Passkey.reportedNonDiscoverable({ credProps: {} })).toBe(false)
    expect(Passkey.reportedNonDiscoverable({})).toBe(false)
  })

  it("a counter is unused at zero, advancing when it grows, stalled when it stops or goes back", () => {
    expect(Passkey.judgeCounter(0, 0)).toBe("unused")
    expect(Passkey.judgeCounter(0, 1)).toBe("advancing")
    expect(Passkey.judgeCounter(5, 6)).toBe("advancing")
    expect(Passkey.judgeCounter(5, 5)).toBe("stalled")
    expect(Passkey.judgeCounter(5, 2)).toBe("stalled")
    expect(Passkey.judgeCounter(5, 0)).toBe("stalled")
  })

  it("the counter kept never goes back, so one stall does not hide the next", () => {
    expect(Passkey.nextCounter(5, 7)).toBe(7)
    expect(Passkey.nextCounter(5, 2)).toBe(5)
    expect(Passkey.judgeCounter(Passkey.nextCounter(5, 2), 3)).toBe("stalled")
  })

  it("the finish bodies refuse unknown keys at the top and keep the browser's additions inside", () => {
    const credential = {
      id: "AA",
      rawId: "AA",
      type: "public-key",
      response: { clientDataJSON: "AA", attestationObject: "AA", publicKeyAlgorithm: -7 },
      clientExtensionResults: { credProps: { rk: true }, hmacCreateSecret: false },
      authenticatorAttachment: null
    }
    const id = "0190f3a0-0000-7000-8000-000000000000"
    const decode = Schema.decodeUnknownEither(Passkey.RegisterFinish)
    expect(Either.isRight(decode({ ceremony_id: id, credential }))).toBe(true)
    expect(Either.isLeft(decode({ ceremony_id: id, credential, extra: 1 }))).toBe(true)
    expect(Either.isLeft(decode({ ceremony_id: "nope", credential }))).toBe(true)
  })

  it("a passkey's name is trimmed, required and at most 64 characters", () => {
    const decode = Schema.decodeUnknownEither(Passkey.RegisterStart)
    expect(decode({ name: "  Laptop " })).toEqual(Either.right({ name: "Laptop" }))
    expect(Either.isLeft(decode({ name: "   " }))).toBe(true)
    expect(Either.isLeft(decode({ name: "x".repeat(65) }))).toBe(true)
  })
})
