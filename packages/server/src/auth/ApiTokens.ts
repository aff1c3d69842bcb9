/**
 * API tokens: `sm_live_` and 256 random bits. Stored as an argon2id hash with the token's first 16 characters for
 * an indexed lookup; shown once, at creation.
 *
 * argon2id is slow on purpose, so a verified token is remembered in this process (keyed by its SHA-256, never the
 * token) and every request still reads the token's row, so a revoke or an expiry takes effect at once in every
 * process. A revoke here also drops the remembered entry.
 */
import * as Argon2 from "@node-rs/argon2"
import * as Effect from "effect/Effect"
import { uuidv7 } from "../infra/Ids.js"
import { Invalidation } from "../infra/Invalidation.js"
import { randomSecret, sha256Key } from "../infra/Secrets.js"
import { TtlCache } from "../infra/TtlCache.js"
import { AuthRepo, TokenRow } from "./Repo.js"
import { UsageDebounce } from "./UsageDebounce.js"

export { TokenRow }

export const PREFIX = "sm_live_"
const wellFormed = /^sm_live_[A-Za-z0-9_-]{43}$/
const LOOKUP_LENGTH = 16
const CACHE_MAX = 10_000

export class ApiTokens extends Effect.Service<ApiTokens>()("Signalman/ApiTokens", {
  effect: Effect.gen(function* () {
    const repo = yield* AuthRepo
    const debounce = yield* UsageDebounce
    const invalidation = yield* Invalidation
    // sha256(token) -> token id, for tokens whose hash has been verified in this process.
    const verified = new Map<string, string>()
    const byTokenId = new Map<string, string>()

    const remember = (key: string, id: string) => {
      if (verified.size >= CACHE_MAX) {
        verified.clear()
        byTokenId.clear()
      }
      verified.set(key, id)
      byTokenId.set(id, key)
    }
    const forget = (id: string) => {
      const key = byTokenId.get(id)
      if (key !== undefined) verified.delete(key)
      byTokenId.delete(id)
    }

    const isLive = (row: TokenRow) => row.expires_at === null || row.expires_at.getTime() > Date.now()

    // The live rows, read on every request: dropped on `token:<id>` when revoked anywhere.
    const liveRows = new TtlCache<TokenRow>(10_000)
    invalidation.subscribe((tag) => liveRows.invalidate(tag))

    const liveRow = (id: string): Effect.Effect<TokenRow | undefined> =>
      Effect.suspend(() => {
        const hit = liveRows.get(id)
        if (hit !== undefined) {
          // Expiry needs no database: the row says when.
          return Effect.succeed(isLive(hit) ? hit : undefined)
        }
        return Effect.tap(repo.liveToken(id), (row) =>
          Effect.sync(() => {
            if (row !== undefined) liveRows.set(id, row, [`token:${id}`, `user:${row.user_id}`])
          })
        )
      })

    /** The live token a bearer value names, or undefined (unknown, malformed, revoked, expired). */
    const verify = (token: string): Effect.Effect<TokenRow | undefined> =>
      Effect.gen(function* () {
        if (!wellFormed.test(token)) return undefined
        const key = sha256Key(token)
        const known = verified.get(key)
        if (known !== undefined) {
          const row = yield* liveRow(known)
          if (row === undefined) forget(known)
          return row
        }
        const candidates = yield* repo.tokenCandidates(token.slice(0, LOOKUP_LENGTH))
        for (const candidate of candidates) {
          const ok = yield* Effect.promise(() => Argon2.verify(candidate.hash, token).catch(() => false))
          if (!ok) continue
          const row = yield* liveRow(candidate.id)
          if (row !== undefined) remember(key, candidate.id)
          return row
        }
        return undefined
      })

    return {
      verify,
      /**
       * The live row of a token verified before in this process, when memory alone can tell (what `verify` would
       * answer); undefined whenever `verify` has to be asked, which then settles every other case.
       */
      peek: (token: string): TokenRow | undefined => {
        if (!wellFormed.test(token)) return undefined
        const known = verified.get(sha256Key(token))
        const row = known === undefined ? undefined : liveRows.get(known)
        return row !== undefined && isLive(row) ? row : undefined
      },
      /** Whether `touch` would write the token's last use now. */
      usageDue: (row: TokenRow): boolean => debounce.isDue(`token:${row.id}`),
      touch: (row: TokenRow) => (debounce.due(`token:${row.id}`) ? repo.touchToken(row.id) : Effect.void),
      /** Counts and inserts under a per-user lock, so concurrent creates settle exactly at the cap. */
      create: (input: {
        readonly userId: string
        readonly orgId: string | null
        readonly name: string
        readonly scopes: ReadonlyArray<string>
        readonly expiresInDays: number | null
        readonly cap: number
      }) =>
        Effect.gen(function* () {
          const token = `${PREFIX}${randomSecret(32)}`
          const hash = yield* Effect.promise(() => Argon2.hash(token))
          const id = uuidv7()
          return yield* repo.transaction(
            Effect.gen(function* () {
              yield* repo.lockUserTokens(input.userId)
              const current = yield* repo.liveTokenCount(input.userId)
              if (current >= input.cap) return { _tag: "Full" as const, current }
              const row = yield* repo.insertToken({
                id,
                user_id: input.userId,
                org_id: input.orgId,
                name: input.name,
                prefix: token.slice(0, LOOKUP_LENGTH),
                hash,
                scopes: input.scopes,
                expires_in_days: input.expiresInDays
              })
              return { _tag: "Created" as const, row, token }
            })
          )
        }),
      list: (userId: string) => repo.tokensOf(userId),
      rename: (userId: string, id: string, name: string) => repo.renameToken(userId, id, name),
      revoke: (userId: string, id: string) =>
        repo.revokeToken(userId, id).pipe(
          Effect.tap((revoked) =>
            revoked.length > 0
              ? Effect.zipRight(
                  Effect.sync(() => forget(id)),
                  invalidation.publish(`token:${id}`)
                )
              : Effect.void
          ),
          Effect.map((revoked) => revoked.length > 0)
        )
    }
  }),
  dependencies: [AuthRepo.Default, UsageDebounce.Default, Invalidation.Default]
}) {}
