/**
 * The `shares` group: a monitor's share links (create, list the live ones, revoke). Any member of the org with
 * `targets:write` may manage them; a monitor of another org answers the same 404 as one that does not exist.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { SignalmanApi } from "@signalman/core/api/Api"
import { Caller } from "@signalman/core/api/Authentication"
import * as Effect from "effect/Effect"
import { requireOrg, requireScope } from "../auth/Policy.js"
import { Plans } from "../limits/Plans.js"
import { Shares } from "./Shares.js"

export const layer = HttpApiBuilder.group(SignalmanApi, "shares", (handlers) =>
  Effect.gen(function* () {
    const shares = yield* Shares
    const plans = yield* Plans

    return handlers
      .handle("create", ({ path, payload }) =>
        Effect.gen(function* () {
          yield* requireScope("targets:write")
          const caller = yield* Caller
          const org = yield* requireOrg
          const plan = yield* plans.forAccount(org.accountId)
          return yield* shares.create(org, caller.user.id, plan, path.id, payload)
        })
      )
      .handle("list", ({ path }) =>
        Effect.gen(function* () {
          yield* requireScope("targets:write")
          return { data: yield* shares.list(yield* requireOrg, path.id) }
        })
      )
      .handle("revoke", ({ path }) =>
        Effect.gen(function* () {
          yield* requireScope("targets:write")
          const caller = yield* Caller
          yield* shares.revoke(yield* requireOrg, path.id, path.share_id, caller.user.id)
        })
      )
  })
)
