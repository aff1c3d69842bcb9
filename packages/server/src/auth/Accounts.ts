/**
 * People and their orgs: finding a user by address, opening an account (account, user, personal org, ownership)
 * for a new sign-up, and the default org (the oldest active membership).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { AccountId, OrgId, type Role, UserId } from "@signalman/core/Identity"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { uuidv7 } from "../infra/Ids.js"
import { Invalidation } from "../infra/Invalidation.js"
import { TtlCache } from "../infra/TtlCache.js"

export const UserRow = Schema.Struct({
  id: UserId,
  account_id: AccountId,
  email: Schema.String,
  name: Schema.NullOr(Schema.String),
  email_verified_at: Schema.NullOr(Schema.DateFromSelf),
  created_at: Schema.DateFromSelf,
  deleted_at: Schema.NullOr(Schema.DateFromSelf),
  purge_after: Schema.NullOr(Schema.DateFromSelf)
})
export type UserRow = typeof UserRow.Type

export const MembershipRow = Schema.Struct({
  id: OrgId,
  slug: Schema.String,
  name: Schema.String,
  account_id: AccountId,
  role: Schema.Literal("owner", "member"),
  created_at: Schema.DateFromSelf
})
export type MembershipRow = typeof MembershipRow.Type

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
    const sql = yield* SqlClient.SqlClient
    const invalidation = yield* Invalidation
    // Read on every authenticated request; dropped on `user:<id>` (see Invalidation).
    const users = new TtlCache<UserRow>(CACHE_TTL_MS)
    const membershipCache = new TtlCache<ReadonlyArray<MembershipRow>>(CACHE_TTL_MS)
    invalidation.subscribe((tag) => {
      users.invalidate(tag)
      membershipCache.invalidate(tag)
    })
    const decodeUser = Schema.decodeUnknown(Schema.Array(UserRow))
    const decodeMemberships = Schema.decodeUnknown(Schema.Array(MembershipRow))

    const userBy = (where: "email" | "id", value: string) =>
      (where === "email"
        ? sql`SELECT * FROM users WHERE email = ${value}`
        : sql`SELECT * FROM users WHERE id = ${value}`
      ).pipe(
        Effect.flatMap(decodeUser),
        Effect.map((rows) => rows[0]),
        Effect.orDie
      )

    const memberships = (userId: string): Effect.Effect<ReadonlyArray<MembershipRow>> =>
      Effect.suspend(() => {
        const hit = membershipCache.get(userId)
        if (hit !== undefined) return Effect.succeed(hit)
        return sql`
          SELECT o.id, o.slug, o.name, o.account_id, m.role, m.created_at
          FROM memberships m JOIN orgs o ON o.id = m.org_id
          WHERE m.user_id = ${userId} AND o.deleted_at IS NULL
          ORDER BY m.created_at, o.id
        `.pipe(
          Effect.flatMap(decodeMemberships),
          Effect.tap((rows) => Effect.sync(() => membershipCache.set(userId, rows, [`user:${userId}`]))),
          Effect.orDie
        )
      })

    const cachedById = (id: string): Effect.Effect<UserRow | undefined> =>
      Effect.suspend(() => {
        const hit = users.get(id)
        if (hit !== undefined) return Effect.succeed(hit)
        return Effect.tap(userBy("id", id), (row) =>
          Effect.sync(() => {
            if (row !== undefined) users.set(id, row, [`user:${id}`])
          })
        )
      })

    /** A slug free right now; a race with another sign-up is settled by the unique index and a retry. */
    const freeSlug = (base: string) =>
      Effect.gen(function* () {
        const taken = yield* sql<{
          slug: string
        }>`SELECT slug FROM orgs WHERE slug = ${base} OR slug LIKE ${`${base}-%`}`
        const used = new Set(taken.map((r) => r.slug))
        if (!used.has(base)) return base
        for (let n = 2; n < 10_000; n++) {
          const candidate = `${base}-${n}`
          if (!used.has(candidate)) return candidate
        }
        return `${base}-${uuidv7().slice(-8)}`
      }).pipe(Effect.orDie)

    /** A new person with an account of their own and a personal org they own. */
    const signUp = (email: string, withPersonalOrg: boolean) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const accountId = uuidv7()
            const userId = uuidv7()
            yield* sql`INSERT INTO accounts (id, plan_id) VALUES (${accountId}, 'free')`
            yield* sql`INSERT INTO users (id, account_id, email, email_verified_at) VALUES (${userId}, ${accountId}, ${email}, now())`
            if (withPersonalOrg) {
              const orgId = uuidv7()
              const slug = yield* freeSlug(slugBase(email))
              yield* sql`INSERT INTO orgs (id, account_id, slug, name) VALUES (${orgId}, ${accountId}, ${slug}, ${slug})`
              yield* sql`INSERT INTO memberships (org_id, user_id, role) VALUES (${orgId}, ${userId}, 'owner')`
            }
            return userId
          })
        )
        .pipe(
          Effect.retry({ times: 3, while: (e) => String(e).includes("orgs_slug_key") }),
          Effect.orDie,
          Effect.flatMap((id) => userBy("id", id)),
          Effect.flatMap((user) =>
            user === undefined ? Effect.dieMessage("user vanished after sign-up") : Effect.succeed(user)
          )
        )

    return {
      byEmail: (email: string) => userBy("email", normalizeEmail(email)),
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
        sql<{
          id: string
        }>`UPDATE users SET email_verified_at = now() WHERE id = ${userId} AND email_verified_at IS NULL RETURNING id`.pipe(
          Effect.orDie,
          Effect.flatMap((rows) => (rows.length > 0 ? invalidation.publish(`user:${userId}`) : Effect.void))
        ),
      membership: (userId: string, orgId: OrgId | string) =>
        Effect.map(memberships(userId), (all) => all.find((m) => m.id === orgId)),
      freeSlug
    }
  }),
  dependencies: [Invalidation.Default]
}) {}

export type { AccountId, Role }
