import { describe, expect, it } from "@effect/vitest"
import { newCode, normalizeCode } from "../src/auth/MagicLinks.js"
import { safeRedirect } from "../src/auth/SignIn.js"

describe("magic-link codes", () => {
  it("are six Crockford base32 characters", () => {
    for (let i = 0; i < 200; i++) expect(newCode()).toMatch(/^[0-9A-HJKMNP-TV-Z]{6}$/)
  })

  it("ignore case, whitespace and separators, and read O, I, L as digits", () => {
    expect(normalizeCode("ab1-2cd")).toBe("AB12CD")
    expect(normalizeCode(" a b 1 2 c d ")).toBe("AB12CD")
    expect(normalizeCode("OIL234")).toBe("011234")
    expect(normalizeCode("ab.12_cd")).toBe("AB12CD")
  })

  it("anything else is malformed (and spends nothing)", () => {
    for (const input of ["", "ABC12", "ABC1234", "ABCU12", "ÀBC123", "12345!"])
      expect(normalizeCode(input)).toBeUndefined()
  })
})

describe("redirect after sign-in", () => {
  it("only a path on this service", () => {
    expect(safeRedirect("/settings/account?tab=tokens")).toBe("/settings/account?tab=tokens")
    for (const bad of [
      "//evil.example",
      "/\\evil.example",
      "/\t/evil.example",
      "/\n/evil.example",
      "/\r//evil.example",
      "/a\\b",
      "/\u0000x",
      "https://evil.example",
      "javascript:alert(1)",
      "settings",
      null
    ]) {
      expect(safeRedirect(bad)).toBeNull()
    }
  })
})
