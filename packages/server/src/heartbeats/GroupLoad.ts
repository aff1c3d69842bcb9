/**
 * Loads by key in groups, for the ping path's cache misses: the first key asked while nothing loads starts a load at
 * once (alone: no wait added when it is quiet); keys asked while a load runs wait and go together in the next one.
 * Under load a query serves a whole group of pings, so the round trips a second stay few whatever the rate, the way
 * the ping writes group their commits.
 */

/** A key's value, or undefined when the load found none. */
export type Load<K, V> = (keys: ReadonlyArray<K>) => Promise<ReadonlyMap<K, V>>

export interface GroupLoad<K, V> {
  readonly get: (key: K) => Promise<V | undefined>
}

export const make = <K, V>(load: Load<K, V>): GroupLoad<K, V> => {
  let waiting = new Map<K, Array<{ resolve: (value: V | undefined) => void; reject: (error: unknown) => void }>>()
  let loading = false

  const next = async (): Promise<void> => {
    loading = true
    try {
      while (waiting.size > 0) {
        const group = waiting
        waiting = new Map()
        try {
          const found = await load([...group.keys()])
          for (const [key, callers] of group) for (const caller of callers) caller.resolve(found.get(key))
        } catch (error) {
          for (const callers of group.values()) for (const caller of callers) caller.reject(error)
        }
      }
    } finally {
      loading = false
    }
  }

  return {
    get: (key) =>
      new Promise((resolve, reject) => {
        const callers = waiting.get(key)
        if (callers === undefined) waiting.set(key, [{ resolve, reject }])
        else callers.push({ resolve, reject })
        if (!loading) void next()
      })
  }
}
