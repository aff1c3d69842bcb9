import { assert, describe, it } from "@effect/vitest"
import * as Option from "effect/Option"
import * as Plan from "../src/Plan.js"
import * as PlanLimits from "../src/PlanLimits.js"

const { free, pro } = Plan.plans

const withFlags = (plan: Plan.Plan, flags: Partial<Plan.Plan["flags"]>): Plan.Plan => ({
  ...plan,
  flags: { ...plan.flags, ...flags }
})

describe("PlanLimits.room", () => {
  it("adding up to the limit fits; one past it is QUOTA_EXCEEDED with current, limit and plan", () => {
    const limit = free.quotas.max_targets
    assert.isTrue(Option.isNone(PlanLimits.room(free, "max_targets", limit - 1)))
    const refusal = Option.getOrThrow(PlanLimits.room(free, "max_targets", limit))
    assert.strictEqual(refusal.error.code, "QUOTA_EXCEEDED")
    assert.strictEqual(refusal.error.status, 422)
    assert.isNull(refusal.error.field)
    assert.deepStrictEqual(refusal.error.details, { quota: "max_targets", current: limit, limit, plan: "free" })
    assert.deepStrictEqual([refusal.quota, refusal.current, refusal.limit], ["max_targets", limit, limit])
  })

  it("a bulk write that does not fit names how many it asked for", () => {
    const refusal = Option.getOrThrow(PlanLimits.room(free, "max_targets", 1, free.quotas.max_targets))
    assert.strictEqual(refusal.error.details["requested"], free.quotas.max_targets)
  })

  it("a bulk write that fits exactly is allowed", () => {
    assert.isTrue(Option.isNone(PlanLimits.room(free, "max_targets", 0, free.quotas.max_targets)))
  })

  it("the owned orgs' limit may answer OWNER_ORG_LIMIT with the same details", () => {
    const refusal = Option.getOrThrow(PlanLimits.room(free, "max_orgs", free.quotas.max_orgs, 1, "OWNER_ORG_LIMIT"))
    assert.strictEqual(refusal.error.code, "OWNER_ORG_LIMIT")
    assert.strictEqual(refusal.error.details["quota"], "max_orgs")
  })
})

describe("PlanLimits.gate", () => {
  it("each feature a plan lacks is 403 with its own code, on the field that asked", () => {
    const none = withFlags(pro, {
      sms_alerts_enabled: false,
      incident_narration_enabled: false,
      custom_domain_enabled: false,
      white_label_enabled: false,
      private_pages_enabled: false,
      on_call_enabled: false
    })
    const cases: ReadonlyArray<[PlanLimits.Feature, string]> = [
      ["sms_alerts", "SMS_ALERTS_DISABLED"],
      ["incident_narration", "INCIDENT_NARRATION_DISABLED"],
      ["custom_domain", "CUSTOM_DOMAIN_DISABLED"],
      ["white_label", "WHITE_LABEL_DISABLED"],
      ["private_pages", "PRIVATE_PAGES_DISABLED"],
      ["on_call", "ON_CALL_DISABLED"]
    ]
    for (const [feature, code] of cases) {
      const refusal = Option.getOrThrow(PlanLimits.gate(none, feature, "some.field"))
      assert.strictEqual(refusal.code, code)
      assert.strictEqual(refusal.status, 403)
      assert.strictEqual(refusal.field, "some.field")
      assert.strictEqual(refusal.details["plan"], "pro")
      assert.isFalse(PlanLimits.includes(none, feature))
    }
  })

  it("flows are switched off by a max_flow_checks of 0, named in details", () => {
    const off: Plan.Plan = { ...pro, quotas: { ...pro.quotas, max_flow_checks: 0 } }
    const refusal = Option.getOrThrow(PlanLimits.gate(off, "flow_checks", "check.type"))
    assert.strictEqual(refusal.code, "FLOW_CHECKS_DISABLED")
    assert.deepStrictEqual(refusal.details, { quota: "max_flow_checks", limit: 0, plan: "pro" })
    const on: Plan.Plan = { ...pro, quotas: { ...pro.quotas, max_flow_checks: 3 } }
    assert.isTrue(Option.isNone(PlanLimits.gate(on, "flow_checks")))
  })

  it("a feature the plan includes passes", () => {
    const all = withFlags(free, { sms_alerts_enabled: true, private_pages_enabled: true })
    assert.isTrue(Option.isNone(PlanLimits.gate(all, "sms_alerts")))
    assert.isTrue(Option.isNone(PlanLimits.gate(all, "private_pages")))
  })
})
