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
