import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { CheckSpec } from "../src/CheckSpec.js"
import * as Plan from "../src/Plan.js"
import * as Target from "../src/Target.js"
import * as TargetRules from "../src/TargetRules.js"

const { free, founding, pro } = Plan.plans

const withQuotas = (plan: Plan.Plan, quotas: Partial<Plan.Plan["quotas"]>): Plan.Plan => ({
  ...plan,
  quotas: { ...plan.quotas, ...quotas }
})

// Every seeded plan switches flow off, so the flow rules past the gate need a plan that allows a few.
const flowPlan = withQuotas(pro, { max_flow_checks: 5 })

const check = (fields: Record<string, unknown>): CheckSpec => Schema.decodeUnknownSync(CheckSpec)(fields)

const http = { type: "http", url: "https://example.com" }
const heartbeat = (period: number, grace = 0) => ({ type: "heartbeat", period, grace })
const flow = (steps: ReadonlyArray<Record<string, unknown>>) => ({
  type: "flow",
  start_url: "https://example.com",
  steps
})
const assertText = { action: "assert_text", text: "Welcome" }
const click = { action: "click", selector: "#go" }

type Result = Either.Either<TargetRules.ResolvedTarget, TargetRules.Violation>

const create = (body: Record<string, unknown>, plan: Plan.Plan = pro): Result =>
  TargetRules.resolveCreate(Schema.decodeUnknownSync(Target.CreateTarget)({ name: "Monitor", ...body }), plan)

const patch = (stored: TargetRules.ResolvedTarget, body: Record<string, unknown>, plan: Plan.Plan = pro): Result =>
  TargetRules.resolvePatch(stored, Schema.decodeUnknownSync(Target.PatchTarget)(body), plan)

const accepted = (result: Result): TargetRules.ResolvedTarget =>
  Either.getOrThrowWith(
    result,
    (violation) => new Error(`${violation.code} on ${violation.field}: ${violation.message}`)
  )

const refused = (result: Result): TargetRules.Violation =>
  Either.match(result, {
    onLeft: (violation) => violation,
    onRight: (target) => {
      throw new Error(`expected a violation, got ${JSON.stringify(target)}`)
    }
  })

const stored = (body: Record<string, unknown>, plan: Plan.Plan = pro): TargetRules.ResolvedTarget =>
  accepted(create(body, plan))

describe("TargetRules", () => {
  describe("floors and defaults", () => {
    it("kind floors are domain_expiry 43200, tls_cert 3600, flow 300, heartbeat 60, manual 60, probes 10", () => {
      expect(TargetRules.kindFloor("domain_expiry")).toBe(43200)
      expect(TargetRules.kindFloor("tls_cert")).toBe(3600)
      expect(TargetRules.kindFloor("flow")).toBe(300)
      expect(TargetRules.kindFloor("heartbeat")).toBe(60)
      expect(TargetRules.kindFloor("manual")).toBe(60)
      for (const kind of ["http", "tcp", "dns", "ping"] as const) expect(TargetRules.kindFloor(kind)).toBe(10)
    })

    it("the effective floor is the larger of the plan floor and the kind floor", () => {
      expect(TargetRules.effectiveFloor("http", free)).toBe(180)
      expect(TargetRules.effectiveFloor("http", founding)).toBe(60)
      expect(TargetRules.effectiveFloor("http", pro)).toBe(30)
      expect(TargetRules.effectiveFloor("heartbeat", pro)).toBe(60)
      expect(TargetRules.effectiveFloor("flow", free)).toBe(300)
      expect(TargetRules.effectiveFloor("tls_cert", free)).toBe(3600)
      expect(TargetRules.effectiveFloor("domain_expiry", pro)).toBe(43200)
    })

    it("a manual monitor's floor is 60 s whatever the plan floor", () => {
      expect(TargetRules.effectiveFloor("manual", free)).toBe(60)
      expect(TargetRules.effectiveFloor("manual", pro)).toBe(60)
      expect(TargetRules.effectiveFloor("manual", withQuotas(pro, { min_check_interval_secs: 600 }))).toBe(60)
    })

    it("the heartbeat cadence is a tenth of period + grace, rounded up", () => {
      expect(TargetRules.heartbeatCadence(1200, 300, pro)).toBe(150)
      expect(TargetRules.heartbeatCadence(1001, 0, pro)).toBe(101)
    })

    it("the heartbeat cadence is held between 60 s and 300 s", () => {
      expect(TargetRules.heartbeatCadence(60, 0, pro)).toBe(60)
      expect(TargetRules.heartbeatCadence(599, 0, pro)).toBe(60)
      expect(TargetRules.heartbeatCadence(86400, 3600, pro)).toBe(300)
    })

    it("the heartbeat cadence rises to the plan floor when that is higher", () => {
      expect(TargetRules.heartbeatCadence(600, 0, free)).toBe(180)
      expect(TargetRules.heartbeatCadence(86400, 0, withQuotas(pro, { min_check_interval_secs: 600 }))).toBe(600)
    })

    it("an omitted interval is max(60, plan floor) for http, tcp, ping and dns", () => {
      const kinds = [
        http,
        { type: "tcp", host: "example.com", port: 443 },
        { type: "ping", host: "example.com" },
        { type: "dns", domain: "example.com", record_type: "A" }
      ]
      for (const fields of kinds) {
        expect(TargetRules.defaultInterval(check(fields), pro)).toBe(60)
        expect(TargetRules.defaultInterval(check(fields), founding)).toBe(60)
        expect(TargetRules.defaultInterval(check(fields), free)).toBe(180)
      }
    })

    it("an omitted interval is max(300, plan floor) for flow", () => {
      expect(TargetRules.defaultInterval(check(flow([assertText])), pro)).toBe(300)
      const slow = withQuotas(pro, { min_check_interval_secs: 900 })
      expect(TargetRules.defaultInterval(check(flow([assertText])), slow)).toBe(900)
    })

    it("an omitted interval is 43200 for tls_cert and 86400 for domain_expiry", () => {
      expect(TargetRules.defaultInterval(check({ type: "tls_cert", host: "example.com" }), free)).toBe(43200)
      expect(TargetRules.defaultInterval(check({ type: "domain_expiry", domain: "example.com" }), free)).toBe(86400)
    })

    it("an omitted interval is the cadence for heartbeat and 60 for manual", () => {
      expect(TargetRules.defaultInterval(check(heartbeat(1200, 300)), pro)).toBe(150)
      expect(TargetRules.defaultInterval(check(heartbeat(86400)), pro)).toBe(300)
      expect(TargetRules.defaultInterval(check({ type: "manual" }), free)).toBe(60)
    })

    it("the recovery period defaults to 180 for http, tcp, ping, dns and flow and 0 for the others", () => {
      for (const kind of ["http", "tcp", "ping", "dns", "flow"] as const) {
        expect(TargetRules.defaultRecoveryPeriod(kind)).toBe(180)
      }
      for (const kind of ["tls_cert", "domain_expiry", "heartbeat", "manual"] as const) {
        expect(TargetRules.defaultRecoveryPeriod(kind)).toBe(0)
      }
    })
  })

  describe("resolveCreate", () => {
    it("a probe monitor without regions gets the instance's default regions; heartbeat and manual stay local", () => {
      const body = (check: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
        Schema.decodeUnknownSync(Target.CreateTarget)({ name: "Monitor", check, ...extra })
      const defaults = ["eu-west", "us-east"]
      const regionsOf = (resolved: Either.Either<TargetRules.ResolvedTarget, TargetRules.Violation>) =>
        Either.getOrThrow(resolved).regions
      expect(regionsOf(TargetRules.resolveCreate(body({ type: "http", url: "https://example.com" }), free))).toEqual([
        "local"
      ])
      expect(
        regionsOf(TargetRules.resolveCreate(body({ type: "http", url: "https://example.com" }), free, defaults))
      ).toEqual(defaults)
      expect(
        regionsOf(
          TargetRules.resolveCreate(
            body({ type: "http", url: "https://example.com" }, { regions: ["ap"] }),
            free,
            defaults
          )
        )
      ).toEqual(["ap"])
      expect(
        regionsOf(TargetRules.resolveCreate(body({ type: "heartbeat", period: 3600, grace: 60 }), free, defaults))
      ).toEqual(["local"])
      expect(regionsOf(TargetRules.resolveCreate(body({ type: "manual" }), free, defaults))).toEqual(["local"])
    })

    it("a create fills every omitted field with its default", () => {
      expect(accepted(create({ check: http }))).toEqual({
        name: "Monitor",
        check: check(http),
        interval: 60,
        enabled: true,
        tags: [],
        group: null,
        alerts: [],
        alert_confirmations: 2,
        notify_recovery: true,
        renotify_interval_secs: 3600,
        recovery_period_secs: 180,
        region_policy: "majority",
        regions: ["local"],
        escalation_policy_id: null
      })
    })

    it("a create keeps every field it sends", () => {
      const channel = "0190a5d2-7c4e-7000-8000-000000000001"
      const target = accepted(
        create({
          check: http,
          interval: 120,
          enabled: false,
          tags: ["prod"],
          group: "web",
          alerts: [{ channel_id: channel }],
          alert_confirmations: 3,
          notify_recovery: false,
          renotify_interval_secs: 0,
          recovery_period_secs: 600,
          region_policy: { count: 2 },
          regions: ["local", "eu-west"]
        })
      )
      expect(target).toMatchObject({
        interval: 120,
        enabled: false,
        tags: ["prod"],
        group: "web",
        alerts: [{ channel_id: channel }],
        alert_confirmations: 3,
        notify_recovery: false,
        renotify_interval_secs: 0,
        recovery_period_secs: 600,
        region_policy: { count: 2 },
        regions: ["local", "eu-west"]
      })
    })

    it("a create's recovery period defaults to 0 on tls_cert, domain_expiry and heartbeat", () => {
      expect(accepted(create({ check: { type: "tls_cert", host: "example.com" } })).recovery_period_secs).toBe(0)
      expect(accepted(create({ check: { type: "domain_expiry", domain: "example.com" } })).recovery_period_secs).toBe(0)
      expect(accepted(create({ check: heartbeat(3600) })).recovery_period_secs).toBe(0)
    })

    it("duplicate tags are removed, first occurrence order kept", () => {
      expect(accepted(create({ check: http, tags: ["b", "a", "b", "c", "a"] })).tags).toEqual(["b", "a", "c"])
    })

    it("an interval below the effective floor is 422 MIN_CHECK_INTERVAL on interval with the floor in details", () => {
      const violation = refused(create({ check: http, interval: 60 }, free))
      expect(violation).toMatchObject({ code: "MIN_CHECK_INTERVAL", field: "interval", details: { floor: 180 } })
      expect(TargetRules.toApiError(violation).status).toBe(422)
      expect(refused(create({ check: { type: "tls_cert", host: "example.com" }, interval: 1800 }))).toMatchObject({
        code: "MIN_CHECK_INTERVAL",
        details: { floor: 3600 }
      })
      expect(refused(create({ check: flow([assertText]), interval: 120 }, flowPlan))).toMatchObject({
        code: "MIN_CHECK_INTERVAL",
        details: { floor: 300 }
      })
    })

    it("an interval at the effective floor is accepted", () => {
      expect(accepted(create({ check: http, interval: 180 }, free)).interval).toBe(180)
      expect(accepted(create({ check: http, interval: 30 }, pro)).interval).toBe(30)
      expect(
        accepted(create({ check: { type: "domain_expiry", domain: "example.com" }, interval: 43200 })).interval
      ).toBe(43200)
    })

    it("a manual create stores alert_confirmations 1 whatever the body says", () => {
      expect(accepted(create({ check: { type: "manual" }, alert_confirmations: 5 })).alert_confirmations).toBe(1)
      expect(accepted(create({ check: { type: "manual" } })).alert_confirmations).toBe(1)
    })

    it("a manual create runs at 60 s with recovery period 0, even on a plan whose floor is higher", () => {
      expect(accepted(create({ check: { type: "manual" } }, free))).toMatchObject({
        interval: 60,
        recovery_period_secs: 0
      })
      expect(accepted(create({ check: { type: "manual" }, interval: 60 }, free)).interval).toBe(60)
    })

    it("a manual create naming an interval other than 60 is 400 INVALID_INTERVAL", () => {
      for (const interval of [30, 120]) {
        const violation = refused(create({ check: { type: "manual" }, interval }))
        expect(violation).toMatchObject({ code: "INVALID_INTERVAL", field: "interval" })
        expect(TargetRules.toApiError(violation).status).toBe(400)
      }
    })

    it("a manual create with recovery_period_secs other than 0 is 400 INVALID_ALERT_CONFIG", () => {
      expect(refused(create({ check: { type: "manual" }, recovery_period_secs: 60 }))).toMatchObject({
        code: "INVALID_ALERT_CONFIG",
        field: "recovery_period_secs"
      })
      expect(accepted(create({ check: { type: "manual" }, recovery_period_secs: 0 })).recovery_period_secs).toBe(0)
    })

    it("a heartbeat create without interval is evaluated at its cadence", () => {
      expect(accepted(create({ check: heartbeat(1200, 300) })).interval).toBe(150)
      expect(accepted(create({ check: heartbeat(1200, 300) }, free)).interval).toBe(180)
    })

    it("a heartbeat interval coarser than its cadence is 400 VALIDATION_FAILED on interval naming the cadence", () => {
      const violation = refused(create({ check: heartbeat(1200, 300), interval: 151 }))
      expect(violation).toMatchObject({ code: "VALIDATION_FAILED", field: "interval", details: { cadence: 150 } })
      expect(violation.message).toContain("150 s")
      expect(accepted(create({ check: heartbeat(1200, 300), interval: 150 })).interval).toBe(150)
      expect(accepted(create({ check: heartbeat(1200, 300), interval: 60 })).interval).toBe(60)
    })

    it("a heartbeat interval below the kind floor is 422 MIN_CHECK_INTERVAL, not a cadence error", () => {
      expect(refused(create({ check: heartbeat(600), interval: 30 }))).toMatchObject({
        code: "MIN_CHECK_INTERVAL",
        details: { floor: 60 }
      })
    })

    it("renotify_interval_secs between 1 and 59 is 400 VALIDATION_FAILED; 0 and 60 are accepted", () => {
      for (const renotify of [1, 59]) {
        expect(refused(create({ check: http, renotify_interval_secs: renotify }))).toMatchObject({
          code: "VALIDATION_FAILED",
          field: "renotify_interval_secs"
        })
      }
      expect(accepted(create({ check: http, renotify_interval_secs: 0 })).renotify_interval_secs).toBe(0)
      expect(accepted(create({ check: http, renotify_interval_secs: 60 })).renotify_interval_secs).toBe(60)
    })

    it("tls_cert warn_days not above critical_days is 400 VALIDATION_FAILED on check.warn_days", () => {
      const tls = { type: "tls_cert", host: "example.com" }
      expect(refused(create({ check: { ...tls, warn_days: 7, critical_days: 7 } }))).toMatchObject({
        code: "VALIDATION_FAILED",
        field: "check.warn_days",
        details: { warn_days: 7, critical_days: 7 }
      })
      expect(accepted(create({ check: { ...tls, warn_days: 8, critical_days: 7 } })).check).toMatchObject({
        warn_days: 8
      })
    })

    it("domain_expiry warn_days not above critical_days (default 7) is 400 VALIDATION_FAILED on check.warn_days", () => {
      expect(refused(create({ check: { type: "domain_expiry", domain: "example.com", warn_days: 5 } }))).toMatchObject({
        code: "VALIDATION_FAILED",
        field: "check.warn_days"
      })
    })

    it("a flow create on a plan whose max_flow_checks is 0 is 403 FLOW_CHECKS_DISABLED on check.type", () => {
      for (const plan of [free, founding, pro]) {
        const violation = refused(create({ check: flow([assertText]) }, plan))
        expect(violation).toMatchObject({ code: "FLOW_CHECKS_DISABLED", field: "check.type" })
        expect(TargetRules.toApiError(violation).status).toBe(403)
      }
    })

    it("a flow create with more steps than the plan's max_flow_steps is 400 INVALID_FLOW_PARAMS on check.steps", () => {
      const plan = withQuotas(flowPlan, { max_flow_steps: 3 })
      expect(refused(create({ check: flow([click, click, click, assertText]) }, plan))).toMatchObject({
        code: "INVALID_FLOW_PARAMS",
        field: "check.steps",
        details: { max: 3 }
      })
      expect(accepted(create({ check: flow([click, click, assertText]) }, plan)).interval).toBe(300)
    })

    it("a flow without an assert_text or assert_url step is 400 INVALID_FLOW_PARAMS on check.steps", () => {
      expect(refused(create({ check: flow([click]) }, flowPlan))).toMatchObject({
        code: "INVALID_FLOW_PARAMS",
        field: "check.steps"
      })
      expect(
        accepted(create({ check: flow([click, { action: "assert_url", contains: "/done" }]) }, flowPlan))
      ).toBeDefined()
    })

    it("a region_policy count above the number of regions is 400 VALIDATION_FAILED on region_policy", () => {
      expect(refused(create({ check: http, region_policy: { count: 2 } }))).toMatchObject({
        code: "VALIDATION_FAILED",
        field: "region_policy",
        details: { count: 2, regions: 1 }
      })
      // A region named twice is one region.
      expect(refused(create({ check: http, region_policy: { count: 2 }, regions: ["local", "local"] }))).toMatchObject({
        field: "region_policy"
      })
      expect(accepted(create({ check: http, region_policy: { count: 1 } })).region_policy).toEqual({ count: 1 })
    })

    it("heartbeat and manual monitors given any regions, local included, are 422 REGION_INVALID on regions", () => {
      for (const fields of [heartbeat(600), { type: "manual" }]) {
        for (const regions of [["local"], ["eu-west"], ["local", "eu-west"]]) {
          const violation = refused(create({ check: fields, regions }))
          expect(violation).toMatchObject({ code: "REGION_INVALID", field: "regions" })
          expect(TargetRules.toApiError(violation).status).toBe(422)
        }
        // Without regions they are stored in the service's own region, where they are evaluated.
        expect(accepted(create({ check: fields })).regions).toEqual(["local"])
      }
    })

    it("regionAssignment refuses heartbeat and manual monitors only (PUT /regions uses it too)", () => {
      expect(TargetRules.regionAssignment("heartbeat")).toMatchObject({ code: "REGION_INVALID", field: "regions" })
      expect(TargetRules.regionAssignment("manual")).toMatchObject({ code: "REGION_INVALID", field: "regions" })
      for (const kind of ["http", "tcp", "ping", "dns", "tls_cert", "domain_expiry", "flow"] as const) {
        expect(TargetRules.regionAssignment(kind)).toBeUndefined()
      }
    })

    it("probed kinds accept regions beyond local", () => {
      expect(accepted(create({ check: http, regions: ["local", "eu-west"] })).regions).toEqual(["local", "eu-west"])
    })
  })

  describe("resolvePatch", () => {
    it("a PATCH check of another type is 400 CHECK_KIND_IMMUTABLE on check.type", () => {
      const violation = refused(
        patch(stored({ check: http }), { check: { type: "tcp", host: "example.com", port: 80 } })
      )
      expect(violation).toMatchObject({ code: "CHECK_KIND_IMMUTABLE", field: "check.type" })
      expect(TargetRules.toApiError(violation).status).toBe(400)
    })

    it("a PATCH keeps every field it omits and applies every field it sends", () => {
      const before = stored({ check: http, tags: ["a"], group: "web", interval: 120 })
      expect(patch(before, {})).toEqual(Either.right(before))
      const after = accepted(
        patch(before, { name: "Renamed", enabled: false, tags: ["x", "x", "y"], group: null, notify_recovery: false })
      )
      expect(after).toEqual({
        ...before,
        name: "Renamed",
        enabled: false,
        tags: ["x", "y"],
        group: null,
        notify_recovery: false
      })
    })

    it("a PATCH check of the stored type replaces the check and keeps the interval", () => {
      const before = stored({ check: http, interval: 120 })
      const after = accepted(patch(before, { check: { ...http, url: "https://example.org" } }))
      expect(after.check).toMatchObject({ url: "https://example.org" })
      expect(after.interval).toBe(120)
    })

    it("a PATCH interval below the effective floor is 422 MIN_CHECK_INTERVAL", () => {
      const before = stored({ check: http, interval: 300 }, free)
      expect(refused(patch(before, { interval: 120 }, free))).toMatchObject({
        code: "MIN_CHECK_INTERVAL",
        field: "interval",
        details: { floor: 180 }
      })
      expect(accepted(patch(before, { interval: 180 }, free)).interval).toBe(180)
    })

    it("a PATCH that omits interval keeps a stored interval below a floor raised since", () => {
      const before = stored({ check: http, interval: 30 }, pro)
      expect(accepted(patch(before, { name: "Moved to free" }, free)).interval).toBe(30)
    })

    it("a manual PATCH with alert_confirmations other than 1 is 400 INVALID_ALERT_CONFIG", () => {
      const before = stored({ check: { type: "manual" } })
      expect(refused(patch(before, { alert_confirmations: 2 }))).toMatchObject({
        code: "INVALID_ALERT_CONFIG",
        field: "alert_confirmations"
      })
      expect(accepted(patch(before, { alert_confirmations: 1 })).alert_confirmations).toBe(1)
    })

    it("a manual PATCH with interval other than 60 is 400 INVALID_INTERVAL", () => {
      const before = stored({ check: { type: "manual" } })
      expect(refused(patch(before, { interval: 120 }))).toMatchObject({ code: "INVALID_INTERVAL", field: "interval" })
      expect(accepted(patch(before, { interval: 60 }, free)).interval).toBe(60)
    })

    it("a manual PATCH with recovery_period_secs other than 0 is 400 INVALID_ALERT_CONFIG", () => {
      expect(refused(patch(stored({ check: { type: "manual" } }), { recovery_period_secs: 30 }))).toMatchObject({
        code: "INVALID_ALERT_CONFIG",
        field: "recovery_period_secs"
      })
    })

    it("a heartbeat PATCH that shrinks the window through check alone lowers a coarser stored interval to the new cadence", () => {
      const before = stored({ check: heartbeat(86400) })
      expect(before.interval).toBe(300)
      const after = accepted(patch(before, { check: heartbeat(1200, 300) }))
      expect(after.interval).toBe(150)
      expect(after.check).toMatchObject({ period: 1200, grace: 300 })
    })

    it("a heartbeat PATCH that shrinks the window keeps a stored interval already within the new cadence", () => {
      const before = stored({ check: heartbeat(86400), interval: 90 })
      expect(accepted(patch(before, { check: heartbeat(1200, 300) })).interval).toBe(90)
    })

    it("a heartbeat PATCH that widens the window keeps the stored interval", () => {
      const before = stored({ check: heartbeat(600) })
      expect(before.interval).toBe(60)
      expect(accepted(patch(before, { check: heartbeat(86400) })).interval).toBe(60)
    })

    it("a heartbeat PATCH naming an interval coarser than the new window's cadence is 400 VALIDATION_FAILED", () => {
      const before = stored({ check: heartbeat(86400) })
      expect(refused(patch(before, { check: heartbeat(1200, 300), interval: 300 }))).toMatchObject({
        code: "VALIDATION_FAILED",
        field: "interval",
        details: { cadence: 150 }
      })
      expect(accepted(patch(before, { check: heartbeat(1200, 300), interval: 120 })).interval).toBe(120)
    })

    it("a heartbeat PATCH of interval alone is judged against the stored window's cadence", () => {
      const before = stored({ check: heartbeat(1200, 300), interval: 60 })
      expect(refused(patch(before, { interval: 200 }))).toMatchObject({ code: "VALIDATION_FAILED", field: "interval" })
      expect(accepted(patch(before, { interval: 150 })).interval).toBe(150)
    })

    it("a PATCH renotify_interval_secs between 1 and 59 is 400 VALIDATION_FAILED", () => {
      expect(refused(patch(stored({ check: http }), { renotify_interval_secs: 30 }))).toMatchObject({
        code: "VALIDATION_FAILED",
        field: "renotify_interval_secs"
      })
    })

    it("a PATCH tls_cert check with warn_days not above critical_days is 400 VALIDATION_FAILED on check.warn_days", () => {
      const before = stored({ check: { type: "tls_cert", host: "example.com" } })
      const next = { type: "tls_cert", host: "example.com", warn_days: 3, critical_days: 7 }
      expect(refused(patch(before, { check: next }))).toMatchObject({
        code: "VALIDATION_FAILED",
        field: "check.warn_days"
      })
    })

    it("a PATCH region_policy count above the stored regions is 400 VALIDATION_FAILED on region_policy", () => {
      const before = stored({ check: http, regions: ["local", "eu-west"] })
      expect(refused(patch(before, { region_policy: { count: 3 } }))).toMatchObject({
        code: "VALIDATION_FAILED",
        field: "region_policy"
      })
      expect(accepted(patch(before, { region_policy: { count: 2 } })).region_policy).toEqual({ count: 2 })
    })

    it("a stored flow monitor stays editable after its plan switches flow off", () => {
      const before = stored({ check: flow([assertText]) }, flowPlan)
      expect(accepted(patch(before, { enabled: false }, pro)).enabled).toBe(false)
      expect(accepted(patch(before, { check: flow([click, assertText]) }, pro)).check).toMatchObject({
        steps: [{ action: "click" }, { action: "assert_text" }]
      })
    })

    it("a PATCH flow check without an assert step is 400 INVALID_FLOW_PARAMS on check.steps", () => {
      const before = stored({ check: flow([assertText]) }, flowPlan)
      expect(refused(patch(before, { check: flow([click]) }, flowPlan))).toMatchObject({
        code: "INVALID_FLOW_PARAMS",
        field: "check.steps"
      })
    })
  })
})

describe("TargetRules kinds", () => {
  it("heartbeat and manual monitors are not probeable: 422 HEARTBEAT_NOT_PROBEABLE on the field given", () => {
    for (const kind of ["heartbeat", "manual"] as const) {
      const refusal = Option.getOrThrow(TargetRules.probeable(kind, "check.type"))
      expect(refusal).toMatchObject({ status: 422, code: "HEARTBEAT_NOT_PROBEABLE", field: "check.type" })
    }
    for (const kind of ["http", "tcp", "ping", "dns", "tls_cert", "domain_expiry", "flow"] as const) {
      expect(Option.isNone(TargetRules.probeable(kind))).toBe(true)
    }
  })

  it("a flow needs every region flow-capable: 422 NO_FLOW_CAPABLE_AGENT listing those that are not; other kinds run anywhere", () => {
    const capable = (r: string) => r === "eu-west" || r === "local"
    const refusal = Option.getOrThrow(TargetRules.placement("flow", ["local", "us-east"], capable, "regions"))
    expect(refusal).toMatchObject({ status: 422, code: "NO_FLOW_CAPABLE_AGENT", field: "regions" })
    expect(refusal.details).toEqual({ regions: ["us-east"] })
    const mixed = Option.getOrThrow(TargetRules.placement("flow", ["eu-west", "us-east", "ap-south"], capable))
    expect(mixed.details).toEqual({ regions: ["us-east", "ap-south"] })
    expect(Option.isNone(TargetRules.placement("flow", ["local", "eu-west"], capable))).toBe(true)
    expect(Option.isNone(TargetRules.placement("http", ["local"], () => false))).toBe(true)
  })
})
