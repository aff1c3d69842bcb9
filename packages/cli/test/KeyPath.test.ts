import { assert, describe, it } from "@effect/vitest"
import * as KeyPath from "../src/KeyPath.js"

describe("KeyPath", () => {
  it("formats names with dots, indexes in brackets, and quotes a key that is not a plain name", () => {
    assert.strictEqual(KeyPath.format(["monitors", 2, "check", "url"]), "monitors[2].check.url")
    assert.strictEqual(KeyPath.format(["check", "headers", "X-Trace"]), "check.headers.X-Trace")
    assert.strictEqual(KeyPath.format(["check", "headers", "X.Api Key"]), 'check.headers["X.Api Key"]')
    assert.strictEqual(KeyPath.format([]), "")
  })

  it("reads the API's field names back into paths", () => {
    assert.deepStrictEqual(KeyPath.parse("check.steps[3].value"), ["check", "steps", 3, "value"])
    assert.deepStrictEqual(KeyPath.parse("access.email_code.allow[0]"), ["access", "email_code", "allow", 0])
    assert.deepStrictEqual(KeyPath.parse("interval"), ["interval"])
  })
})
