/**
 * The `billing` group (`/api/v1/account/billing*`): thin handlers over `Billing`. Session only (the contract's
 * annotation; a token gets 403 `SESSION_REQUIRED` from the middleware), then 404 `BILLING_UNAVAILABLE` when no
 * provider is configured, then the payer gate (`Payer.ts`).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { SignalmanApi } from "@signalman/core/api/Api"
import { Caller } from "@signalman/core/api/Authentication"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Authentication from "../auth/Authentication.js"
import { publicBaseUrl } from "../config/Config.js"
import { Billing } from "./Billing.js"
import { requirePayer } from "./Payer.js"

export const layer = HttpApiBuilder.group(SignalmanApi, "billing", (handlers) =>
  Effect.gen(function* () {
    const base = yield* publicBaseUrl
    const billing = yield* Billing
    // No provider first (the feature is off for everyone), then who may use it.
    const account = Effect.map(requirePayer, (payer) => payer.accountId)
    return handlers
      .handle("get", () => Effect.flatMap(account, billing.record))
      .handle("checkout", ({ payload }) =>
        Effect.gen(function* () {
          const accountId = yield* account
          const caller = yield* Caller
          return yield* billing.checkout({ id: accountId, email: caller.user.email }, payload, base)
        })
      )
      .handle("portal", () => Effect.flatMap(account, (id) => billing.portal(id, base)))
      .handle("changePlan", ({ payload }) => Effect.flatMap(account, (id) => billing.changePlan(id, payload)))
      .handle("cancel", () => Effect.flatMap(account, billing.cancel))
      .handle("withdrawCancel", () => Effect.flatMap(account, billing.withdrawCancel))
  })
).pipe(Layer.provide([Billing.Default, Authentication.layer]))
