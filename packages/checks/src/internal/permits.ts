/**
 * The runner's bound on checks in flight: `count` permits handed out first come, first served, each released
 * permit going straight to the longest waiter.
 *
 * Why not Effect's semaphore: its release wakes every waiter whose turn might have come and lets each look again,
 * and a permit is only counted as taken once the woken fiber runs, so one release with thousands waiting woke all
 * of them and all but one went back to wait. A worker behind its grid (1,000 checks a second on a loaded machine,
 * issue 20) had thousands waiting; the wake-ups and their garbage took the process's whole CPU and it fell further
 * behind with each batch. Here a release hands its permit to one waiter, so a release costs the same however many
 * wait.
 *
 * @internal
 */
import * as Effect from "effect/Effect"

const WAITING = 0
const GRANTED = 1
const CANCELLED = 2

interface Waiter {
  readonly resume: (effect: Effect.Effect<void>) => void
  state: typeof WAITING | typeof GRANTED | typeof CANCELLED
}

/** @internal */
export interface Permits {
  /** Takes a permit, waiting in line for one when none is free; an interrupted wait takes none. */
  readonly take: Effect.Effect<void>
  /** Gives a permit back: to the longest waiter if any, else to the free count. Once per permit taken. */
  readonly release: () => void
}

/** @internal */
export const make = (count: number): Permits => {
  let free = count
  // A queue as an array and a read index, compacted now and then: shift() on a long array is linear.
  let line: Array<Waiter | undefined> = []
  let head = 0

  const release = (): void => {
    while (head < line.length) {
      const waiter = line[head]
      line[head++] = undefined
      if (waiter !== undefined && waiter.state === WAITING) {
        waiter.state = GRANTED
        waiter.resume(Effect.void)
        compact()
        return
      }
    }
    compact()
    free++
  }

  const compact = () => {
    if (head === line.length) {
      line = []
      head = 0
    } else if (head > 1024 && head * 2 > line.length) {
      line = line.slice(head)
      head = 0
    }
  }

  const take: Effect.Effect<void> = Effect.suspend(() => {
    if (free > 0) {
      free--
      return Effect.void
    }
    return Effect.async<void>((resume) => {
      const waiter: Waiter = { resume, state: WAITING }
      line.push(waiter)
      // Interrupted while in line: leave it; if the permit came in the same instant, pass it on.
      return Effect.sync(() => {
        if (waiter.state === GRANTED) release()
        else waiter.state = CANCELLED
      })
    })
  })

  return { take, release }
}
