/**
 * The payment provider as billing sees it (decisions.md, "Billing"): the few operations the billing routes, the
 * webhook and account deletion need, whatever provider sits behind them. `Stripe.ts` implements it over Stripe's
 * REST API; `ConfiguredProvider.ts` picks the implementation from `billing.provider`.
 *
 * No operation may be called with a database transaction open: each is a network round trip with retries.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"

/** A billing cadence, the provider's recurring interval. */
export type Interval = "month" | "year"

/** A change booked for the period end: the schedule's next phase. */
export interface PendingChange {
  readonly priceId: string
  /** When the next phase starts (the current period's end). */
  readonly at: Date
}

/** A subscription as the provider holds it now: the webhook writes what this says. */
export interface ProviderSubscription {
  readonly id: string
  readonly customerId: string
  /** The provider's own status (`active`, `past_due`, `canceled`, ...), kept verbatim. */
  readonly status: string
  readonly priceId: string
  readonly interval: Interval
  readonly currentPeriodEnd: Date
  readonly cancelAtPeriodEnd: boolean
  readonly scheduleId: string | null
  /** Whether the latest invoice is paid; null when there is none yet. */
  readonly latestInvoicePaid: boolean | null
  /**
   * The change its schedule books for the next phase, if any. Beyond the brief's contract: read from the same
   * `GET /v1/subscriptions/{id}` (the schedule expanded), so the webhook needs no second call.
   */
  readonly pendingChange: PendingChange | null
}

/**
 * Why a call failed. `unavailable`: the provider could not be reached or answered 5xx/429 past the retries (try
 * later); `refused`: it answered and said no (a 4xx with its error object), which retrying will not change.
 */
export class PaymentProviderError extends Data.TaggedError("PaymentProviderError")<{
  readonly kind: "unavailable" | "refused"
  readonly message: string
  /** The provider's HTTP status, when it answered. */
  readonly status?: number
  /** The provider's error code (`resource_missing`, ...), when it gave one. */
  readonly code?: string
}> {}

type Call<A> = Effect.Effect<A, PaymentProviderError>

/** The operations, exactly those decisions.md lists. */
export interface Operations {
  readonly createCustomer: (input: { readonly accountId: string; readonly email: string }) => Call<{
    readonly id: string
  }>
  readonly createCheckout: (input: {
    readonly customerId: string
    readonly priceId: string
    readonly accountId: string
    readonly successUrl: string
    readonly cancelUrl: string
  }) => Call<{ readonly id: string; readonly url: string }>
  readonly createPortal: (input: { readonly customerId: string; readonly returnUrl: string }) => Call<{
    readonly url: string
  }>
  readonly getSubscription: (id: string) => Call<ProviderSubscription>
  /** Moves to another price at once, prorated (`proration_behavior=create_prorations`). */
  readonly changePriceNow: (input: {
    readonly subscriptionId: string
    readonly priceId: string
  }) => Call<ProviderSubscription>
  readonly setCancelAtPeriodEnd: (input: {
    readonly subscriptionId: string
    readonly value: boolean
  }) => Call<ProviderSubscription>
  /** Ends the subscription now (a failed last payment, or account deletion). */
  readonly cancelNow: (subscriptionId: string) => Call<ProviderSubscription>
  /** Books a move to another price at the period end: a schedule whose next phase is the new price. */
  readonly bookAtPeriodEnd: (input: { readonly subscriptionId: string; readonly priceId: string }) => Call<{
    readonly scheduleId: string
  }>
  /** Drops a booked change: the schedule is released and the subscription goes on as it is. */
  readonly releaseSchedule: (scheduleId: string) => Call<void>
}

/**
 * The provider in use. Only present when `billing.provider` is set: ask `ConfiguredProvider` for it, which
 * answers 404 BILLING_UNAVAILABLE otherwise.
 */
export class PaymentProvider extends Context.Tag("Signalman/PaymentProvider")<PaymentProvider, Operations>() {}
