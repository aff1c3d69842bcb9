/**
 * Accounts' SQL: people by address or id, their memberships, and opening an account (account, user, and the
 * personal org with its owner). Timestamps stay `Date`s: the `/me` document and the per-request checks read them.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { AccountId, OrgId, UserId } from "@signalman/core/Identity"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Transaction from "../database/Transaction.js"

/** A person as stored. */
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

/** An org a person belongs to, with their role in it. */
export const MembershipRow = Schema.Struct({
  id: OrgId,
  slug: Schema.String,
  name: Schema.String,
  account_id: AccountId,
  role: Schema.Literal("owner", "member"),
  created_at: Schema.DateFromSelf
})
export type MembershipRow = typeof MembershipRow.Type

/** The slug is another org's: the unique index decided a race the search for a free one could not see. */
export class SlugTaken extends Data.TaggedError("SlugTaken") {}

const Id = Schema.Struct({ id: Schema.String })
const Slug = Schema.Struct({ slug: Schema.String })

const userColumns = "id, account_id, email, name, email_verified_at, created_at, deleted_at, purge_after"

const isSlugTaken = (e: unknown) =>
  String(e).includes("orgs_slug_key") ||
  (typeof e === "object" && e !== null && "cause" in e && String(e.cause).includes("orgs_slug_key"))

export class AccountsRepo extends Effect.Service<AccountsRepo>()("Signalman/AccountsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const userByEmail = SqlSchema.findOne({
      Request: Schema.String,
      Result: UserRow,
      execute: (email) => sql`SELECT ${sql.literal(userColumns)} FROM users WHERE email = ${email}`
    })

    const userById = SqlSchema.findOne({
      Request: Schema.String,
      Result: UserRow,
      execute: (id) => sql`SELECT ${sql.literal(userColumns)} FROM users WHERE id = ${id}`
    })

    const memberships = SqlSchema.findAll({
      Request: Schema.String,
      Result: MembershipRow,
      execute: (userId) => sql`
        SELECT o.id, o.slug, o.name, o.account_id, m.role, m.created_at
        FROM memberships m JOIN orgs o ON o.id = m.org_id
        WHERE m.user_id = ${userId} AND o.deleted_at IS NULL
        ORDER BY m.created_at, o.id
      `
    })

    const slugsLike = SqlSchema.findAll({
      Request: Schema.String,
      Result: Slug,
      execute: (base) => sql`SELECT slug FROM orgs WHERE slug = ${base} OR slug LIKE ${`${base}-%`}`
    })

    const insertAccount = SqlSchema.void({
      Request: Schema.String,
      execute: (id) => sql`INSERT INTO accounts (id, plan_id) VALUES (${id}, 'free')`
    })

    // Who signs in by a mailed link has shown they read the address.
    const insertUser = SqlSchema.void({
      Request: Schema.Struct({ id: Schema.String, account_id: Schema.String, email: Schema.String }),
      execute: (u) => sql`
        INSERT INTO users (id, account_id, email, email_verified_at) VALUES (${u.id}, ${u.account_id}, ${u.email}, now())
      `
    })

    const insertOrg = SqlSchema.void({
      Request: Schema.Struct({ id: Schema.String, account_id: Schema.String, slug: Schema.String }),
      execute: (o) =>
        sql`INSERT INTO orgs (id, account_id, slug, name) VALUES (${o.id}, ${o.account_id}, ${o.slug}, ${o.slug})`
    })

    const insertOwner = SqlSchema.void({
      Request: Schema.Struct({ org_id: Schema.String, user_id: Schema.String }),
      execute: (m) => sql`INSERT INTO memberships (org_id, user_id, role) VALUES (${m.org_id}, ${m.user_id}, 'owner')`
    })

    const markVerified = SqlSchema.findAll({
      Request: Schema.String,
      Result: Id,
      execute: (userId) => sql`
        UPDATE users SET email_verified_at = now() WHERE id = ${userId} AND email_verified_at IS NULL RETURNING id
      `
    })

    const lockSignUp = SqlSchema.void({
      Request: Schema.String,
      execute: (email) => sql`SELECT pg_advisory_xact_lock(hashtext(${`sign_up:${email}`}))`
    })

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      transaction: Transaction.make(sql),
      /**
       * Holds the sign-up lock of an address to the end of the transaction (`sign_up:<address>`, the key OAuth's
       * phase C takes too), so two first sign-ins of one address by any methods wait for each other.
       */
      lockSignUp: (email: string) => Effect.orDie(lockSignUp(email)),
      userByEmail: (email: string) => Effect.map(Effect.orDie(userByEmail(email)), Option.getOrUndefined),
      userById: (id: string) => Effect.map(Effect.orDie(userById(id)), Option.getOrUndefined),
      /** The user's orgs that are not deleted, oldest membership first. */
      memberships: (userId: string) => Effect.orDie(memberships(userId)),
      /** The slugs taken among `base` and `base-<anything>`. */
      slugsLike: (base: string) => Effect.map(Effect.orDie(slugsLike(base)), (rows) => rows.map((row) => row.slug)),
      insertAccount: (id: string) => Effect.orDie(insertAccount(id)),
      /** A person with a verified address. */
      insertUser: (user: { readonly id: string; readonly account_id: string; readonly email: string }) =>
        Effect.orDie(insertUser(user)),
      /** A personal org named after its slug; `SlugTaken` when the unique index finds the slug taken after all. */
      insertOrg: (org: { readonly id: string; readonly account_id: string; readonly slug: string }) =>
        insertOrg(org).pipe(
          Effect.catchIf(isSlugTaken, () => Effect.fail(new SlugTaken())),
          Effect.catchTag("SqlError", "ParseError", Effect.die)
        ),
      insertOwner: (orgId: string, userId: string) => Effect.orDie(insertOwner({ org_id: orgId, user_id: userId })),
      /** Marks the address verified; false when it already was. */
      markVerified: (userId: string) => Effect.map(Effect.orDie(markVerified(userId)), (rows) => rows.length > 0)
    }
  })
}) {}
