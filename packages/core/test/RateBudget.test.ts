import { describe, expect, it } from "@effect/vitest"
import * as Plan from "../src/Plan.js"
import * as RateBudget from "../src/RateBudget.js"

describe("RateBudget", () => {
  it("derives the category in the spec's order", () => {
    expect(RateBudget.categoryOf("POST", "/api/v1/targets/bulk")).toBe("bulk_ops")
    expect(RateBudget.categoryOf("POST", "/api/v1/targets/bulk-action")).toBe("bulk_ops")
    expect(RateBudget.categoryOf("POST", "/api/v1/targets/test")).toBe("test_now")
    expect(RateBudget.categoryOf("POST", "/api/v1/channels/abc/test")).toBe("test_now")
    expect(RateBudget.categoryOf("POST", "/api/v1/targets/abc/check-now")).toBe("check_now")
    expect(RateBudget.categoryOf("POST", "/api/v1/support")).toBe("support")
    expect(RateBudget.categoryOf("POST", "/mcp")).toBe("api_reads")
    expect(RateBudget.categoryOf("DELETE", "/mcp/tools")).toBe("api_reads")
    for (const method of ["GET", "HEAD", "OPTIONS"])
      expect(RateBudget.categoryOf(method, "/api/v1/targets")).toBe("api_reads")
    for (const method of ["POST", "PATCH", "PUT", "DELETE"])
      expect(RateBudget.categoryOf(method, "/api/v1/targets")).toBe("api_writes")
  })

  it("budgets apply to the API and the MCP server, nothing else", () => {
    for (const path of ["/api/v1/me", "/api/v1/targets/abc/check-now", "/mcp", "/mcp/anything"])
      expect(RateBudget.applies(path), path).toBe(true)
    for (const path of ["/api/v1", "/mcpx", "/dashboard", "/auth/logout", "/.well-known/mcp/server-card.json"])
      expect(RateBudget.applies(path), path).toBe(false)
  })

  it("limits come from the plan; support is fixed at 2", () => {
    expect(RateBudget.limitOf(Plan.plans.free, "api_writes")).toBe(600)
    expect(RateBudget.limitOf(Plan.plans.pro, "api_reads")).toBe(12000)
    expect(RateBudget.limitOf(Plan.plans.founding, "bulk_ops")).toBe(45)
    expect(RateBudget.limitOf(Plan.plans.pro, "support")).toBe(2)
    expect(RateBudget.scopeName("account", "api_writes")).toBe("per_account_api_writes")
  })
})
