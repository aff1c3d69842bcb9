import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as CheckSpec from "../src/CheckSpec.js"
import * as DecodeFailure from "../src/DecodeFailure.js"
import * as RequestBody from "../src/RequestBody.js"

const decode = Schema.decodeUnknownEither(CheckSpec.CheckSpec)

// The body of `POST /api/v1/targets/test`, so the field paths carry the `check.` prefix clients see.
const TestBody = RequestBody.Struct({ check: CheckSpec.CheckSpec })

const decoded = (input: unknown): CheckSpec.CheckSpec =>
  Either.getOrThrowWith(decode(input), (error) => new Error(`expected the check to decode: ${error.message}`))

const issues = <A, I>(schema: Schema.Schema<A, I>, input: unknown): ReadonlyArray<ParseResult.ArrayFormatterIssue> =>
  Either.match(Schema.decodeUnknownEither(schema)(input), {
    onLeft: (error) => ParseResult.ArrayFormatter.formatErrorSync(error),
    onRight: () => []
  })

const refused = (input: unknown): boolean => Either.isLeft(decode(input))

const apiError = (check: unknown) => DecodeFailure.toApiError(issues(TestBody, { check }))

const minimal: Record<CheckSpec.CheckKind, Record<string, unknown>> = {
  http: { type: "http", url: "https://example.com/health" },
  tcp: { type: "tcp", host: "db.example.com", port: 5432 },
  ping: { type: "ping", host: "example.com" },
  dns: { type: "dns", domain: "example.com", record_type: "A" },
  tls_cert: { type: "tls_cert", host: "example.com" },
  domain_expiry: { type: "domain_expiry", domain: "example.com" },
  flow: { type: "flow", start_url: "https://example.com", steps: [{ action: "assert_text", text: "Welcome" }] },
  heartbeat: { type: "heartbeat", period: 86400, grace: 3600 },
  manual: { type: "manual" }
}

const flowWithSteps = (steps: ReadonlyArray<unknown>) => ({ type: "flow", start_url: "https://example.com", steps })

describe("CheckSpec", () => {
  describe("decoding", () => {
    for (const [kind, body] of Object.entries(minimal)) {
      it(`a minimal ${kind} body decodes to its kind`, () => {
        expect(decoded(body).type).toBe(kind)
      })
    }

    it("CheckKind names exactly the types of the union's members", () => {
      const memberTypes = CheckSpec.CheckSpec.members.map((member) => member.fields.type.literals[0])
      expect([...memberTypes].sort()).toEqual([...CheckSpec.CheckKind.literals].sort())
    })

    it("http fills every default the wire shapes name", () => {
      expect(decoded(minimal.http)).toEqual({
        type: "http",
        url: "https://example.com/health",
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
    })

    it("tls_cert, domain_expiry, tcp and flow fill their defaults", () => {
      expect(decoded(minimal.tls_cert)).toEqual({
        type: "tls_cert",
        host: "example.com",
        port: 443,
        warn_days: 21,
        critical_days: 7,
        timeout: 10,
        ip_version: "any"
      })
      expect(decoded(minimal.domain_expiry)).toEqual({
        type: "domain_expiry",
        domain: "example.com",
        warn_days: 30,
        critical_days: 7
      })
      expect(decoded(minimal.tcp)).toMatchObject({ timeout: 10, ip_version: "any" })
      expect(decoded(minimal.flow)).toMatchObject({
        verify_tls: true,
        steps: [{ action: "assert_text", text: "Welcome", selector: null }]
      })
    })

    it("an explicit value replaces the default", () => {
      expect(decoded({ ...minimal.http, method: "HEAD", follow_redirects: false, timeout: 2.5 })).toMatchObject({
        method: "HEAD",
        follow_redirects: false,
        timeout: 2.5
      })
    })

    it("every flow step action decodes", () => {
      const steps = [
        { action: "goto", url: "https://example.com/login" },
        { action: "fill", selector: "#email", value: "{{login_email}}" },
        { action: "click", selector: "button[type=submit]" },
        { action: "wait_for", selector: ".dashboard" },
        { action: "assert_text", text: "Signed in", selector: null },
        { action: "assert_url", contains: "/dashboard" }
      ]
      expect(decoded(flowWithSteps(steps))).toMatchObject({ steps })
    })

    it("http headers are a map: any header name is kept", () => {
      const headers = { "X-Custom-Header": "1", "x-api-version": "2024-01-01", timeuot: "free here" }
      expect(decoded({ ...minimal.http, headers })).toMatchObject({ headers })
    })
  })

  describe("unknown keys", () => {
    it("a misspelt key at the top of a check is an Unexpected issue at its path", () => {
      const found = issues(CheckSpec.CheckSpec, { ...minimal.http, timeuot: 5 })
      expect(found).toContainEqual(expect.objectContaining({ _tag: "Unexpected", path: ["timeuot"] }))
    })

    it("a misspelt key inside a flow step is an Unexpected issue at its path", () => {
      const check = flowWithSteps([
        { action: "goto", url: "https://example.com" },
        { action: "click", selctor: "#go" },
        { action: "assert_url", contains: "/done" }
      ])
      expect(issues(CheckSpec.CheckSpec, check)).toContainEqual(
        expect.objectContaining({ _tag: "Unexpected", path: ["steps", 1, "selctor"] })
      )
    })

    it("an unknown key in a nested check is 422 INVALID_JSON at check.timeuot listing the accepted keys", () => {
      const error = apiError({ ...minimal.http, timeuot: 5 })
      expect(error.status).toBe(422)
      expect(error.code).toBe("INVALID_JSON")
      expect(error.field).toBe("check.timeuot")
      for (const key of Object.keys(CheckSpec.HttpCheck.fields)) {
        expect(error.message).toContain(key)
      }
      expect(error.details["accepted"]).toEqual(Object.keys(CheckSpec.HttpCheck.fields))
    })

    it("an unknown key in a flow step is 422 INVALID_JSON at check.steps[1].selctor listing the step's keys", () => {
      const error = apiError(
        flowWithSteps([
          { action: "goto", url: "https://example.com" },
          { action: "click", selector: "#go", selctor: "#go" },
          { action: "assert_url", contains: "/done" }
        ])
      )
      expect(error.status).toBe(422)
      expect(error.code).toBe("INVALID_JSON")
      expect(error.field).toBe("check.steps[1].selctor")
      expect(error.details["accepted"]).toEqual(["action", "selector"])
      expect(error.message).toContain("action, selector")
    })

    it("an unknown key wins over a wrong type elsewhere in the same check", () => {
      const error = apiError({ ...minimal.tcp, port: "x", timeuot: 5 })
      expect(error.status).toBe(422)
      expect(error.field).toBe("check.timeuot")
    })

    it("every object schema refuses unknown keys on its own, not only when nested in a strict body", () => {
      const objects: ReadonlyArray<readonly [Schema.Schema.AnyNoContext, Record<string, unknown>]> = [
        [CheckSpec.HttpCheck, minimal.http],
        [CheckSpec.TcpCheck, minimal.tcp],
        [CheckSpec.PingCheck, minimal.ping],
        [CheckSpec.DnsCheck, minimal.dns],
        [CheckSpec.TlsCertCheck, minimal.tls_cert],
        [CheckSpec.DomainExpiryCheck, minimal.domain_expiry],
        [CheckSpec.FlowCheck, minimal.flow],
        [CheckSpec.HeartbeatCheck, minimal.heartbeat],
        [CheckSpec.ManualCheck, minimal.manual],
        [CheckSpec.BasicAuth, { username: "u", password: "p" }],
        [CheckSpec.FlowStep, { action: "goto", url: "https://example.com" }],
        [CheckSpec.FlowStep, { action: "fill", selector: "#q", value: "" }],
        [CheckSpec.FlowStep, { action: "click", selector: "#go" }],
        [CheckSpec.FlowStep, { action: "wait_for", selector: "#done" }],
        [CheckSpec.FlowStep, { action: "assert_text", text: "ok" }],
        [CheckSpec.FlowStep, { action: "assert_url", contains: "/done" }]
      ]
      for (const [schema, value] of objects) {
        expect(issues(schema, value)).toEqual([])
        expect(issues(schema, { ...value, extra: 1 })).toContainEqual(
          expect.objectContaining({ _tag: "Unexpected", path: ["extra"] })
        )
      }
    })

    it("basic_auth refuses keys besides username and password", () => {
      const error = apiError({
        ...minimal.http,
        basic_auth: { username: "u", password: "p", realm: "r" }
      })
      expect(error.status).toBe(422)
      expect(error.field).toBe("check.basic_auth.realm")
    })

    it("manual accepts no key besides type", () => {
      const error = apiError({ type: "manual", interval: 60 })
      expect(error.status).toBe(422)
      expect(error.field).toBe("check.interval")
    })
  })

  describe("wrong values", () => {
    it("a port of the wrong type is 400 VALIDATION_FAILED naming check.port", () => {
      const error = apiError({ ...minimal.tcp, port: "x" })
      expect(error.status).toBe(400)
      expect(error.code).toBe("VALIDATION_FAILED")
      expect(error.field).toBe("check.port")
    })

    it("an unknown type is refused, naming check.type", () => {
      expect(refused({ type: "smtp", host: "mail.example.com" })).toBe(true)
      const error = apiError({ type: "smtp", host: "mail.example.com" })
      expect(error.status).toBe(400)
      expect(error.code).toBe("VALIDATION_FAILED")
      expect(error.field).toBe("check.type")
    })

    it("a check without type is refused", () => {
      expect(refused({ url: "https://example.com" })).toBe(true)
    })

    it("a missing required field is 400 VALIDATION_FAILED naming it", () => {
      const error = apiError({ type: "tcp", host: "db.example.com" })
      expect(error.status).toBe(400)
      expect(error.field).toBe("check.port")
    })

    it("ports outside 1-65535 are refused", () => {
      expect(refused({ ...minimal.tcp, port: 0 })).toBe(true)
      expect(refused({ ...minimal.tcp, port: 65536 })).toBe(true)
      expect(refused({ ...minimal.tcp, port: 80.5 })).toBe(true)
    })

    it("timeout is fractional seconds above 0 and at most 60", () => {
      expect(decoded({ ...minimal.ping, timeout: 0.5 })).toMatchObject({ timeout: 0.5 })
      expect(decoded({ ...minimal.ping, timeout: 60 })).toMatchObject({ timeout: 60 })
      expect(refused({ ...minimal.ping, timeout: 0 })).toBe(true)
      expect(refused({ ...minimal.ping, timeout: 60.5 })).toBe(true)
    })

    it("a flow's timeout defaults to 60 s, at most 120; its step_timeout to 10 s, at most 60", () => {
      expect(decoded(minimal.flow)).toMatchObject({ timeout: 60, step_timeout: 10 })
      expect(decoded({ ...minimal.flow, timeout: 120, step_timeout: 60 })).toMatchObject({
        timeout: 120,
        step_timeout: 60
      })
      expect(refused({ ...minimal.flow, timeout: 120.5 })).toBe(true)
      expect(refused({ ...minimal.flow, timeout: 300 })).toBe(true)
      expect(refused({ ...minimal.flow, timeout: 0 })).toBe(true)
      expect(refused({ ...minimal.flow, step_timeout: 60.5 })).toBe(true)
      expect(refused({ ...minimal.flow, step_timeout: 0 })).toBe(true)
    })

    it("method, ip_version and record_type accept only their listed values", () => {
      expect(refused({ ...minimal.http, method: "get" })).toBe(true)
      expect(refused({ ...minimal.http, ip_version: "ipv5" })).toBe(true)
      expect(refused({ ...minimal.dns, record_type: "ANY" })).toBe(true)
    })

    it("ping takes no ip_version", () => {
      expect(apiError({ ...minimal.ping, ip_version: "ipv4" }).field).toBe("check.ip_version")
    })

    it("heartbeat period, grace and max_runtime stay within their ranges", () => {
      expect(decoded({ ...minimal.heartbeat, max_runtime: 60 })).toMatchObject({ max_runtime: 60 })
      expect(refused({ ...minimal.heartbeat, period: 59 })).toBe(true)
      expect(refused({ ...minimal.heartbeat, period: 30 * 86400 + 1 })).toBe(true)
      expect(refused({ ...minimal.heartbeat, grace: -1 })).toBe(true)
      expect(refused({ ...minimal.heartbeat, max_runtime: 59 })).toBe(true)
    })
  })

  describe("expected_status", () => {
    const withStatus = (expected_status: unknown) => ({ ...minimal.http, expected_status })

    for (const accepted of [200, [200, 204], "2xx", "200-399"]) {
      it(`accepts ${JSON.stringify(accepted)}`, () => {
        expect(decoded(withStatus(accepted))).toMatchObject({ expected_status: accepted })
      })
    }

    for (const wrong of ["abc", 99, 600, 200.5, [], [200, 700], "6xx", "399-200", "200"]) {
      it(`refuses ${JSON.stringify(wrong)}`, () => {
        expect(refused(withStatus(wrong))).toBe(true)
      })
    }

    it("a refused value is 400 VALIDATION_FAILED naming check.expected_status and the accepted forms", () => {
      const error = apiError(withStatus("abc"))
      expect(error.status).toBe(400)
      expect(error.code).toBe("VALIDATION_FAILED")
      expect(error.field).toBe("check.expected_status")
      expect(error.message).toContain('"200-399"')
    })
  })

  describe("list sizes", () => {
    const click = { action: "click", selector: "#next" }

    it("a flow takes 1 to 30 steps", () => {
      expect(refused(flowWithSteps([]))).toBe(true)
      expect(decoded(flowWithSteps(Array.from({ length: 30 }, () => click))).type).toBe("flow")
      expect(refused(flowWithSteps(Array.from({ length: 31 }, () => click)))).toBe(true)
    })

    it("dns expected_records decodes any list of strings: its limits are a dns rule (DnsRules)", () => {
      const records = (n: number) => Array.from({ length: n }, (_, i) => `192.0.2.${i}`)
      expect(decoded({ ...minimal.dns, expected_records: records(51) })).toMatchObject({
        expected_records: records(51)
      })
      expect(decoded({ ...minimal.dns, expected_records: ["x".repeat(2049)] }).type).toBe("dns")
      expect(refused({ ...minimal.dns, expected_records: [1] })).toBe(true)
    })
  })
})
