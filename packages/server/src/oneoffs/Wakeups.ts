/**
 * Wake-ups within one process, beside the database that coordinates one-off runs: when a request asks for a run,
 * this process's stream dispatcher looks at once instead of at its next poll; when an agent's answer is taken here,
 * a request of this process waiting on it reads it at once. They are hints only: the row in `one_off_runs` is what
 * is true, and a process that hears nothing (the request and the agent's stream are on different processes) finds
 * the same by polling every `agents.one_off_poll_ms`. A lost wake-up costs one poll of latency, never a result.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"

export class Wakeups extends Effect.Service<Wakeups>()("Signalman/OneOffWakeups", {
  effect: Effect.gen(function* () {
    // One pending ring is as good as many.
    const dispatch = yield* Queue.sliding<void>(1)
    const waiting = new Map<string, Queue.Queue<void>>()

    return {
      /** A run was written here: the dispatcher of this process looks now. */
      runAsked: Queue.offer(dispatch, undefined),
      /** Waits for a run to be asked here, at most `ms`. */
      nextAsked: (ms: number): Effect.Effect<void> =>
        Effect.asVoid(Effect.timeoutOption(Queue.take(dispatch), Duration.millis(ms))),
      /** Answers were taken here for these runs: their requests, if waiting in this process, read them now. */
      answered: (ids: ReadonlyArray<string>): Effect.Effect<void> =>
        Effect.sync(() => {
          for (const id of ids) {
            const queue = waiting.get(id.toLowerCase())
            if (queue !== undefined) Queue.unsafeOffer(queue, undefined)
          }
        }),
      /**
       * Watches a run for the life of the scope: `next(ms)` waits for its answer's wake-up, at most `ms`. Watching
       * starts before the run is written, so no wake-up can come before it.
       */
      watch: (id: string) =>
        Effect.gen(function* () {
          const key = id.toLowerCase()
          const queue = yield* Queue.sliding<void>(1)
          waiting.set(key, queue)
          yield* Effect.addFinalizer(() =>
            Effect.sync(() => {
              if (waiting.get(key) === queue) waiting.delete(key)
            })
          )
          return {
            next: (ms: number): Effect.Effect<void> =>
              Effect.asVoid(Effect.timeoutOption(Queue.take(queue), Duration.millis(ms)))
          }
        })
    }
  })
}) {}
