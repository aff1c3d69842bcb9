import { describe, expect, it } from "@effect/vitest"
import * as Plan from "../src/Plan.js"

describe("Plan", () => {
  it("seeds every quota and rate of the spec's tables", () => {
    expect(Plan.plans.free.quotas.max_targets).toBe(20)
    expect(Plan.plans.founding.quotas.min_check_interval_secs).toBe(60)
    expect(Plan.plans.pro.quotas.retention_days).toBe(395)
    expect(Plan.plans.pro.quotas.max_members).toBe(15)
    expect(Plan.plans.free.rates.test_now_per_minute).toBe(60)
    for (const plan of Object.values(Plan.plans)) {
      expect(plan.quotas.max_regions).toBe(3)
      expect(plan.quotas.max_flow_checks).toBe(0)
      expect(plan.quotas.max_logo_size_bytes).toBe(1_048_576)
      expect(Object.keys(plan.quotas).sort()).toEqual([...Plan.quotaNames].sort())
    }
    expect(Plan.plans.free.listed).toBe(true)
    expect(Plan.plans.founding.listed).toBe(false)
    expect(Plan.plans.free.flags.private_pages_enabled).toBe(false)
    expect(Plan.plans.founding.flags.private_pages_enabled).toBe(true)
  })

  it("overrides only ever raise a figure (for the interval floor, raising means lowering it)", () => {
    const raised = Plan.effective(Plan.plans.free, {
      max_targets: 100,
      max_orgs: 0 as number,
      min_check_interval_secs: 30
    })
    expect(raised.quotas.max_targets).toBe(100)
    expect(raised.quotas.max_orgs).toBe(1)
    expect(raised.quotas.min_check_interval_secs).toBe(30)
    const lowered = Plan.effective(Plan.plans.free, { max_targets: 5, min_check_interval_secs: 600 })
    expect(lowered.quotas.max_targets).toBe(20)
    expect(lowered.quotas.min_check_interval_secs).toBe(180)
  })
})
