/**
 * Browser sessions: the `_sm_session` cookie carries 32 random bytes (43 base64url characters); the database keeps
 * only their SHA-256. A session ends after `auth.session.idle_timeout_hours` unused or
 * `auth.session.absolute_timeout_days` after sign-in, whichever comes first; use is written back at most once a
 * minute (the debounce shared with API tokens).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { SESSION_COOKIE } from "@signalman/core/api/OpenApiDocument"
import { OrgId, SessionId, UserId } from "@signalman/core/Identity"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { AppConfig } from "../config/Config.js"
import { uuidv7 } from "../infra/Ids.js"
import { Invalidation } from "../infra/Invalidation.js"
import { randomSecret, sha256, sha256Key } from "../infra/Secrets.js"
import { TtlCache } from "../infra/TtlCache.js"
import { Fingerprint } from "./Fingerprint.js"
import { UsageDebounce } from "./UsageDebounce.js"

// The contract's name, so the OpenAPI document's session scheme names the cookie the server sets.
export const COOKIE = SESSION_COOKIE
const wellFormed = /^[A-Za-z0-9_-]{43}$/

export const SessionRow = Schema.Struct({
  id: SessionId,
  user_id: UserId,
  active_org_id: Schema.NullOr(OrgId),
  created_at: Schema.DateFromSelf,
  last_seen_at: Schema.DateFromSelf,
  idle_expires_at: Schema.DateFromSelf,
  absolute_expires_at: Schema.DateFromSelf
})
export type SessionRow = typeof SessionRow.Type

export interface Device {
  readonly ip?: string | undefined
  readonly userAgent?: string | undefined
}

export class Sessions extends Effect.Service<Sessions>()("Signalman/Sessions", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const fingerprint = yield* Fingerprint
    const debounce = yield* UsageDebounce
    const idleHours = config["auth.session.idle_timeout_hours"]
    const absoluteDays = config["auth.session.absolute_timeout_days"]
    const invalidation = yield* Invalidation
    const decode = Schema.decodeUnknown(Schema.Array(SessionRow))
    // Live sessions by cookie hash, read on every request: dropped on `session:<id>` and `user:<id>`.
    const cache = new TtlCache<SessionRow>(10_000)
    invalidation.subscribe((tag) => cache.invalidate(tag))

    const isLive = (session: SessionRow) => {
      const now = Date.now()
      return session.idle_expires_at.getTime() > now && session.absolute_expires_at.getTime() > now
    }

    const live = (cookie: string): Effect.Effect<SessionRow | undefined> =>
      Effect.suspend(() => {
        if (!wellFormed.test(cookie)) return Effect.succeed(undefined)
        const key = sha256Key(cookie)
        const hit = cache.get(key)
        if (hit !== undefined) return Effect.succeed(isLive(hit) ? hit : undefined)
        return sql`
          SELECT id, user_id, active_org_id, created_at, last_seen_at, idle_expires_at, absolute_expires_at
          FROM sessions
          WHERE token_hash = ${sha256(cookie)} AND revoked_at IS NULL
            AND idle_expires_at > now() AND absolute_expires_at > now()
        `.pipe(
          Effect.flatMap(decode),
          Effect.map((rows) => rows[0]),
          Effect.tap((row) =>
            Effect.sync(() => {
              if (row !== undefined) cache.set(key, row, [`session:${row.id}`, `user:${row.user_id}`])
            })
          ),
          Effect.orDie
        )
      })

    const revoked = (rows: ReadonlyArray<{ readonly id: string }>) =>
      Effect.forEach(rows, (row) => invalidation.publish(`session:${row.id}`), { discard: true })

    return {
      /** A fresh session; the answer carries the cookie value, which is never stored. */
      create: (userId: string, activeOrgId: string | null, device: Device) =>
        Effect.gen(function* () {
          const cookie = randomSecret(32)
          const id = uuidv7()
          yield* sql`
            INSERT INTO sessions (id, token_hash, user_id, active_org_id, idle_expires_at, absolute_expires_at,
                                  ip_hash, user_agent_hash)
            VALUES (${id}, ${sha256(cookie)}, ${userId}, ${activeOrgId},
                    now() + make_interval(hours => ${idleHours}), now() + make_interval(days => ${absoluteDays}),
                    ${fingerprint.hash(device.ip)}, ${fingerprint.hash(device.userAgent)})
          `.pipe(Effect.orDie)
          return { id, cookie, maxAgeSecs: absoluteDays * 24 * 3600 }
        }),
      live,
      /** The live session of a cookie seen before in this process, when memory alone can tell; else undefined. */
      peek: (cookie: string): SessionRow | undefined => {
        if (!wellFormed.test(cookie)) return undefined
        const hit = cache.get(sha256Key(cookie))
        return hit !== undefined && isLive(hit) ? hit : undefined
      },
      /** Whether `touch` would record use now. */
      usageDue: (session: SessionRow): boolean => debounce.isDue(`session:${session.id}`),
      /** Record use, at most once a minute per session, sliding the idle expiry. */
      touch: (session: SessionRow) =>
        debounce.due(`session:${session.id}`)
          ? sql`
              UPDATE sessions SET last_seen_at = now(),
                idle_expires_at = LEAST(absolute_expires_at, now() + make_interval(hours => ${idleHours}))
              WHERE id = ${session.id} AND last_seen_at < now() - interval '60 seconds'
            `.pipe(Effect.asVoid, Effect.orDie)
          : Effect.void,
      revokeByCookie: (cookie: string) =>
        wellFormed.test(cookie)
          ? sql<{ id: string }>`
              UPDATE sessions SET revoked_at = now() WHERE token_hash = ${sha256(cookie)} AND revoked_at IS NULL RETURNING id
            `.pipe(Effect.orDie, Effect.flatMap(revoked))
          : Effect.void,
      revoke: (userId: string, sessionId: string) =>
        sql<{ id: string }>`
          UPDATE sessions SET revoked_at = now()
          WHERE id = ${sessionId} AND user_id = ${userId} AND revoked_at IS NULL RETURNING id
        `.pipe(
          Effect.orDie,
          Effect.tap(revoked),
          Effect.map((rows) => rows.length > 0)
        ),
      /** End every session of the user except, when given, the one making the request. */
      revokeAll: (userId: string, except?: string) =>
        (except === undefined
          ? sql<{
              id: string
            }>`UPDATE sessions SET revoked_at = now() WHERE user_id = ${userId} AND revoked_at IS NULL RETURNING id`
          : sql<{ id: string }>`
              UPDATE sessions SET revoked_at = now() WHERE user_id = ${userId} AND revoked_at IS NULL AND id <> ${except}
              RETURNING id
            `
        ).pipe(Effect.orDie, Effect.flatMap(revoked)),
      list: (userId: string) =>
        sql`
          SELECT id, user_id, active_org_id, created_at, last_seen_at, idle_expires_at, absolute_expires_at
          FROM sessions
          WHERE user_id = ${userId} AND revoked_at IS NULL AND idle_expires_at > now() AND absolute_expires_at > now()
          ORDER BY last_seen_at DESC
        `.pipe(Effect.flatMap(decode), Effect.orDie),
      setActiveOrg: (sessionId: string, orgId: string) =>
        sql`UPDATE sessions SET active_org_id = ${orgId} WHERE id = ${sessionId}`.pipe(
          Effect.orDie,
          Effect.zipRight(invalidation.publish(`session:${sessionId}`))
        )
    }
  }),
  dependencies: [Fingerprint.Default, UsageDebounce.Default, Invalidation.Default]
}) {}
