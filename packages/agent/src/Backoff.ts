/**
 * How long the agent waits before it dials the service again: exponential backoff with full jitter (a delay drawn
 * uniformly from zero to a ceiling that doubles with each failure, up to a cap). Many agents cut off by one outage
 * then come back spread over the window instead of all at once, which is what lets a restarted service take them.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"

/**
 * @since 0.1.0
 * @category models
 */
export interface Policy {
  /** The ceiling of the first delay (attempt 0). */
  readonly minMs: number
  /** The cap of every ceiling. */
  readonly maxMs: number
}

/**
 * The ceiling of the delay after `attempt` failures in a row: `minMs * 2^attempt`, at most `maxMs`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const ceiling = (policy: Policy, attempt: number): number =>
  Math.min(policy.maxMs, policy.minMs * 2 ** Math.min(Math.max(0, attempt), 52))

/**
 * The delay for `attempt` given a uniform draw `unit` in [0, 1): full jitter, a whole number of milliseconds from 0 to the
 * ceiling.
 *
 * @since 0.1.0
 * @category constructors
 */
export const delay = (policy: Policy, attempt: number, unit: number): number => {
  const top = ceiling(policy, attempt)
  return Math.min(top, Math.floor(Math.min(Math.max(unit, 0), 1) * top))
}

/**
 * Draws the delay for `attempt` from the `Random` service.
 *
 * @since 0.1.0
 * @category constructors
 */
export const next = (policy: Policy, attempt: number): Effect.Effect<number> =>
  Effect.map(Random.next, (unit) => delay(policy, attempt, unit))
