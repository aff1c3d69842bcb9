import { describe, expect, it } from "@effect/vitest"
import type { CallerShape } from "@signalman/core/api/Authentication"
import { ApiTokenId, SessionId } from "@signalman/core/Identity"
import * as Plan from "@signalman/core/Plan"
import * as Option from "effect/Option"
import * as Gates from "../src/oncall/Gates.js"

const session: CallerShape["credential"] = {
  kind: "session",
  sessionId: SessionId.make("00000000-0000-7000-8000-000000000005")
}
const token = (scopes: ReadonlyArray<string>): CallerShape["credential"] => ({
  kind: "token",
  tokenId: ApiTokenId.make("00000000-0000-7000-8000-000000000004"),
  scopes,
  boundOrgId: null
})

const refusal = (...args: Parameters<typeof Gates.refusal>) =>
  Option.match(Gates.refusal(...args), {
    onNone: () => undefined,
    onSome: (e) => ({ status: e.status, code: e.code, field: e.field })
  })

describe("on-call gates", () => {
  it("an owner on a plan with on-call passes, by session or with oncall:write (or full_access)", () => {
    expect(refusal(session, "owner", Plan.plans.pro)).toBeUndefined()
    expect(refusal(token(["oncall:write"]), "owner", Plan.plans.pro)).toBeUndefined()
    expect(refusal(token(["full_access"]), "owner", Plan.plans.pro)).toBeUndefined()
  })

  it("the scope is asked first, then the owner role, then the plan, each refusal naming the field given", () => {
    const field = "escalation_policy_id"
    expect(refusal(token(["oncall:read", "targets:write"]), "member", Plan.plans.free, field)).toEqual({
      status: 403,
      code: "INSUFFICIENT_SCOPE",
      field
    })
    expect(refusal(token(["oncall:write"]), "member", Plan.plans.free, field)).toEqual({
      status: 403,
      code: "OWNER_REQUIRED",
      field
    })
    expect(refusal(session, "owner", Plan.plans.free, field)).toEqual({ status: 403, code: "ON_CALL_DISABLED", field })
  })

  it("on the on-call routes the refusals name no field", () => {
    expect(refusal(session, "member", Plan.plans.pro)).toEqual({ status: 403, code: "OWNER_REQUIRED", field: null })
    expect(refusal(session, "owner", Plan.plans.founding)).toEqual({
      status: 403,
      code: "ON_CALL_DISABLED",
      field: null
    })
  })
})
