import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// Billing (issue 17; decisions.md, "Billing"). One row per account that has been to the payment provider: its
// customer there, and the subscription as the provider last told us (the webhook writes what `getSubscription`
// answers, so the row mirrors the provider, which is the authority). `status` is the provider's own subscription
// status, kept verbatim. `plan_id` here is the subscription's plan; the plan in force stays `accounts.plan_id`.
// A change booked for the period end is `pending_plan_id`/`pending_interval` from `plan_change_at`, carried by the
// provider's subscription schedule `schedule_id`. `payment_failed` is set by invoice.payment_failed and cleared by
// invoice.paid.
//
// `billing_events`: each webhook event id once; inserted in the transaction that applies the event, so a
// redelivered event (the provider retries until it gets a 2xx) changes nothing.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE billing_accounts (
      account_id uuid PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
      customer_id text NOT NULL UNIQUE,
      subscription_id text UNIQUE,
      status text,
      plan_id text REFERENCES plans(id),
      interval text CHECK (interval IN ('month', 'year')),
      current_period_end timestamptz,
      pending_plan_id text REFERENCES plans(id),
      pending_interval text CHECK (pending_interval IN ('month', 'year')),
      plan_change_at timestamptz,
      schedule_id text,
      cancel_at_period_end boolean NOT NULL DEFAULT false,
      payment_failed boolean NOT NULL DEFAULT false,
      updated_at timestamptz NOT NULL DEFAULT now()
    )
  `
  yield* sql`
    CREATE TABLE billing_events (
      event_id text PRIMARY KEY,
      type text NOT NULL,
      received_at timestamptz NOT NULL DEFAULT now()
    )
  `
})
