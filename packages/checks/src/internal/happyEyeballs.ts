/**
 * Staggered racing of connection attempts (RFC 8305, "Happy Eyeballs"): the first attempt starts at once, each
 * next one after `delay` or as soon as the one before it fails, and the first to succeed wins; the others are
 * interrupted.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

/**
 * Runs `attempts` staggered by `delay` and succeeds with the first success. Fails with every attempt's error, in
 * the order they failed, when none succeeds.
 *
 * @internal
 */
export const staggered = <A, E, R>(
  attempts: ReadonlyArray<Effect.Effect<A, E, R>>,
  delay: Duration.DurationInput
): Effect.Effect<A, ReadonlyArray<E>, R> =>
  Effect.suspend(() => {
    // One address (an IP literal, most names on one family) has nothing to race: no stagger, no bookkeeping.
    const only = attempts.length === 1 ? attempts[0] : undefined
    if (only !== undefined) return Effect.mapError(only, (error) => [error])
    // Local to this run: attempts only append, and the array is read once every attempt has failed.
    const failures: Array<E> = []
    const from = (index: number): Effect.Effect<A, void, R> => {
      const attempt = attempts[index]
      if (attempt === undefined) return Effect.fail(undefined)
      return Effect.flatMap(Deferred.make<void>(), (failed) => {
        const tracked = attempt.pipe(
          Effect.tapError((error) =>
            Effect.sync(() => failures.push(error)).pipe(Effect.zipRight(Deferred.succeed(failed, undefined)))
          ),
          Effect.mapError(() => undefined)
        )
        if (index === attempts.length - 1) return tracked
        const next = Effect.race(Deferred.await(failed), Effect.sleep(delay)).pipe(Effect.zipRight(from(index + 1)))
        return Effect.race(tracked, next)
      })
    }
    return Effect.mapError(from(0), () => failures)
  })
