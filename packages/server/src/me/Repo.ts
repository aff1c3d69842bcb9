/**
 * The caller's own account's SQL: the deletion with its grace and the restore (orgs counted under the account's
 * lock), the account's subscription at the payment provider (ended before a deletion), the people an account
 * change reaches, and the per-person usage counts.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as AccountLock from "../database/AccountLock.js"
import * as Transaction from "../database/Transaction.js"

/** An account's orgs: live now, and deleted with the account (they come back with a restore). */
export const OrgCounts = Schema.Struct({ live: Schema.Int, back: Schema.Int })
export type OrgCounts = typeof OrgCounts.Type

/** What a person holds against their quotas: live API tokens, and the live orgs of their account. */
export const Usage = Schema.Struct({ tokens: Schema.Int, orgs: Schema.Int })
export type Usage = typeof Usage.Type

/** The account's subscription at the payment provider and its status there. */
export const Subscription = Schema.Struct({ subscription_id: Schema.String, status: Schema.NullOr(Schema.String) })
export type Subscription = typeof Subscription.Type

const Person = Schema.Struct({ user_id: Schema.String, account_id: Schema.String })
const Member = Schema.Struct({ user_id: Schema.String })

export class MeRepo extends Effect.Service<MeRepo>()("Signalman/MeRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const peopleOfAccount = SqlSchema.findAll({
      Request: Schema.String,
      Result: Member,
      execute: (accountId) => sql`
        SELECT DISTINCT m.user_id FROM memberships m JOIN orgs o ON o.id = m.org_id WHERE o.account_id = ${accountId}
      `
    })

    const deleteUser = SqlSchema.void({
      Request: Schema.Struct({ user_id: Schema.String, days: Schema.Int }),
      execute: ({ user_id, days }) => sql`
        UPDATE users SET deleted_at = now(), purge_after = now() + make_interval(days => ${days})
        WHERE id = ${user_id} AND deleted_at IS NULL
      `
    })

    const deleteAccount = SqlSchema.void({
      Request: Schema.Struct({ account_id: Schema.String, days: Schema.Int }),
      execute: ({ account_id, days }) => sql`
        UPDATE accounts SET deleted_at = now(), purge_after = now() + make_interval(days => ${days})
        WHERE id = ${account_id} AND deleted_at IS NULL
      `
    })

    const deleteOrgs = SqlSchema.void({
      Request: Schema.String,
      execute: (accountId) =>
        sql`UPDATE orgs SET deleted_at = now() WHERE account_id = ${accountId} AND deleted_at IS NULL`
    })

    const orgCounts = SqlSchema.single({
      Request: Schema.String,
      Result: OrgCounts,
      execute: (accountId) => sql`
        SELECT count(*) FILTER (WHERE o.deleted_at IS NULL)::int AS live,
               count(*) FILTER (WHERE o.deleted_at = a.deleted_at)::int AS back
        FROM orgs o JOIN accounts a ON a.id = o.account_id
        WHERE o.account_id = ${accountId}
      `
    })

    // An org deleted at the account's deletion instant went with it; one deleted earlier stays deleted.
    const restoreOrgs = SqlSchema.void({
      Request: Schema.String,
      execute: (accountId) => sql`
        UPDATE orgs o SET deleted_at = NULL FROM accounts a
        WHERE a.id = o.account_id AND o.account_id = ${accountId} AND o.deleted_at = a.deleted_at
      `
    })

    const restoreAccount = SqlSchema.void({
      Request: Schema.String,
      execute: (accountId) => sql`UPDATE accounts SET deleted_at = NULL, purge_after = NULL WHERE id = ${accountId}`
    })

    const restoreUser = SqlSchema.void({
      Request: Schema.String,
      execute: (userId) => sql`UPDATE users SET deleted_at = NULL, purge_after = NULL WHERE id = ${userId}`
    })

    const usage = SqlSchema.single({
      Request: Person,
      Result: Usage,
      execute: ({ user_id, account_id }) => sql`
        SELECT
          (SELECT count(*) FROM api_tokens WHERE user_id = ${user_id} AND revoked_at IS NULL
             AND (expires_at IS NULL OR expires_at > now()))::int AS tokens,
          (SELECT count(*) FROM orgs WHERE account_id = ${account_id} AND deleted_at IS NULL)::int AS orgs
      `
    })

    // The payment provider's subscription of the account, as the webhook last wrote it (billing/Repo.ts).
    const subscriptionOf = SqlSchema.findOne({
      Request: Schema.String,
      Result: Subscription,
      execute: (accountId) => sql`
        SELECT subscription_id, status FROM billing_accounts
        WHERE account_id = ${accountId} AND subscription_id IS NOT NULL
      `
    })

    const subscriptionEnded = SqlSchema.void({
      Request: Schema.Struct({ account_id: Schema.String, subscription_id: Schema.String, status: Schema.String }),
      execute: (s) => sql`
        UPDATE billing_accounts SET status = ${s.status}, cancel_at_period_end = false, updated_at = now()
        WHERE account_id = ${s.account_id} AND subscription_id = ${s.subscription_id}
      `
    })

    const transaction = Transaction.make(sql)

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      transaction,
      /** Everyone holding a membership in one of the account's orgs, deleted or not. */
      peopleOfAccount: (accountId: string) =>
        Effect.map(Effect.orDie(peopleOfAccount(accountId)), (rows) => rows.map((row) => row.user_id)),
      /** The user, their account and its orgs deleted now, to be purged after `graceDays`; in one transaction. */
      scheduleDeletion: (userId: string, accountId: string, graceDays: number) =>
        transaction(
          Effect.orDie(
            Effect.all([
              deleteUser({ user_id: userId, days: graceDays }),
              deleteAccount({ account_id: accountId, days: graceDays }),
              deleteOrgs(accountId)
            ])
          )
        ),
      /** The account's subscription at the payment provider, when it has one (live or ended). */
      subscriptionOf: (accountId: string) => Effect.orDie(subscriptionOf(accountId)),
      /** Records the status the provider answered when it ended the subscription. */
      subscriptionEnded: (accountId: string, subscriptionId: string, status: string) =>
        Effect.orDie(subscriptionEnded({ account_id: accountId, subscription_id: subscriptionId, status })),
      /** Holds the account's lock to the end of the transaction: its org count serialises on it. */
      lockAccount: (accountId: string) => AccountLock.lock(sql, accountId),
      orgCounts: (accountId: string) => Effect.orDie(orgCounts(accountId)),
      /** Undoes the deletion of the account, its orgs that went with it, and the user; inside the caller's transaction. */
      restore: (userId: string, accountId: string) =>
        Effect.orDie(Effect.all([restoreOrgs(accountId), restoreAccount(accountId), restoreUser(userId)])),
      usage: (userId: string, accountId: string) => Effect.orDie(usage({ user_id: userId, account_id: accountId }))
    }
  })
}) {}
