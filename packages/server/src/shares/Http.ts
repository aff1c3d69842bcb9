/**
 * The `shares` group: a monitor's share links (create, list the live ones, revoke). Any member of the org with
 * `targets:write` may manage them; a monitor of another org answers the same 404 as one that does not exist.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { SignalmanApi } from "@signalman/core/api/Api"
import { Caller } from "@signalman/core/api/Authentication"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Authentication from "../auth/Authentication.js"
import { requireOrg } from "../auth/Policy.js"
import { Shares } from "./Shares.js"

export const layer = HttpApiBuilder.group(SignalmanApi, "shares", (handlers) =>
  Effect.map(Shares, (shares) =>
    handlers
      .handle("create", ({ path, payload }) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          return yield* shares.create(yield* requireOrg, caller.user.id, path.id, payload)
        })
      )
      .handle("list", ({ path }) =>
        Effect.gen(function* () {
          return { data: yield* shares.list(yield* requireOrg, path.id) }
        })
      )
      .handle("revoke", ({ path }) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          yield* shares.revoke(yield* requireOrg, path.id, path.share_id, caller.user.id)
        })
      )
  )
).pipe(Layer.provide([Shares.Default, Authentication.layer]))
