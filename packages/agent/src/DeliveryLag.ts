/**
 * How long results wait on the agent before the service acknowledges them: from the moment a check ends (its
 * result is made) to the acknowledgement that it is stored. The agent reports the figures of each window in its
 * log (`Results delivered`, with `p50_ms`, `p99_ms`, `max_ms`), which is how an operator sees a slow link to the
 * service, and what the agents benchmark reads for its delivery p99.
 *
 * Samples are kept for one window only (a few thousand numbers at most per window at the agent's default pace),
 * so the figures are exact, not estimated.
 *
 * @since 0.1.0
 */

/**
 * One window's figures.
 *
 * @since 0.1.0
 * @category models
 */
export interface Summary {
  readonly results: number
  readonly p50_ms: number
  readonly p99_ms: number
  readonly max_ms: number
  /** Results acknowledged more than `SLOW_MS` after they were made. */
  readonly over_1s: number
}

/**
 * The delivery time past which a result counts in `over_1s`.
 *
 * @since 0.2.0
 * @category constants
 */
export const SLOW_MS = 1000

/**
 * @since 0.1.0
 * @category models
 */
export class DeliveryLag {
  private samples: Array<number> = []

  /** One result acknowledged `lagMs` after it was made. */
  record(lagMs: number): void {
    this.samples.push(Math.max(0, lagMs))
  }

  /** The figures since the last call, or undefined when nothing was acknowledged meanwhile; starts a new window. */
  take(): Summary | undefined {
    const samples = this.samples
    if (samples.length === 0) return undefined
    this.samples = []
    samples.sort((a, b) => a - b)
    // Sorted: the slow ones are the tail.
    const firstSlow = samples.findIndex((ms) => ms > SLOW_MS)
    const at = (q: number) => samples[Math.min(samples.length - 1, Math.ceil(q * samples.length) - 1)] ?? 0
    return {
      results: samples.length,
      p50_ms: Math.round(at(0.5)),
      p99_ms: Math.round(at(0.99)),
      max_ms: Math.round(samples[samples.length - 1] ?? 0),
      over_1s: firstSlow === -1 ? 0 : samples.length - firstSlow
    }
  }
}
