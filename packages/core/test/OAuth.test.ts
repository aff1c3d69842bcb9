import { describe, expect, it } from "@effect/vitest"
import * as OAuth from "@signalman/core/OAuth"

describe("OAuth: attested addresses", () => {
  it("GitHub attests the primary address only when it is verified", () => {
    const secondary = { email: "second@example.com", primary: false, verified: true }
    expect(OAuth.githubAttestedEmail([secondary, { email: "me@example.com", primary: true, verified: true }])).toBe(
      "me@example.com"
    )
    expect(OAuth.githubAttestedEmail([secondary, { email: "me@example.com", primary: true, verified: false }])).toBe(
      undefined
    )
    expect(OAuth.githubAttestedEmail([secondary])).toBe(undefined)
  })

  it("OpenID Connect attests only with email_verified true (a boolean or Google's old string)", () => {
    const claims = { iss: "https://accounts.google.com", sub: "1", email: "a@example.com" }
    expect(OAuth.oidcAttestedEmail({ ...claims, email_verified: true })).toBe("a@example.com")
    expect(OAuth.oidcAttestedEmail({ ...claims, email_verified: "true" })).toBe("a@example.com")
    expect(OAuth.oidcAttestedEmail({ ...claims, email_verified: false })).toBe(undefined)
    expect(OAuth.oidcAttestedEmail({ ...claims, email_verified: "false" })).toBe(undefined)
    expect(OAuth.oidcAttestedEmail(claims)).toBe(undefined)
    expect(OAuth.oidcAttestedEmail({ iss: "x", sub: "1", email_verified: true })).toBe(undefined)
  })

  it("Microsoft attests by xms_edov, or for the personal tenant on Microsoft's own domains (no country variants)", () => {
    const work = { sub: "s", tid: "72f988bf-86f1-41af-91ab-2d7cd011db47", oid: "o", email: "a@contoso.com" }
    expect(OAuth.microsoftAttestedEmail({ ...work, xms_edov: true })).toBe("a@contoso.com")
    expect(OAuth.microsoftAttestedEmail({ ...work, xms_edov: "1" })).toBe("a@contoso.com")
    expect(OAuth.microsoftAttestedEmail({ ...work, xms_edov: false })).toBe(undefined)
    expect(OAuth.microsoftAttestedEmail(work)).toBe(undefined)
    // A work tenant with an outlook.com address proves nothing: only the personal tenant's are Microsoft's own.
    expect(OAuth.microsoftAttestedEmail({ ...work, email: "a@outlook.com" })).toBe(undefined)
    const personal = { sub: "s", tid: OAuth.MICROSOFT_PERSONAL_TENANT, oid: "o" }
    for (const domain of OAuth.MICROSOFT_CONSUMER_DOMAINS) {
      expect(OAuth.microsoftAttestedEmail({ ...personal, email: `me@${domain.toUpperCase()}` })).toBe(
        `me@${domain.toUpperCase()}`
      )
    }
    for (const email of ["me@hotmail.co.uk", "me@live.fr", "me@outlook.com.evil.example", "me@gmail.com", "nobody"]) {
      expect(OAuth.microsoftAttestedEmail({ ...personal, email }), email).toBe(undefined)
    }
    expect(OAuth.MICROSOFT_CONSUMER_DOMAINS).toEqual([
      "outlook.com",
      "hotmail.com",
      "live.com",
      "msn.com",
      "passport.com"
    ])
  })
})

describe("OAuth: identity keys", () => {
  it("Microsoft is {tid}/{oid}, falling back to sub when either is missing", () => {
    expect(OAuth.microsoftKey({ sub: "s", tid: "t", oid: "o" })).toBe("t/o")
    expect(OAuth.microsoftKey({ sub: "s", tid: "t" })).toBe("s")
    expect(OAuth.microsoftKey({ sub: "s", oid: "o" })).toBe("s")
  })

  it("GitLab is {iss}/{sub}, and the token's iss must be the configured base URL", () => {
    const claims = { iss: "https://gitlab.example.com", sub: "42" }
    expect(OAuth.gitlabKey(claims)).toBe("https://gitlab.example.com/42")
    expect(OAuth.gitlabIssuerMatches(claims, "https://gitlab.example.com")).toBe(true)
    expect(OAuth.gitlabIssuerMatches(claims, "https://gitlab.example.com/")).toBe(true)
    expect(OAuth.gitlabIssuerMatches(claims, "https://gitlab.com")).toBe(false)
    expect(OAuth.gitlabIssuerMatches({ ...claims, iss: "https://gitlab.example.com.evil" }, claims.iss)).toBe(false)
  })
})

describe("OAuth: removing a sign-in method", () => {
  it("refuses only when nothing would be left: 409 LAST_SIGN_IN_METHOD", () => {
    expect(OAuth.removalRefusal({ magicLink: true, otherIdentities: 0, passkeys: 0 })).toBe(undefined)
    expect(OAuth.removalRefusal({ magicLink: false, otherIdentities: 1, passkeys: 0 })).toBe(undefined)
    expect(OAuth.removalRefusal({ magicLink: false, otherIdentities: 0, passkeys: 1 })).toBe(undefined)
    const refusal = OAuth.removalRefusal({ magicLink: false, otherIdentities: 0, passkeys: 0 })
    expect(refusal?.code).toBe("LAST_SIGN_IN_METHOD")
    expect(refusal?.status).toBe(409)
    expect(refusal?.field).toBe("provider")
  })
})
