/**
 * A small in-process cache: entries live `ttlMs`, carry tags, and go when a tag is invalidated. Bounded: when full
 * it starts over, which costs only database reads.
 */
export class TtlCache<V> {
  private readonly entries = new Map<
    string,
    { readonly value: V; readonly until: number; readonly tags: ReadonlyArray<string> }
  >()
  private readonly byTag = new Map<string, Set<string>>()

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 50_000
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    if (entry.until <= Date.now()) {
      this.delete(key)
      return undefined
    }
    return entry.value
  }

  set(key: string, value: V, tags: ReadonlyArray<string>): void {
    if (this.entries.size >= this.maxEntries) this.clear()
    this.delete(key)
    this.entries.set(key, { value, until: Date.now() + this.ttlMs, tags })
    for (const tag of tags) {
      let keys = this.byTag.get(tag)
      if (keys === undefined) {
        keys = new Set()
        this.byTag.set(tag, keys)
      }
      keys.add(key)
    }
  }

  invalidate(tag: string): void {
    if (tag === "*") {
      this.clear()
      return
    }
    const keys = this.byTag.get(tag)
    if (keys === undefined) return
    this.byTag.delete(tag)
    for (const key of keys) this.delete(key)
  }

  private delete(key: string): void {
    const entry = this.entries.get(key)
    if (entry === undefined) return
    this.entries.delete(key)
    for (const tag of entry.tags) this.byTag.get(tag)?.delete(key)
  }

  private clear(): void {
    this.entries.clear()
    this.byTag.clear()
  }
}
