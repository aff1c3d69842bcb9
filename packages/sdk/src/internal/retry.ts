/**
 * When a call is tried again and how long it waits first, as pure functions of what the last try saw: the
 * transport runs the loop, this module decides. decisions.md ("Monitoring as code (the CLI) and the SDK"): 429 and
 * 503 are retried with backoff honouring `Retry-After`; nothing else is, unless the call carries an
 * `Idempotency-Key`, when a lost connection, a timeout and any 5xx are too (the service replays the first answer).
 *
 * @internal
 */

/**
 * How a client retries.
 *
 * @internal
 */
export interface RetrySettings {
  /** Tries after the first; 2 means at most 3 tries. 0 turns retrying off. */
  readonly retries: number
  /** The first backoff's ceiling; each further one doubles it. */
  readonly baseDelayMs: number
  /** The longest wait: backoff stops growing here, and a `Retry-After` asking for longer is not waited for. */
  readonly maxDelayMs: number
}

/**
 * Three tries, waits from a quarter second doubling, at most a minute.
 *
 * @internal
 */
export const defaultSettings: RetrySettings = { retries: 2, baseDelayMs: 500, maxDelayMs: 60_000 }

/**
 * What one try saw.
 *
 * @internal
 */
export type Outcome =
  | { readonly _tag: "Response"; readonly status: number; readonly retryAfter: string | null }
  | { readonly _tag: "NetworkError" }
  | { readonly _tag: "Timeout" }

/**
 * Whether to try again, and after how long.
 *
 * @internal
 */
export type Decision = { readonly retry: false } | { readonly retry: true; readonly delayMs: number }

const DELTA_SECONDS = /^\s*(\d+)\s*$/

/**
 * The wait a `Retry-After` header asks for, in milliseconds: delta-seconds (`120`) or an HTTP date
 * (`Wed, 21 Oct 2026 07:28:00 GMT`, a date in the past meaning now). Undefined when absent or unreadable, so the
 * caller falls back to its own backoff.
 *
 * @internal
 */
export const parseRetryAfter = (value: string | null | undefined, now: number): number | undefined => {
  if (value === null || value === undefined) return undefined
  const seconds = DELTA_SECONDS.exec(value)
  if (seconds !== null) return Number(seconds[1]) * 1000
  // Only a date that names its zone: Date.parse reads "2026-10-21" or a bare number as something else entirely.
  if (!/GMT|UTC|[+-]\d{4}$/.test(value)) return undefined
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

/**
 * Whether a try that saw `outcome` may be made again. Without an idempotency key only the answers that say the
 * request was not acted on (429, 503) qualify; with one, anything that may be transient.
 *
 * @internal
 */
export const isRetryable = (outcome: Outcome, idempotent: boolean): boolean => {
  switch (outcome._tag) {
    case "Response":
      return outcome.status === 429 || outcome.status === 503 || (idempotent && outcome.status >= 500)
    case "NetworkError":
    case "Timeout":
      return idempotent
  }
}

/**
 * Exponential backoff with equal jitter before retry number `retry` (1 for the first): half of the ceiling fixed,
 * half random, so clients that failed together do not come back together, yet none comes back at once.
 *
 * @internal
 */
export const backoff = (retry: number, settings: RetrySettings, random: number): number => {
  const ceiling = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** Math.max(0, retry - 1))
  return Math.round(ceiling / 2 + (ceiling / 2) * random)
}

/**
 * What to do after try number `tries` (1 for the first) saw `outcome`.
 *
 * @internal
 */
export const decide = (input: {
  readonly tries: number
  readonly outcome: Outcome
  readonly idempotent: boolean
  readonly settings: RetrySettings
  readonly now: number
  readonly random: number
}): Decision => {
  const { outcome, settings, tries } = input
  if (tries > settings.retries || !isRetryable(outcome, input.idempotent)) return { retry: false }
  const asked = outcome._tag === "Response" ? parseRetryAfter(outcome.retryAfter, input.now) : undefined
  if (asked === undefined) return { retry: true, delayMs: backoff(tries, settings, input.random) }
  // The service knows when it will take the request again; a wait past what the caller accepts is its answer.
  return asked > settings.maxDelayMs ? { retry: false } : { retry: true, delayMs: asked }
}
