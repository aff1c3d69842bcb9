/**
 * The `heartbeats` group: the heartbeat record and the rotation of its ping URL, and the state of manual monitors.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { SignalmanApi } from "@signalman/core/api/Api"
import { Caller } from "@signalman/core/api/Authentication"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Authentication from "../auth/Authentication.js"
import { requireOrg } from "../auth/Policy.js"
import { ManualStates } from "../manual/ManualStates.js"
import { Targets } from "../targets/Targets.js"
import { Heartbeats } from "./Heartbeats.js"

export const layer = HttpApiBuilder.group(SignalmanApi, "heartbeats", (handlers) =>
  Effect.gen(function* () {
    const heartbeats = yield* Heartbeats
    const manual = yield* ManualStates
    return handlers
      .handle("record", ({ path }) =>
        Effect.gen(function* () {
          return yield* heartbeats.record(yield* requireOrg, path.id)
        })
      )
      .handle("rotate", ({ path, payload }) =>
        Effect.gen(function* () {
          return yield* heartbeats.rotate(yield* requireOrg, path.id, payload)
        })
      )
      .handle("endPrevious", ({ path }) =>
        Effect.gen(function* () {
          yield* heartbeats.endPrevious(yield* requireOrg, path.id)
        })
      )
      .handle("state", ({ path }) =>
        Effect.gen(function* () {
          return yield* manual.get(yield* requireOrg, path.id)
        })
      )
      .handle("setState", ({ path, payload }) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          return yield* manual.set(yield* requireOrg, path.id, payload, caller.user.id)
        })
      )
  })
).pipe(
  Layer.provide([Heartbeats.Default, ManualStates.Default, Authentication.layer]),
  // Manual states read the monitor they restate.
  Layer.provide(Targets.Default)
)
