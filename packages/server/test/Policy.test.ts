import { describe, expect, it } from "@effect/vitest"
import { Caller, type CallerShape } from "@signalman/core/api/Authentication"
import type { AccountId, ApiTokenId, OrgId, SessionId, UserId } from "@signalman/core/Identity"
import * as Effect from "effect/Effect"
import { requireOrg, requireOwner, requireScope, requireSession } from "../src/auth/Policy.js"

const user = {
  id: "00000000-0000-7000-8000-000000000001" as UserId,
  email: "a@example.com",
  accountId: "00000000-0000-7000-8000-000000000002" as AccountId,
  emailVerified: true,
  deleted: false
}
const org = {
  id: "00000000-0000-7000-8000-000000000003" as OrgId,
  slug: "acme",
  accountId: user.accountId,
  role: "member" as const
}
const token = (scopes: ReadonlyArray<string>, withOrg = true): CallerShape => ({
  user,
  credential: {
    kind: "token",
    tokenId: "00000000-0000-7000-8000-000000000004" as ApiTokenId,
    scopes,
    boundOrgId: null
  },
  org: withOrg ? org : null
})
const session: CallerShape = {
  user,
  credential: { kind: "session", sessionId: "00000000-0000-7000-8000-000000000005" as SessionId },
  org
}

const run = <A, E>(effect: Effect.Effect<A, E, Caller>, caller: CallerShape) =>
  Effect.either(Effect.provideService(effect, Caller, caller))

describe("Policy", () => {
  it.effect("a token without the endpoint's scope is 403 INSUFFICIENT_SCOPE naming it", () =>
    Effect.gen(function* () {
      const refused = yield* run(requireScope("targets:write"), token(["targets:read"]))
      expect(refused._tag).toBe("Left")
      if (refused._tag === "Left") {
        expect(refused.left.status).toBe(403)
        expect(refused.left.code).toBe("INSUFFICIENT_SCOPE")
        expect(refused.left.details).toEqual({ required: "targets:write" })
      }
      expect((yield* run(requireScope("targets:read"), token(["targets:write"])))._tag).toBe("Right")
      expect((yield* run(requireScope("targets:delete"), token(["full_access"])))._tag).toBe("Right")
      expect((yield* run(requireScope("targets:delete"), session))._tag).toBe("Right")
    })
  )

  it.effect("an unbound token with no org header is 400 ORG_REQUIRED where an org is needed", () =>
    Effect.gen(function* () {
      const refused = yield* run(requireOrg, token(["full_access"], false))
      expect(refused._tag === "Left" && refused.left.code).toBe("ORG_REQUIRED")
      expect(refused._tag === "Left" && refused.left.status).toBe(400)
      const found = yield* run(requireOrg, token(["full_access"]))
      expect(found._tag === "Right" && found.right.slug).toBe("acme")
    })
  )

  it.effect("session-only and owner-only refusals", () =>
    Effect.gen(function* () {
      const bearer = yield* run(requireSession, token(["full_access"]))
      expect(bearer._tag === "Left" && bearer.left.code).toBe("SESSION_REQUIRED")
      const member = yield* Effect.either(requireOwner(org))
      expect(member._tag === "Left" && member.left.code).toBe("OWNER_REQUIRED")
      expect((yield* Effect.either(requireOwner({ ...org, role: "owner" })))._tag).toBe("Right")
    })
  )
})
