/**
 * Who may act on an account's billing (and its holds): an owner of the org the request acts in who is also the
 * account's payer. The payer is the person the account was opened for, the one who signed up (`users.account_id`
 * names it): an account is opened with its first person and a person belongs to exactly one account, so no
 * lookup is needed. An owner promoted in someone else's org manages the org but does not pay for it: 403
 * `ACCOUNT_OWNER_REQUIRED`. A member is refused as for any owner-only action (403 `OWNER_REQUIRED`).
 */
import * as ApiError from "@signalman/core/ApiError"
import { Caller } from "@signalman/core/api/Authentication"
import type { AccountId } from "@signalman/core/Identity"
import * as Effect from "effect/Effect"
import { requireOrg, requireOwner } from "../auth/Policy.js"

export const accountOwnerRequired = () =>
  ApiError.make(
    "ACCOUNT_OWNER_REQUIRED",
    "Only the person who pays for this org's account may manage its billing; ask the account's owner"
  )

/** The account the caller pays for, through the org the request acts in. */
export const requirePayer = Effect.gen(function* () {
  const caller = yield* Caller
  const org = yield* requireOrg
  yield* requireOwner(org)
  if (org.accountId !== caller.user.accountId) return yield* Effect.fail(accountOwnerRequired())
  const account: { readonly id: AccountId; readonly email: string } = { id: org.accountId, email: caller.user.email }
  return account
})
