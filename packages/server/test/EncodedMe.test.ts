import { describe, expect, it } from "@effect/vitest"
import type { CallerShape } from "@signalman/core/api/Authentication"
import { AccountId, ApiTokenId, Me, OrgId, SessionId, UserId } from "@signalman/core/Identity"
import * as Plan from "@signalman/core/Plan"
import * as Schema from "effect/Schema"
import type { MembershipRow, UserRow } from "../src/accounts/Accounts.js"
import { EncodedMe } from "../src/me/EncodedMe.js"
import type { Sources } from "../src/me/Me.js"

const userId = UserId.make("01900000-0000-7000-8000-000000000001")
const accountId = AccountId.make("01900000-0000-7000-8000-000000000002")
const orgId = OrgId.make("01900000-0000-7000-8000-000000000003")

const user: UserRow = {
  id: userId,
  email: "ada@example.com",
  name: "Ada",
  email_verified_at: new Date("2026-01-01T00:00:00Z"),
  account_id: accountId,
  created_at: new Date("2026-01-01T00:00:00Z"),
  deleted_at: null,
  purge_after: null
}

const org: MembershipRow = {
  id: orgId,
  slug: "ada",
  name: "Ada's org",
  account_id: accountId,
  role: "owner",
  created_at: new Date("2026-01-01T00:00:00Z")
}

const sources: Sources = { user, plan: Plan.plans.free, orgs: [org] }

const caller = (credential: CallerShape["credential"]): CallerShape => ({
  user: { id: userId, email: user.email, accountId, emailVerified: true, deleted: false },
  credential,
  org: { id: orgId, slug: "ada", accountId, role: "owner" }
})
const bySession = caller({ kind: "session", sessionId: SessionId.make("01900000-0000-7000-8000-000000000004") })
const byToken = (scopes: ReadonlyArray<string>) =>
  caller({ kind: "token", tokenId: ApiTokenId.make("01900000-0000-7000-8000-000000000005"), scopes, boundOrgId: null })

const decode = (body: Uint8Array) => Schema.decodeUnknownSync(Me)(JSON.parse(new TextDecoder().decode(body)))

describe("EncodedMe", () => {
  it("encodes the contract's document and answers the same bytes while nothing changed", () => {
    const encoded = new EncodedMe()
    const first = encoded.body(bySession, sources)
    expect(decode(first)).toMatchObject({ email: "ada@example.com", plan_id: "free", auth: { kind: "session" } })
    expect(encoded.body(bySession, { ...sources })).toBe(first)
  })

  it("a reloaded row, however alike, makes a new document", () => {
    const encoded = new EncodedMe()
    const first = encoded.body(bySession, sources)
    const renamed = encoded.body(bySession, { ...sources, user: { ...user, name: "Ada L." } })
    expect(renamed).not.toBe(first)
    expect(decode(renamed).name).toBe("Ada L.")
    const left = encoded.body(bySession, { ...sources, user: { ...user, name: "Ada L." }, orgs: [] })
    expect(decode(left).orgs).toEqual([])
  })

  it("another credential of the same user gets its own document", () => {
    const encoded = new EncodedMe()
    encoded.body(bySession, sources)
    expect(decode(encoded.body(byToken(["targets:read"]), sources)).auth).toEqual({
      kind: "token",
      scopes: ["targets:read"]
    })
    expect(decode(encoded.body(byToken(["full_access"]), sources)).auth.scopes).toEqual(["full_access"])
  })
})
