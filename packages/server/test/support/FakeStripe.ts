/**
 * A fake Stripe for the tests: a loopback HTTP server speaking Stripe's wire format for exactly the calls the
 * adapter makes (decisions.md, "Billing"), closely enough that a mistake on the server's side of them fails:
 *
 * - `POST /v1/customers`, `POST /v1/checkout/sessions`, `POST /v1/billing_portal/sessions`,
 *   `GET|POST|DELETE /v1/subscriptions/{id}` (`expand` of `latest_invoice` and `schedule`),
 *   `POST /v1/subscription_schedules`, `POST /v1/subscription_schedules/{id}`, `.../{id}/release`.
 * - Bodies are parsed as Stripe parses them: `application/x-www-form-urlencoded` with bracketed keys
 *   (`line_items[0][price]`), numeric keys making lists. `Authorization: Bearer <secretKey>` is required.
 * - Refusals are Stripe error objects `{ error: { type, code, message } }` with Stripe's statuses.
 * - Every POST needs an `Idempotency-Key`; the same key again answers the first response (with
 *   `Idempotent-Replayed: true`) without doing anything, and with other parameters is a 400 `idempotency_error`.
 *   Injected failures (`failNext`) happen in front of that, like a load balancer's, and are not kept; a stalled
 *   request (`stallNext`) is handled on arrival and answered late, as when an answer is lost or slow on the way back.
 *
 * State (customers, checkout sessions, subscriptions, schedules, invoices) is in memory. Whatever changes a
 * subscription queues the events Stripe would send; `takeEvents` hands them over and `send`/`flush` post them,
 * signed like Stripe signs them, to the server named by `deliverTo`.
 */
import { createHmac, randomBytes } from "node:crypto"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

export type Interval = "month" | "year"

/** `billing.prices` as the tests configure it. */
export type Prices = Readonly<Record<string, Readonly<Partial<Record<Interval, string>>>>>

/** The price ids the fake's `env` configures by default: every paid plan at both cadences. */
export const defaultPrices: Prices = {
  pro: { month: "price_pro_month", year: "price_pro_year" },
  founding: { month: "price_founding_month", year: "price_founding_year" }
}

export interface Customer {
  readonly id: string
  readonly email: string
  readonly metadata: Readonly<Record<string, string>>
}

export interface CheckoutSession {
  readonly id: string
  readonly customer: string
  readonly priceId: string
  readonly clientReferenceId: string | null
  readonly successUrl: string
  readonly cancelUrl: string
  status: "open" | "complete"
  subscription: string | null
}

export interface Phase {
  readonly priceId: string
  readonly start: number
  readonly end: number
}

export interface Schedule {
  readonly id: string
  readonly subscription: string
  status: "active" | "released"
  phases: Array<Phase>
}

export interface Invoice {
  readonly id: string
  readonly customer: string
  readonly subscription: string
  status: "paid" | "open"
}

export interface Subscription {
  readonly id: string
  readonly customer: string
  readonly itemId: string
  status: "active" | "past_due" | "canceled"
  priceId: string
  periodStart: number
  periodEnd: number
  cancelAtPeriodEnd: boolean
  schedule: string | null
  latestInvoice: string
  metadata: Readonly<Record<string, string>>
}

/** A request the fake received, its form parsed. */
export interface Received {
  readonly method: string
  readonly path: string
  readonly query: string
  /** The form's key-value pairs as sent (bracketed keys kept). */
  readonly pairs: ReadonlyArray<readonly [string, string]>
  /** The form parsed as Stripe parses it. */
  readonly params: Readonly<Record<string, unknown>>
  readonly idempotencyKey: string | null
  readonly authorization: string | null
  /** Answered from the idempotency store. */
  readonly replayed: boolean
  /** Answered by an injected failure. */
  readonly injected: boolean
}

export interface StripeEvent {
  readonly id: string
  readonly object: "event"
  readonly type: string
  readonly created: number
  readonly livemode: false
  readonly api_version: string
  readonly data: { readonly object: Readonly<Record<string, unknown>> }
}

export interface SendOptions {
  /** Signed with a timestamp ten minutes old: past the server's five-minute tolerance. */
  readonly late?: boolean
  /** Delivered a second time after the first answer, as Stripe does when it did not see a 2xx in time. */
  readonly twice?: boolean
  /** Signed with this secret instead of the endpoint's. */
  readonly secret?: string
  /** This `Stripe-Signature` header instead of a computed one; null sends none. */
  readonly header?: string | null
}

export interface Delivery {
  readonly status: number
  readonly text: string
}

export interface FakeStripe {
  readonly origin: string
  readonly secretKey: string
  readonly webhookSecret: string
  readonly prices: Prices
  /** The server's billing settings naming this fake (environment spelling). */
  readonly env: (prices?: Prices) => Record<string, string>
  /** Where `send` posts events: the server's origin. */
  readonly deliverTo: (origin: string) => void
  readonly received: ReadonlyArray<Received>
  readonly customers: ReadonlyMap<string, Customer>
  readonly checkoutSessions: ReadonlyMap<string, CheckoutSession>
  readonly subscriptions: ReadonlyMap<string, Subscription>
  readonly schedules: ReadonlyMap<string, Schedule>
  readonly invoices: ReadonlyMap<string, Invoice>
  /** The customer's checkout is paid: its subscription starts (events: subscription created, invoice paid, checkout completed). */
  readonly completeCheckout: (sessionId: string) => Subscription
  /** The subscription reaches its period end: it ends if cancel was booked, else renews on its schedule's next phase. */
  readonly advance: (subscriptionId: string) => Subscription
  /** The latest payment fails: a new open invoice, the subscription past_due. */
  readonly failPayment: (subscriptionId: string) => Subscription
  /** Every `DELETE /v1/subscriptions/{id}` is refused while set. */
  readonly refuseCancel: (refuse?: boolean) => void
  /** The next `n` requests answer `status` (with `Retry-After` when given) before anything else happens. */
  readonly failNext: (n: number, status: 500 | 429, retryAfterSecs?: number) => void
  /** The next `n` requests are handled at once but answered `ms` late (to trip the adapter's timeout, or to make a stale read). */
  readonly stallNext: (n: number, ms: number) => void
  /** A new event of `type` about `object`, not queued. */
  readonly event: (type: string, object: Readonly<Record<string, unknown>>) => StripeEvent
  /** The subscription as `GET /v1/subscriptions/{id}` answers it (expanded), for events. */
  readonly subscriptionObject: (subscriptionId: string) => Record<string, unknown>
  /** The events queued since the last call, oldest first; the queue is emptied. */
  readonly takeEvents: () => ReadonlyArray<StripeEvent>
  /** Posts an event, signed, to the server's `/webhooks/stripe`; the answers (two with `twice`). */
  readonly send: (event: StripeEvent, options?: SendOptions) => Effect.Effect<ReadonlyArray<Delivery>>
  /** Sends every queued event in order; each must be answered 2xx. */
  readonly flush: () => Effect.Effect<void>
}

const API_VERSION = "2025-03-31.basil"

const now = () => Math.floor(Date.now() / 1000)
const id = (prefix: string) => `${prefix}_${randomBytes(10).toString("hex")}`

/** Seconds in one billing period of `interval` (the fake's months are 30 days). */
const periodOf = (interval: Interval) => (interval === "year" ? 365 : 30) * 24 * 3600

const readBody = (request: Http.IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (c: Buffer) => chunks.push(c))
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

type Node = { [key: string]: Node | string }

/** Stripe's form parsing: `a[b][0]=x` is `{ a: { b: ["x"] } }`; `a[]=x` appends. */
export const parseForm = (pairs: ReadonlyArray<readonly [string, string]>): Record<string, unknown> => {
  const root: Node = {}
  for (const [key, value] of pairs) {
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key)
    if (match === null) throw new Error(`malformed parameter ${key}`)
    const path = [match[1] ?? "", ...[...(match[2] ?? "").matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1] ?? "")]
    let node = root
    path.forEach((segment, i) => {
      const name = segment === "" ? String(Object.keys(node).length) : segment
      if (i === path.length - 1) {
        node[name] = value
      } else {
        const next = node[name]
        if (typeof next === "string") throw new Error(`parameter ${key} mixes a value and a hash`)
        if (next === undefined) {
          const created: Node = {}
          node[name] = created
          node = created
        } else {
          node = next
        }
      }
    })
  }
  const lists = (node: Node | string): unknown => {
    if (typeof node === "string") return node
    const keys = Object.keys(node)
    const converted = Object.fromEntries(keys.map((k) => [k, lists(node[k] ?? "")]))
    return keys.length > 0 && keys.every((k) => /^\d+$/.test(k))
      ? keys
          .map(Number)
          .sort((a, b) => a - b)
          .map((k) => converted[String(k)])
      : converted
  }
  const out = lists(root)
  return typeof out === "object" && out !== null && !Array.isArray(out) ? (out as Record<string, unknown>) : {}
}

class StripeRefusal {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly message: string,
    readonly code?: string
  ) {}
  get body() {
    return {
      error: { type: this.type, message: this.message, ...(this.code === undefined ? {} : { code: this.code }) }
    }
  }
}

const invalid = (message: string, code = "parameter_invalid_empty") =>
  new StripeRefusal(400, "invalid_request_error", message, code)
const missing = (what: string, value: string) =>
  new StripeRefusal(404, "invalid_request_error", `No such ${what}: '${value}'`, "resource_missing")

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)
const rec = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
const list = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])

export interface Options {
  readonly prices?: Prices
  readonly secretKey?: string
  readonly webhookSecret?: string
}

export const make = (options: Options = {}): Effect.Effect<FakeStripe, never, Scope.Scope> =>
  Effect.gen(function* () {
    const prices = options.prices ?? defaultPrices
    const secretKey = options.secretKey ?? `sk_test_${randomBytes(12).toString("hex")}`
    const webhookSecret = options.webhookSecret ?? `whsec_${randomBytes(16).toString("base64url")}`
    const intervalOf = (priceId: string): Interval => {
      for (const cadences of Object.values(prices)) {
        if (cadences.year === priceId) return "year"
      }
      return "month"
    }

    const received: Array<Received> = []
    const customers = new Map<string, Customer>()
    const checkoutSessions = new Map<string, CheckoutSession>()
    const subscriptions = new Map<string, Subscription>()
    const schedules = new Map<string, Schedule>()
    const invoices = new Map<string, Invoice>()
    const idempotency = new Map<string, { fingerprint: string; status: number; body: string }>()
    const queue: Array<StripeEvent> = []
    const failures: Array<{ status: number; retryAfter?: number }> = []
    const stalls: Array<number> = []
    let cancelRefused = false
    let target = ""

    const event = (type: string, object: Readonly<Record<string, unknown>>): StripeEvent => ({
      id: id("evt"),
      object: "event",
      type,
      created: now(),
      livemode: false,
      api_version: API_VERSION,
      data: { object }
    })
    const emit = (type: string, object: Readonly<Record<string, unknown>>) => queue.push(event(type, object))

    const scheduleObject = (schedule: Schedule) => {
      const current =
        schedule.status === "active"
          ? (schedule.phases.find((p) => p.start <= now() && now() < p.end) ?? schedule.phases[0])
          : undefined
      return {
        id: schedule.id,
        object: "subscription_schedule",
        status: schedule.status,
        subscription: schedule.subscription,
        end_behavior: "release",
        current_phase: current === undefined ? null : { start_date: current.start, end_date: current.end },
        phases: schedule.phases.map((p) => ({
          start_date: p.start,
          end_date: p.end,
          items: [{ price: p.priceId, quantity: 1 }]
        }))
      }
    }

    const invoiceObject = (invoice: Invoice) => ({
      id: invoice.id,
      object: "invoice",
      customer: invoice.customer,
      status: invoice.status,
      subscription: invoice.subscription,
      parent: { type: "subscription_details", subscription_details: { subscription: invoice.subscription } }
    })

    const subscriptionObject = (subscriptionId: string, expand: ReadonlyArray<unknown> = []) => {
      const s = subscriptions.get(subscriptionId)
      if (s === undefined) throw missing("subscription", subscriptionId)
      const schedule = s.schedule === null ? undefined : schedules.get(s.schedule)
      const invoice = invoices.get(s.latestInvoice)
      return {
        id: s.id,
        object: "subscription",
        customer: s.customer,
        status: s.status,
        cancel_at_period_end: s.cancelAtPeriodEnd,
        metadata: s.metadata,
        items: {
          object: "list",
          data: [
            {
              id: s.itemId,
              object: "subscription_item",
              price: {
                id: s.priceId,
                object: "price",
                recurring: { interval: intervalOf(s.priceId), interval_count: 1 }
              },
              quantity: 1,
              current_period_start: s.periodStart,
              current_period_end: s.periodEnd
            }
          ]
        },
        schedule:
          s.schedule === null ? null : expand.includes("schedule") && schedule ? scheduleObject(schedule) : s.schedule,
        latest_invoice: expand.includes("latest_invoice") && invoice ? invoiceObject(invoice) : s.latestInvoice
      }
    }

    const newInvoice = (s: Subscription, status: Invoice["status"]) => {
      const invoice: Invoice = { id: id("in"), customer: s.customer, subscription: s.id, status }
      invoices.set(invoice.id, invoice)
      s.latestInvoice = invoice.id
      return invoice
    }

    const subscriptionOf = (subscriptionId: string) => {
      const s = subscriptions.get(subscriptionId)
      if (s === undefined) throw missing("subscription", subscriptionId)
      return s
    }

    const handle = (method: string, path: string, params: Record<string, unknown>): unknown => {
      const expand = list(params["expand"])
      if (method === "POST" && path === "/v1/customers") {
        const customer: Customer = {
          id: id("cus"),
          email: str(params["email"]) ?? "",
          metadata: Object.fromEntries(Object.entries(rec(params["metadata"])).map(([k, v]) => [k, String(v)]))
        }
        customers.set(customer.id, customer)
        return { object: "customer", ...customer }
      }
      if (method === "POST" && path === "/v1/checkout/sessions") {
        if (params["mode"] !== "subscription") throw invalid("mode must be subscription")
        const customer = str(params["customer"]) ?? ""
        if (!customers.has(customer)) throw missing("customer", customer)
        const items = list(params["line_items"])
        const priceId = str(rec(items[0])["price"])
        if (items.length !== 1 || priceId === undefined) throw invalid("line_items needs one price")
        if (rec(items[0])["quantity"] !== "1") throw invalid("line_items[0][quantity] must be 1")
        const successUrl = str(params["success_url"])
        const cancelUrl = str(params["cancel_url"])
        if (successUrl === undefined || cancelUrl === undefined)
          throw invalid("success_url and cancel_url are required")
        const session: CheckoutSession = {
          id: id("cs_test"),
          customer,
          priceId,
          clientReferenceId: str(params["client_reference_id"]) ?? null,
          successUrl,
          cancelUrl,
          status: "open",
          subscription: null
        }
        checkoutSessions.set(session.id, session)
        return {
          id: session.id,
          object: "checkout.session",
          mode: "subscription",
          status: "open",
          customer,
          client_reference_id: session.clientReferenceId,
          url: `${origin}/checkout/${session.id}`
        }
      }
      if (method === "POST" && path === "/v1/billing_portal/sessions") {
        const customer = str(params["customer"]) ?? ""
        if (!customers.has(customer)) throw missing("customer", customer)
        const portal = id("bps")
        return {
          id: portal,
          object: "billing_portal.session",
          customer,
          return_url: str(params["return_url"]) ?? null,
          url: `${origin}/portal/${portal}`
        }
      }
      const sub = /^\/v1\/subscriptions\/([^/]+)$/.exec(path)
      if (sub !== null) {
        const s = subscriptionOf(decodeURIComponent(sub[1] ?? ""))
        if (method === "GET") return subscriptionObject(s.id, expand)
        if (method === "DELETE") {
          if (s.status === "canceled") throw invalid("This subscription is already canceled", "resource_missing")
          if (cancelRefused) throw new StripeRefusal(402, "card_error", "The subscription cannot be canceled now")
          s.status = "canceled"
          if (s.schedule !== null) {
            const schedule = schedules.get(s.schedule)
            if (schedule !== undefined) schedule.status = "released"
          }
          emit("customer.subscription.deleted", subscriptionObject(s.id))
          return subscriptionObject(s.id, expand)
        }
        if (method === "POST") {
          if (s.status === "canceled") throw invalid("A canceled subscription can only update its metadata")
          const cancel = params["cancel_at_period_end"]
          if (cancel !== undefined) {
            if (cancel !== "true" && cancel !== "false") throw invalid("cancel_at_period_end must be a boolean")
            if (s.schedule !== null) {
              throw invalid("The subscription is managed by a subscription schedule; cancel it through the schedule")
            }
            s.cancelAtPeriodEnd = cancel === "true"
          }
          const items = list(params["items"])
          if (items.length > 0) {
            const item = rec(items[0])
            if (item["id"] !== s.itemId) throw missing("subscription item", str(item["id"]) ?? "")
            const priceId = str(item["price"])
            if (priceId === undefined) throw invalid("items[0][price] is required")
            if (params["proration_behavior"] !== "create_prorations") throw invalid("proration_behavior expected")
            if (intervalOf(priceId) !== intervalOf(s.priceId)) {
              // A new cadence starts a new period at once, as Stripe does.
              s.periodStart = now()
              s.periodEnd = now() + periodOf(intervalOf(priceId))
            }
            s.priceId = priceId
            newInvoice(s, "paid")
          }
          emit("customer.subscription.updated", subscriptionObject(s.id))
          return subscriptionObject(s.id, expand)
        }
      }
      if (method === "POST" && path === "/v1/subscription_schedules") {
        const s = subscriptionOf(str(params["from_subscription"]) ?? "")
        if (s.schedule !== null) {
          throw invalid(`Subscription ${s.id} is already attached to a schedule`, "resource_already_exists")
        }
        if (s.status === "canceled") throw invalid("A canceled subscription cannot get a schedule")
        const schedule: Schedule = {
          id: id("sub_sched"),
          subscription: s.id,
          status: "active",
          phases: [{ priceId: s.priceId, start: s.periodStart, end: s.periodEnd }]
        }
        schedules.set(schedule.id, schedule)
        s.schedule = schedule.id
        emit("customer.subscription.updated", subscriptionObject(s.id))
        return scheduleObject(schedule)
      }
      const sched = /^\/v1\/subscription_schedules\/([^/]+)(\/release)?$/.exec(path)
      if (method === "POST" && sched !== null) {
        const schedule = schedules.get(decodeURIComponent(sched[1] ?? ""))
        if (schedule === undefined) throw missing("subscription_schedule", sched[1] ?? "")
        if (schedule.status !== "active") throw invalid(`The schedule is ${schedule.status}`)
        const s = subscriptionOf(schedule.subscription)
        if (sched[2] !== undefined) {
          schedule.status = "released"
          s.schedule = null
          emit("customer.subscription.updated", subscriptionObject(s.id))
          return scheduleObject(schedule)
        }
        const phases = list(params["phases"]).map(rec)
        const first = phases[0]
        const current = schedule.phases.find((p) => p.start <= now() && now() < p.end) ?? schedule.phases[0]
        if (first === undefined || current === undefined) throw invalid("phases is required")
        if (Number(first["start_date"]) !== current.start) {
          throw invalid("You can not modify the start date of the current phase.", "schedule_phase_start_date")
        }
        const out: Array<Phase> = []
        let start = current.start
        for (const [i, phase] of phases.entries()) {
          const priceId = str(rec(list(phase["items"])[0])["price"])
          if (priceId === undefined) throw invalid(`phases[${i}][items][0][price] is required`)
          const end =
            phase["end_date"] !== undefined
              ? Number(phase["end_date"])
              : phase["iterations"] !== undefined
                ? start + Number(phase["iterations"]) * periodOf(intervalOf(priceId))
                : Number.NaN
          if (!Number.isFinite(end) || end <= start) throw invalid(`phases[${i}] needs end_date or iterations`)
          out.push({ priceId, start, end })
          start = end
        }
        schedule.phases = out
        return scheduleObject(schedule)
      }
      throw new StripeRefusal(404, "invalid_request_error", `Unrecognized request URL (${method}: ${path})`)
    }

    const server = Http.createServer((request, response) => {
      void (async () => {
        const url = new URL(request.url ?? "/", "http://fake")
        const text = await readBody(request)
        const pairs: Array<[string, string]> = [...new URLSearchParams(request.method === "POST" ? text : url.search)]
        const key = request.headers["idempotency-key"]
        const idempotencyKey = typeof key === "string" ? key : null
        const authorization = request.headers.authorization ?? null
        // A stalled request is handled at once and answered late: what it answers is the state of its arrival.
        const stall = stalls.shift()
        const answer = async (status: number, body: unknown, extra: Record<string, string> = {}) => {
          if (stall !== undefined) await new Promise((resolve) => setTimeout(resolve, stall))
          response.writeHead(status, { "content-type": "application/json", ...extra })
          response.end(typeof body === "string" ? body : JSON.stringify(body))
        }
        const record = (replayed: boolean, injected: boolean, params: Record<string, unknown> = {}) =>
          received.push({
            method: request.method ?? "",
            path: url.pathname,
            query: url.search,
            pairs,
            params,
            idempotencyKey,
            authorization,
            replayed,
            injected
          })
        const failure = failures.shift()
        if (failure !== undefined) {
          record(false, true)
          return answer(
            failure.status,
            {
              error: {
                type: failure.status === 429 ? "invalid_request_error" : "api_error",
                code: failure.status === 429 ? "rate_limit" : undefined,
                message: failure.status === 429 ? "Too many requests" : "Something went wrong on Stripe's end"
              }
            },
            failure.retryAfter === undefined ? {} : { "retry-after": String(failure.retryAfter) }
          )
        }
        if (authorization !== `Bearer ${secretKey}`) {
          record(false, false)
          return answer(401, { error: { type: "invalid_request_error", message: "Invalid API Key provided" } })
        }
        let params: Record<string, unknown>
        try {
          params = parseForm(pairs)
        } catch (e) {
          record(false, false)
          return answer(400, new StripeRefusal(400, "invalid_request_error", String(e)).body)
        }
        if (request.method === "POST") {
          if (idempotencyKey === null) {
            record(false, false, params)
            return answer(400, invalid("The fake requires an Idempotency-Key on every POST").body)
          }
          const fingerprint = `${request.method} ${url.pathname} ${text}`
          const stored = idempotency.get(idempotencyKey)
          if (stored !== undefined) {
            record(true, false, params)
            if (stored.fingerprint !== fingerprint) {
              return answer(
                400,
                new StripeRefusal(
                  400,
                  "idempotency_error",
                  "Keys for idempotent requests can only be used with the same parameters they were first used with."
                ).body
              )
            }
            return answer(stored.status, stored.body, { "idempotent-replayed": "true" })
          }
          const [status, body] = run(request.method, url.pathname, params)
          idempotency.set(idempotencyKey, { fingerprint, status, body })
          record(false, false, params)
          return answer(status, body)
        }
        record(false, false, params)
        const [status, body] = run(request.method ?? "", url.pathname, params)
        return answer(status, body)
      })().catch((e: unknown) => {
        response.writeHead(500)
        response.end(String(e))
      })
    })

    const run = (method: string, path: string, params: Record<string, unknown>): [number, string] => {
      try {
        return [200, JSON.stringify(handle(method, path, params))]
      } catch (e) {
        if (e instanceof StripeRefusal) return [e.status, JSON.stringify(e.body)]
        throw e
      }
    }

    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.void))
      }),
      () =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

    const startSubscription = (session: CheckoutSession): Subscription => {
      const interval = intervalOf(session.priceId)
      const s: Subscription = {
        id: id("sub"),
        customer: session.customer,
        itemId: id("si"),
        status: "active",
        priceId: session.priceId,
        periodStart: now(),
        periodEnd: now() + periodOf(interval),
        cancelAtPeriodEnd: false,
        schedule: null,
        latestInvoice: "",
        metadata: session.clientReferenceId === null ? {} : { account_id: session.clientReferenceId }
      }
      subscriptions.set(s.id, s)
      return s
    }

    const send = (event: StripeEvent, sendOptions: SendOptions = {}): Effect.Effect<ReadonlyArray<Delivery>> =>
      Effect.promise(async () => {
        if (target === "") throw new Error("FakeStripe: deliverTo(origin) was not called")
        const body = JSON.stringify(event, null, 2)
        const t = now() - (sendOptions.late === true ? 600 : 0)
        const v1 = createHmac("sha256", sendOptions.secret ?? webhookSecret)
          .update(`${t}.${body}`)
          .digest("hex")
        const header = sendOptions.header === undefined ? `t=${t},v1=${v1}` : sendOptions.header
        const deliveries: Array<Delivery> = []
        for (let n = 0; n < (sendOptions.twice === true ? 2 : 1); n++) {
          const response = await fetch(`${target}/webhooks/stripe`, {
            method: "POST",
            headers: {
              "content-type": "application/json; charset=utf-8",
              "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
              ...(header === null ? {} : { "stripe-signature": header })
            },
            body
          })
          deliveries.push({ status: response.status, text: await response.text() })
        }
        return deliveries
      })

    const fake: FakeStripe = {
      origin,
      secretKey,
      webhookSecret,
      prices,
      env: (chosen = prices) => ({
        BILLING__PROVIDER: "stripe",
        BILLING__STRIPE__SECRET_KEY: secretKey,
        BILLING__STRIPE__WEBHOOK_SECRET: webhookSecret,
        BILLING__STRIPE__API_BASE: origin,
        BILLING__PRICES: JSON.stringify(chosen)
      }),
      deliverTo: (serverOrigin) => {
        target = serverOrigin.replace(/\/+$/, "")
      },
      received,
      customers,
      checkoutSessions,
      subscriptions,
      schedules,
      invoices,
      completeCheckout: (sessionId) => {
        const session = checkoutSessions.get(sessionId)
        if (session === undefined || session.status !== "open") throw new Error(`no open checkout ${sessionId}`)
        const s = startSubscription(session)
        const invoice = newInvoice(s, "paid")
        session.status = "complete"
        session.subscription = s.id
        emit("customer.subscription.created", subscriptionObject(s.id))
        emit("invoice.paid", invoiceObject(invoice))
        emit("checkout.session.completed", {
          id: session.id,
          object: "checkout.session",
          mode: "subscription",
          status: "complete",
          payment_status: "paid",
          customer: session.customer,
          subscription: s.id,
          client_reference_id: session.clientReferenceId
        })
        return s
      },
      advance: (subscriptionId) => {
        const s = subscriptionOf(subscriptionId)
        if (s.status === "canceled") throw new Error(`${subscriptionId} is canceled`)
        if (s.cancelAtPeriodEnd) {
          s.status = "canceled"
          emit("customer.subscription.deleted", subscriptionObject(s.id))
          return s
        }
        // The fake's clock does not move: the new period starts now. Entering a schedule's last phase releases the
        // schedule (Stripe keeps it until that phase ends; what the subscription shows is the same: no next phase).
        const schedule = s.schedule === null ? undefined : schedules.get(s.schedule)
        if (schedule !== undefined && schedule.status === "active") {
          const next = schedule.phases[1]
          if (next !== undefined) s.priceId = next.priceId
          schedule.phases = schedule.phases.slice(1)
          if (schedule.phases.length <= 1) {
            schedule.status = "released"
            s.schedule = null
          }
        }
        s.periodStart = now()
        s.periodEnd = now() + periodOf(intervalOf(s.priceId))
        if (schedule !== undefined && schedule.status === "active") {
          let start = s.periodStart
          schedule.phases = schedule.phases.map((p) => {
            const phase = { ...p, start, end: start + (p.end - p.start) }
            start = phase.end
            return phase
          })
        }
        const invoice = newInvoice(s, "paid")
        s.status = "active"
        emit("invoice.paid", invoiceObject(invoice))
        emit("customer.subscription.updated", subscriptionObject(s.id))
        return s
      },
      failPayment: (subscriptionId) => {
        const s = subscriptionOf(subscriptionId)
        const invoice = newInvoice(s, "open")
        s.status = "past_due"
        emit("invoice.payment_failed", invoiceObject(invoice))
        emit("customer.subscription.updated", subscriptionObject(s.id))
        return s
      },
      refuseCancel: (refuse = true) => {
        cancelRefused = refuse
      },
      failNext: (n, status, retryAfterSecs) => {
        for (let i = 0; i < n; i++) {
          failures.push(retryAfterSecs === undefined ? { status } : { status, retryAfter: retryAfterSecs })
        }
      },
      stallNext: (n, ms) => {
        for (let i = 0; i < n; i++) stalls.push(ms)
      },
      event,
      subscriptionObject: (subscriptionId) => subscriptionObject(subscriptionId),
      takeEvents: () => queue.splice(0, queue.length),
      send,
      flush: () =>
        Effect.gen(function* () {
          for (const e of fake.takeEvents()) {
            const [delivery] = yield* send(e)
            if (delivery === undefined || delivery.status >= 300) {
              return yield* Effect.dieMessage(`${e.type} ${e.id} answered ${delivery?.status}: ${delivery?.text}`)
            }
          }
        })
    }
    return fake
  })
