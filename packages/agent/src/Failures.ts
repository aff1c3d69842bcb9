/**
 * Why talking to the service did not work, split by what the agent does about it: a refused token stops the agent
 * (nothing but a new token helps), anything else is retried with backoff.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"

/**
 * The service refused the agent token: 401 on hello or on the results, a 401 answer to the stream's upgrade, or
 * the stream closed with code 4401. `message` is the service's reason.
 *
 * @since 0.1.0
 * @category errors
 */
export class TokenRefused extends Data.TaggedError("TokenRefused")<{ readonly message: string }> {}

/**
 * The service could not be reached or did not answer as the protocol says (a network error, a timeout, a 5xx, an
 * answer that does not decode). Retried with backoff; `message` is one line for the log.
 *
 * @since 0.1.0
 * @category errors
 */
export class Unreachable extends Data.TaggedError("Unreachable")<{
  readonly message: string
  /** The HTTP status, when there was an answer. */
  readonly status?: number | undefined
}> {}
