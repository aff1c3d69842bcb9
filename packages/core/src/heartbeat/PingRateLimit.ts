/**
 * The per-token ping rate limit (service-api.md "Heartbeat ping endpoint"): 1 ping per second sustained, bursts of
 * 10, one bucket for all of a token's signals; over it, 429 with `Retry-After`.
 *
 * A token bucket kept in integer milli-tokens, so refilling over any number of small steps adds up exactly and the
 * limit holds to the ping (floating-point refills drift).
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as DateTime from "effect/DateTime"

/**
 * A bucket's size and refill rate.
 *
 * @since 0.1.0
 * @category models
 */
export interface Limit {
  readonly burst: number
  /** Whole tokens per second. */
  readonly per_second: number
}

/**
 * The spec's ping limit.
 *
 * @since 0.1.0
 * @category constants
 */
export const PING_LIMIT: Limit = { burst: 10, per_second: 1 }

const unit = 1000

/**
 * One token's bucket: its level in thousandths of a ping, as of `at` (epoch milliseconds).
 *
 * @since 0.1.0
 * @category models
 */
export interface Bucket {
  readonly level: number
  readonly at: number
}

/**
 * Allowed, with the whole pings left in the bucket; or refused, with the whole seconds until one is allowed.
 *
 * @since 0.1.0
 * @category models
 */
export type Decision = Data.TaggedEnum<{
  Allowed: { readonly remaining: number }
  Limited: { readonly retry_after_secs: number }
}>

/**
 * Constructors for {@link Decision}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const Decision = Data.taggedEnum<Decision>()

// The level at `nowMs`: refilled since the bucket's time, never above the burst. A clock that steps back adds
// nothing (and the bucket keeps its later time, so stepping forward again cannot count the same span twice).
const refill = (bucket: Bucket | undefined, nowMs: number, limit: Limit): Bucket => {
  const full = limit.burst * unit
  if (bucket === undefined) return { level: full, at: nowMs }
  const elapsed = Math.max(0, nowMs - bucket.at)
  // per_second tokens a second is per_second thousandths of a token a millisecond.
  return { level: Math.min(full, bucket.level + elapsed * limit.per_second), at: Math.max(bucket.at, nowMs) }
}

/**
 * Spend one ping from a token's bucket (none yet means full). A refused ping spends nothing.
 *
 * @since 0.1.0
 * @category transitions
 */
export const take = (
  bucket: Bucket | undefined,
  now: DateTime.Utc,
  limit: Limit = PING_LIMIT
): { readonly bucket: Bucket; readonly decision: Decision } => {
  const current = refill(bucket, DateTime.toEpochMillis(now), limit)
  if (current.level >= unit) {
    const level = current.level - unit
    return { bucket: { ...current, level }, decision: Decision.Allowed({ remaining: Math.floor(level / unit) }) }
  }
  const waitMs = Math.ceil((unit - current.level) / limit.per_second)
  return { bucket: current, decision: Decision.Limited({ retry_after_secs: Math.max(1, Math.ceil(waitMs / 1000)) }) }
}

/**
 * Whether a bucket has refilled completely by `now`, so it can be forgotten (a missing bucket is a full one).
 *
 * @since 0.1.0
 * @category predicates
 */
export const isFull = (bucket: Bucket, now: DateTime.Utc, limit: Limit = PING_LIMIT): boolean =>
  refill(bucket, DateTime.toEpochMillis(now), limit).level >= limit.burst * unit
