/**
 * People and their orgs: finding a user by address, opening an account (account, user, personal org, ownership)
 * for a new sign-up, and the default org (the oldest active membership).
 */
import type { AccountId, OrgId, Role, UserId } from "@signalman/core/Identity"
import * as Effect from "effect/Effect"
import { uuidv7 } from "../infra/Ids.js"
import { Invalidation } from "../infra/Invalidation.js"
import { TtlCache } from "../infra/TtlCache.js"
import { AccountsRepo, MembershipRow, UserRow } from "./Repo.js"

export { MembershipRow, UserRow }

/** Lower-cased and trimmed; the spec's address comparisons are case-insensitive. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase()

// Deliberately loose: one @, something on each side, a dot in the domain, no spaces. The mail itself proves the
// address; rejecting valid exotic addresses costs more than a bounced mail.
export const isPlausibleEmail = (email: string): boolean =>
  email.length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)

const slugBase = (email: string): string => {
  const local = email.split("@")[0] ?? "org"
  const cleaned = local
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
  return cleaned === "" ? "org" : cleaned
}

const CACHE_TTL_MS = 10_000

export class Accounts extends Effect.Service<Accounts>()("Signalman/Accounts", {
  effect: Effect.gen(function* () {
    const repo = yield* AccountsRepo
    const invalidation = yield* Invalidation
    // Read on every authenticated request; dropped on `user:<id>` (see Invalidation).
    const users = new TtlCache<UserRow>(CACHE_TTL_MS)
    const membershipCache = new TtlCache<ReadonlyArray<MembershipRow>>(CACHE_TTL_MS)
    invalidation.subscribe((tag) => {
      users.invalidate(tag)
      membershipCache.invalidate(tag)
    })

    const memberships = (userId: string): Effect.Effect<ReadonlyArray<MembershipRow>> =>
      Effect.suspend(() => {
        const hit = membershipCache.get(userId)
        if (hit !== undefined) return Effect.succeed(hit)
        return Effect.tap(repo.memberships(userId), (rows) =>
          Effect.sync(() => membershipCache.set(userId, rows, [`user:${userId}`]))
        )
      })

    const cachedById = (id: string): Effect.Effect<UserRow | undefined> =>
      Effect.suspend(() => {
        const hit = users.get(id)
        if (hit !== undefined) return Effect.succeed(hit)
        return Effect.tap(repo.userById(id), (row) =>
          Effect.sync(() => {
            if (row !== undefined) users.set(id, row, [`user:${id}`])
          })
        )
      })

    /** A slug free right now; a race with another sign-up is settled by the unique index and a retry. */
    const freeSlug = (base: string) =>
      Effect.gen(function* () {
        const used = new Set(yield* repo.slugsLike(base))
        if (!used.has(base)) return base
        for (let n = 2; n < 10_000; n++) {
          const candidate = `${base}-${n}`
          if (!used.has(candidate)) return candidate
        }
        return `${base}-${uuidv7().slice(-8)}`
      })

    /**
     * A new person with an account of their own and a personal org they own. Under the address's sign-up lock: a
     * first sign-in of the same address by another method (a magic link and a provider at once) that got there
     * first is answered with the person it made, rather than a second insert failing on the unique address.
     */
    const signUp = (email: string, withPersonalOrg: boolean) =>
      repo
        .transaction(
          Effect.gen(function* () {
            yield* repo.lockSignUp(normalizeEmail(email))
            const existing = yield* repo.userByEmail(normalizeEmail(email))
            if (existing !== undefined) return existing.id
            const accountId = uuidv7()
            const userId = uuidv7()
            yield* repo.insertAccount(accountId)
            yield* repo.insertUser({ id: userId, account_id: accountId, email })
            if (withPersonalOrg) {
              const orgId = uuidv7()
              const slug = yield* freeSlug(slugBase(email))
              yield* repo.insertOrg({ id: orgId, account_id: accountId, slug })
              yield* repo.insertOwner(orgId, userId)
            }
            return userId
          })
        )
        .pipe(
          // Another sign-up took the slug between the search and the insert: search again.
          Effect.retry({ times: 3, while: (error) => error._tag === "SlugTaken" }),
          Effect.orDie,
          Effect.flatMap(repo.userById),
          Effect.flatMap((user) =>
            user === undefined ? Effect.dieMessage("user vanished after sign-up") : Effect.succeed(user)
          )
        )

    return {
      byEmail: (email: string) => repo.userByEmail(normalizeEmail(email)),
      byId: (id: UserId | string) => cachedById(id),
      /** A user row still in this process's cache, or undefined (then `byId` reads it). */
      peekUser: (id: string): UserRow | undefined => users.get(id),
      /** A user's memberships still in this process's cache, or undefined (then `memberships` reads them). */
      peekMemberships: (userId: string): ReadonlyArray<MembershipRow> | undefined => membershipCache.get(userId),
      /** Forget what every process remembers of this person (memberships or the account changed). */
      changed: (userId: string) => invalidation.publish(`user:${userId}`),
      memberships,
      /** The org a session starts in: the oldest active membership. */
      defaultOrg: (userId: string) => Effect.map(memberships(userId), (all) => all[0]),
      signUp,
      markVerified: (userId: string) =>
        Effect.flatMap(repo.markVerified(userId), (changed) =>
          changed ? invalidation.publish(`user:${userId}`) : Effect.void
        ),
      membership: (userId: string, orgId: OrgId | string) =>
        Effect.map(memberships(userId), (all) => all.find((m) => m.id === orgId)),
      freeSlug
    }
  }),
  dependencies: [AccountsRepo.Default, Invalidation.Default]
}) {}

export type { AccountId, Role }
