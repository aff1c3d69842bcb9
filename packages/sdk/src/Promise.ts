/**
 * The client for programs that do not use Effect: a namespace per resource, a method per endpoint of the contract,
 * plain objects in, core's decoded models out, Promises throughout.
 *
 * ```ts
 * import { createClient, SignalmanError } from "@signalman/sdk"
 *
 * const signalman = createClient({ baseUrl: "https://signalman.example.com", token: process.env.SIGNALMAN_TOKEN })
 * const target = await signalman.targets.create({ name: "www", check: { type: "http", url: "https://example.com" } })
 * await signalman.targets.update(target.id, { interval: 300 })
 * for await (const t of signalman.targets.list({ tag: "prod" })) console.log(t.name)
 * ```
 *
 * Every call sends `Authorization: Bearer <token>` (without a token the client is a browser session's: it sends
 * the cookie the browser holds and `X-Requested-With: signalman`), `X-Signalman-Org` when `org` is set, and
 * `User-Agent: signalman-sdk/<version>` (also as `X-Signalman-Client` in browsers, which drop `User-Agent`).
 * Answers of 429 and 503 are retried with backoff honouring `Retry-After`, at most 3 tries by default; nothing else
 * is, unless the call carries an `idempotencyKey`, when a lost connection, a timeout and any 5xx are too. A failed
 * call rejects with a {@link SignalmanError}.
 *
 * @since 0.1.0
 */

import { type ClientSettings, method } from "./internal/call.js"
import { plans } from "./internal/endpoints.js"
import { identityHeaders, inBrowser } from "./internal/identity.js"
import * as Retry from "./internal/retry.js"
import type { Signalman } from "./Signalman.js"
import * as Version from "./Version.js"

/**
 * The longest a try waits for its answer unless told otherwise: longer than the slowest call the service makes,
 * a browser flow run once (`POST /targets/test`, up to 120 s) with an agent's margin.
 *
 * @since 0.2.0
 * @category constants
 */
export const DEFAULT_TIMEOUT_MS = 150_000

/**
 * The `fetch` a client calls: the platform's by default; a wrapper to add cookies, logging or a proxy.
 *
 * @since 0.2.0
 * @category models
 */
export type Fetch = (input: string, init: RequestInit) => Promise<Response>

/**
 * The waits between tries.
 *
 * @since 0.2.0
 * @category models
 */
export interface RetryDelays {
  /** The first backoff's ceiling, doubled for each further try (with jitter). Default 500. */
  readonly baseMs?: number | undefined
  /**
   * The longest wait: backoff stops growing here, and an answer whose `Retry-After` asks for longer is not waited
   * for but returned (rejected with its error). Default 60,000, the length of the service's rate windows.
   */
  readonly maxMs?: number | undefined
}

/**
 * Where the service is, who is calling, and how calls behave.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientOptions {
  /** The service origin, for example `https://signalman.example.com`. */
  readonly baseUrl: string
  /**
   * An API token (`sm_live_...`), sent as `Authorization: Bearer`. Without one the client calls as the browser's
   * session: the browser sends its cookie, the client adds the `X-Requested-With: signalman` that writes need.
   */
  readonly token?: string | undefined
  /** The org slug sent as `X-Signalman-Org`, for a token not bound to one org or a session with several. */
  readonly org?: string | undefined
  /** Bounds each try (request and answer body); default {@link DEFAULT_TIMEOUT_MS}. A call's `timeoutMs` wins. */
  readonly timeoutMs?: number | undefined
  /** How many times a retryable failure is tried again; default 2 (3 tries in all); 0 turns retries off. */
  readonly retries?: number | undefined
  /** The waits between tries. */
  readonly retryDelays?: RetryDelays | undefined
  /** Sent as `User-Agent`; default `signalman-sdk/<version>`. The CLI sends `signalman-cli/<version>`. */
  readonly userAgent?: string | undefined
  /** The `fetch` to call; default the platform's. */
  readonly fetch?: Fetch | undefined
  /** Headers sent with every call, under the client's own and a call's. */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

const nonNegative = (name: string, value: number | undefined, fallback: number): number => {
  if (value === undefined) return fallback
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`createClient: ${name} must be a number >= 0`)
  return value
}

const clientHeaders = (options: ClientOptions): Headers => {
  const headers = new Headers(options.headers)
  headers.set("accept", "application/json")
  for (const [name, value] of identityHeaders(options.userAgent ?? Version.userAgent, inBrowser())) {
    headers.set(name, value)
  }
  if (options.token !== undefined) headers.set("authorization", `Bearer ${options.token}`)
  else headers.set("x-requested-with", "signalman")
  if (options.org !== undefined) headers.set("x-signalman-org", options.org)
  return headers
}

/**
 * A Promise client of the service at `options.baseUrl`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const createClient = (options: ClientOptions): Signalman => {
  const base = new URL(options.baseUrl)
  const settings: ClientSettings = {
    baseUrl: `${base.origin}${base.pathname.replace(/\/+$/, "")}`,
    headers: clientHeaders(options),
    transport: {
      // Called through a wrapper so a later stub of the global (tests, polyfills) is the one used.
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      timeoutMs: nonNegative("timeoutMs", options.timeoutMs, DEFAULT_TIMEOUT_MS),
      retry: {
        retries: Math.floor(nonNegative("retries", options.retries, Retry.defaultSettings.retries)),
        baseDelayMs: nonNegative("retryDelays.baseMs", options.retryDelays?.baseMs, Retry.defaultSettings.baseDelayMs),
        maxDelayMs: nonNegative("retryDelays.maxMs", options.retryDelays?.maxMs, Retry.defaultSettings.maxDelayMs)
      }
    }
  }
  const client: Record<string, unknown> = {}
  const namespaces = new Map<string, Record<string, unknown>>()
  for (const plan of plans()) {
    const call = method(plan, settings)
    if (plan.namespace === null) {
      client[plan.name] = call
      continue
    }
    let namespace = namespaces.get(plan.namespace)
    if (namespace === undefined) {
      namespace = {}
      namespaces.set(plan.namespace, namespace)
      client[plan.namespace] = namespace
    }
    namespace[plan.name] = call
  }
  // The object above is built from the contract that `Signalman` is derived from, endpoint by endpoint, so it has
  // the type's every namespace and method; the compiler cannot follow a loop over a reflection, hence the assertion.
  return client as unknown as Signalman
}
