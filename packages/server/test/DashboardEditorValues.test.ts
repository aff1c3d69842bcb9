/**
 * The monitor form's values (`dashboard/monitors/EditorValues.ts`): a new monitor opens with the API's own defaults
 * for its kind and plan (the same a create without those fields stores), what a person must give opens empty, and a
 * stored monitor's values come from its redacted answer. Also the words beside a seconds field (`Durations.ts`).
 */
import { describe, expect, it } from "@effect/vitest"
import { CheckKind, CheckSpec } from "@signalman/core/CheckSpec"
import { OrgId } from "@signalman/core/Identity"
import * as Plan from "@signalman/core/Plan"
import { Target, TargetId } from "@signalman/core/Target"
import * as TargetRules from "@signalman/core/TargetRules"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { spoken } from "../src/dashboard/monitors/Durations.js"
import * as EditorValues from "../src/dashboard/monitors/EditorValues.js"
import * as Kinds from "../src/dashboard/monitors/Kinds.js"

// Flows are off on every seeded plan; an operator's override turns them on.
const free = Plan.effective(Plan.plans.free, { max_flow_checks: 5 })

/** What a person would type into the fields a new form leaves empty. */
const filledIn: Record<CheckKind, Record<string, unknown>> = {
  http: { url: "https://example.com" },
  tcp: { host: "example.com", port: 22 },
  ping: { host: "example.com" },
  dns: { domain: "example.com" },
  tls_cert: { host: "example.com" },
  domain_expiry: { domain: "example.com" },
  flow: { start_url: "https://example.com", steps: [{ action: "assert_text", text: "Welcome" }] },
  heartbeat: {},
  manual: {}
}

const complete = (kind: CheckKind): CheckSpec => {
  const draft = EditorValues.openingCheck(kind)
  const given = Object.fromEntries(Object.entries(draft).filter(([, value]) => value !== undefined))
  return Schema.decodeUnknownSync(CheckSpec)({ ...given, ...filledIn[kind] })
}

describe("the monitor form's values", () => {
  it("a new monitor of each kind opens with what a create without those fields stores on the plan", () => {
    for (const { kind } of Kinds.kinds) {
      const values = EditorValues.forNew(kind, free, ["local", "eu"])
      const created = TargetRules.resolveCreate({ name: "n", check: complete(kind) }, free, ["local", "eu"])
      if (Either.isLeft(created)) throw new Error(`${kind}: ${created.left.message}`)
      const stored = created.right
      expect({ kind, ...values, check: undefined }, kind).toEqual({
        kind,
        name: "",
        check: undefined,
        // A heartbeat's interval is left to the rule that derives it from the period and grace a person picks.
        interval: kind === "heartbeat" ? undefined : stored.interval,
        enabled: stored.enabled,
        tags: [],
        group: stored.group,
        alerts: [],
        alert_confirmations: stored.alert_confirmations,
        notify_recovery: stored.notify_recovery,
        renotify_interval_secs: stored.renotify_interval_secs,
        recovery_period_secs: stored.recovery_period_secs,
        region_policy: stored.region_policy,
        // Heartbeat and manual monitors take no regions (the service evaluates them), so the form offers none.
        regions: Kinds.probed(kind) ? stored.regions : []
      })
    }
  })

  it("intervals open at the decided defaults, raised to the plan's floor: tls_cert at 43200", () => {
    const opening = (kind: CheckKind, plan: Plan.Plan) => EditorValues.forNew(kind, plan, ["local"]).interval
    expect(opening("tls_cert", free)).toBe(43200)
    expect(opening("domain_expiry", free)).toBe(86400)
    expect(opening("flow", free)).toBe(300)
    expect(opening("manual", free)).toBe(60)
    expect(opening("heartbeat", free)).toBeUndefined()
    // The free plan's floor is 180 s; pro's is below the kinds' 60 s default.
    expect(opening("http", free)).toBe(180)
    expect(opening("http", Plan.plans.pro)).toBe(60)
    expect(EditorValues.forNew("http", free, ["local"]).recovery_period_secs).toBe(180)
    expect(EditorValues.forNew("tls_cert", free, ["local"]).recovery_period_secs).toBe(0)
  })

  it("a new check carries the schema's defaults, and what a person must give is empty", () => {
    expect(EditorValues.openingCheck("http")).toEqual({
      type: "http",
      url: undefined,
      method: "GET",
      headers: {},
      expected_status: "2xx",
      follow_redirects: true,
      verify_tls: true,
      basic_auth: null,
      bearer_token: null,
      timeout: 10,
      ip_version: "any"
    })
    expect(EditorValues.openingCheck("tcp")).toMatchObject({ host: undefined, port: undefined, timeout: 10 })
    expect(EditorValues.openingCheck("tls_cert")).toMatchObject({ port: 443, warn_days: 21, critical_days: 7 })
    expect(EditorValues.openingCheck("domain_expiry")).toMatchObject({ warn_days: 30, critical_days: 7 })
    expect(EditorValues.openingCheck("flow")).toMatchObject({
      start_url: undefined,
      timeout: 60,
      step_timeout: 10,
      verify_tls: true,
      steps: [{ action: "assert_text", text: "", selector: null }]
    })
    expect(EditorValues.openingCheck("heartbeat")).toEqual({ type: "heartbeat", period: 86400, grace: 3600 })
    expect(EditorValues.openingCheck("manual")).toEqual({ type: "manual" })
  })

  it.effect("a stored monitor's values come from its answer, credentials redacted, channels as ids", () =>
    Effect.gen(function* () {
      const at = DateTime.unsafeMake("2026-01-01T00:00:00.000Z")
      const target = new Target({
        id: TargetId.make("01900000-0000-7000-8000-000000000001"),
        org_id: OrgId.make("01900000-0000-7000-8000-000000000002"),
        created_at: at,
        updated_at: at,
        write_source: "api",
        managed_by: null,
        name: "API",
        check: {
          type: "http",
          url: "https://example.com/{{path}}",
          method: "POST",
          headers: { "X-Key": "{{key}}" },
          expected_status: [200, 204],
          follow_redirects: false,
          verify_tls: true,
          basic_auth: "***",
          bearer_token: "***",
          timeout: 5,
          ip_version: "ipv4"
        },
        interval: 300,
        enabled: false,
        tags: ["prod"],
        group: "Edge",
        alerts: [{ channel_id: "01900000-0000-7000-8000-000000000003" }],
        alert_confirmations: 3,
        notify_recovery: false,
        renotify_interval_secs: 0,
        recovery_period_secs: 60,
        region_policy: { count: 2 },
        regions: ["local", "eu"],
        advisories: []
      })
      const values = yield* EditorValues.fromTarget(target)
      expect(values).toMatchObject({
        name: "API",
        interval: 300,
        enabled: false,
        tags: ["prod"],
        group: "Edge",
        alerts: ["01900000-0000-7000-8000-000000000003"],
        alert_confirmations: 3,
        notify_recovery: false,
        renotify_interval_secs: 0,
        recovery_period_secs: 60,
        region_policy: { count: 2 },
        regions: ["local", "eu"]
      })
      expect(values.check).toMatchObject({ type: "http", method: "POST", basic_auth: "***", bearer_token: "***" })
      if (values.check.type !== "http") throw new Error("not http")
      expect(EditorValues.isRedacted(values.check.basic_auth)).toBe(true)
      expect(EditorValues.isRedacted(null)).toBe(false)
      expect(EditorValues.expectedStatusText(values.check.expected_status)).toBe("200, 204")
      expect(EditorValues.expectedStatusText("2xx")).toBe("2xx")
      expect(EditorValues.expectedStatusText(201)).toBe("201")
      expect(EditorValues.headersText(values.check.headers)).toBe("X-Key: {{key}}")
      expect(EditorValues.headersText({ A: "1", B: "two words" })).toBe("A: 1\nB: two words")
    })
  )

  it("the kinds: nine, each with a line; only heartbeat and manual are not probed; a query names one or none", () => {
    expect(Kinds.kinds.map((k) => k.kind)).toEqual(CheckKind.literals)
    for (const kind of Kinds.kinds) expect(kind.summary, kind.kind).not.toBe("")
    expect(Kinds.kinds.filter((k) => !Kinds.probed(k.kind)).map((k) => k.kind)).toEqual(["heartbeat", "manual"])
    expect(Kinds.parse("tls_cert")).toBe("tls_cert")
    expect(Kinds.parse("smtp")).toBeUndefined()
    expect(Kinds.parse(undefined)).toBeUndefined()
  })

  it("seconds are said in the largest unit that divides them exactly", () => {
    expect(spoken(43200)).toBe("12 hours")
    expect(spoken(86400)).toBe("1 day")
    expect(spoken(180)).toBe("3 minutes")
    expect(spoken(90)).toBe("90 seconds")
    expect(spoken(1)).toBe("1 second")
    expect(spoken(0)).toBe("0 seconds")
  })
})
