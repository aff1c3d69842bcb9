/**
 * The SQL of the account's own data: the orgs its account owns (deleted ones too, while they wait out the grace)
 * and a person's sign-in attempts, newest first.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { OrgId } from "@signalman/core/Identity"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

export const OwnedOrgRow = Schema.Struct({
  id: OrgId,
  slug: Schema.String,
  name: Schema.String,
  created_at: Schema.DateFromSelf,
  deleted_at: Schema.NullOr(Schema.DateFromSelf)
})
export type OwnedOrgRow = typeof OwnedOrgRow.Type

/** An attempt as shown to its person: the device only as the hash of its User-Agent, to tell "this browser". */
export const AttemptRow = Schema.Struct({
  id: Schema.UUID,
  method: Schema.String,
  success: Schema.Boolean,
  failure_reason: Schema.NullOr(Schema.String),
  user_agent_hash: Schema.NullOr(Schema.String),
  created_at: Schema.DateFromSelf
})
export type AttemptRow = typeof AttemptRow.Type

const AttemptsQuery = Schema.Struct({ user_id: Schema.String, days: Schema.Int, limit: Schema.Int })

export class AccountDataRepo extends Effect.Service<AccountDataRepo>()("Signalman/AccountDataRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const ownedOrgs = SqlSchema.findAll({
      Request: Schema.String,
      Result: OwnedOrgRow,
      execute: (accountId) => sql`
        SELECT id, slug, name, created_at, deleted_at FROM orgs WHERE account_id = ${accountId} ORDER BY created_at, id
      `
    })

    const attempts = SqlSchema.findAll({
      Request: AttemptsQuery,
      Result: AttemptRow,
      execute: (q) => sql`
        SELECT id, method, success, failure_reason, user_agent_hash, created_at
        FROM auth_attempts
        WHERE user_id = ${q.user_id} AND created_at > now() - make_interval(days => ${q.days})
        ORDER BY created_at DESC, id DESC
        LIMIT ${q.limit}
      `
    })

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      ownedOrgs: (accountId: string) => Effect.orDie(ownedOrgs(accountId)),
      /** The person's attempts of the last `days`, newest first, at most `limit`. */
      attempts: (userId: string, days: number, limit: number) =>
        Effect.orDie(attempts({ user_id: userId, days, limit }))
    }
  })
}) {}
