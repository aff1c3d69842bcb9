/**
 * Browser sessions: the `_sm_session` cookie carries 32 random bytes (43 base64url characters); the database keeps
 * only their SHA-256. A session ends after `auth.session.idle_timeout_hours` unused or
 * `auth.session.absolute_timeout_days` after sign-in, whichever comes first; use is written back at most once a
 * minute (the debounce shared with API tokens).
 */
import { SESSION_COOKIE } from "@signalman/core/api/OpenApiDocument"
import * as Effect from "effect/Effect"
import { AppConfig } from "../config/Config.js"
import { uuidv7 } from "../infra/Ids.js"
import { Invalidation } from "../infra/Invalidation.js"
import { randomSecret, sha256, sha256Key } from "../infra/Secrets.js"
import { TtlCache } from "../infra/TtlCache.js"
import { Fingerprint } from "./Fingerprint.js"
import { AuthRepo, SessionRow } from "./Repo.js"
import { UsageDebounce } from "./UsageDebounce.js"

export { SessionRow }

// The contract's name, so the OpenAPI document's session scheme names the cookie the server sets.
export const COOKIE = SESSION_COOKIE
const wellFormed = /^[A-Za-z0-9_-]{43}$/

export interface Device {
  readonly ip?: string | undefined
  readonly userAgent?: string | undefined
}

export class Sessions extends Effect.Service<Sessions>()("Signalman/Sessions", {
  effect: Effect.gen(function* () {
    const repo = yield* AuthRepo
    const config = yield* AppConfig
    const fingerprint = yield* Fingerprint
    const debounce = yield* UsageDebounce
    const idleHours = config["auth.session.idle_timeout_hours"]
    const absoluteDays = config["auth.session.absolute_timeout_days"]
    const invalidation = yield* Invalidation
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
        return Effect.tap(repo.liveSession(sha256(cookie)), (row) =>
          Effect.sync(() => {
            if (row !== undefined) cache.set(key, row, [`session:${row.id}`, `user:${row.user_id}`])
          })
        )
      })

    const revoked = (ids: ReadonlyArray<string>) =>
      Effect.forEach(ids, (id) => invalidation.publish(`session:${id}`), { discard: true })

    return {
      /** A fresh session; the answer carries the cookie value, which is never stored. */
      create: (userId: string, activeOrgId: string | null, device: Device) =>
        Effect.gen(function* () {
          const cookie = randomSecret(32)
          const id = uuidv7()
          yield* repo.insertSession({
            id,
            token_hash: sha256(cookie),
            user_id: userId,
            active_org_id: activeOrgId,
            idle_hours: idleHours,
            absolute_days: absoluteDays,
            ip_hash: fingerprint.hash(device.ip),
            user_agent_hash: fingerprint.hash(device.userAgent)
          })
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
        debounce.due(`session:${session.id}`) ? repo.touchSession(session.id, idleHours) : Effect.void,
      revokeByCookie: (cookie: string) =>
        wellFormed.test(cookie) ? Effect.flatMap(repo.revokeSessionByHash(sha256(cookie)), revoked) : Effect.void,
      revoke: (userId: string, sessionId: string) =>
        repo.revokeSession(userId, sessionId).pipe(
          Effect.tap(revoked),
          Effect.map((ids) => ids.length > 0)
        ),
      /** End every session of the user except, when given, the one making the request. */
      revokeAll: (userId: string, except?: string) =>
        Effect.flatMap(repo.revokeSessions(userId, except ?? null), revoked),
      list: (userId: string) => repo.sessionsOf(userId),
      setActiveOrg: (sessionId: string, orgId: string) =>
        Effect.zipRight(repo.setActiveOrg(sessionId, orgId), invalidation.publish(`session:${sessionId}`))
    }
  }),
  dependencies: [AuthRepo.Default, Fingerprint.Default, UsageDebounce.Default, Invalidation.Default]
}) {}
