/**
 * Waiting for a state instead of guessing how long it takes. The CI machine is loaded (2 cores, load average up
 * to 10), so a scheduler, a worker loop or a mail can take several times longer than on a quiet laptop: a test
 * polls for the condition it needs, with a generous bound, and asserts on what it observed.
 */
import * as Effect from "effect/Effect"

export interface Options {
  /** How long to keep polling before giving up, in milliseconds (default 20 s). */
  readonly timeoutMs?: number
  /** The pause between two reads, in milliseconds (default 100). */
  readonly intervalMs?: number
}

/**
 * Reads until `done` holds or the deadline passes, and answers the last value read either way: the caller's
 * assertion on it then fails with the value in the message when the deadline passed.
 */
export const eventually = <A, E, R>(read: Effect.Effect<A, E, R>, done: (a: A) => boolean, options: Options = {}) =>
  Effect.gen(function* () {
    const deadline = Date.now() + (options.timeoutMs ?? 20_000)
    for (;;) {
      const value = yield* read
      if (done(value) || Date.now() > deadline) return value
      yield* Effect.sleep(`${options.intervalMs ?? 100} millis`)
    }
  })

/**
 * The per-minute rate budgets count in fixed windows of the wall clock (`window = now - now % 60 s`). A test that
 * spends a budget and expects a 429 must not straddle two windows, or the second window admits again: when less
 * than `needSecs` are left in the current minute, this waits for the next one to begin. Keep `needSecs` to what the
 * calls need (with room for a slow machine): it is also the longest this may wait.
 */
export const awayFromMinuteEdge = (needSecs: number) =>
  Effect.suspend(() => {
    const left = 60_000 - (Date.now() % 60_000)
    return left >= needSecs * 1000 ? Effect.void : Effect.sleep(`${left + 100} millis`)
  })
