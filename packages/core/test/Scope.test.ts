import { describe, expect, it } from "@effect/vitest"
import * as Scope from "../src/Scope.js"

describe("Scope", () => {
  it("full_access grants every scope", () => {
    for (const scope of Scope.all) expect(Scope.grants(["full_access"], scope)).toBe(true)
  })

  it("write implies read for the same resource, and nothing else", () => {
    expect(Scope.grants(["targets:write"], "targets:read")).toBe(true)
    expect(Scope.grants(["targets:write"], "channels:read")).toBe(false)
    expect(Scope.grants(["targets:read"], "targets:write")).toBe(false)
  })

  it("delete and execute are independent of write", () => {
    expect(Scope.grants(["targets:write"], "targets:delete")).toBe(false)
    expect(Scope.grants(["targets:write"], "targets:execute")).toBe(false)
    expect(Scope.grants(["targets:delete"], "targets:read")).toBe(false)
    expect(Scope.grants(["targets:execute"], "targets:execute")).toBe(true)
  })

  it("unknown scope strings are ignored, duplicates kept once", () => {
    expect(Scope.normalize(["targets:read", "targets:fly", "admin", "targets:read", "oncall:write"])).toEqual([
      "targets:read",
      "oncall:write"
    ])
    expect(Scope.grants(["targets:fly"], "targets:read")).toBe(false)
  })

  it("the table has exactly the spec's actions per resource", () => {
    expect(Scope.isScope("incidents:delete")).toBe(false)
    expect(Scope.isScope("incidents:execute")).toBe(true)
    expect(Scope.isScope("status_page:delete")).toBe(true)
    expect(Scope.isScope("oncall:delete")).toBe(false)
    expect(Scope.all).toHaveLength(1 + 4 + 4 + 3 + 3 + 3 + 3 + 2)
  })
})
