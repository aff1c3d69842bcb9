/**
 * Deleting the account ends a paid subscription at the provider first and is refused if the provider will not end
 * it (service-api.md "Billing"). Before the soft delete, a live subscription (any status but the ended ones) is
 * cancelled at once through the payment provider (`DELETE /v1/subscriptions/{id}`), outside any transaction: the
 * call may take seconds and retries, and no row lock or connection is held across it. Only when the provider
 * answers that it ended does the deletion go on; a refusal, or no answer, refuses the deletion and nothing is
 * deleted (409 SUBSCRIPTION_STATE, `details.reason` `provider_refused` or `provider_unavailable`). An account
 * whose subscription has ended, or that never had one, is deleted without a call.
 *
 * A cancel refused because the subscription has already ended at the provider (its event not yet here) is not a
 * refusal: the provider is asked how the subscription stands, and one that has ended lets the deletion go on.
 *
 * Should the soft delete fail after the provider ended the subscription, the subscription stays ended (the
 * provider's webhook tells the rest) and a retry of the deletion finds nothing live to end.
 */
import * as ApiError from "@signalman/core/ApiError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ConfiguredProvider from "../billing/ConfiguredProvider.js"
import type { PaymentProviderError } from "../billing/PaymentProvider.js"
import { MeRepo, type Subscription } from "./Repo.js"

/** The provider's statuses of a subscription that is over: nothing is charged any more. */
const ENDED: ReadonlyArray<string> = ["canceled", "incomplete_expired"]

const isLive = (subscription: Subscription): boolean =>
  subscription.status === null || !ENDED.includes(subscription.status)

const refused = (reason: "provider_refused" | "provider_unavailable", message: string) =>
  ApiError.make(
    "SUBSCRIPTION_STATE",
    reason === "provider_refused"
      ? "The payment provider refused to end the subscription, so the account was not deleted"
      : "The payment provider could not be reached to end the subscription, so the account was not deleted",
    { details: { reason, provider_message: message } }
  )

const fromProvider = (error: PaymentProviderError) =>
  refused(error.kind === "refused" ? "provider_refused" : "provider_unavailable", error.message)

export class SubscriptionEnd extends Effect.Service<SubscriptionEnd>()("Signalman/SubscriptionEnd", {
  effect: Effect.gen(function* () {
    const repo = yield* MeRepo
    const provider = yield* ConfiguredProvider.ConfiguredProvider

    /** Ends the account's live subscription at the provider, or fails with why the deletion is refused. */
    const beforeDeletion = (accountId: string) =>
      Effect.gen(function* () {
        const found = yield* repo.subscriptionOf(accountId)
        if (Option.isNone(found) || !isLive(found.value)) return
        const subscription = found.value
        // A subscription with billing since turned off: nothing here can end it, and it must not be left charging.
        if (Option.isNone(provider)) {
          return yield* Effect.fail(refused("provider_unavailable", "no payment provider is configured"))
        }
        const operations = provider.value
        const id = subscription.subscription_id
        const ended = yield* operations.cancelNow(id).pipe(
          // Refused because it has ended already (at the provider, its event not here yet): what counts is that it
          // is over, so the provider is asked how it stands and a subscription ended there lets the deletion go on.
          Effect.catchIf(
            (error) => error.kind === "refused",
            (error) =>
              Effect.flatMap(
                Effect.orElseFail(operations.getSubscription(id), () => error),
                (current) => (ENDED.includes(current.status) ? Effect.succeed(current) : Effect.fail(error))
              )
          ),
          Effect.mapError(fromProvider)
        )
        yield* repo.subscriptionEnded(accountId, id, ended.status)
      })

    return { beforeDeletion }
  })
}) {}

/** The service with its repository and the provider the settings name. */
export const layer = SubscriptionEnd.Default.pipe(Layer.provide([MeRepo.Default, ConfiguredProvider.layer]))
