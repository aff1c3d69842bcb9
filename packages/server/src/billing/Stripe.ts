/**
 * The payment provider over Stripe's REST API (decisions.md, "Billing": exactly the calls listed there).
 *
 * - Requests are form-encoded in Stripe's bracket notation (`StripeForm.ts`), authenticated with
 *   `Authorization: Bearer <billing.stripe.secret_key>` and pinned to one API version, so the shapes decoded below
 *   do not move under us when the account's default version changes.
 * - Every POST carries an `Idempotency-Key`, chosen once per logical call and reused by its retries, so a retry
 *   after a lost answer cannot create a second customer or checkout, or apply a change twice. Creating the
 *   customer of an account uses a key derived from the account, so two concurrent first checkouts of one account
 *   share one customer.
 * - Each attempt has a timeout. A network failure, a timeout, 429 and 5xx are retried (at most `maxAttempts` in
 *   all), after the `Retry-After` the answer asks for or else an exponential backoff with jitter; a `Retry-After`
 *   longer than `maxRetryAfterMs` is not waited for (the call fails as unavailable rather than hold a request
 *   open), and `Stripe-Should-Retry: false` is believed.
 * - A 4xx is Stripe saying no: its error object `{ error: { type, code, message } }` is decoded into a `refused`
 *   `PaymentProviderError`. Every answer is decoded with a schema; one of another shape is `unavailable`.
 */
import { randomUUID } from "node:crypto"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { AppConfig } from "../config/Config.js"
import {
  type Interval,
  type Operations,
  PaymentProvider,
  PaymentProviderError,
  type PendingChange,
  type ProviderSubscription
} from "./PaymentProvider.js"
import * as StripeForm from "./StripeForm.js"

/** The API version the shapes below are written against. */
export const API_VERSION = "2025-03-31.basil"

export interface Options {
  readonly secretKey: string
  /** `billing.stripe.api_base`, without a trailing slash. */
  readonly apiBase: string
  /** Time limit of one attempt. */
  readonly timeoutMs?: number
  /** Attempts of one call, the first included. */
  readonly maxAttempts?: number
  /** First backoff ceiling; it doubles per failed attempt. */
  readonly backoffBaseMs?: number
  /** The longest `Retry-After` waited for. */
  readonly maxRetryAfterMs?: number
}

const defaults = { timeoutMs: 10_000, maxAttempts: 3, backoffBaseMs: 500, maxRetryAfterMs: 10_000 }

// Stripe's wire shapes, only the fields read. Decoding ignores the rest.

const StripeErrorBody = Schema.Struct({
  error: Schema.Struct({
    type: Schema.String,
    code: Schema.optional(Schema.String),
    message: Schema.optional(Schema.String)
  })
})

const Expandable = <A, I>(object: Schema.Schema<A, I>) => Schema.Union(Schema.String, object)

const Customer = Schema.Struct({ id: Schema.String })
const CheckoutSession = Schema.Struct({ id: Schema.String, url: Schema.String })
const PortalSession = Schema.Struct({ url: Schema.String })

const SubscriptionItem = Schema.Struct({
  id: Schema.String,
  price: Schema.Struct({
    id: Schema.String,
    recurring: Schema.NullOr(Schema.Struct({ interval: Schema.String }))
  }),
  // Since API 2025-03-31 the period lives on the item; before, on the subscription.
  current_period_end: Schema.optional(Schema.Number)
})

const Phase = Schema.Struct({
  start_date: Schema.Number,
  end_date: Schema.NullOr(Schema.Number),
  items: Schema.Array(Schema.Struct({ price: Expandable(Schema.Struct({ id: Schema.String })) }))
})

const Schedule = Schema.Struct({
  id: Schema.String,
  status: Schema.String,
  current_phase: Schema.NullOr(Schema.Struct({ start_date: Schema.Number, end_date: Schema.Number })),
  phases: Schema.Array(Phase)
})

const Subscription = Schema.Struct({
  id: Schema.String,
  customer: Expandable(Schema.Struct({ id: Schema.String })),
  status: Schema.String,
  items: Schema.Struct({ data: Schema.Array(SubscriptionItem) }),
  current_period_end: Schema.optional(Schema.Number),
  cancel_at_period_end: Schema.Boolean,
  schedule: Schema.NullOr(Expandable(Schedule)),
  latest_invoice: Schema.NullOr(Expandable(Schema.Struct({ id: Schema.String, status: Schema.NullOr(Schema.String) })))
})
type Subscription = typeof Subscription.Type

/** Every subscription read or written asks for these, so one answer says all `ProviderSubscription` holds. */
const EXPAND = ["latest_invoice", "schedule"]

const idOf = (value: string | { readonly id: string }) => (typeof value === "string" ? value : value.id)
const dateOf = (unix: number) => new Date(unix * 1000)

const isInterval = (value: string): value is Interval => value === "month" || value === "year"

const unexpected = (what: string, detail: string) =>
  new PaymentProviderError({ kind: "unavailable", message: `Stripe ${what}: ${detail}` })

/** The next phase of an active schedule: the phase starting when the current one ends. */
const pendingChangeOf = (schedule: Subscription["schedule"]): PendingChange | null => {
  if (schedule === null || typeof schedule === "string") return null
  if (schedule.status !== "active" && schedule.status !== "not_started") return null
  const currentEnd = schedule.current_phase?.end_date
  const next = schedule.phases.find((phase) =>
    currentEnd === undefined ? phase.start_date * 1000 > Date.now() : phase.start_date >= currentEnd
  )
  const price = next?.items[0]?.price
  if (next === undefined || price === undefined) return null
  return { priceId: idOf(price), at: dateOf(next.start_date) }
}

const toProvider = (
  what: string,
  subscription: Subscription
): Effect.Effect<ProviderSubscription, PaymentProviderError> => {
  const item = subscription.items.data[0]
  if (item === undefined) return Effect.fail(unexpected(what, `subscription ${subscription.id} has no item`))
  const interval = item.price.recurring?.interval ?? ""
  if (!isInterval(interval)) {
    return Effect.fail(unexpected(what, `subscription ${subscription.id} bills by ${interval || "no interval"}`))
  }
  const periodEnd = item.current_period_end ?? subscription.current_period_end
  if (periodEnd === undefined) return Effect.fail(unexpected(what, `subscription ${subscription.id} has no period`))
  const invoice = subscription.latest_invoice
  return Effect.succeed({
    id: subscription.id,
    customerId: idOf(subscription.customer),
    status: subscription.status,
    priceId: item.price.id,
    interval,
    currentPeriodEnd: dateOf(periodEnd),
    cancelAtPeriodEnd: subscription.cancel_at_period_end,
    scheduleId: subscription.schedule === null ? null : idOf(subscription.schedule),
    latestInvoicePaid: invoice === null || typeof invoice === "string" ? null : invoice.status === "paid",
    pendingChange: pendingChangeOf(subscription.schedule)
  })
}

/** `Retry-After` in milliseconds (seconds or an HTTP date), if the answer has one. */
const retryAfterMs = (header: string | null): Option.Option<number> => {
  if (header === null) return Option.none()
  const seconds = Number(header)
  if (Number.isFinite(seconds) && seconds >= 0) return Option.some(seconds * 1000)
  const at = Date.parse(header)
  return Number.isNaN(at) ? Option.none() : Option.some(Math.max(0, at - Date.now()))
}

type Outcome =
  | { readonly _tag: "Done"; readonly status: number; readonly text: string }
  | { readonly _tag: "Retry"; readonly error: PaymentProviderError; readonly afterMs: Option.Option<number> }
  | { readonly _tag: "Fail"; readonly error: PaymentProviderError }

/** The Stripe implementation of the operations. */
export const make = (options: Options): Operations => {
  const config = { ...defaults, ...options }

  const attempt = (
    what: string,
    method: "GET" | "POST" | "DELETE",
    url: string,
    body: string | undefined,
    idempotencyKey: string | undefined
  ): Effect.Effect<Outcome> =>
    Effect.tryPromise({
      try: async (signal) => {
        const response = await fetch(url, {
          method,
          redirect: "error",
          headers: {
            authorization: `Bearer ${config.secretKey}`,
            "stripe-version": API_VERSION,
            accept: "application/json",
            ...(body === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" }),
            ...(idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey })
          },
          ...(body === undefined ? {} : { body }),
          signal: AbortSignal.any([signal, AbortSignal.timeout(config.timeoutMs)])
        })
        return { response, text: await response.text() }
      },
      catch: (e) =>
        e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError")
          ? `no answer within ${config.timeoutMs} ms`
          : `unreachable: ${e instanceof Error ? e.message : String(e)}`
    }).pipe(
      Effect.map(({ response, text }): Outcome => {
        const status = response.status
        if (status >= 200 && status < 300) return { _tag: "Done", status, text }
        const decoded = Schema.decodeUnknownOption(Schema.parseJson(StripeErrorBody))(text)
        const detail: { readonly message: string; readonly code?: string } = Option.match(decoded, {
          onNone: () => ({ message: `HTTP ${status}` }),
          onSome: ({ error }) => ({
            message: error.message ?? error.type,
            ...(error.code === undefined ? {} : { code: error.code })
          })
        })
        const retryable = status === 429 || status >= 500
        if (!retryable || response.headers.get("stripe-should-retry") === "false") {
          return {
            _tag: "Fail",
            error: new PaymentProviderError({
              kind: retryable ? "unavailable" : "refused",
              message: `Stripe ${what}: ${detail.message}`,
              status,
              ...(detail.code === undefined ? {} : { code: detail.code })
            })
          }
        }
        return {
          _tag: "Retry",
          error: new PaymentProviderError({
            kind: "unavailable",
            message: `Stripe ${what}: ${detail.message}`,
            status
          }),
          afterMs: retryAfterMs(response.headers.get("retry-after"))
        }
      }),
      Effect.catchAll((reason) =>
        Effect.succeed<Outcome>({
          _tag: "Retry",
          error: unexpected(what, reason),
          afterMs: Option.none()
        })
      )
    )

  /** One logical call: its attempts share the idempotency key. */
  const call = <A, I>(
    schema: Schema.Schema<A, I>,
    what: string,
    method: "GET" | "POST" | "DELETE",
    path: string,
    params: StripeForm.Params,
    key?: string
  ): Effect.Effect<A, PaymentProviderError> =>
    Effect.gen(function* () {
      const encoded = StripeForm.encode(params)
      const body = method === "POST" ? encoded : undefined
      const url = `${config.apiBase}${path}${method !== "POST" && encoded !== "" ? `?${encoded}` : ""}`
      const idempotencyKey = method === "POST" ? (key ?? `signalman-${randomUUID()}`) : undefined
      for (let n = 1; ; n++) {
        const outcome = yield* attempt(what, method, url, body, idempotencyKey)
        if (outcome._tag === "Fail") return yield* outcome.error
        if (outcome._tag === "Done") {
          return yield* Schema.decodeUnknown(Schema.parseJson(schema))(outcome.text).pipe(
            Effect.mapError(() => unexpected(what, "an answer of an unexpected shape"))
          )
        }
        if (n >= config.maxAttempts) return yield* outcome.error
        const backoff = Math.random() * config.backoffBaseMs * 2 ** (n - 1)
        const wait = Option.getOrElse(outcome.afterMs, () => backoff)
        if (wait > config.maxRetryAfterMs) return yield* outcome.error
        yield* Effect.logDebug("Stripe call retried").pipe(
          Effect.annotateLogs({ call: what, attempt: n, wait_ms: Math.round(wait), reason: outcome.error.message })
        )
        yield* Effect.sleep(Duration.millis(wait))
      }
    })

  const subscriptionCall = (what: string, method: "GET" | "POST" | "DELETE", id: string, params: StripeForm.Params) =>
    call(Subscription, what, method, `/v1/subscriptions/${encodeURIComponent(id)}`, { ...params, expand: EXPAND }).pipe(
      Effect.flatMap((subscription) => toProvider(what, subscription))
    )

  const getRaw = (id: string) =>
    call(Subscription, "read subscription", "GET", `/v1/subscriptions/${encodeURIComponent(id)}`, { expand: EXPAND })

  return {
    createCustomer: ({ accountId, email }) =>
      call(
        Customer,
        "create customer",
        "POST",
        "/v1/customers",
        { email, metadata: { account_id: accountId } },
        `signalman-customer-${accountId}`
      ),

    createCheckout: ({ customerId, priceId, accountId, successUrl, cancelUrl }) =>
      call(CheckoutSession, "create checkout", "POST", "/v1/checkout/sessions", {
        mode: "subscription",
        customer: customerId,
        client_reference_id: accountId,
        line_items: [{ price: priceId, quantity: 1 }],
        success_url: successUrl,
        cancel_url: cancelUrl,
        subscription_data: { metadata: { account_id: accountId } }
      }),

    createPortal: ({ customerId, returnUrl }) =>
      call(PortalSession, "create portal session", "POST", "/v1/billing_portal/sessions", {
        customer: customerId,
        return_url: returnUrl
      }),

    getSubscription: (id) => subscriptionCall("read subscription", "GET", id, {}),

    changePriceNow: ({ subscriptionId, priceId }) =>
      Effect.gen(function* () {
        const current = yield* getRaw(subscriptionId)
        const item = current.items.data[0]
        if (item === undefined) return yield* unexpected("change price", `subscription ${subscriptionId} has no item`)
        return yield* subscriptionCall("change price", "POST", subscriptionId, {
          items: [{ id: item.id, price: priceId }],
          proration_behavior: "create_prorations"
        })
      }),

    setCancelAtPeriodEnd: ({ subscriptionId, value }) =>
      subscriptionCall("set cancel at period end", "POST", subscriptionId, { cancel_at_period_end: value }),

    cancelNow: (subscriptionId) => subscriptionCall("cancel subscription", "DELETE", subscriptionId, {}),

    bookAtPeriodEnd: ({ subscriptionId, priceId }) =>
      Effect.gen(function* () {
        const current = yield* getRaw(subscriptionId)
        const item = current.items.data[0]
        if (item === undefined) return yield* unexpected("book change", `subscription ${subscriptionId} has no item`)
        // A subscription already on a schedule (an earlier booking) keeps it: its phases are rewritten below.
        const schedule =
          current.schedule !== null && typeof current.schedule !== "string"
            ? current.schedule
            : yield* call(Schedule, "create schedule", "POST", "/v1/subscription_schedules", {
                from_subscription: subscriptionId
              })
        const first = schedule.current_phase ?? schedule.phases[0]
        const periodEnd = item.current_period_end ?? current.current_period_end
        if (first === undefined || periodEnd === undefined) {
          return yield* unexpected("book change", `schedule ${schedule.id} has no current phase`)
        }
        const updated = yield* call(
          Schedule,
          "book change",
          "POST",
          `/v1/subscription_schedules/${encodeURIComponent(schedule.id)}`,
          {
            end_behavior: "release",
            proration_behavior: "none",
            phases: [
              { items: [{ price: item.price.id, quantity: 1 }], start_date: first.start_date, end_date: periodEnd },
              { items: [{ price: priceId, quantity: 1 }], iterations: 1 }
            ]
          }
        )
        return { scheduleId: updated.id }
      }),

    releaseSchedule: (scheduleId) =>
      call(
        Schema.Struct({ id: Schema.String }),
        "release schedule",
        "POST",
        `/v1/subscription_schedules/${encodeURIComponent(scheduleId)}/release`,
        {}
      ).pipe(Effect.asVoid)
  }
}

/** The provider from the settings; `billing.provider: stripe` without its two secrets stops the boot. */
export const layer: Layer.Layer<PaymentProvider, never, AppConfig> = Layer.effect(
  PaymentProvider,
  Effect.gen(function* () {
    const config = yield* AppConfig
    const secretKey = config["billing.stripe.secret_key"]
    if (secretKey === undefined || config["billing.stripe.webhook_secret"] === undefined) {
      return yield* Effect.dieMessage(
        "billing.provider is stripe: billing.stripe.secret_key and billing.stripe.webhook_secret must both be set"
      )
    }
    return make({ secretKey, apiBase: config["billing.stripe.api_base"] })
  })
)
