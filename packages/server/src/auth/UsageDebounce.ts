/**
 * One debounce for every "last used" write (sessions and API tokens): a credential used many times a minute is
 * written back once a minute, not on every request.
 */
import * as Effect from "effect/Effect"

const WINDOW_MS = 60_000
const MAX_ENTRIES = 100_000

export class UsageDebounce extends Effect.Service<UsageDebounce>()("Signalman/UsageDebounce", {
  sync: () => {
    const last = new Map<string, number>()
    return {
      /** True when `due(key)` would be: for a caller that must know without marking it. */
      isDue: (key: string): boolean => {
        const previous = last.get(key)
        return previous === undefined || Date.now() - previous >= WINDOW_MS
      },
      /** True when `key` was not reported due in the last minute (and marks it now). */
      due: (key: string): boolean => {
        const now = Date.now()
        const previous = last.get(key)
        if (previous !== undefined && now - previous < WINDOW_MS) return false
        if (last.size >= MAX_ENTRIES) last.clear()
        last.set(key, now)
        return true
      }
    }
  }
}) {}
