import { describe, expect, it } from "@effect/vitest"
import { CheckSpec } from "@signalman/core/CheckSpec"
import * as Schema from "effect/Schema"
import * as TargetAddress from "../src/TargetAddress.js"

const spec = (input: unknown) => Schema.decodeUnknownSync(CheckSpec)(input)

describe("TargetAddress.refusal", () => {
  it("refuses internal IP literals in any spelling, naming the field", () => {
    expect(TargetAddress.refusal(spec({ type: "http", url: "http://0x7f.1/" }), false)).toMatchObject({
      code: "TARGET_ADDRESS_BLOCKED",
      field: "url"
    })
    expect(TargetAddress.refusal(spec({ type: "tls_cert", host: "169.254.169.254" }), false)?.field).toBe("host")
    expect(
      TargetAddress.refusal(
        spec({ type: "dns", domain: "example.com", record_type: "A", resolver: "10.0.0.53:53" }),
        false
      )?.field
    ).toBe("resolver")
    expect(
      TargetAddress.refusal(
        spec({
          type: "flow",
          start_url: "https://example.com/",
          steps: [
            { action: "goto", url: "http://[::1]/admin" },
            { action: "assert_text", text: "x" }
          ]
        }),
        false
      )?.field
    ).toBe("steps[0].url")
  })

  it("names are judged at dial time, and private targets may be allowed", () => {
    expect(TargetAddress.refusal(spec({ type: "http", url: "http://localhost/" }), false)).toBeUndefined()
    expect(TargetAddress.refusal(spec({ type: "http", url: "http://127.0.0.1/" }), true)).toBeUndefined()
    expect(TargetAddress.refusal(spec({ type: "http", url: "https://8.8.8.8/" }), false)).toBeUndefined()
  })

  it("an IP literal decides the family: pinning the other is INVALID_IP_VERSION", () => {
    expect(
      TargetAddress.refusal(spec({ type: "tcp", host: "8.8.8.8", port: 53, ip_version: "ipv6" }), false)
    ).toMatchObject({
      code: "INVALID_IP_VERSION",
      field: "ip_version"
    })
    expect(
      TargetAddress.refusal(spec({ type: "http", url: "http://[2606:4700::1111]/", ip_version: "ipv4" }), false)?.code
    ).toBe("INVALID_IP_VERSION")
    expect(
      TargetAddress.refusal(spec({ type: "tcp", host: "8.8.8.8", port: 53, ip_version: "ipv4" }), false)
    ).toBeUndefined()
  })
})
