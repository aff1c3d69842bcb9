/**
 * `POST /webhooks/stripe` (decisions.md, "Billing"): the provider telling us a subscription changed. The provider
 * is the authority, so an event is only a cue: its signature is checked on the raw body, then the subscription it
 * names is read from the provider (`getSubscription`, with no transaction open) and what that says is written, in
 * one transaction with the event's id in `billing_events`, so each event is applied once and a redelivery or a
 * concurrent duplicate changes nothing. Events out of order do no harm: each writes the provider's state at its
 * read, not the event's snapshot. Two deliveries about one account racing (Stripe sends in parallel) could still
 * commit an older read after a newer one, so the write is optimistic: it is refused when the account's row changed
 * since before the read, and the provider is read again.
 *
 * Events used: `checkout.session.completed` (its `client_reference_id` is the account: the customer and the
 * subscription are stored for it), `customer.subscription.created|updated|deleted`, `invoice.paid`,
 * `invoice.payment_failed`. Others are answered 200 and ignored. A provider that cannot be reached is answered 503
 * without recording the event, so Stripe delivers it again later.
 */
import * as ApiError from "@signalman/core/ApiError"
import { AccountId } from "@signalman/core/Identity"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
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

/** What an event is about: its subscription, its customer, and the account when the event names it (a checkout). */
interface Subject {
  readonly subscriptionId: string | null
  readonly customerId: string | null
  readonly accountId: Option.Option<AccountId>
}

const Customer = Schema.Struct({ customer: Schema.optionalWith(Schema.NullOr(Expandable), { default: () => null }) })

const subjectOf = (type: string, object: Readonly<Record<string, unknown>>): Subject => {
  const customerId = Option.match(Schema.decodeUnknownOption(Customer)(object), {
    onNone: () => null,
    onSome: ({ customer }) => (customer === null ? null : idOf(customer))
  })
  const none = { subscriptionId: null, customerId, accountId: Option.none<AccountId>() }
  if (type === "checkout.session.completed") {
    return Option.match(Schema.decodeUnknownOption(CheckoutSession)(object), {
      onNone: () => none,
      onSome: (session) => ({
        subscriptionId: session.subscription === null ? null : idOf(session.subscription),
        customerId,
        accountId: Schema.decodeUnknownOption(AccountId)(session.client_reference_id)
      })
    })
  }
  if (type.startsWith("customer.subscription.")) {
    return Option.match(Schema.decodeUnknownOption(SubscriptionObject)(object), {
      onNone: () => none,
      onSome: (subscription) => ({ subscriptionId: subscription.id, customerId, accountId: Option.none() })
    })
  }
  return Option.match(Schema.decodeUnknownOption(InvoiceObject)(object), {
    onNone: () => none,
    onSome: (invoice) => {
      const subscription = invoice.subscription ?? invoice.parent?.subscription_details?.subscription ?? null
      return { subscriptionId: subscription === null ? null : idOf(subscription), customerId, accountId: Option.none() }
    }
  })
}

const badRequest = (field: string, message: string) => ApiError.make("VALIDATION_FAILED", message, { field })

const isHandled = (type: string): boolean => HANDLED.some((t) => t === type)

/** The row changed between the version taken before the provider's read and the write: read again. */
class Raced extends Data.TaggedError("Raced") {}

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

    /** The row an event is about: the named account's, else the subscription's, else its customer's. */
    const rowOf = (subject: Subject, lock: boolean) =>
      Option.isSome(subject.accountId)
        ? repo.rowOfAccount(subject.accountId.value, lock)
        : repo.rowOfSubscription(subject.subscriptionId ?? "", subject.customerId, lock)

    const versionOf = (row: Option.Option<{ readonly account_id: string; readonly version: string }>) =>
      Option.match(row, { onNone: () => "none", onSome: (r) => `${r.account_id}@${r.version}` })

    /**
     * One try: the row's version, the provider's read (no transaction open), then the write, refused when the row
     * changed since the version was taken. A concurrent delivery that committed in between may have written a
     * newer read than ours; the caller then reads again, so the last write always comes from the last read.
     */
    const attempt = (provider: Operations, event: typeof Event.Type, subject: Subject & { subscriptionId: string }) =>
      Effect.gen(function* () {
        const before = versionOf(yield* rowOf(subject, false))
        const read = yield* Effect.either(provider.getSubscription(subject.subscriptionId))
        if (Either.isLeft(read)) {
          const error = read.left
          if (error.kind === "refused" && error.status === 404) {
            yield* Effect.logWarning("Billing event names a subscription the provider does not know").pipe(
              Effect.annotateLogs({ event: event.id, subscription: subject.subscriptionId })
            )
            yield* repo.recordEvent(event.id, event.type)
            return { outcome: "ignored" as const, accountId: Option.none<AccountId>() }
          }
          yield* Effect.logError("Billing event not applied: the provider could not be read").pipe(
            Effect.annotateLogs({ event: event.id, reason: error.message })
          )
          return yield* ApiError.make("NOT_READY", "The payment provider could not be reached; deliver the event again")
        }
        const subscription = read.right
        return yield* repo.transaction(
          Effect.gen(function* () {
            if (Option.isNone(yield* repo.recordEvent(event.id, event.type))) {
              return { outcome: "duplicate" as const, accountId: Option.none<AccountId>() }
            }
            const row = yield* rowOf(subject, true)
            if (versionOf(row) !== before) return yield* new Raced()
            const accountId = Option.isSome(subject.accountId)
              ? Option.map(yield* repo.accountExists(subject.accountId.value), (r) => r.id)
              : Option.map(row, (r) => r.account_id)
            if (Option.isNone(accountId)) return { outcome: "ignored" as const, accountId }
            // Another subscription of the account's is on record: an event about an older one changes nothing,
            // unless the one on record has ended or this is the checkout that started the new one.
            const other = Option.filter(row, (r) => r.subscription_id !== null && r.subscription_id !== subscription.id)
            if (
              Option.isSome(other) &&
              event.type !== "checkout.session.completed" &&
              !ENDED.has(other.value.status ?? "")
            ) {
              return { outcome: "ignored" as const, accountId }
            }
            const derived = ProviderState.derive({
              accountId: accountId.value,
              subscription,
              prices,
              paymentFailedBefore: Option.match(row, { onNone: () => false, onSome: (r) => r.payment_failed }),
              eventType: event.type
            })
            yield* repo.writeSubscription(derived.state)
            if (Option.isSome(derived.planInForce)) {
              yield* repo.setPlanInForce(accountId.value, derived.planInForce.value)
            }
            yield* Effect.logInfo("Billing event applied").pipe(
              Effect.annotateLogs({
                event: event.id,
                type: event.type,
                subscription: subscription.id,
                status: subscription.status
              })
            )
            return { outcome: "applied" as const, accountId }
          })
        )
      })

    /** Applies one verified event, reading the provider again (up to three times) when a delivery raced it. */
    const apply = (provider: Operations, event: typeof Event.Type): Effect.Effect<Outcome, ApiError.ApiError> =>
      Effect.gen(function* () {
        const subject = subjectOf(event.type, event.data.object)
        const subscriptionId = subject.subscriptionId
        if (subscriptionId === null) {
          yield* Effect.logInfo("Billing event names no subscription").pipe(Effect.annotateLogs({ event: event.id }))
          yield* repo.recordEvent(event.id, event.type)
          return "ignored"
        }
        for (let n = 1; ; n++) {
          const result = yield* Effect.either(attempt(provider, event, { ...subject, subscriptionId }))
          if (Either.isRight(result)) {
            const { outcome, accountId } = result.right
            if (Option.isSome(accountId)) yield* plans.invalidate(accountId.value)
            return outcome
          }
          if (result.left._tag !== "Raced") return yield* result.left
          if (n >= 3) {
            return yield* ApiError.make("NOT_READY", "The subscription kept changing; deliver the event again")
          }
        }
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
            nowSecs: Math.floor((yield* Clock.currentTimeMillis) / 1000)
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
