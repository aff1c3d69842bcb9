/**
 * Staggered racing of connection attempts (RFC 8305, "Happy Eyeballs"): the first attempt starts at once, each
 * next one after `delay` or as soon as the one before it fails, and the first to succeed wins; the others are
 * aborted.
 *
 * Plain callbacks rather than Effects: a dial is one asynchronous step of a check (see `internal/socket.ts`), and
 * the race inside it is a handful of sockets and one timer, which a fiber per attempt only made dearer.
 *
 * @internal
 */

/**
 * One attempt: started with the callback it must call once, with its error or its value; answers how to abort it.
 * Aborting an attempt that already called back must be harmless (it may still own what it made, e.g. a socket).
 *
 * @internal
 */
export type Attempt<A, E> = (settle: (outcome: Settled<A, E>) => void) => () => void

/**
 * What an attempt called back with.
 *
 * @internal
 */
export type Settled<A, E> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly error: E }

/**
 * Runs `run` after `ms` and answers how to cancel it; the real one is `setTimeout`, tests pass a manual clock.
 *
 * @internal
 */
export type Schedule = (ms: number, run: () => void) => () => void

const realTimer: Schedule = (ms, run) => {
  const timer = setTimeout(run, ms)
  return () => clearTimeout(timer)
}

/**
 * The outcome of a race: the first success, or every attempt's error in the order they failed.
 *
 * @internal
 */
export type Raced<A, E> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly errors: Array<E> }

/**
 * Runs `attempts` staggered by `delayMs` and calls `done` once: with the first success (every other attempt
 * aborted) or, when every attempt failed, with their errors in the order they failed. Answers how to abort the
 * whole race (then `done` is never called).
 *
 * @internal
 */
export const staggered = <A, E>(
  attempts: ReadonlyArray<Attempt<A, E>>,
  delayMs: number,
  done: (raced: Raced<A, E>) => void,
  schedule: Schedule = realTimer
): (() => void) => {
  const aborts: Array<() => void> = []
  const errors: Array<E> = []
  let started = 0
  let over = false
  let cancelTimer: (() => void) | undefined

  const stopTimer = (): void => {
    cancelTimer?.()
    cancelTimer = undefined
  }
  // Every attempt but the winner (none when the race is aborted) is aborted.
  const abortAll = (winner: number): void => {
    stopTimer()
    aborts.forEach((abort, index) => {
      if (index !== winner) abort()
    })
  }
  const start = (): void => {
    const index = started++
    const attempt = attempts[index]
    if (attempt === undefined) return
    // The next attempt waits its delay, or less if this one fails first; the last one has no next.
    if (started < attempts.length) cancelTimer = schedule(delayMs, next)
    aborts[index] = attempt((outcome) => {
      if (over) return
      if (outcome.ok) {
        over = true
        abortAll(index)
        done(outcome)
        return
      }
      errors.push(outcome.error)
      if (errors.length === attempts.length) {
        over = true
        stopTimer()
        done({ ok: false, errors })
      } else if (index === started - 1) {
        next()
      }
    })
  }
  // Starts the attempt after the latest one, once: by its timer or by the latest one failing.
  const next = (): void => {
    if (over) return
    stopTimer()
    start()
  }

  start()
  return () => {
    if (over) return
    over = true
    abortAll(-1)
  }
}
