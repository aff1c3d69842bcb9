/**
 * The account's linked providers (auth-and-limits.md, "Credential changes"): listed with when added and last used,
 * and removed one at a time. A removal refuses only when it would leave no way in (core's `removalRefusal`): with
 * magic links offered it never refuses. Removals of one person's methods serialise on their user row (`WaysIn`),
 * so two removals at once cannot each leave the other as the last way in and both go.
 */
import * as ApiError from "@signalman/core/ApiError"
import { isProvider } from "@signalman/core/OAuth"
import * as Effect from "effect/Effect"
import type { Device } from "../auth/Sessions.js"
import { CredentialEvents } from "../credentials/CredentialEvents.js"
import { type IdentityRow, OAuthRepo } from "./Repo.js"
import { WaysIn } from "./WaysIn.js"

export class SignInMethods extends Effect.Service<SignInMethods>()("Signalman/SignInMethods", {
  effect: Effect.gen(function* () {
    const repo = yield* OAuthRepo
    const waysIn = yield* WaysIn
    const credentialEvents = yield* CredentialEvents

    const notLinked = ApiError.make("NOT_FOUND", "No such provider is linked to your account", { field: "provider" })

    /**
     * Removes the identity, then records the change: the account mail, and every other session of the account
     * signed out (whoever removed a way in may be shutting out someone who took it).
     */
    const remove = (input: {
      readonly userId: string
      readonly sessionId: string
      readonly provider: string
      readonly providerUserId: string | undefined
      readonly device: Device
    }): Effect.Effect<IdentityRow, ApiError.ApiError> =>
      Effect.tap(removeIdentity(input.userId, input.provider, input.providerUserId), (removed) =>
        credentialEvents.removed({
          userId: input.userId,
          method: removed.provider,
          origin: "session",
          label: removed.label,
          device: input.device,
          keepSessionId: input.sessionId
        })
      )

    const removeIdentity = (
      userId: string,
      provider: string,
      providerUserId: string | undefined
    ): Effect.Effect<IdentityRow, ApiError.ApiError> =>
      repo.transaction(
        Effect.gen(function* () {
          if (!isProvider(provider)) return yield* Effect.fail(notLinked)
          yield* repo.lockUser(userId)
          const all = yield* repo.identitiesOf(userId)
          const ofProvider = all.filter((i) => i.provider === provider)
          const chosen =
            providerUserId === undefined ? ofProvider : ofProvider.filter((i) => i.provider_key === providerUserId)
          if (chosen.length === 0) return yield* Effect.fail(notLinked)
          const [target, ...others] = chosen
          if (target === undefined || others.length > 0) {
            return yield* Effect.fail(
              ApiError.make("VALIDATION_FAILED", "Two identities of this provider are linked: name one", {
                field: "provider_user_id",
                details: { provider_user_ids: chosen.map((i) => i.provider_key) }
              })
            )
          }
          const refusal = yield* waysIn.refusal(userId, { identityId: target.id })
          if (refusal !== undefined) return yield* Effect.fail(refusal)
          const removed = yield* repo.deleteIdentity(userId, target.id)
          return removed ?? (yield* Effect.fail(notLinked))
        })
      )

    return {
      list: (userId: string) => repo.identitiesOf(userId),
      remove
    }
  }),
  dependencies: [OAuthRepo.Default, CredentialEvents.Default, WaysIn.Default]
}) {}
