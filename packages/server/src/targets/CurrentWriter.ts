/**
 * Who is writing a monitor: the caller's org, its plan and the user, as every write of the `targets` group and the
 * MCP tools' pause and resume take it.
 */
import { Caller } from "@signalman/core/api/Authentication"
import * as Effect from "effect/Effect"
import { requireOrg } from "../auth/Policy.js"
import { Plans } from "../limits/Plans.js"
import type { Writer } from "./Admission.js"

export const currentWriter = Effect.gen(function* () {
  const plans = yield* Plans
  const caller = yield* Caller
  const org = yield* requireOrg
  const plan = yield* plans.forAccount(org.accountId)
  return { org, plan, userId: caller.user.id, credential: caller.credential } satisfies Writer
})
