import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type * as ApiError from "../src/ApiError.js"
import * as Plan from "../src/Plan.js"
import * as StatusPage from "../src/StatusPage.js"

const refusal = (either: Either.Either<unknown, ApiError.ApiError>) => {
  if (Either.isRight(either)) throw new Error("expected a refusal")
  return { status: either.left.status, code: either.left.code, field: either.left.field }
}

const decoded = (u: unknown) => {
  const either = StatusPage.decodeAccess(u)
  if (Either.isLeft(either)) throw new Error(`refused: ${either.left.code} ${either.left.field}`)
  return either.right
}

const withPrivatePages = (enabled: boolean): Plan.Plan => ({
  ...Plan.plans.free,
  flags: { ...Plan.plans.free.flags, private_pages_enabled: enabled }
})
const open = { passwordStored: false, wasProtected: false, plan: withPrivatePages(true) }

describe("StatusPage", () => {
  it("slugs are DNS labels in lower case, reserved words refused", () => {
    const ok = Schema.is(StatusPage.Slug)
    expect(["acme", "a", "acme-status", "a1-b2", "x".repeat(63)].every(ok)).toBe(true)
    expect(["", "-acme", "acme-", "Acme", "acme_status", "x".repeat(64), "api", "status", "p"].some(ok)).toBe(false)
  })

  it("custom domains are lower-case host names with two labels or more, never an IP address", () => {
    expect(StatusPage.isHostname("status.example.com")).toBe(true)
    expect(StatusPage.isHostname("xn--bcher-kva.example")).toBe(true)
    for (const bad of ["localhost", "Status.example.com", "10.0.0.1", "https://x.com", "x.com:443", "a..com"]) {
      expect(StatusPage.isHostname(bad), bad).toBe(false)
    }
  })

  it("email rules are lower-cased, IDN domains put in ASCII form, and duplicates dropped", () => {
    const input = decoded({
      protected: true,
      email_code: {
        enabled: true,
        allow: ["Alice@Example.com", "alice@example.com", "@Bücher.example", "@xn--bcher-kva.example", " bob@b.io "]
      }
    })
    expect(input.access.email_code.allow).toEqual(["alice@example.com", "@xn--bcher-kva.example", "bob@b.io"])
    expect(StatusPage.allows(input.access.email_code.allow, "ALICE@example.com")).toBe(true)
    expect(StatusPage.allows(input.access.email_code.allow, "carol@bücher.example")).toBe(true)
    expect(StatusPage.allows(input.access.email_code.allow, "carol@example.com")).toBe(false)
    expect(StatusPage.allows(input.access.email_code.allow, "@xn--bcher-kva.example")).toBe(false)
  })

  it("defaults: no email code, null session and recheck days, password off", () => {
    expect(decoded({ protected: false })).toEqual({
      access: {
        protected: false,
        email_code: { enabled: false, allow: [] },
        session_days: null,
        recheck_days: null,
        password: { enabled: false }
      },
      passwordValue: undefined
    })
  })

  it("each bad part is ACCESS_INVALID naming it", () => {
    const cases: Array<[unknown, string]> = [
      ["yes", "access"],
      [{}, "access.protected"],
      [{ protected: "true" }, "access.protected"],
      [{ protected: false, session_days: 8 }, "access.session_days"],
      [{ protected: false, recheck_days: 7 }, "access.recheck_days"],
      [{ protected: false, email_code: [] }, "access.email_code"],
      [{ protected: false, email_code: { enabled: 1 } }, "access.email_code.enabled"],
      [{ protected: false, email_code: { allow: "a@b.co" } }, "access.email_code.allow"],
      [{ protected: false, email_code: { allow: ["a@b.co", "nope"] } }, "access.email_code.allow[1]"],
      [{ protected: false, email_code: { allow: ["a@localhost"] } }, "access.email_code.allow[0]"],
      [{ protected: false, email_code: { allow: ["a b@x.co"] } }, "access.email_code.allow[0]"],
      [{ protected: false, email_code: { enabled: true, allow: [] } }, "access.email_code.allow"],
      [{ protected: false, password: true }, "access.password"],
      [{ protected: false, password: { enabled: "no" } }, "access.password.enabled"]
    ]
    for (const [input, field] of cases) {
      expect(refusal(StatusPage.decodeAccess(input)), JSON.stringify(input)).toEqual({
        status: 400,
        code: "ACCESS_INVALID",
        field
      })
    }
  })

  it("more than 500 distinct rules is ACCESS_INVALID; 500 and duplicates beyond are fine", () => {
    const rules = (n: number) => Array.from({ length: n }, (_, i) => `user${i}@example.com`)
    expect(
      decoded({ protected: false, email_code: { allow: [...rules(500), ...rules(500)] } }).access.email_code.allow
    ).toHaveLength(500)
    expect(refusal(StatusPage.decodeAccess({ protected: false, email_code: { allow: rules(501) } }))).toEqual({
      status: 400,
      code: "ACCESS_INVALID",
      field: "access.email_code.allow"
    })
  })

  it("unknown keys at any depth are 422 INVALID_JSON naming the path", () => {
    for (const [input, field] of [
      [{ protected: false, extra: 1 }, "access.extra"],
      [{ protected: false, email_code: { allow: [], domains: [] } }, "access.email_code.domains"],
      [{ protected: false, password: { enabled: false, hash: "x" } }, "access.password.hash"]
    ] as const) {
      expect(refusal(StatusPage.decodeAccess(input))).toEqual({ status: 422, code: "INVALID_JSON", field })
    }
  })

  it("a password is 1 to 128 characters (code points), else INVALID_PAGE_PASSWORD", () => {
    expect(decoded({ protected: false, password: { enabled: true, value: "🔑".repeat(128) } }).passwordValue).toBe(
      "🔑".repeat(128)
    )
    for (const value of ["", "x".repeat(129), 42]) {
      expect(refusal(StatusPage.decodeAccess({ protected: false, password: { enabled: true, value } }))).toEqual({
        status: 400,
        code: "INVALID_PAGE_PASSWORD",
        field: "access.password.value"
      })
    }
  })

  it("password on with none stored is PASSWORD_REQUIRED; a stored one or a value in the body will do", () => {
    const on = decoded({ protected: false, password: { enabled: true } })
    expect(refusal(StatusPage.resolveAccess(on, open))).toEqual({
      status: 400,
      code: "PASSWORD_REQUIRED",
      field: "access.password.value"
    })
    expect(Either.isRight(StatusPage.resolveAccess(on, { ...open, passwordStored: true }))).toBe(true)
    const withValue = decoded({ protected: false, password: { enabled: true, value: "s3cret" } })
    expect(Either.isRight(StatusPage.resolveAccess(withValue, open))).toBe(true)
    // A value with enabled false is stored and leaves the way in off.
    const stored = decoded({ protected: false, password: { enabled: false, value: "s3cret" } })
    expect(stored.access.password.enabled).toBe(false)
    expect(stored.passwordValue).toBe("s3cret")
  })

  it("protected needs a way in, and the plan's private pages unless it was already protected", () => {
    expect(refusal(StatusPage.resolveAccess(decoded({ protected: true }), open))).toEqual({
      status: 400,
      code: "ACCESS_INVALID",
      field: "access.protected"
    })
    const byEmail = decoded({ protected: true, email_code: { enabled: true, allow: ["@example.com"] } })
    expect(Either.isRight(StatusPage.resolveAccess(byEmail, open))).toBe(true)
    const byPassword = decoded({ protected: true, password: { enabled: true, value: "pw" } })
    expect(Either.isRight(StatusPage.resolveAccess(byPassword, open))).toBe(true)
    // Rules stored but the email code off is no way in.
    const off = decoded({ protected: true, email_code: { enabled: false, allow: ["@example.com"] } })
    expect(refusal(StatusPage.resolveAccess(off, open)).code).toBe("ACCESS_INVALID")

    const noPlan = { ...open, plan: withPrivatePages(false) }
    expect(refusal(StatusPage.resolveAccess(byEmail, noPlan))).toEqual({
      status: 403,
      code: "PRIVATE_PAGES_DISABLED",
      field: null
    })
    expect(Either.isRight(StatusPage.resolveAccess(byEmail, { ...noPlan, wasProtected: true }))).toBe(true)
    expect(Either.isRight(StatusPage.resolveAccess(decoded({ protected: false }), noPlan))).toBe(true)
  })

  it("a reorder lists every component exactly once", () => {
    const a = "0190a000-0000-7000-8000-00000000000a"
    const b = "0190a000-0000-7000-8000-00000000000b"
    const c = "0190a000-0000-7000-8000-00000000000c"
    expect(StatusPage.checkReorder([a, b], [b.toUpperCase(), a])).toEqual(Either.right([b, a]))
    const left = StatusPage.checkReorder([a, b], [a, a, c])
    expect(refusal(left)).toEqual({ status: 400, code: "VALIDATION_FAILED", field: "target_ids" })
    if (Either.isLeft(left)) expect(left.left.details).toEqual({ missing: [b], unknown: [c], repeated: [a] })
  })

  it("branding patches replace the keys given; null clears the colour", () => {
    const stored = { primary_color: "#112233", theme: "dark", hide_powered_by: false } as const
    expect(StatusPage.patchBranding(stored, { theme: "light" })).toEqual({ ...stored, theme: "light" })
    expect(StatusPage.patchBranding(stored, { primary_color: null })).toEqual({ ...stored, primary_color: null })
    expect(Schema.decodeUnknownSync(StatusPage.BrandingPatch)({ primary_color: "#AABBCC" })).toEqual({
      primary_color: "#aabbcc"
    })
  })
})
