import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { CheckSpec } from "../src/CheckSpec.js"
import * as CheckUrl from "../src/CheckUrl.js"
import * as TargetCopy from "../src/TargetCopy.js"

const check = (fields: Record<string, unknown>): CheckSpec => Schema.decodeUnknownSync(CheckSpec)(fields)

describe("CheckUrl", () => {
  it("absolute http and https URLs pass, in any case", () => {
    for (const url of [
      "https://example.com/health",
      "http://example.com:8080/a?b=c#d",
      "HTTPS://EXAMPLE.COM/",
      "http://[2001:db8::1]/",
      "  https://example.com/  "
    ]) {
      expect(CheckUrl.problem(url), url).toBeUndefined()
    }
  })

  it("any other scheme is refused, naming it", () => {
    for (const [url, scheme] of [
      ["data:text/html,<h1>up</h1>", "data:"],
      ["javascript:alert(1)", "javascript:"],
      ["ftp://example.com/file", "ftp:"],
      ["file:///etc/passwd", "file:"],
      ["ws://example.com/socket", "ws:"],
      ["mailto:ops@example.com", "mailto:"],
      ["localhost:8080/health", "localhost:"]
    ] as const) {
      expect(CheckUrl.problem(url), url).toBe(`must be an http or https URL, not ${scheme}`)
    }
  })

  it("a relative or unparsable URL is refused", () => {
    for (const url of ["example.com/health", "/health", "//example.com/", "http://", "https://exa mple.com/"]) {
      expect(CheckUrl.problem(url), url).toBe("must be an absolute http or https URL")
    }
  })

  it("with variable references: a written scheme is judged, a scheme from a value waits for the value", () => {
    for (const url of ["https://{{host}}/health", "http://example.com/{{path}}", "{{base}}/health", "http{{s}}://x/"]) {
      expect(CheckUrl.problem(url), url).toBeUndefined()
    }
    expect(CheckUrl.problem("ftp://{{host}}/")).toBe("must be an http or https URL, not ftp:")
    expect(CheckUrl.problem("javascript:{{code}}")).toBe("must be an http or https URL, not javascript:")
    expect(CheckUrl.problem("//{{host}}/health")).toBe("must be an absolute http or https URL")
    expect(CheckUrl.problem("/{{path}}")).toBe("must be an absolute http or https URL")
  })

  it("violation is 400 VALIDATION_FAILED on the field it is given", () => {
    expect(CheckUrl.violation("data:,x", "check.steps[2].url")).toEqual({
      code: "VALIDATION_FAILED",
      field: "check.steps[2].url",
      message: "check.steps[2].url must be an http or https URL, not data:"
    })
    expect(CheckUrl.violation("https://example.com", "check.start_url")).toBeUndefined()
  })

  it("inCheck judges an http check's url", () => {
    expect(CheckUrl.inCheck(check({ type: "http", url: "javascript:alert(1)" }))).toMatchObject({
      code: "VALIDATION_FAILED",
      field: "check.url"
    })
    expect(CheckUrl.inCheck(check({ type: "http", url: "https://example.com" }))).toBeUndefined()
    expect(CheckUrl.inCheck(check({ type: "tcp", host: "example.com", port: 443 }))).toBeUndefined()
  })

  it("a copy's address keeps the same rule", () => {
    const source = check({ type: "http", url: "https://example.com" })
    expect(Either.isRight(TargetCopy.withAddress(source, "https://copy.example.com/"))).toBe(true)
    expect(TargetCopy.withAddress(source, "ftp://copy.example.com/")).toEqual(
      Either.left({
        code: "VALIDATION_FAILED",
        field: "address",
        message: "an http or flow copy's address must be an http or https URL, not ftp:"
      })
    )
  })
})
