/**
 * Invalidation of what this process remembers about credentials, people and public status pages.
 *
 * Authentication reads sessions, tokens, users and memberships on every request, so they are kept in short-lived
 * in-process caches (`TtlCache`). Anything that revokes or changes them publishes a tag (`token:<id>`,
 * `session:<id>`, `user:<id>`, `status_page:<id>`): this process drops the entries at once, and other processes sharing the same
 * PostgreSQL hear it through LISTEN/NOTIFY. The embedded database serves one process only, so there the local
 * drop is the whole story. Should the notification channel fail, caches are flushed and the TTL bounds staleness.
 */
import { PgClient } from "@effect/sql-pg"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { AppConfig } from "../config/Config.js"

const CHANNEL = "signalman_invalidate"

type Listener = (tag: string) => void

export class Invalidation extends Effect.Service<Invalidation>()("Signalman/Invalidation", {
  scoped: Effect.gen(function* () {
    const pg = yield* PgClient.PgClient
    const config = yield* AppConfig
    const shared = config["database.url"] !== undefined
    const listeners = new Set<Listener>()
    const local = (tag: string) => {
      for (const listener of listeners) listener(tag)
    }
    if (shared) {
      yield* pg.listen(CHANNEL).pipe(
        Stream.runForEach((tag) => Effect.sync(() => local(tag))),
        Effect.tapErrorCause((cause) =>
          Effect.zipRight(
            Effect.sync(() => local("*")),
            Effect.logWarning("Cache invalidation channel failed; caches flushed, reconnecting", cause)
          )
        ),
        Effect.retry(Schedule.exponential("200 millis").pipe(Schedule.union(Schedule.spaced("10 seconds")))),
        Effect.forkScoped
      )
    }
    return {
      subscribe: (listener: Listener) => {
        listeners.add(listener)
      },
      /** Drop the tagged entries here now, and in every other process as soon as the notification arrives. */
      publish: (tag: string): Effect.Effect<void> =>
        Effect.zipRight(
          Effect.sync(() => local(tag)),
          shared
            ? // pg_notify, not the client's notify(): NOTIFY takes no bind parameter for its payload.
              pg`SELECT pg_notify(${CHANNEL}, ${tag})`.pipe(
                Effect.asVoid,
                Effect.catchAllCause((cause) => Effect.logWarning("Could not publish a cache invalidation", cause))
              )
            : Effect.void
        ),
      /** `publish` for many tags, in one statement to the other processes (heartbeat ingest's group writes). */
      publishMany: (tags: ReadonlyArray<string>): Effect.Effect<void> =>
        tags.length === 0
          ? Effect.void
          : Effect.zipRight(
              Effect.sync(() => {
                for (const tag of tags) local(tag)
              }),
              shared
                ? pg`SELECT pg_notify(${CHANNEL}, tag) FROM unnest(${[...tags]}::text[]) AS tag`.pipe(
                    Effect.asVoid,
                    Effect.catchAllCause((cause) => Effect.logWarning("Could not publish cache invalidations", cause))
                  )
                : Effect.void
            )
    }
  })
}) {}
