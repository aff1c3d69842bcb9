/**
 * The account-facing billing requests (service-api.md "Billing"): the record, checkout, the portal, plan changes
 * and cancels. Each request reads the account's state, asks core's rules (`@signalman/core/Billing`) what to do,
 * calls the payment provider with no database transaction open, then writes what the provider answered. The
 * provider's webhook stays the authority on what is in force: nothing here changes the plan, the interval or the
 * status; only what is booked for the period end (a change and its schedule, a cancel) is written at once, from
 * the provider's answer, so the record shows the booking before the webhook arrives.
 */
import * as ApiError from "@signalman/core/ApiError"
import { BillingRecord, PlanOnSale, PlanPrice, ProviderRedirect } from "@signalman/core/api/Billing"
import * as Rules from "@signalman/core/Billing"
import type { AccountId } from "@signalman/core/Identity"
import * as Plan from "@signalman/core/Plan"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { AppConfig } from "../config/Config.js"
import { ConfiguredProvider } from "./ConfiguredProvider.js"
import { billingUnavailable } from "./Payer.js"
import type { PaymentProviderError } from "./PaymentProvider.js"
import { BillingRepo, type BillingState as BillingRow } from "./Repo.js"

/** Where the provider sends the person back to: the billing page, told how the visit ended. */
export const returnPaths = {
  success: "/settings/billing?checkout=done",
  cancel: "/settings/billing?checkout=cancelled",
  portal: "/settings/billing"
} as const

/** The provider failing, as the API answers it; our side changed nothing. */
export const providerFailed = (error: PaymentProviderError) =>
  error.kind === "unavailable"
    ? ApiError.make(
        "PAYMENT_PROVIDER_UNAVAILABLE",
        "The payment provider is not answering; nothing was changed. Try again in a minute",
        { details: { provider_status: error.status ?? null } }
      )
    : ApiError.make("PAYMENT_PROVIDER_REFUSED", `The payment provider refused the request: ${error.message}`, {
        details: { provider_status: error.status ?? null }
      })

/** The row as core's rules see it: a subscription the provider has told us about, or none. */
export const subscriptionOf = (row: BillingRow): Rules.Subscription | null =>
  row.subscription_id === null ||
  row.status === null ||
  row.plan_id === null ||
  row.interval === null ||
  row.current_period_end === null
    ? null
    : {
        status: row.status,
        planId: row.plan_id,
        interval: row.interval,
        currentPeriodEnd: row.current_period_end,
        pendingPlanId: row.pending_plan_id,
        pendingInterval: row.pending_interval,
        scheduleId: row.schedule_id,
        cancelAtPeriodEnd: row.cancel_at_period_end ?? false,
        paymentFailed: row.payment_failed ?? false
      }

const utc = (date: Date | null) => (date === null ? null : DateTime.unsafeFromDate(date))

const noCustomer = () =>
  ApiError.make("SUBSCRIPTION_STATE", "The account has never bought a plan: there is no portal to open yet", {
    details: { state: "none" }
  })

export class Billing extends Effect.Service<Billing>()("Signalman/Billing", {
  effect: Effect.gen(function* () {
    const repo = yield* BillingRepo
    const configured = yield* ConfiguredProvider
    const config = yield* AppConfig
    const prices: Rules.Prices = config["billing.prices"]
    const amounts = config["billing.amounts"]

    // Every plan and cadence with a price, in the plans' order; the label of what it costs from `billing.amounts`.
    const onSale = Rules.planOrder.flatMap((planId) => {
      const sold = (["month", "year"] as const).flatMap((interval) => {
        if (Rules.priceOf(prices, planId, interval) === undefined || planId === "free") return []
        const amount = amounts[planId]?.[interval]
        return [
          new PlanPrice({
            interval,
            amount_minor: amount?.amount_minor ?? null,
            currency: amount?.currency ?? null
          })
        ]
      })
      return sold.length === 0 ? [] : [new PlanOnSale({ plan_id: planId, name: Plan.plans[planId].name, prices: sold })]
    })

    const read = (accountId: AccountId) =>
      Effect.flatMap(
        repo.state(accountId),
        Option.match({
          onNone: () => Effect.dieMessage(`account ${accountId} of a signed-in caller is gone`),
          onSome: Effect.succeed
        })
      )

    // A second checkout racing the first may have stored its customer meanwhile: the first stored stays, the
    // other is left unused at the provider (it holds nothing).
    const storeCustomer = (accountId: AccountId, customerId: string) =>
      Effect.gen(function* () {
        yield* repo.insertCustomer(accountId, customerId)
        const stored = yield* repo.byAccount(accountId)
        return Option.match(stored, { onNone: () => customerId, onSome: (row) => row.customer_id })
      })

    const toRecord = (row: BillingRow): BillingRecord => {
      // A subscription the provider told us of, ended ones included (their status says so).
      const known = subscriptionOf(row)
      return new BillingRecord({
        subscription_status: known === null ? null : known.status,
        plan_id: row.account_plan_id,
        interval: known?.interval ?? null,
        current_period_end: utc(known?.currentPeriodEnd ?? null),
        pending_plan_id: known === null ? null : row.pending_plan_id,
        pending_interval: known === null ? null : row.pending_interval,
        plan_change_at: known === null ? null : utc(row.plan_change_at),
        cancel_at_period_end: known?.cancelAtPeriodEnd ?? false,
        payment_failed: known?.paymentFailed ?? false,
        plans_on_sale: onSale
      })
    }

    const call = <A>(effect: Effect.Effect<A, PaymentProviderError>) => Effect.mapError(effect, providerFailed)

    // The provider, or 404 BILLING_UNAVAILABLE: the routes' gate (`Payer.requirePayer`) refuses first, so an
    // operation reaching this without one cannot happen, but the operations stay safe to call on their own.
    const requireProvider = Option.match(configured, {
      onNone: () => Effect.fail(billingUnavailable()),
      onSome: (operations) => Effect.succeed(operations)
    })

    const refuse = <A, E>(decision: Either.Either<A, E>) =>
      Either.isLeft(decision) ? Effect.fail(decision.left) : Effect.succeed(decision.right)

    const liveOrDie = (row: BillingRow) => {
      const subscription = subscriptionOf(row)
      return row.subscription_id === null || subscription === null
        ? Effect.dieMessage("a rule allowed a change without a subscription")
        : Effect.succeed({ id: row.subscription_id, subscription })
    }

    const clearBooking = (accountId: AccountId) =>
      repo.writeBooking({
        account_id: accountId,
        pending_plan_id: null,
        pending_interval: null,
        plan_change_at: null,
        schedule_id: null
      })

    return {
      record: (accountId: AccountId) => Effect.map(read(accountId), toRecord),

      /** The provider's checkout page for the plan; the customer is created there once per account. */
      checkout: (
        account: { readonly id: AccountId; readonly email: string },
        request: Rules.CheckoutRequest,
        baseUrl: string
      ) =>
        Effect.gen(function* () {
          const provider = yield* requireProvider
          const row = yield* read(account.id)
          const { priceId } = yield* refuse(Rules.checkout(subscriptionOf(row), request, prices))
          const customerId =
            row.customer_id ??
            (yield* Effect.flatMap(
              call(provider.createCustomer({ accountId: account.id, email: account.email })),
              (c) => storeCustomer(account.id, c.id)
            ))
          const session = yield* call(
            provider.createCheckout({
              customerId,
              priceId,
              accountId: account.id,
              successUrl: `${baseUrl}${returnPaths.success}`,
              cancelUrl: `${baseUrl}${returnPaths.cancel}`
            })
          )
          return new ProviderRedirect({ url: session.url })
        }),

      /** The provider's customer portal, for an account that has a customer there. */
      portal: (accountId: AccountId, baseUrl: string) =>
        Effect.gen(function* () {
          const provider = yield* requireProvider
          const row = yield* read(accountId)
          if (row.customer_id === null) return yield* Effect.fail(noCustomer())
          const portal = yield* call(
            provider.createPortal({ customerId: row.customer_id, returnUrl: `${baseUrl}${returnPaths.portal}` })
          )
          return new ProviderRedirect({ url: portal.url })
        }),

      changePlan: (accountId: AccountId, request: Rules.PlanChangeRequest) =>
        Effect.gen(function* () {
          const provider = yield* requireProvider
          const row = yield* read(accountId)
          const change = yield* refuse(Rules.changePlan(subscriptionOf(row), request, prices))
          const { id, subscription } = yield* liveOrDie(row)
          switch (change._tag) {
            case "UpgradeNow": {
              // The booking is dropped first: the provider keeps one schedule per subscription, and an upgrade
              // supersedes whatever was booked for the period end.
              if (change.releaseScheduleId !== null) yield* call(provider.releaseSchedule(change.releaseScheduleId))
              yield* clearBooking(accountId)
              yield* call(provider.changePriceNow({ subscriptionId: id, priceId: change.priceId }))
              break
            }
            case "BookAtPeriodEnd": {
              if (change.releaseScheduleId !== null) {
                yield* call(provider.releaseSchedule(change.releaseScheduleId))
                yield* clearBooking(accountId)
              }
              const booked = yield* call(provider.bookAtPeriodEnd({ subscriptionId: id, priceId: change.priceId }))
              yield* repo.writeBooking({
                account_id: accountId,
                pending_plan_id: change.planId === subscription.planId ? null : change.planId,
                pending_interval: change.interval === subscription.interval ? null : change.interval,
                plan_change_at: change.at,
                schedule_id: booked.scheduleId
              })
              break
            }
            case "WithdrawBooking": {
              if (change.scheduleId !== null) yield* call(provider.releaseSchedule(change.scheduleId))
              yield* clearBooking(accountId)
              break
            }
          }
          return toRecord(yield* read(accountId))
        }),

      cancel: (accountId: AccountId) =>
        Effect.gen(function* () {
          const provider = yield* requireProvider
          const row = yield* read(accountId)
          const decision = yield* refuse(Rules.cancel(subscriptionOf(row)))
          const { id } = yield* liveOrDie(row)
          if (decision._tag === "Now") {
            // Ended by the provider now; the webhook's `customer.subscription.deleted` moves the plan.
            yield* call(provider.cancelNow(id))
          } else {
            if (decision.releaseScheduleId !== null) {
              yield* call(provider.releaseSchedule(decision.releaseScheduleId))
              yield* clearBooking(accountId)
            }
            const answered = yield* call(provider.setCancelAtPeriodEnd({ subscriptionId: id, value: true }))
            yield* repo.writeCancelBooked(accountId, answered.cancelAtPeriodEnd)
          }
          return toRecord(yield* read(accountId))
        }),

      withdrawCancel: (accountId: AccountId) =>
        Effect.gen(function* () {
          const provider = yield* requireProvider
          const row = yield* read(accountId)
          yield* refuse(Rules.withdrawCancel(subscriptionOf(row)))
          const { id } = yield* liveOrDie(row)
          const answered = yield* call(provider.setCancelAtPeriodEnd({ subscriptionId: id, value: false }))
          yield* repo.writeCancelBooked(accountId, answered.cancelAtPeriodEnd)
          return toRecord(yield* read(accountId))
        })
    }
  }),
  dependencies: [BillingRepo.Default]
}) {}
