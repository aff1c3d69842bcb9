import { assert, describe, it } from "@effect/vitest"
import * as Option from "effect/Option"
import * as Skew from "../src/Skew.js"

// 2026-01-01T00:00:00.000Z
const second = Date.UTC(2026, 0, 1)
const header = (ms: number) => new Date(ms).toUTCString()

describe("Skew", () => {
  it("clocks in step to within the header's second and the round trip: no correction", () => {
    // The service stamped second S (truncated); the agent read S + 0.3 s .. S + 0.35 s.
    assert.deepStrictEqual(Skew.fromDateHeader(header(second), second + 300, second + 350), Option.some(0))
    // The agent's clock a little ahead: still consistent with none.
    assert.deepStrictEqual(Skew.fromDateHeader(header(second), second + 900, second + 950), Option.some(0))
  })

  it("an answer stamped after the agent's clock says it came back: the service is at least that far ahead", () => {
    assert.deepStrictEqual(Skew.fromDateHeader(header(second), second - 400, second - 350), Option.some(350))
  })

  it("a service clock ahead: the smallest offset the answer allows", () => {
    // The service said S + 60 s while the agent read S .. S + 0.1 s: at least 59.9 s ahead.
    assert.deepStrictEqual(Skew.fromDateHeader(header(second + 60_000), second, second + 100), Option.some(59_900))
  })

  it("a service clock behind: the smallest offset the answer allows", () => {
    // The service said S - 60 s (its reading was before S - 59 s) while the agent read S .. S + 0.1 s.
    assert.deepStrictEqual(Skew.fromDateHeader(header(second - 60_000), second, second + 100), Option.some(-59_000))
  })

  it("no header, or one that does not parse: no estimate", () => {
    assert.deepStrictEqual(Skew.fromDateHeader(null, 0, 1), Option.none())
    assert.deepStrictEqual(Skew.fromDateHeader("yesterday-ish", 0, 1), Option.none())
  })

  it("translates both ways", () => {
    assert.strictEqual(Skew.toLocal(10_000, 3000), 7000)
    assert.strictEqual(Skew.toService(7000, 3000), 10_000)
    assert.strictEqual(Skew.toLocal(Skew.toService(123, -456), -456), 123)
  })
})
