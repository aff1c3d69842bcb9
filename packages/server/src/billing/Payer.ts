/**
 * The gate of every billing route and of the holds (service-api.md "Billing (session only; caller must own the
 * org; 404 BILLING_UNAVAILABLE when no payment provider is configured)"): the account is the one owning the org the
 * request acts on (the session's active org, or `X-Signalman-Org`), and the caller must own that org and be the
 * account's payer. The payer is the person whose own account it is (`users.account_id`, the one who opened it):
 * an owner of the org who came from another account (made owner by invitation) pays nothing here and gets 403
 * ACCOUNT_OWNER_REQUIRED. Sessions only: the contract declares it (`sessionOnly`) and the check here repeats it for
 * callers outside the middleware.
 */
import * as ApiError from "@signalman/core/ApiError"
import { Caller } from "@signalman/core/api/Authentication"
import type { AccountId, UserId } from "@signalman/core/Identity"
import * as Effect from "effect/Effect"
import { requireOrg, requireOwner, requireSession } from "../auth/Policy.js"
import { AppConfig } from "../config/Config.js"

/** 404 BILLING_UNAVAILABLE: no payment provider is configured (`billing.provider` unset). */
export const billingUnavailable = () => ApiError.make("BILLING_UNAVAILABLE", "Billing is not offered by this service")

/** 403 ACCOUNT_OWNER_REQUIRED: an owner of the org, but not the person whose account pays for it. */
export const accountOwnerRequired = () =>
  ApiError.make("ACCOUNT_OWNER_REQUIRED", "Only the account's owner, who pays for it, may do this")

/** The paying account and its payer. */
export interface Payer {
  readonly accountId: AccountId
  readonly userId: UserId
}

/** Fails with BILLING_UNAVAILABLE unless a payment provider is configured. */
export const requireBilling = Effect.flatMap(AppConfig, (config) =>
  config["billing.provider"] === undefined ? Effect.fail(billingUnavailable()) : Effect.void
)

/** The account the request acts on, when the caller owns its org and is its payer (and billing is configured). */
export const requirePayer = Effect.gen(function* () {
  yield* requireBilling
  yield* requireSession
  const caller = yield* Caller
  const org = yield* requireOrg
  yield* requireOwner(org)
  if (caller.user.accountId !== org.accountId) return yield* Effect.fail(accountOwnerRequired())
  const payer: Payer = { accountId: org.accountId, userId: caller.user.id }
  return payer
})
