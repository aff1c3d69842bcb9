/**
 * The `billing` group (`/api/v1/account/billing*`): thin handlers over `Billing`. Session only (the contract's
 * annotation; a token gets 403 `SESSION_REQUIRED` from the middleware), then 404 `BILLING_UNAVAILABLE` when no
 * provider is configured, then the payer gate (`Payer.ts`).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { SignalmanApi } from "@signalman/core/api/Api"
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
    const payer = Effect.zipRight(billing.available, requirePayer)
    return handlers
      .handle("get", () => Effect.flatMap(payer, (account) => billing.record(account.id)))
      .handle("checkout", ({ payload }) => Effect.flatMap(payer, (account) => billing.checkout(account, payload, base)))
      .handle("portal", () => Effect.flatMap(payer, (account) => billing.portal(account.id, base)))
      .handle("changePlan", ({ payload }) =>
        Effect.flatMap(payer, (account) => billing.changePlan(account.id, payload))
      )
      .handle("cancel", () => Effect.flatMap(payer, (account) => billing.cancel(account.id)))
      .handle("withdrawCancel", () => Effect.flatMap(payer, (account) => billing.withdrawCancel(account.id)))
  })
).pipe(Layer.provide([Billing.Default, Authentication.layer]))
