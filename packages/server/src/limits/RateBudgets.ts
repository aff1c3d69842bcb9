/**
 * Per-minute rate budgets, correct across server processes that share PostgreSQL.
 *
 * Each process reserves requests from the shared per-minute counter (`rate_windows`) in small blocks and spends
 * them locally, so most requests touch no database. Every reservation adds its whole block to the counter and is
 * granted only what was left under the limit, so the processes together never admit more than the limit in a
 * window; near the limit blocks shrink to one request, so little budget sits unused in another process.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

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
}

export class RateBudgets extends Effect.Service<RateBudgets>()("Signalman/RateBudgets", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const state = new Map<string, Local>()
    let lastSweep = 0

    const reserve = (subject: string, category: string, window: number, block: number) =>
      sql<{ used: number }>`
        INSERT INTO rate_windows AS w (subject, category, window_start, used)
        VALUES (${subject}, ${category}, ${new Date(window)}, ${block})
        ON CONFLICT (subject, category, window_start) DO UPDATE SET used = w.used + ${block}
        RETURNING used
      `.pipe(
        Effect.map((rows) => rows[0]?.used ?? block),
        Effect.orDie
      )

    // Old windows are never read again; drop them now and then instead of running a sweeper for them.
    const sweep = (now: number) =>
      now - lastSweep < WINDOW_MS
        ? Effect.void
        : Effect.zipRight(
            Effect.sync(() => {
              lastSweep = now
            }),
            sql`DELETE FROM rate_windows WHERE window_start < ${new Date(now - 10 * WINDOW_MS)}`.pipe(Effect.ignore)
          )

    const spend = (subject: string, category: string, limit: number): Effect.Effect<Verdict> =>
      Effect.gen(function* () {
        const now = Date.now()
        const window = now - (now % WINDOW_MS)
        const resetSecs = Math.max(1, Math.ceil((window + WINDOW_MS - now) / 1000))
        const key = `${subject}\u0000${category}`
        let local = state.get(key)
        if (local === undefined || local.window !== window) {
          local = { window, reserved: 0, seen: 0, exhausted: false }
          state.set(key, local)
        }
        if (local.reserved > 0) {
          local.reserved--
          return { allowed: true, limit, remaining: Math.max(0, limit - local.seen) + local.reserved, resetSecs }
        }
        if (local.exhausted) return { allowed: false, limit, retryAfterSecs: resetSecs }
        const block = local.seen >= limit * 0.8 ? 1 : Math.max(1, Math.ceil(limit / 20))
        const used = yield* reserve(subject, category, window, block)
        yield* sweep(now)
        const before = used - block
        const granted = Math.max(0, Math.min(block, limit - before))
        local.seen = used
        if (granted === 0) {
          local.exhausted = true
          return { allowed: false, limit, retryAfterSecs: resetSecs }
        }
        local.reserved = granted - 1
        return { allowed: true, limit, remaining: Math.max(0, limit - used) + local.reserved, resetSecs }
      })

    return { spend }
  })
}) {}
