import { describe, expect, it } from "@effect/vitest"
import * as ApiError from "../src/ApiError.js"
import * as DecodeFailure from "../src/DecodeFailure.js"

describe("DecodeFailure", () => {
  it("formats paths with dots for keys and brackets for indexes", () => {
    expect(DecodeFailure.formatPath(["check", "steps", 1, "selctor"])).toBe("check.steps[1].selctor")
    expect(DecodeFailure.formatPath([0, "name"])).toBe("[0].name")
    expect(DecodeFailure.formatPath([])).toBe("")
  })

  it("reads the accepted keys from an excess-property message", () => {
    expect(DecodeFailure.acceptedKeys('is unexpected, expected: "action" | "selector"')).toEqual(["action", "selector"])
    expect(DecodeFailure.acceptedKeys("is unexpected")).toEqual([])
    expect(DecodeFailure.acceptedKeys("Expected string, actual 1")).toBeUndefined()
  })

  it("an unknown key is 422 INVALID_JSON with its path and the accepted keys", () => {
    const error = DecodeFailure.toApiError([
      { _tag: "Unexpected", path: ["check", "timeuot"], message: 'is unexpected, expected: "type" | "url" | "timeout"' }
    ])
    expect(error).toBeInstanceOf(ApiError.UnprocessableEntity)
    expect(error.status).toBe(422)
    expect(error.code).toBe("INVALID_JSON")
    expect(error.field).toBe("check.timeuot")
    expect(error.message).toBe('Unknown key "check.timeuot": check accepts type, url, timeout')
    expect(error.details).toEqual({ accepted: ["type", "url", "timeout"] })
  })

  it("a top-level unknown key says the body accepts", () => {
    const error = DecodeFailure.toApiError([
      { _tag: "Unexpected", path: ["id"], message: 'is unexpected, expected: "name"' }
    ])
    expect(error.message).toBe('Unknown key "id": the body accepts name')
  })

  it("a tool call's arguments are named as such, and an unknown one is INVALID_JSON as in a body", () => {
    const unknown = DecodeFailure.toApiError(
      [{ _tag: "Unexpected", path: ["colour"], message: 'is unexpected, expected: "q" | "limit"' }],
      "arguments"
    )
    expect({ code: unknown.code, field: unknown.field, message: unknown.message }).toEqual({
      code: "INVALID_JSON",
      field: "colour",
      message: 'Unknown key "colour": the tool accepts q, limit'
    })
    const missing = DecodeFailure.toApiError(
      [{ _tag: "Missing", path: ["monitor_id"], message: "is missing" }],
      "arguments"
    )
    expect(missing.details["location"]).toBe("arguments")
    expect(missing.field).toBe("monitor_id")
  })

  it("other issues are 400 VALIDATION_FAILED naming the first field and listing all", () => {
    const error = DecodeFailure.toApiError([
      { _tag: "Type", path: ["check", "port"], message: 'Expected Int, actual "x"' },
      { _tag: "Missing", path: ["name"], message: "is missing" }
    ])
    expect(error).toBeInstanceOf(ApiError.BadRequest)
    expect(error.code).toBe("VALIDATION_FAILED")
    expect(error.field).toBe("check.port")
    expect(error.message).toBe('check.port: Expected Int, actual "x"')
    expect(error.details).toEqual({
      location: "body",
      errors: [
        { field: "check.port", message: 'Expected Int, actual "x"' },
        { field: "name", message: "is required" }
      ]
    })
  })

  it("a problem with the whole body has no field", () => {
    const error = DecodeFailure.toApiError([{ _tag: "Type", path: [], message: "Expected object, actual null" }])
    expect(error.field).toBeNull()
    expect(error.message).toBe("The body: Expected object, actual null")
  })

  it("in a query string an unexpected key is a validation failure, not INVALID_JSON", () => {
    const error = DecodeFailure.toApiError([{ _tag: "Unexpected", path: ["x"], message: "is unexpected" }], "query")
    expect(error.code).toBe("VALIDATION_FAILED")
  })
})
