/**
 * The one error a Promise client rejects with: the service's refusals, read from its error envelope, and the
 * failures that happen before an answer comes (the connection, a timeout, the caller's abort), told apart by `code`.
 *
 * ```ts
 * try {
 *   await signalman.targets.get(id)
 * } catch (error) {
 *   if (error instanceof SignalmanError && error.code === "NOT_FOUND") return undefined
 *   throw error
 * }
 * ```
 *
 * @since 0.2.0
 */
import type * as ApiError from "@signalman/core/ApiError"

/**
 * The codes the client itself gives, with `status` 0 unless an answer came:
 *
 * - `NETWORK_ERROR`: no answer: the connection was refused, reset or never made (`cause` holds what `fetch` threw).
 * - `TIMEOUT`: a try took longer than its `timeoutMs`.
 * - `ABORTED`: the caller's `AbortSignal` fired (`cause` holds its reason).
 * - `UNEXPECTED_RESPONSE`: an answer the contract does not describe: an error status without the service's envelope
 *   (a proxy's 502 page), or a success body that does not decode (`status` is the answer's, `details.body` its first
 *   characters, `details.issue` what did not match).
 * - `INVALID_ARGUMENT`: a path parameter that is not a non-empty string (`field` names it); nothing was sent.
 *
 * @since 0.2.0
 * @category models
 */
export type ClientErrorCode = "NETWORK_ERROR" | "TIMEOUT" | "ABORTED" | "UNEXPECTED_RESPONSE" | "INVALID_ARGUMENT"

/**
 * The service's error codes (core's catalogue), for completion; a newer service may send others.
 *
 * @since 0.2.0
 * @category models
 */
export type ApiErrorCode = keyof typeof ApiError.codes

/**
 * What a `SignalmanError` carries.
 *
 * @since 0.2.0
 * @category models
 */
export interface SignalmanErrorFields {
  /** The HTTP status of the answer; 0 when none came. */
  readonly status: number
  /** The service's error code (`VALIDATION_FAILED`, `RATE_LIMITED`, ...) or a {@link ClientErrorCode}. */
  readonly code: ApiErrorCode | ClientErrorCode | (string & {})
  /** A human sentence, as the service wrote it. */
  readonly message: string
  /** The request field at fault (`check.url`, `targets[3].name`), when one is. */
  readonly field: string | null
  /** The envelope's details (`{ quota, current, limit }`, `{ retry_after_secs }`, ...); `{}` when none. */
  readonly details: Readonly<Record<string, unknown>>
  /** The request id the service logged the call under (`trace_id`, also the `X-Request-Id` header). */
  readonly traceId: string | null
}

/**
 * A failed call of the Promise client.
 *
 * @since 0.2.0
 * @category errors
 */
export class SignalmanError extends Error implements SignalmanErrorFields {
  /** The HTTP status of the answer; 0 when none came (network failure, timeout, abort, bad argument). */
  readonly status: number
  /** The service's error code, or one of the client's own ({@link ClientErrorCode}). */
  readonly code: ApiErrorCode | ClientErrorCode | (string & {})
  /** The request field at fault, when one is. */
  readonly field: string | null
  /** The envelope's details; `{}` when none. */
  readonly details: Readonly<Record<string, unknown>>
  /** The request id of the call on the service (the envelope's `trace_id`, else the `X-Request-Id` header). */
  readonly traceId: string | null

  /** Builds the error from its fields; `cause` keeps what went wrong underneath (a `fetch` failure, an abort reason). */
  constructor(fields: SignalmanErrorFields, options?: { readonly cause?: unknown }) {
    super(fields.message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.name = "SignalmanError"
    this.status = fields.status
    this.code = fields.code
    this.field = fields.field
    this.details = fields.details
    this.traceId = fields.traceId
  }
}
