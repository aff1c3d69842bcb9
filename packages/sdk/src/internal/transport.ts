/**
 * One call on the wire: `fetch` with a timeout per try, the caller's abort, and the retry loop that `retry.ts`
 * decides. The answer's body is read inside the try, so a timeout covers a body that stalls too, and a retried
 * answer's connection is released.
 *
 * @internal
 */

import type { Fetch } from "../Promise.js"
import { SignalmanError } from "../SignalmanError.js"
import * as Retry from "./retry.js"

/**
 * How a client sends: its `fetch`, retries and default timeout.
 *
 * @internal
 */
export interface TransportSettings {
  /** What sends a request. */
  readonly fetch: Fetch
  /** When and after how long a call is tried again. */
  readonly retry: Retry.RetrySettings
  /** Each try's bound, unless the call sets its own; undefined waits as long as `fetch` does. */
  readonly timeoutMs: number | undefined
}

/**
 * A request ready to send.
 *
 * @internal
 */
export interface Outgoing {
  /** The HTTP method. */
  readonly method: string
  /** The whole URL, query included. */
  readonly url: string
  /** Every header to send. */
  readonly headers: Headers
  /** JSON text, a multipart form, or nothing. */
  readonly body: string | FormData | undefined
}

/**
 * A whole answer: status, headers and the body's bytes.
 *
 * @internal
 */
export interface Incoming {
  /** The HTTP status. */
  readonly status: number
  /** The answer's headers. */
  readonly headers: Headers
  /** The whole body. */
  readonly body: Uint8Array
}

/**
 * What one call asks of the transport.
 *
 * @internal
 */
export interface CallSettings {
  /** The caller's abort, over every try and wait. */
  readonly signal: AbortSignal | undefined
  /** This call's bound on each try, over the client's. */
  readonly timeoutMs: number | undefined
  /** The call carries an `Idempotency-Key`: transient failures are retried too. */
  readonly idempotent: boolean
}

type Try =
  | { readonly _tag: "Response"; readonly incoming: Incoming }
  | { readonly _tag: "NetworkError"; readonly cause: unknown }
  | { readonly _tag: "Timeout"; readonly afterMs: number }

const noAnswer = { status: 0, field: null, details: {}, traceId: null } as const

const aborted = (signal: AbortSignal) =>
  new SignalmanError({ ...noAnswer, code: "ABORTED", message: "the call was aborted" }, { cause: signal.reason })

// The abort as an error when the signal has fired. A function, not `signal.aborted` inline: the compiler would keep
// its narrowing from before an await.
const abortedBy = (signal: AbortSignal | undefined): SignalmanError | undefined =>
  signal?.aborted === true ? aborted(signal) : undefined

const once = async (request: Outgoing, settings: TransportSettings, call: CallSettings): Promise<Try> => {
  const { signal } = call
  const before = abortedBy(signal)
  if (before !== undefined) throw before
  const controller = new AbortController()
  const onAbort = () => controller.abort(signal?.reason)
  signal?.addEventListener("abort", onAbort, { once: true })
  const timeoutMs = call.timeoutMs ?? settings.timeoutMs
  let timedOut = false
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true
          controller.abort()
        }, timeoutMs)
  try {
    const response = await settings.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      signal: controller.signal
    })
    const body = new Uint8Array(await response.arrayBuffer())
    return { _tag: "Response", incoming: { status: response.status, headers: response.headers, body } }
  } catch (cause) {
    const during = abortedBy(signal)
    if (during !== undefined) throw during
    if (timedOut && timeoutMs !== undefined) return { _tag: "Timeout", afterMs: timeoutMs }
    return { _tag: "NetworkError", cause }
  } finally {
    if (timer !== undefined) clearTimeout(timer)
    signal?.removeEventListener("abort", onAbort)
  }
}

const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve, reject) => {
    const before = abortedBy(signal)
    if (before !== undefined) return reject(before)
    const onAbort = () => {
      clearTimeout(timer)
      reject(abortedBy(signal))
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort)
      resolve()
    }, ms)
    signal?.addEventListener("abort", onAbort, { once: true })
  })

const failure = (last: Exclude<Try, { _tag: "Response" }>, request: Outgoing, tries: number) => {
  const after = tries === 1 ? "" : ` (${tries} tries)`
  return last._tag === "Timeout"
    ? new SignalmanError({
        ...noAnswer,
        code: "TIMEOUT",
        message: `${request.method} ${request.url} took longer than ${last.afterMs} ms${after}`
      })
    : new SignalmanError(
        {
          ...noAnswer,
          code: "NETWORK_ERROR",
          message: `${request.method} ${request.url} got no answer${after}: ${describe(last.cause)}`
        },
        { cause: last.cause }
      )
}

// fetch's own message is a bare "fetch failed"; the reason (ECONNREFUSED, ...) sits in its cause.
const describe = (cause: unknown): string => {
  if (!(cause instanceof Error)) return String(cause)
  const inner = cause.cause instanceof Error ? `: ${cause.cause.message}` : ""
  return `${cause.message}${inner}`
}

/**
 * Sends `request` until an answer is final: the answer, whatever its status, once no retry applies; a
 * `SignalmanError` (`NETWORK_ERROR`, `TIMEOUT`, `ABORTED`) when no answer came.
 *
 * @internal
 */
export const send = async (request: Outgoing, settings: TransportSettings, call: CallSettings): Promise<Incoming> => {
  // Bounded: `decide` refuses once `tries` passes `settings.retry.retries`.
  for (let tries = 1; ; tries++) {
    const result = await once(request, settings, call)
    const outcome: Retry.Outcome =
      result._tag === "Response"
        ? { _tag: "Response", status: result.incoming.status, retryAfter: result.incoming.headers.get("retry-after") }
        : result
    const decision = Retry.decide({
      tries,
      outcome,
      idempotent: call.idempotent,
      settings: settings.retry,
      now: Date.now(),
      random: Math.random()
    })
    if (!decision.retry) {
      if (result._tag === "Response") return result.incoming
      throw failure(result, request, tries)
    }
    await sleep(decision.delayMs, call.signal)
  }
}
