/**
 * A latency sketch that adds up: a fixed array of log-spaced bucket counts (four buckets per doubling, 1 ms to
 * about three minutes). Two histograms of the same layout merge by adding element-wise, so the rollups store one per
 * hour and per day and any range's quantiles come from the sum, with a relative error under 10% (the geometric
 * middle of a bucket is at most 2^(1/8) from either edge).
 *
 * @since 0.1.0
 */

/**
 * How many buckets a histogram has: bucket 0 holds [0, 1] ms, bucket i holds (2^((i-1)/4), 2^(i/4)] ms, the last
 * holds everything above 2^17.5 ms (about 185 s).
 *
 * @since 0.1.0
 * @category constants
 */
export const BUCKETS = 72

/**
 * @since 0.1.0
 * @category models
 */
export type Histogram = ReadonlyArray<number>

/**
 * @since 0.1.0
 * @category constructors
 */
export const empty = (): Array<number> => new Array<number>(BUCKETS).fill(0)

/**
 * The bucket a duration falls in.
 *
 * @since 0.1.0
 * @category buckets
 */
export const bucketOf = (ms: number): number => {
  if (!(ms > 1)) return 0
  return Math.min(BUCKETS - 1, Math.ceil(Math.log2(ms) * 4 - 1e-9))
}

/**
 * The value a bucket stands for: its geometric middle (0.5 ms for the first, the lower edge for the open last).
 *
 * @since 0.1.0
 * @category buckets
 */
export const representative = (bucket: number): number => {
  if (bucket <= 0) return 0.5
  if (bucket >= BUCKETS - 1) return 2 ** ((BUCKETS - 2) / 4)
  return 2 ** ((bucket - 0.5) / 4)
}

/**
 * A histogram of the given durations.
 *
 * @since 0.1.0
 * @category constructors
 */
export const of = (durations: Iterable<number>): Array<number> => {
  const counts = empty()
  for (const ms of durations) {
    const b = bucketOf(ms)
    counts[b] = (counts[b] ?? 0) + 1
  }
  return counts
}

/**
 * Element-wise sum; a shorter or missing array counts as zeros.
 *
 * @since 0.1.0
 * @category combinators
 */
export const merge = (a: Histogram, b: Histogram): Array<number> =>
  Array.from({ length: BUCKETS }, (_, i) => (a[i] ?? 0) + (b[i] ?? 0))

/**
 * The q-quantile (0 < q <= 1) by nearest rank over the bucket counts; null for an empty histogram.
 *
 * @since 0.1.0
 * @category quantiles
 */
export const quantile = (histogram: Histogram, q: number): number | null => {
  const total = histogram.reduce((sum, n) => sum + n, 0)
  if (total === 0) return null
  const rank = Math.max(1, Math.ceil(q * total))
  let seen = 0
  for (let i = 0; i < BUCKETS; i++) {
    seen += histogram[i] ?? 0
    if (seen >= rank) return representative(i)
  }
  return representative(BUCKETS - 1)
}
