/**
 * Per-minute rate budgets, correct across server processes that share PostgreSQL.
 *
 * Each process reserves requests from the shared per-minute counter (`rate_windows`) in small blocks and spends
 * them locally, so most requests touch no database. Every reservation adds its whole block to the counter and is
 * granted only what was left under the limit, so the processes together never admit more than the limit in a
 * window; near the limit blocks shrink to one request, so little budget sits unused in another process.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import { LimitsRepo } from "./Repo.js"

const WINDOW_MS = 60_000

export type Verdict =
  | { readonly allowed: true; readonly limit: number; readonly remaining: number; readonly resetSecs: number }
  | { readonly allowed: false; readonly limit: number; readonly retryAfterSecs: number }

interface Local {
  window: number
  reserved: number
  /** The shared counter after this process's last reservation: how full the window was then. */
  seen: number
  exhausted: boolean
  /** The reservation under way, which concurrent requests wait for instead of reserving again. */
  pending: Deferred.Deferred<void> | undefined
  /** Requests waiting for it: the next reservation asks for at least that many. */
  waiting: number
}

export class RateBudgets extends Effect.Service<RateBudgets>()("Signalman/RateBudgets", {
  effect: Effect.gen(function* () {
    const repo = yield* LimitsRepo
    const state = new Map<string, Local>()
    let lastSweep = 0

    const reserve = (subject: string, category: string, window: number, block: number) =>
      repo.reserve({ subject, category, window_start: new Date(window), block })

    // Old windows are never read again; drop them now and then instead of running a sweeper for them.
    const sweep = (now: number) =>
      now - lastSweep < WINDOW_MS
        ? Effect.void
        : Effect.zipRight(
            Effect.sync(() => {
              lastSweep = now
            }),
            repo.sweep(new Date(now - 10 * WINDOW_MS))
          )

    const current = (key: string, window: number): Local => {
      let local = state.get(key)
      if (local === undefined || local.window !== window) {
        local = { window, reserved: 0, seen: 0, exhausted: false, pending: undefined, waiting: 0 }
        state.set(key, local)
      }
      return local
    }

    // Terminates: each reservation either grants something from a finite budget or marks the window exhausted.
    const spend = (subject: string, category: string, limit: number): Effect.Effect<Verdict> =>
      Effect.suspend(() => {
        const now = Date.now()
        const window = now - (now % WINDOW_MS)
        const resetSecs = Math.max(1, Math.ceil((window + WINDOW_MS - now) / 1000))
        const local = current(`${subject}\u0000${category}`, window)
        if (local.reserved > 0) {
          local.reserved--
          return Effect.succeed<Verdict>({
            allowed: true,
            limit,
            remaining: Math.max(0, limit - local.seen) + local.reserved,
            resetSecs
          })
        }
        if (local.exhausted) {
          return Effect.succeed<Verdict>({ allowed: false, limit, retryAfterSecs: resetSecs })
        }
        // One reservation at a time per key: the others wait for it and spend what it brought.
        if (local.pending !== undefined) {
          const pending = local.pending
          local.waiting++
          return Effect.zipRight(
            Deferred.await(pending).pipe(
              Effect.ensuring(
                Effect.sync(() => {
                  local.waiting--
                })
              )
            ),
            spend(subject, category, limit)
          )
        }
        return Effect.gen(function* () {
          const done = yield* Deferred.make<void>()
          local.pending = done
          const block = local.seen >= limit * 0.8 ? 1 : Math.max(1, Math.ceil(limit / 20), local.waiting + 1)
          const used = yield* reserve(subject, category, window, block).pipe(
            Effect.ensuring(
              Effect.zipRight(
                Effect.sync(() => {
                  local.pending = undefined
                }),
                Deferred.succeed(done, undefined)
              )
            )
          )
          yield* sweep(now)
          const granted = Math.max(0, Math.min(block, limit - (used - block)))
          local.seen = Math.max(local.seen, used)
          local.reserved += granted
          if (granted === 0) local.exhausted = true
          return yield* spend(subject, category, limit)
        })
      })

    /**
     * Spends one request from each subject's block already reserved in this process, or nothing at all when any of
     * them has none left in the current window (then `spend` settles each, reserving or refusing).
     */
    const spendReserved = (subjects: ReadonlyArray<string>, category: string): boolean => {
      const now = Date.now()
      const window = now - (now % WINDOW_MS)
      for (const subject of subjects) {
        const local = state.get(`${subject}\u0000${category}`)
        if (local === undefined || local.window !== window || local.reserved === 0) return false
      }
      for (const subject of subjects) {
        const local = state.get(`${subject}\u0000${category}`)
        if (local !== undefined) local.reserved--
      }
      return true
    }

    return { spend, spendReserved }
  }),
  dependencies: [LimitsRepo.Default]
}) {}
