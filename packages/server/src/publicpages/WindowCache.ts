/**
 * A value per key, built once per window (the public surface's cache window) by whoever asks first, and shared
 * with everyone who asks meanwhile.
 *
 * The build runs on a fiber of its own, not on the asking request's: a client that closes its connection
 * interrupts its request, and with the build on that request's fiber the interruption became the window's value,
 * so every request of the next seconds was answered 499 with no body (the status-page benchmark showed a whole round
 * of them). Here an asker that goes away only stops waiting; the build goes on for the others. A failed build is
 * forgotten at once, so the next asker builds again.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Runtime from "effect/Runtime"

interface Entry<A> {
  readonly until: number
  readonly fiber: Fiber.RuntimeFiber<A>
  /** Set once the build has succeeded: what `peek` reads without running or waiting for anything. */
  settled: { readonly value: A } | undefined
}

export interface WindowCache<A> {
  /** The key's value of this window, building it (once, whoever asks) when there is none. */
  readonly get: (key: string, build: Effect.Effect<A>) => Effect.Effect<A>
  /** The key's value if it is built and its window lasts at `now`; undefined otherwise (never waits or builds). */
  readonly peek: (key: string, now: number) => { readonly value: A } | undefined
  /** Forgets the key's value (a build in flight still answers its askers); the next asker builds anew. */
  readonly drop: (key: string) => void
  /** Forgets every value. */
  readonly clear: () => void
}

/** A cache whose values live `ttlMs`; past `maxEntries` keys it starts over (a bound, not an eviction policy). */
export const make = <A>(ttlMs: number, maxEntries = 10_000): Effect.Effect<WindowCache<A>> =>
  Effect.map(Effect.runtime<never>(), (runtime) => {
    const entries = new Map<string, Entry<A>>()
    const start = Runtime.runFork(runtime)
    const get = (key: string, build: Effect.Effect<A>): Effect.Effect<A> =>
      Effect.suspend(() => {
        const now = Date.now()
        const hit = entries.get(key)
        if (hit !== undefined && hit.until > now) return Fiber.join(hit.fiber)
        if (entries.size >= maxEntries) entries.clear()
        // Started synchronously, so two askers in one window can never both build.
        const entry: Entry<A> = { until: now + ttlMs, fiber: start(build), settled: undefined }
        entries.set(key, entry)
        entry.fiber.addObserver((exit) => {
          if (Exit.isSuccess(exit)) entry.settled = { value: exit.value }
          else if (entries.get(key) === entry) entries.delete(key)
        })
        return Fiber.join(entry.fiber)
      })
    const peek = (key: string, now: number) => {
      const hit = entries.get(key)
      return hit !== undefined && hit.until > now ? hit.settled : undefined
    }
    return { get, peek, drop: (key: string) => entries.delete(key), clear: () => entries.clear() }
  })
