/**
 * The credentials' SQL: browser sessions, API tokens, magic links and the attempts log. Secrets arrive hashed
 * (SHA-256 for sessions and magic links, argon2id for tokens); timestamps stay `Date`s, which the per-request
 * expiry checks compare with `Date.now()`.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { ApiTokenId, OrgId, SessionId, UserId } from "@signalman/core/Identity"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Transaction from "../database/Transaction.js"

/** A browser session as stored; the cookie itself is never kept. */
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

/** An API token as its owner sees it; the hash stays in the database. */
export const TokenRow = Schema.Struct({
  id: ApiTokenId,
  user_id: UserId,
  org_id: Schema.NullOr(OrgId),
  name: Schema.String,
  prefix: Schema.String,
  scopes: Schema.Array(Schema.String),
  created_at: Schema.DateFromSelf,
  expires_at: Schema.NullOr(Schema.DateFromSelf),
  last_used_at: Schema.NullOr(Schema.DateFromSelf)
})
export type TokenRow = typeof TokenRow.Type

/** A magic link redeemed, or live for a code: what the sign-in needs from it. */
export const LinkRow = Schema.Struct({
  id: Schema.String,
  email: Schema.String,
  invitation_token: Schema.NullOr(Schema.String),
  redirect_after: Schema.NullOr(Schema.String),
  code_hash: Schema.Uint8ArrayFromSelf
})
export type LinkRow = typeof LinkRow.Type

/** Why a magic link's token is no longer live, as far as its row can tell. */
export const LinkState = Schema.Struct({ used: Schema.Boolean, retired: Schema.Boolean, expired: Schema.Boolean })
export type LinkState = typeof LinkState.Type

/** A new session: both expiries count from now, in the database's clock. */
export const NewSession = Schema.Struct({
  id: Schema.String,
  token_hash: Schema.Uint8ArrayFromSelf,
  user_id: Schema.String,
  active_org_id: Schema.NullOr(Schema.String),
  idle_hours: Schema.Number,
  absolute_days: Schema.Number,
  ip_hash: Schema.NullOr(Schema.String),
  user_agent_hash: Schema.NullOr(Schema.String)
})

/** A new API token; `expires_in_days` null never expires. */
export const NewToken = Schema.Struct({
  id: Schema.String,
  user_id: Schema.String,
  org_id: Schema.NullOr(Schema.String),
  name: Schema.String,
  prefix: Schema.String,
  hash: Schema.String,
  scopes: Schema.Array(Schema.String),
  expires_in_days: Schema.NullOr(Schema.Number)
})

/** A magic-link request; it expires `expiry_minutes` after it is written. */
export const NewLink = Schema.Struct({
  id: Schema.String,
  email: Schema.String,
  token_hash: Schema.Uint8ArrayFromSelf,
  code_hash: Schema.Uint8ArrayFromSelf,
  browser_hash: Schema.Uint8ArrayFromSelf,
  expiry_minutes: Schema.Number,
  invitation_token: Schema.NullOr(Schema.String),
  redirect_after: Schema.NullOr(Schema.String),
  ip_hash: Schema.NullOr(Schema.String),
  user_agent_hash: Schema.NullOr(Schema.String)
})

/** A row of the attempts log, fingerprints already hashed. */
export const AttemptRow = Schema.Struct({
  id: Schema.String,
  method: Schema.String,
  success: Schema.Boolean,
  failure_reason: Schema.NullOr(Schema.String),
  user_id: Schema.NullOr(Schema.String),
  ip_hash: Schema.NullOr(Schema.String),
  user_agent_hash: Schema.NullOr(Schema.String)
})

const Id = Schema.Struct({ id: Schema.String })
const Count = Schema.Struct({ n: Schema.Int })
const Candidate = Schema.Struct({ id: Schema.String, hash: Schema.String })
const Created = Schema.Struct({ created_at: Schema.DateFromSelf })
const OfUser = Schema.Struct({ user_id: Schema.String, id: Schema.String })

const sessionColumns = "id, user_id, active_org_id, created_at, last_seen_at, idle_expires_at, absolute_expires_at"
const tokenColumns = "id, user_id, org_id, name, prefix, scopes, created_at, expires_at, last_used_at"

export class AuthRepo extends Effect.Service<AuthRepo>()("Signalman/AuthRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // Sessions

    const liveSession = SqlSchema.findOne({
      Request: Schema.Uint8ArrayFromSelf,
      Result: SessionRow,
      execute: (tokenHash) => sql`
        SELECT ${sql.literal(sessionColumns)} FROM sessions
        WHERE token_hash = ${tokenHash} AND revoked_at IS NULL
          AND idle_expires_at > now() AND absolute_expires_at > now()
      `
    })

    const insertSession = SqlSchema.void({
      Request: NewSession,
      execute: (s) => sql`
        INSERT INTO sessions (id, token_hash, user_id, active_org_id, idle_expires_at, absolute_expires_at,
                              ip_hash, user_agent_hash)
        VALUES (${s.id}, ${s.token_hash}, ${s.user_id}, ${s.active_org_id},
                now() + make_interval(hours => ${s.idle_hours}), now() + make_interval(days => ${s.absolute_days}),
                ${s.ip_hash}, ${s.user_agent_hash})
      `
    })

    const touchSession = SqlSchema.void({
      Request: Schema.Struct({ id: Schema.String, idle_hours: Schema.Number }),
      execute: ({ id, idle_hours }) => sql`
        UPDATE sessions SET last_seen_at = now(),
          idle_expires_at = LEAST(absolute_expires_at, now() + make_interval(hours => ${idle_hours}))
        WHERE id = ${id} AND last_seen_at < now() - interval '60 seconds'
      `
    })

    const revokeSessionByHash = SqlSchema.findAll({
      Request: Schema.Uint8ArrayFromSelf,
      Result: Id,
      execute: (tokenHash) => sql`
        UPDATE sessions SET revoked_at = now() WHERE token_hash = ${tokenHash} AND revoked_at IS NULL RETURNING id
      `
    })

    const revokeSession = SqlSchema.findAll({
      Request: OfUser,
      Result: Id,
      execute: ({ user_id, id }) => sql`
        UPDATE sessions SET revoked_at = now()
        WHERE id = ${id} AND user_id = ${user_id} AND revoked_at IS NULL RETURNING id
      `
    })

    const revokeSessions = SqlSchema.findAll({
      Request: Schema.Struct({ user_id: Schema.String, except: Schema.NullOr(Schema.String) }),
      Result: Id,
      execute: ({ user_id, except }) =>
        except === null
          ? sql`UPDATE sessions SET revoked_at = now() WHERE user_id = ${user_id} AND revoked_at IS NULL RETURNING id`
          : sql`
              UPDATE sessions SET revoked_at = now() WHERE user_id = ${user_id} AND revoked_at IS NULL AND id <> ${except}
              RETURNING id
            `
    })

    const sessionsOf = SqlSchema.findAll({
      Request: Schema.String,
      Result: SessionRow,
      execute: (userId) => sql`
        SELECT ${sql.literal(sessionColumns)} FROM sessions
        WHERE user_id = ${userId} AND revoked_at IS NULL AND idle_expires_at > now() AND absolute_expires_at > now()
        ORDER BY last_seen_at DESC
      `
    })

    const setActiveOrg = SqlSchema.void({
      Request: Schema.Struct({ id: Schema.String, org_id: Schema.String }),
      execute: ({ id, org_id }) => sql`UPDATE sessions SET active_org_id = ${org_id} WHERE id = ${id}`
    })

    // API tokens

    const liveToken = SqlSchema.findOne({
      Request: Schema.String,
      Result: TokenRow,
      execute: (id) => sql`
        SELECT ${sql.literal(tokenColumns)} FROM api_tokens
        WHERE id = ${id} AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
      `
    })

    const tokenCandidates = SqlSchema.findAll({
      Request: Schema.String,
      Result: Candidate,
      execute: (prefix) => sql`
        SELECT id, hash FROM api_tokens WHERE prefix = ${prefix} AND revoked_at IS NULL
      `
    })

    const touchToken = SqlSchema.void({
      Request: Schema.String,
      execute: (id) => sql`
        UPDATE api_tokens SET last_used_at = now()
        WHERE id = ${id} AND (last_used_at IS NULL OR last_used_at < now() - interval '60 seconds')
      `
    })

    const lockUserTokens = SqlSchema.void({
      Request: Schema.String,
      execute: (userId) => sql`SELECT pg_advisory_xact_lock(hashtext(${`api_tokens:${userId}`}))`
    })

    const liveTokenCount = SqlSchema.single({
      Request: Schema.String,
      Result: Count,
      execute: (userId) => sql`
        SELECT count(*)::int AS n FROM api_tokens
        WHERE user_id = ${userId} AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
      `
    })

    const insertToken = SqlSchema.single({
      Request: NewToken,
      Result: TokenRow,
      execute: (t) => sql`
        INSERT INTO api_tokens (id, user_id, org_id, name, prefix, hash, scopes, expires_at)
        VALUES (${t.id}, ${t.user_id}, ${t.org_id}, ${t.name}, ${t.prefix}, ${t.hash}, ${[...t.scopes]},
                ${t.expires_in_days === null ? null : sql`now() + make_interval(days => ${t.expires_in_days})`})
        RETURNING ${sql.literal(tokenColumns)}
      `
    })

    const tokensOf = SqlSchema.findAll({
      Request: Schema.String,
      Result: TokenRow,
      execute: (userId) => sql`
        SELECT ${sql.literal(tokenColumns)} FROM api_tokens
        WHERE user_id = ${userId} AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
        ORDER BY created_at DESC
      `
    })

    const renameToken = SqlSchema.findOne({
      Request: Schema.Struct({ user_id: Schema.String, id: Schema.String, name: Schema.String }),
      Result: TokenRow,
      execute: ({ user_id, id, name }) => sql`
        UPDATE api_tokens SET name = ${name}
        WHERE id = ${id} AND user_id = ${user_id} AND revoked_at IS NULL
        RETURNING ${sql.literal(tokenColumns)}
      `
    })

    const revokeToken = SqlSchema.findAll({
      Request: OfUser,
      Result: Id,
      execute: ({ user_id, id }) => sql`
        UPDATE api_tokens SET revoked_at = now()
        WHERE id = ${id} AND user_id = ${user_id} AND revoked_at IS NULL RETURNING id
      `
    })

    // Magic links

    const lockEmail = SqlSchema.void({
      Request: Schema.String,
      execute: (email) => sql`SELECT pg_advisory_xact_lock(hashtext(${`magic_link:${email}`}))`
    })

    // clock_timestamp, not now(): concurrent requests for one address are ordered by when each wrote, under the lock.
    const insertLink = SqlSchema.single({
      Request: NewLink,
      Result: Created,
      execute: (l) => sql`
        INSERT INTO magic_links (id, email, token_hash, code_hash, browser_hash, created_at, expires_at,
                                 invitation_token, redirect_after, ip_hash, user_agent_hash)
        VALUES (${l.id}, ${l.email}, ${l.token_hash}, ${l.code_hash}, ${l.browser_hash}, clock_timestamp(),
                clock_timestamp() + make_interval(mins => ${l.expiry_minutes}), ${l.invitation_token},
                ${l.redirect_after}, ${l.ip_hash}, ${l.user_agent_hash})
        RETURNING created_at
      `
    })

    const mailedBefore = SqlSchema.single({
      Request: Schema.Struct({
        email: Schema.String,
        id: Schema.String,
        created_at: Schema.DateFromSelf,
        secs: Schema.Number
      }),
      Result: Count,
      execute: ({ email, id, created_at, secs }) => sql`
        SELECT count(*)::int AS n FROM magic_links
        WHERE email = ${email} AND id <> ${id} AND mailed
          AND created_at > ${created_at}::timestamptz - make_interval(secs => ${secs})
      `
    })

    const retireLink = SqlSchema.void({
      Request: Schema.String,
      execute: (id) => sql`UPDATE magic_links SET retired_at = clock_timestamp() WHERE id = ${id}`
    })

    const retireOtherLinks = SqlSchema.void({
      Request: Schema.Struct({ email: Schema.String, id: Schema.String }),
      execute: ({ email, id }) => sql`
        UPDATE magic_links SET retired_at = clock_timestamp()
        WHERE email = ${email} AND id <> ${id} AND retired_at IS NULL AND used_at IS NULL
      `
    })

    const markMailed = SqlSchema.void({
      Request: Schema.String,
      execute: (id) => sql`UPDATE magic_links SET mailed = true WHERE id = ${id}`
    })

    const linkState = SqlSchema.findOne({
      Request: Schema.Uint8ArrayFromSelf,
      Result: LinkState,
      execute: (tokenHash) => sql`
        SELECT used_at IS NOT NULL AS used, retired_at IS NOT NULL AS retired, expires_at <= now() AS expired
        FROM magic_links WHERE token_hash = ${tokenHash}
      `
    })

    const redeemLink = SqlSchema.findOne({
      Request: Schema.Uint8ArrayFromSelf,
      Result: LinkRow,
      execute: (tokenHash) => sql`
        UPDATE magic_links SET used_at = now()
        WHERE token_hash = ${tokenHash} AND used_at IS NULL AND retired_at IS NULL AND expires_at > now()
        RETURNING id, email, invitation_token, redirect_after, code_hash
      `
    })

    const liveCode = SqlSchema.findOne({
      Request: Schema.Uint8ArrayFromSelf,
      Result: LinkRow,
      execute: (browserHash) => sql`
        SELECT id, email, invitation_token, redirect_after, code_hash FROM magic_links
        WHERE browser_hash = ${browserHash} AND used_at IS NULL AND retired_at IS NULL
          AND code_spent_at IS NULL AND expires_at > now()
        ORDER BY created_at DESC, id DESC LIMIT 1
      `
    })

    const spendCode = SqlSchema.void({
      Request: Schema.String,
      execute: (id) => sql`UPDATE magic_links SET code_spent_at = now() WHERE id = ${id}`
    })

    const claimLink = SqlSchema.findAll({
      Request: Schema.String,
      Result: Id,
      execute: (id) => sql`
        UPDATE magic_links SET used_at = now(), code_spent_at = now()
        WHERE id = ${id} AND used_at IS NULL AND retired_at IS NULL AND code_spent_at IS NULL AND expires_at > now()
        RETURNING id
      `
    })

    // The attempts log

    const insertAttempt = SqlSchema.void({
      Request: AttemptRow,
      execute: (a) => sql`
        INSERT INTO auth_attempts (id, method, success, failure_reason, user_id, ip_hash, user_agent_hash)
        VALUES (${a.id}, ${a.method}, ${a.success}, ${a.failure_reason}, ${a.user_id}, ${a.ip_hash},
                ${a.user_agent_hash})
      `
    })

    const ids = (rows: ReadonlyArray<{ readonly id: string }>) => rows.map((row) => row.id)

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      transaction: Transaction.make(sql),

      /** The live session a cookie's hash names. */
      liveSession: (tokenHash: Uint8Array) => Effect.map(Effect.orDie(liveSession(tokenHash)), Option.getOrUndefined),
      insertSession: (session: typeof NewSession.Type) => Effect.orDie(insertSession(session)),
      /** Records use and slides the idle expiry, unless the session was used in the last minute. */
      touchSession: (id: string, idleHours: number) => Effect.orDie(touchSession({ id, idle_hours: idleHours })),
      /** Ends the session a cookie's hash names; the ids ended. */
      revokeSessionByHash: (tokenHash: Uint8Array) => Effect.map(Effect.orDie(revokeSessionByHash(tokenHash)), ids),
      /** Ends one session of the user; the ids ended. */
      revokeSession: (userId: string, id: string) =>
        Effect.map(Effect.orDie(revokeSession({ user_id: userId, id })), ids),
      /** Ends every live session of the user but `except`; the ids ended. */
      revokeSessions: (userId: string, except: string | null) =>
        Effect.map(Effect.orDie(revokeSessions({ user_id: userId, except })), ids),
      /** The user's live sessions, most recently used first. */
      sessionsOf: (userId: string) => Effect.orDie(sessionsOf(userId)),
      setActiveOrg: (sessionId: string, orgId: string) => Effect.orDie(setActiveOrg({ id: sessionId, org_id: orgId })),

      /** The token's row while it is neither revoked nor expired. */
      liveToken: (id: string) => Effect.map(Effect.orDie(liveToken(id)), Option.getOrUndefined),
      /** The unrevoked tokens sharing a lookup prefix, with their argon2id hashes. */
      tokenCandidates: (prefix: string) => Effect.orDie(tokenCandidates(prefix)),
      /** Records use, unless the token was used in the last minute. */
      touchToken: (id: string) => Effect.orDie(touchToken(id)),
      /** Holds the user's token lock to the end of the transaction: creates serialise on it. */
      lockUserTokens: (userId: string) => Effect.orDie(lockUserTokens(userId)),
      liveTokenCount: (userId: string) => Effect.map(Effect.orDie(liveTokenCount(userId)), (row) => row.n),
      insertToken: (token: typeof NewToken.Type) => Effect.orDie(insertToken(token)),
      /** The user's live tokens, newest first. */
      tokensOf: (userId: string) => Effect.orDie(tokensOf(userId)),
      renameToken: (userId: string, id: string, name: string) =>
        Effect.map(Effect.orDie(renameToken({ user_id: userId, id, name })), Option.getOrUndefined),
      /** Revokes one token of the user; the ids revoked. */
      revokeToken: (userId: string, id: string) => Effect.map(Effect.orDie(revokeToken({ user_id: userId, id })), ids),

      /** Holds the address's magic-link lock to the end of the transaction. */
      lockEmail: (email: string) => Effect.orDie(lockEmail(email)),
      /** Writes a request; its creation time, which orders it among the address's requests. */
      insertLink: (link: typeof NewLink.Type) => Effect.map(Effect.orDie(insertLink(link)), (row) => row.created_at),
      /** How many other requests of the address were mailed within `secs` before `createdAt`. */
      mailedBefore: (email: string, id: string, createdAt: Date, secs: number) =>
        Effect.map(Effect.orDie(mailedBefore({ email, id, created_at: createdAt, secs })), (row) => row.n),
      retireLink: (id: string) => Effect.orDie(retireLink(id)),
      /** Retires every other unused request of the address. */
      retireOtherLinks: (email: string, id: string) => Effect.orDie(retireOtherLinks({ email, id })),
      markMailed: (id: string) => Effect.orDie(markMailed(id)),
      /** The state of the link a token's hash names, whatever it is. */
      linkState: (tokenHash: Uint8Array) => Effect.map(Effect.orDie(linkState(tokenHash)), Option.getOrUndefined),
      /** Marks the live link a token's hash names used, in the statement that checks it is live. */
      redeemLink: (tokenHash: Uint8Array) => Effect.map(Effect.orDie(redeemLink(tokenHash)), Option.getOrUndefined),
      /** The newest request of a browser whose code is still live. */
      liveCode: (browserHash: Uint8Array) => Effect.map(Effect.orDie(liveCode(browserHash)), Option.getOrUndefined),
      spendCode: (id: string) => Effect.orDie(spendCode(id)),
      /** Marks the link and its code used if both are still live; false when another redemption won. */
      claimLink: (id: string) => Effect.map(Effect.orDie(claimLink(id)), (rows) => rows.length > 0),

      insertAttempt: (attempt: typeof AttemptRow.Type) => Effect.orDie(insertAttempt(attempt))
    }
  })
}) {}
