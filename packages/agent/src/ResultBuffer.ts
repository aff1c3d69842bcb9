/**
 * The results an agent holds until the service acknowledges them: bounded (past `capacity` the oldest is dropped
 * and counted, so a long outage costs the oldest results rather than the agent's memory), kept in the order they
 * were made, and removed only by an acknowledgement. Each is `unsent` (waiting to go out) or `sent` (on the wire,
 * not yet acknowledged): a lost connection or an acknowledgement that never comes puts sent ones back to unsent,
 * and they go out again unchanged (same id, same `checked_at`), which the service stores once.
 *
 * Plain synchronous state: every method runs in one step, so callers on any fiber see it consistent.
 *
 * @since 0.1.0
 */

interface Entry<A> {
  readonly item: A
  /** When it was made (epoch ms): how long it waited is measured from here. */
  readonly madeAt: number
  /** When it last went out (epoch ms), or undefined while unsent. */
  sentAt: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export class ResultBuffer<A extends { readonly id: string }> {
  // Insertion-ordered: the first entry is the oldest, the one dropped when full.
  private readonly entries = new Map<string, Entry<A>>()
  // The unsent ids in the order they go out.
  private readonly unsent = new Set<string>()
  private droppedTotal = 0

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer`)
  }

  /** Results held (unsent and sent). */
  get size(): number {
    return this.entries.size
  }

  /** Results waiting to go out. */
  get unsentCount(): number {
    return this.unsent.size
  }

  /** Results dropped because the buffer was full, since it was made. */
  get dropped(): number {
    return this.droppedTotal
  }

  /** Holds `item` as unsent; when full, drops the oldest result first. Answers the dropped items (at most one). */
  add(item: A, now: number = Date.now()): ReadonlyArray<A> {
    const dropped: Array<A> = []
    if (this.entries.has(item.id)) return dropped
    while (this.entries.size >= this.capacity) {
      const oldest = this.entries.entries().next()
      if (oldest.done === true) break
      const [id, entry] = oldest.value
      this.entries.delete(id)
      this.unsent.delete(id)
      this.droppedTotal++
      dropped.push(entry.item)
    }
    this.entries.set(item.id, { item, madeAt: now, sentAt: undefined })
    this.unsent.add(item.id)
    return dropped
  }

  /** Takes up to `max` unsent results, oldest first, and marks them sent at `now`. */
  takeUnsent(max: number, now: number): ReadonlyArray<A> {
    const taken: Array<A> = []
    for (const id of this.unsent) {
      if (taken.length >= max) break
      const entry = this.entries.get(id)
      this.unsent.delete(id)
      if (entry === undefined) continue
      entry.sentAt = now
      taken.push(entry.item)
    }
    return taken
  }

  /**
   * Removes the acknowledged results; answers how many it held. `delivered`, when given, is told when each removed
   * result was made.
   */
  ack(ids: Iterable<string>, delivered?: (madeAt: number) => void): number {
    let removed = 0
    for (const id of ids) {
      const entry = this.entries.get(id)
      if (entry !== undefined) {
        this.entries.delete(id)
        removed++
        delivered?.(entry.madeAt)
      }
      this.unsent.delete(id)
    }
    return removed
  }

  /**
   * Puts every sent result back to unsent (the connection they went out on is gone), keeping the order they were
   * made in. Answers how many went back.
   */
  requeueAll(): number {
    let requeued = 0
    this.unsent.clear()
    for (const [id, entry] of this.entries) {
      if (entry.sentAt !== undefined) {
        entry.sentAt = undefined
        requeued++
      }
      this.unsent.add(id)
    }
    return requeued
  }

  /** Puts back to unsent the results sent at or before `cutoff` and not acknowledged since. Answers how many. */
  requeueSentBefore(cutoff: number): number {
    let requeued = 0
    for (const [id, entry] of this.entries) {
      if (entry.sentAt !== undefined && entry.sentAt <= cutoff) {
        entry.sentAt = undefined
        this.unsent.add(id)
        requeued++
      }
    }
    return requeued
  }

  /** Every result held, oldest first, whatever its state (a drain delivering over HTTP takes them all). */
  all(): ReadonlyArray<A> {
    return Array.from(this.entries.values(), (entry) => entry.item)
  }
}
