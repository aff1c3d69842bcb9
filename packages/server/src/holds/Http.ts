/**
 * The `holds` group: `GET|PUT /api/v1/account/holds`, behind the billing gate (`billing/Payer.ts`).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { SignalmanApi } from "@signalman/core/api/Api"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Authentication from "../auth/Authentication.js"
import { requirePayer } from "../billing/Payer.js"
import { Holds } from "./Holds.js"

export const layer = HttpApiBuilder.group(SignalmanApi, "holds", (handlers) =>
  Effect.map(Holds, (holds) =>
    handlers
      .handle("get", () => Effect.flatMap(requirePayer, (payer) => holds.get(payer.accountId)))
      .handle("pick", ({ payload }) => Effect.flatMap(requirePayer, (payer) => holds.pick(payer, payload)))
  )
).pipe(Layer.provide([Holds.Default, Authentication.layer]))
