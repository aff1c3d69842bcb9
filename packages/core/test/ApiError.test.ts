import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as ApiError from "../src/ApiError.js"

describe("ApiError", () => {
  it("make gives each code the status the catalogue names", () => {
    expect(ApiError.make("INVALID_CONTENT_TYPE", "x").status).toBe(415)
    expect(ApiError.make("QUOTA_EXCEEDED", "x")).toBeInstanceOf(ApiError.UnprocessableEntity)
    expect(ApiError.make("RATE_LIMITED", "x").status).toBe(429)
    expect(ApiError.make("HEARTBEAT_NOT_PROBEABLE", "x").status).toBe(422)
    expect(ApiError.make("PLAN_NOT_FOR_SALE", "x").status).toBe(409)
    expect(ApiError.make("NOT_READY", "x").status).toBe(503)
  })

  it("the spec's codes carry the statuses its error tables give", () => {
    const table: Record<string, number> = {
      INVALID_JSON: 400,
      INVALID_CONTENT_TYPE: 415,
      REDACTION_SENTINEL: 400,
      CHECK_KIND_IMMUTABLE: 400,
      INVALID_IP_VERSION: 400,
      INVALID_DNS_PARAMS: 400,
      INVALID_ADDRESS: 400,
      INVALID_FLOW_PARAMS: 400,
      INVALID_ALERT_CONFIG: 400,
      INVALID_INTERVAL: 400,
      INVALID_MANUAL_STATE: 400,
      MANUAL_NOT_CONFIGURED: 404,
      FLOW_CHECKS_DISABLED: 403,
      REGION_INVALID: 422,
      QUOTA_EXCEEDED: 422,
      NO_FLOW_CAPABLE_AGENT: 422,
      BULK_TOO_LARGE: 413,
      UNRESOLVED_VARIABLE: 422,
      INVALID_VARIABLE_KEY: 400,
      VARIABLE_KEY_EXISTS: 409,
      VARIABLE_IN_USE: 409,
      SHARE_LABEL_INVALID: 400,
      INVALID_EXPIRY: 400,
      COMPONENT_ALREADY_ON_PAGE: 409,
      PRIVATE_PAGES_DISABLED: 403,
      ACCESS_INVALID: 400,
      INVALID_PAGE_PASSWORD: 400,
      PASSWORD_REQUIRED: 400,
      PAGE_SIGN_IN_REQUIRED: 401,
      MAINTENANCE_CANCELLED: 422,
      MAINTENANCE_UPDATE_LIMIT: 422,
      BILLING_UNAVAILABLE: 404,
      ACCOUNT_OWNER_REQUIRED: 403,
      INVALID_STATE: 400,
      AUTH_METHOD_UNAVAILABLE: 404,
      PASSKEY_NOT_DISCOVERABLE: 400,
      INSUFFICIENT_SCOPE: 403,
      ORG_HEADER_MISMATCH: 403,
      ORG_REQUIRED: 400,
      ORG_HEADER_INVALID: 400,
      OWNER_ORG_LIMIT: 422,
      INVITATIONS_LIMIT: 409,
      MIN_CHECK_INTERVAL: 422,
      RATE_LIMITED: 429,
      URL_PATTERN_BLOCKED: 400,
      ABUSE_BLOCKED: 400,
      DOMAIN_DENYLISTED: 400,
      UNAUTHENTICATED: 401,
      CSRF_REQUIRED: 403,
      SESSION_REQUIRED: 403,
      OWNER_REQUIRED: 403,
      VALIDATION_FAILED: 400,
      NOT_FOUND: 404,
      METHOD_NOT_ALLOWED: 405,
      SLUG_TAKEN: 409,
      TARGET_ADDRESS_BLOCKED: 400
    }
    for (const [code, status] of Object.entries(table)) {
      expect(ApiError.codes[code as ApiError.Code], code).toBe(status)
    }
  })

  it("the envelope has exactly code, message, field, details, trace_id", () => {
    const error = ApiError.make("SLUG_TAKEN", "Taken", { field: "slug", details: { slug: "acme" } })
    expect(ApiError.toEnvelope(error, "req-1")).toEqual({
      error: { code: "SLUG_TAKEN", message: "Taken", field: "slug", details: { slug: "acme" }, trace_id: "req-1" }
    })
  })

  it("the wire schema decodes an envelope into the class of its status and back", () => {
    const envelope = {
      error: { code: "NOT_FOUND", message: "No such target", field: null, details: {}, trace_id: "t" }
    }
    const decoded = Schema.decodeUnknownEither(ApiError.Wire.NotFound)(envelope)
    if (Either.isLeft(decoded)) throw new Error(String(decoded.left))
    expect(decoded.right).toBeInstanceOf(ApiError.NotFound)
    expect(decoded.right.code).toBe("NOT_FOUND")
    expect(decoded.right.trace_id).toBe("t")
    expect(Schema.encodeSync(ApiError.Wire.NotFound)(decoded.right)).toEqual(envelope)
  })

  it("isApiError recognises the catalogue and nothing else", () => {
    expect(ApiError.isApiError(ApiError.make("NOT_FOUND", "x"))).toBe(true)
    expect(ApiError.isApiError(new Error("x"))).toBe(false)
    expect(ApiError.isApiError({ _tag: "NotFound" })).toBe(false)
  })
})
