/**
 * Billing's SQL: an account's row at the payment provider (`billing_accounts`), the webhook's once-only ledger
 * (`billing_events`), and the plan in force (`accounts.plan_id`) the webhook sets from the provider's answer. For
 * the account-facing requests (`Billing.ts`): the plan in force with the row, and what a request books for the
 * period end (a change and its schedule, a cancel), each a statement of its own, never around a provider call.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { AccountId } from "@signalman/core/Identity"
import { PlanId } from "@signalman/core/Plan"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Transaction from "../database/Transaction.js"

const Interval = Schema.Literal("month", "year")

/** An account's billing row as stored. */
export const BillingAccountRow = Schema.Struct({
  account_id: AccountId,
  customer_id: Schema.String,
  subscription_id: Schema.NullOr(Schema.String),
  status: Schema.NullOr(Schema.String),
  plan_id: Schema.NullOr(PlanId),
  interval: Schema.NullOr(Interval),
  current_period_end: Schema.NullOr(Schema.DateFromSelf),
  pending_plan_id: Schema.NullOr(PlanId),
  pending_interval: Schema.NullOr(Interval),
  plan_change_at: Schema.NullOr(Schema.DateFromSelf),
  schedule_id: Schema.NullOr(Schema.String),
  cancel_at_period_end: Schema.Boolean,
  payment_failed: Schema.Boolean,
  updated_at: Schema.DateFromSelf
})
export type BillingAccountRow = typeof BillingAccountRow.Type

/** The subscription as the provider last described it, written over the row. */
export const SubscriptionState = Schema.Struct({
  account_id: AccountId,
  customer_id: Schema.String,
  subscription_id: Schema.String,
  status: Schema.String,
  plan_id: Schema.NullOr(PlanId),
  interval: Interval,
  current_period_end: Schema.DateFromSelf,
  pending_plan_id: Schema.NullOr(PlanId),
  pending_interval: Schema.NullOr(Interval),
  plan_change_at: Schema.NullOr(Schema.DateFromSelf),
  schedule_id: Schema.NullOr(Schema.String),
  cancel_at_period_end: Schema.Boolean,
  payment_failed: Schema.Boolean
})
export type SubscriptionState = typeof SubscriptionState.Type

/** The account's plan in force (`accounts.plan_id`) with its billing row, when it has been to the provider. */
export const BillingState = Schema.Struct({
  account_plan_id: Schema.String,
  customer_id: Schema.NullOr(Schema.String),
  subscription_id: Schema.NullOr(Schema.String),
  status: Schema.NullOr(Schema.String),
  plan_id: Schema.NullOr(PlanId),
  interval: Schema.NullOr(Interval),
  current_period_end: Schema.NullOr(Schema.DateFromSelf),
  pending_plan_id: Schema.NullOr(PlanId),
  pending_interval: Schema.NullOr(Interval),
  plan_change_at: Schema.NullOr(Schema.DateFromSelf),
  schedule_id: Schema.NullOr(Schema.String),
  cancel_at_period_end: Schema.NullOr(Schema.Boolean),
  payment_failed: Schema.NullOr(Schema.Boolean)
})
export type BillingState = typeof BillingState.Type

/** A change booked for the period end, or none (all null). */
export const Booking = Schema.Struct({
  account_id: AccountId,
  pending_plan_id: Schema.NullOr(PlanId),
  pending_interval: Schema.NullOr(Interval),
  plan_change_at: Schema.NullOr(Schema.DateFromSelf),
  schedule_id: Schema.NullOr(Schema.String)
})
export type Booking = typeof Booking.Type

/** A row with its version (`updated_at` to the microsecond), for the webhook's optimistic write. */
export const VersionedRow = Schema.Struct({ ...BillingAccountRow.fields, version: Schema.String })
export type VersionedRow = typeof VersionedRow.Type

const columns =
  "account_id, customer_id, subscription_id, status, plan_id, interval, current_period_end, pending_plan_id, pending_interval, plan_change_at, schedule_id, cancel_at_period_end, payment_failed, updated_at"

export class BillingRepo extends Effect.Service<BillingRepo>()("Signalman/BillingRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const byAccount = SqlSchema.findOne({
      Request: AccountId,
      Result: BillingAccountRow,
      execute: (accountId) => sql`SELECT ${sql.literal(columns)} FROM billing_accounts WHERE account_id = ${accountId}`
    })

    const rowOfAccount = SqlSchema.findOne({
      Request: Schema.Struct({ account_id: AccountId, lock: Schema.Boolean }),
      Result: VersionedRow,
      execute: ({ account_id, lock }) => sql`
        SELECT ${sql.literal(columns)}, updated_at::text AS version FROM billing_accounts
        WHERE account_id = ${account_id}
        ${sql.literal(lock ? "FOR UPDATE" : "")}
      `
    })

    const rowOfSubscription = SqlSchema.findOne({
      Request: Schema.Struct({
        subscription_id: Schema.String,
        customer_id: Schema.NullOr(Schema.String),
        lock: Schema.Boolean
      }),
      Result: VersionedRow,
      execute: ({ subscription_id, customer_id, lock }) => sql`
        SELECT ${sql.literal(columns)}, updated_at::text AS version FROM billing_accounts
        WHERE subscription_id = ${subscription_id} OR customer_id = ${customer_id}
        ORDER BY (subscription_id = ${subscription_id}) DESC NULLS LAST
        LIMIT 1
        ${sql.literal(lock ? "FOR UPDATE" : "")}
      `
    })

    const accountExists = SqlSchema.findOne({
      Request: AccountId,
      Result: Schema.Struct({ id: AccountId }),
      execute: (accountId) => sql`SELECT id FROM accounts WHERE id = ${accountId}`
    })

    const insertCustomer = SqlSchema.void({
      Request: Schema.Struct({ account_id: AccountId, customer_id: Schema.String }),
      execute: ({ account_id, customer_id }) => sql`
        INSERT INTO billing_accounts (account_id, customer_id) VALUES (${account_id}, ${customer_id})
        ON CONFLICT (account_id) DO NOTHING
      `
    })

    const recordEvent = SqlSchema.findOne({
      Request: Schema.Struct({ event_id: Schema.String, type: Schema.String }),
      Result: Schema.Struct({ event_id: Schema.String }),
      execute: ({ event_id, type }) => sql`
        INSERT INTO billing_events (event_id, type) VALUES (${event_id}, ${type})
        ON CONFLICT (event_id) DO NOTHING
        RETURNING event_id
      `
    })

    const eventSeen = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ event_id: Schema.String }),
      execute: (eventId) => sql`SELECT event_id FROM billing_events WHERE event_id = ${eventId}`
    })

    const writeSubscription = SqlSchema.void({
      Request: SubscriptionState,
      execute: (s) => sql`
        INSERT INTO billing_accounts (
          account_id, customer_id, subscription_id, status, plan_id, interval, current_period_end, pending_plan_id,
          pending_interval, plan_change_at, schedule_id, cancel_at_period_end, payment_failed, updated_at
        ) VALUES (
          ${s.account_id}, ${s.customer_id}, ${s.subscription_id}, ${s.status}, ${s.plan_id}, ${s.interval},
          ${s.current_period_end}, ${s.pending_plan_id}, ${s.pending_interval}, ${s.plan_change_at}, ${s.schedule_id},
          ${s.cancel_at_period_end}, ${s.payment_failed}, clock_timestamp()
        )
        ON CONFLICT (account_id) DO UPDATE SET
          customer_id = EXCLUDED.customer_id, subscription_id = EXCLUDED.subscription_id, status = EXCLUDED.status,
          plan_id = EXCLUDED.plan_id, interval = EXCLUDED.interval, current_period_end = EXCLUDED.current_period_end,
          pending_plan_id = EXCLUDED.pending_plan_id, pending_interval = EXCLUDED.pending_interval,
          plan_change_at = EXCLUDED.plan_change_at, schedule_id = EXCLUDED.schedule_id,
          cancel_at_period_end = EXCLUDED.cancel_at_period_end, payment_failed = EXCLUDED.payment_failed,
          updated_at = clock_timestamp()
      `
    })

    const setPlanInForce = SqlSchema.void({
      Request: Schema.Struct({ account_id: AccountId, plan_id: PlanId }),
      execute: ({ account_id, plan_id }) => sql`UPDATE accounts SET plan_id = ${plan_id} WHERE id = ${account_id}`
    })

    const state = SqlSchema.findOne({
      Request: AccountId,
      Result: BillingState,
      execute: (accountId) => sql`
        SELECT a.plan_id AS account_plan_id, b.customer_id, b.subscription_id, b.status, b.plan_id, b.interval,
          b.current_period_end, b.pending_plan_id, b.pending_interval, b.plan_change_at, b.schedule_id,
          b.cancel_at_period_end, b.payment_failed
        FROM accounts a LEFT JOIN billing_accounts b ON b.account_id = a.id
        WHERE a.id = ${accountId}
      `
    })

    const writeBooking = SqlSchema.void({
      Request: Booking,
      execute: (b) => sql`
        UPDATE billing_accounts
        SET pending_plan_id = ${b.pending_plan_id}, pending_interval = ${b.pending_interval},
          plan_change_at = ${b.plan_change_at}, schedule_id = ${b.schedule_id}, updated_at = clock_timestamp()
        WHERE account_id = ${b.account_id}
      `
    })

    const writeCancelBooked = SqlSchema.void({
      Request: Schema.Struct({ account_id: AccountId, value: Schema.Boolean }),
      execute: ({ account_id, value }) => sql`
        UPDATE billing_accounts SET cancel_at_period_end = ${value}, updated_at = clock_timestamp()
        WHERE account_id = ${account_id}
      `
    })

    return {
      /** The account's plan in force and billing row; none for an unknown account. */
      state: (accountId: AccountId) => Effect.orDie(state(accountId)),
      /** What a request booked for the period end (all null: nothing booked). */
      writeBooking: (booking: Booking) => Effect.orDie(writeBooking(booking)),
      /** A cancel booked for the period end, or withdrawn, as the provider answered. */
      writeCancelBooked: (accountId: AccountId, value: boolean) =>
        Effect.orDie(writeCancelBooked({ account_id: accountId, value })),
      /** The account's billing row, if it has been to the provider. */
      byAccount: (accountId: AccountId): Effect.Effect<Option.Option<BillingAccountRow>> =>
        Effect.orDie(byAccount(accountId)),
      accountExists: (accountId: AccountId) => Effect.orDie(accountExists(accountId)),
      /** The account's row with its version, locked for the transaction's rest when `lock`. */
      rowOfAccount: (accountId: AccountId, lock: boolean) =>
        Effect.orDie(rowOfAccount({ account_id: accountId, lock })),
      /** The subscription's row (else its customer's) with its version, locked when `lock`. */
      rowOfSubscription: (subscriptionId: string, customerId: string | null, lock: boolean) =>
        Effect.orDie(rowOfSubscription({ subscription_id: subscriptionId, customer_id: customerId, lock })),
      /** Remembers the account's customer at the provider (the first one stays). */
      insertCustomer: (accountId: AccountId, customerId: string) =>
        Effect.orDie(insertCustomer({ account_id: accountId, customer_id: customerId })),
      /** Whether a webhook event was processed already (a quick answer to a redelivery). */
      eventSeen: (eventId: string) => Effect.orDie(eventSeen(eventId)),
      /** Records an event as processed; none when it was already (the caller then changes nothing). */
      recordEvent: (eventId: string, type: string) => Effect.orDie(recordEvent({ event_id: eventId, type })),
      writeSubscription: (state: SubscriptionState) => Effect.orDie(writeSubscription(state)),
      setPlanInForce: (accountId: AccountId, planId: PlanId) =>
        Effect.orDie(setPlanInForce({ account_id: accountId, plan_id: planId })),
      /** Runs the statements in one transaction. */
      transaction: Transaction.make(sql)
    }
  })
}) {}
