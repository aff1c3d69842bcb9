import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { OrgId } from "../src/Identity.js"
import * as OrgBinding from "../src/OrgBinding.js"

const orgId = Schema.decodeUnknownSync(OrgId)
const acme = { id: orgId("01900000-0000-7000-8000-000000000001"), slug: "acme" }
const side = { id: orgId("01900000-0000-7000-8000-000000000002"), slug: "side-project" }
const memberships = [acme, side]

const bound = { boundOrgId: acme.id }
const unbound = { boundOrgId: null }

const refusal = (result: ReturnType<typeof OrgBinding.named>) =>
  Either.match(result, {
    onLeft: (error) => ({ status: error.status, code: error.code, field: error.field }),
    onRight: (org) => ({ accepted: org?.slug })
  })

describe("OrgBinding", () => {
  it("no header names nothing: the credential's own org applies", () => {
    expect(OrgBinding.named(undefined, bound, memberships)).toEqual(Either.right(undefined))
    expect(OrgBinding.named(undefined, unbound, memberships)).toEqual(Either.right(undefined))
  })

  it("a malformed slug is 400 ORG_HEADER_INVALID for any credential", () => {
    for (const header of ["NOT A SLUG", "Acme", "-acme", "acme-", "", "a".repeat(64), "acme/side"]) {
      for (const binding of [bound, unbound]) {
        expect(refusal(OrgBinding.named(header, binding, memberships)), header).toEqual({
          status: 400,
          code: "ORG_HEADER_INVALID",
          field: "X-Signalman-Org"
        })
      }
    }
  })

  it("a bound token naming its own org acts on it; surrounding whitespace is not part of the slug", () => {
    expect(refusal(OrgBinding.named("acme", bound, memberships))).toEqual({ accepted: "acme" })
    expect(refusal(OrgBinding.named("  acme ", bound, memberships))).toEqual({ accepted: "acme" })
  })

  it("a bound token naming any other well-formed slug is 403 ORG_HEADER_MISMATCH, existing or not, member or not", () => {
    for (const header of ["side-project", "someone-elses-org", "no-such-org-anywhere"]) {
      expect(refusal(OrgBinding.named(header, bound, memberships)), header).toEqual({
        status: 403,
        code: "ORG_HEADER_MISMATCH",
        field: "X-Signalman-Org"
      })
    }
  })

  it("an unbound token or a session names any org of the caller; any other slug is 400 ORG_HEADER_INVALID", () => {
    expect(refusal(OrgBinding.named("side-project", unbound, memberships))).toEqual({ accepted: "side-project" })
    expect(refusal(OrgBinding.named("acme", unbound, memberships))).toEqual({ accepted: "acme" })
    for (const header of ["someone-elses-org", "no-such-org-anywhere"]) {
      expect(refusal(OrgBinding.named(header, unbound, memberships)), header).toEqual({
        status: 400,
        code: "ORG_HEADER_INVALID",
        field: "X-Signalman-Org"
      })
    }
  })
})
