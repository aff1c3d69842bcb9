/**
 * `POST /webhooks/stripe` (decisions.md, "Billing"): the provider telling us a subscription changed. The provider
 * is the authority, so an event is only a cue: its signature is checked on the raw body, then the subscription it
 * names is read from the provider (`getSubscription`, with no transaction open) and what that says is written, in
 * one transaction with the event's id in `billing_events`, so each event is applied once and a redelivery or a
 * concurrent duplicate changes nothing. Events out of order do no harm: each writes the provider's state at its
 * read, not the event's snapshot.
 *
 * Events used: `checkout.session.completed` (its `client_reference_id` is the account: the customer and the
 * subscription are stored for it), `customer.subscription.created|updated|deleted`, `invoice.paid`,
 * `invoice.payment_failed`. Others are answered 200 and ignored. A provider that cannot be reached is answered 503
 * without recording the event, so Stripe delivers it again later.
 */
import * as ApiError from "@signalman/core/ApiError"
import { AccountId } from "@signalman/core/Identity"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { AppConfig } from "../config/Config.js"
import { Plans } from "../limits/Plans.js"
import * as ConfiguredProvider from "./ConfiguredProvider.js"
import type { Operations } from "./PaymentProvider.js"
import * as Prices from "./Prices.js"
import * as ProviderState from "./ProviderState.js"
import { BillingRepo } from "./Repo.js"
import * as WebhookSignature from "./WebhookSignature.js"

/** What became of a delivery that was accepted (all answered 200). */
export type Outcome = "applied" | "duplicate" | "ignored"

export const HANDLED = [
  "checkout.session.completed",
  "customer.subscription.created",
  "customer.subscription.updated",
  "customer.subscription.deleted",
  "invoice.paid",
  "invoice.payment_failed"
] as const

const Event = Schema.Struct({
  id: Schema.String,
  type: Schema.String,
  data: Schema.Struct({ object: Schema.Record({ key: Schema.String, value: Schema.Unknown }) })
})

const Expandable = Schema.Union(Schema.String, Schema.Struct({ id: Schema.String }))
const idOf = (value: typeof Expandable.Type) => (typeof value === "string" ? value : value.id)

const CheckoutSession = Schema.Struct({
  client_reference_id: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  subscription: Schema.optionalWith(Schema.NullOr(Expandable), { default: () => null })
})
const SubscriptionObject = Schema.Struct({ id: Schema.String })
// The invoice's subscription moved under `parent.subscription_details` in API 2025-03-31; older versions have it
// at the top. Either is read, whichever version the endpoint was created with.
const InvoiceObject = Schema.Struct({
  subscription: Schema.optionalWith(Schema.NullOr(Expandable), { default: () => null }),
  parent: Schema.optionalWith(
    Schema.NullOr(
      Schema.Struct({
        subscription_details: Schema.optionalWith(
          Schema.NullOr(Schema.Struct({ subscription: Schema.NullOr(Expandable) })),
          { default: () => null }
        )
      })
    ),
    { default: () => null }
  )
})

/** The subscription an event is about, and the account when the event names it (a checkout). */
const subjectOf = (
  type: string,
  object: Readonly<Record<string, unknown>>
): { readonly subscriptionId: string | null; readonly accountId: Option.Option<AccountId> } => {
  const none = { subscriptionId: null, accountId: Option.none<AccountId>() }
  if (type === "checkout.session.completed") {
    return Option.match(Schema.decodeUnknownOption(CheckoutSession)(object), {
      onNone: () => none,
      onSome: (session) => ({
        subscriptionId: session.subscription === null ? null : idOf(session.subscription),
        accountId: Schema.decodeUnknownOption(AccountId)(session.client_reference_id)
      })
    })
  }
  if (type.startsWith("customer.subscription.")) {
    return Option.match(Schema.decodeUnknownOption(SubscriptionObject)(object), {
      onNone: () => none,
      onSome: (subscription) => ({ subscriptionId: subscription.id, accountId: Option.none() })
    })
  }
  return Option.match(Schema.decodeUnknownOption(InvoiceObject)(object), {
    onNone: () => none,
    onSome: (invoice) => {
      const subscription = invoice.subscription ?? invoice.parent?.subscription_details?.subscription ?? null
      return { subscriptionId: subscription === null ? null : idOf(subscription), accountId: Option.none() }
    }
  })
}

const badRequest = (field: string, message: string) => ApiError.make("VALIDATION_FAILED", message, { field })

const isHandled = (type: string): boolean => HANDLED.some((t) => t === type)

interface Applied {
  readonly outcome: "applied" | "ignored"
  readonly accountId: Option.Option<AccountId>
}

/** A subscription that ended cannot be replaced by anything but a new checkout. */
const ENDED = new Set(["canceled", "incomplete_expired"])

export class BillingWebhook extends Effect.Service<BillingWebhook>()("Signalman/BillingWebhook", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const repo = yield* BillingRepo
    const plans = yield* Plans
    const configured = yield* ConfiguredProvider.ConfiguredProvider
    const prices = Prices.make(config["billing.prices"])
    const secret = config["billing.stripe.webhook_secret"]

    /** Applies one verified event; the provider's read happens before the transaction opens. */
    const apply = (provider: Operations, event: typeof Event.Type) =>
      Effect.gen(function* () {
        const subject = subjectOf(event.type, event.data.object)
        if (subject.subscriptionId === null) {
          yield* Effect.logInfo("Billing event names no subscription").pipe(Effect.annotateLogs({ event: event.id }))
          yield* repo.recordEvent(event.id, event.type)
          return "ignored" as const
        }
        const read = yield* Effect.either(provider.getSubscription(subject.subscriptionId))
        if (Either.isLeft(read)) {
          const error = read.left
          if (error.kind === "refused" && error.status === 404) {
            yield* Effect.logWarning("Billing event names a subscription the provider does not know").pipe(
              Effect.annotateLogs({ event: event.id, subscription: subject.subscriptionId })
            )
            yield* repo.recordEvent(event.id, event.type)
            return "ignored" as const
          }
          yield* Effect.logError("Billing event not applied: the provider could not be read").pipe(
            Effect.annotateLogs({ event: event.id, reason: error.message })
          )
          return yield* ApiError.make("NOT_READY", "The payment provider could not be reached; deliver the event again")
        }
        const subscription = read.right
        const applied = yield* repo.transaction(
          Effect.gen(function* () {
            if (Option.isNone(yield* repo.recordEvent(event.id, event.type))) return Option.none<Applied>()
            const named = Option.isSome(subject.accountId)
              ? Option.map(yield* repo.accountExists(subject.accountId.value), (row) => row.id)
              : Option.none()
            const row = yield* repo.bySubscriptionOrCustomer(subscription.id, subscription.customerId)
            const accountId = Option.orElse(named, () => Option.map(row, (r) => r.account_id))
            if (Option.isNone(accountId)) return Option.some<Applied>({ outcome: "ignored", accountId })
            const stored = Option.filter(row, (r) => r.account_id === accountId.value)
            const other = Option.filter(
              stored,
              (r) => r.subscription_id !== null && r.subscription_id !== subscription.id
            )
            // Another subscription of the account's is on record: an event about an older one changes nothing,
            // unless the one on record has ended or this is the checkout that started the new one.
            if (
              Option.isSome(other) &&
              event.type !== "checkout.session.completed" &&
              !ENDED.has(other.value.status ?? "")
            ) {
              return Option.some<Applied>({ outcome: "ignored", accountId })
            }
            const derived = ProviderState.derive({
              accountId: accountId.value,
              subscription,
              prices,
              paymentFailedBefore: Option.match(stored, { onNone: () => false, onSome: (r) => r.payment_failed }),
              eventType: event.type
            })
            yield* repo.writeSubscription(derived.state)
            if (Option.isSome(derived.planInForce)) {
              yield* repo.setPlanInForce(accountId.value, derived.planInForce.value)
            }
            return Option.some<Applied>({ outcome: "applied", accountId })
          })
        )
        if (Option.isNone(applied)) return "duplicate" as const
        const { outcome, accountId } = applied.value
        if (Option.isSome(accountId)) yield* plans.invalidate(accountId.value)
        yield* Effect.logInfo("Billing event").pipe(
          Effect.annotateLogs({
            event: event.id,
            type: event.type,
            outcome,
            subscription: subscription.id,
            status: subscription.status
          })
        )
        return outcome
      })

    return {
      /** Verifies and applies one delivery: its raw body and its `Stripe-Signature` header. */
      receive: (body: Uint8Array, signature: string | undefined): Effect.Effect<Outcome, ApiError.ApiError> =>
        Effect.gen(function* () {
          if (Option.isNone(configured) || secret === undefined) {
            return yield* ApiError.make("BILLING_UNAVAILABLE", "Billing is not offered by this service")
          }
          const verified = WebhookSignature.verify({
            header: signature,
            body,
            secret,
            nowSecs: Math.floor(Date.now() / 1000)
          })
          if (Either.isLeft(verified)) {
            yield* Effect.logWarning("Billing webhook refused").pipe(
              Effect.annotateLogs({ reason: verified.left.reason })
            )
            return yield* badRequest("stripe-signature", verified.left.message)
          }
          const event = yield* Schema.decodeUnknown(Schema.parseJson(Event))(Buffer.from(body).toString("utf8")).pipe(
            Effect.mapError(() => badRequest("body", "The body is not a Stripe event"))
          )
          if (!isHandled(event.type)) return "ignored" as const
          // A redelivery of an applied event is answered before the provider is asked again.
          if (Option.isSome(yield* repo.eventSeen(event.id))) return "duplicate" as const
          return yield* apply(configured.value, event)
        })
    }
  }),
  dependencies: [BillingRepo.Default, Plans.Default, ConfiguredProvider.layer]
}) {}
