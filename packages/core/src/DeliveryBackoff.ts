/**
 * When the notifier tries a failed delivery again (service-api.md "Events": "Failed deliveries retry on
 * exponential backoff and dead-letter after an attempt cap"). The randomness is an input, so the schedule is a
 * pure function and tests pin it.
 *
 * @since 0.1.0
 */

/**
 * The retry policy: the first retry's ceiling, the largest ceiling, and how many attempts in all (the first
 * delivery included) before the delivery is dead-lettered.
 *
 * @since 0.1.0
 * @category models
 */
export interface Policy {
  readonly base_ms: number
  readonly cap_ms: number
  readonly max_attempts: number
}

/**
 * 30 s, doubling to at most an hour, 12 attempts: a channel that is down for a few hours still gets the
 * notification, and a dead channel stops being tried after about seven hours.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultPolicy: Policy = { base_ms: 30_000, cap_ms: 3_600_000, max_attempts: 12 }

/**
 * What follows a failed attempt.
 *
 * @since 0.1.0
 * @category models
 */
export type Next = { readonly _tag: "Retry"; readonly delay_ms: number } | { readonly _tag: "DeadLetter" }

/**
 * The ceiling of the delay after attempt `attempt` (1 for the first delivery) failed: the base doubled per attempt,
 * capped.
 *
 * @since 0.1.0
 * @category schedule
 */
export const ceiling = (policy: Policy, attempt: number): number => {
  let ms = policy.base_ms
  for (let i = 1; i < attempt && ms < policy.cap_ms; i++) ms *= 2
  return Math.min(ms, policy.cap_ms)
}

/**
 * What to do after attempt `attempt` failed. `jitter` is a random number in [0, 1] (values outside are held to
 * it). The delay is "equal jitter": half the ceiling plus a random share of the other half, so retries of many
 * deliveries that failed together spread out, yet never come back sooner than half the ceiling. For one jitter
 * value the delay never shrinks from one attempt to the next and never passes the cap.
 *
 * @since 0.1.0
 * @category schedule
 */
export const afterFailure = (policy: Policy, attempt: number, jitter: number): Next => {
  if (attempt >= policy.max_attempts) return { _tag: "DeadLetter" }
  const top = ceiling(policy, Math.max(1, attempt))
  const share = Number.isNaN(jitter) ? 0 : Math.min(1, Math.max(0, jitter))
  return { _tag: "Retry", delay_ms: Math.round(top / 2 + (share * top) / 2) }
}
