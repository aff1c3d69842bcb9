import { describe, expect, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import { CheckSpec } from "../src/CheckSpec.js"
import * as Variables from "../src/Variables.js"

describe("Variables.references", () => {
  it("finds references in url, header values, body and expected_body_contains, secrets only in headers and body", () => {
    const spec = Schema.decodeUnknownSync(CheckSpec)({
      type: "http",
      url: "https://{{host}}/health",
      headers: { Authorization: "Bearer {{ token }}" },
      body: '{"k":"{{secret_body}}"}',
      expected_body_contains: "{{marker}}"
    })
    expect(Variables.references(spec)).toEqual([
      { field: "url", key: "host", secretAllowed: false },
      { field: "headers.Authorization", key: "token", secretAllowed: true },
      { field: "body", key: "secret_body", secretAllowed: true },
      { field: "expected_body_contains", key: "marker", secretAllowed: false }
    ])
  })

  it("flow fill values may reference secrets; other kinds have no references", () => {
    const flow = Schema.decodeUnknownSync(CheckSpec)({
      type: "flow",
      start_url: "https://example.com/login",
      steps: [
        { action: "fill", selector: "#password", value: "{{password}}" },
        { action: "assert_url", contains: "/home" }
      ]
    })
    expect(Variables.references(flow)).toEqual([{ field: "steps[0].value", key: "password", secretAllowed: true }])
    expect(Variables.references(Schema.decodeUnknownSync(CheckSpec)({ type: "tcp", host: "{{x}}", port: 1 }))).toEqual(
      []
    )
    expect(Variables.KEY_PATTERN.test("api_key")).toBe(true)
    expect(Variables.KEY_PATTERN.test("Api")).toBe(false)
  })
})

describe("Variables.substitute", () => {
  it("replaces known references once, keeps unknown ones as typed, and never expands a value", () => {
    const spec = Schema.decodeUnknownSync(CheckSpec)({
      type: "http",
      url: "http://127.0.0.1:{{port}}/{{ path }}",
      headers: { Authorization: "Bearer {{token}}", "X-Other": "{{missing}}" },
      expected_body_contains: "{{port}}"
    })
    const values = new Map([
      ["port", "8080"],
      ["path", "health"],
      ["token", "{{port}}"]
    ])
    const filled = Variables.substitute(spec, values)
    expect(filled).toMatchObject({
      url: "http://127.0.0.1:8080/health",
      headers: { Authorization: "Bearer {{port}}", "X-Other": "{{missing}}" },
      expected_body_contains: "8080"
    })
    expect("body" in filled).toBe(false)
    expect(Variables.keys(spec)).toEqual(["port", "path", "token", "missing"])
  })

  it("fills flow fill values and leaves other steps alone", () => {
    const flow = Schema.decodeUnknownSync(CheckSpec)({
      type: "flow",
      start_url: "https://example.com/login",
      steps: [
        { action: "fill", selector: "#password", value: "{{password}}" },
        { action: "assert_text", text: "{{password}}" }
      ]
    })
    const filled = Variables.substitute(flow, new Map([["password", "hunter2"]]))
    expect(filled.type === "flow" && filled.steps.map((s) => ("value" in s ? s.value : s.action))).toEqual([
      "hunter2",
      "assert_text"
    ])
  })
})
