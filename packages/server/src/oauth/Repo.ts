/**
 * OAuth's SQL: the states of dances in flight (stored as the SHA-256 of the state) and the provider identities
 * linked to people.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { UserId } from "@signalman/core/Identity"
import { Provider } from "@signalman/core/OAuth"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Transaction from "../database/Transaction.js"
import { refusable } from "../database/UniqueViolation.js"

/** A dance begun: what the callback needs back. */
export const NewState = Schema.Struct({
  state_hash: Schema.Uint8ArrayFromSelf,
  provider: Provider,
  code_verifier: Schema.NullOr(Schema.String),
  invitation_token: Schema.NullOr(Schema.String),
  redirect_after: Schema.NullOr(Schema.String),
  link_user_id: Schema.NullOr(Schema.String),
  expiry_minutes: Schema.Number
})

/** A state consumed: its provider and whether it was still live, so the caller can refuse either. */
export const StateRow = Schema.Struct({
  provider: Provider,
  live: Schema.Boolean,
  code_verifier: Schema.NullOr(Schema.String),
  invitation_token: Schema.NullOr(Schema.String),
  redirect_after: Schema.NullOr(Schema.String),
  link_user_id: Schema.NullOr(UserId)
})
export type StateRow = typeof StateRow.Type

/** A linked identity. */
export const IdentityRow = Schema.Struct({
  id: Schema.String,
  user_id: UserId,
  provider: Provider,
  provider_key: Schema.String,
  email: Schema.NullOr(Schema.String),
  label: Schema.String,
  created_at: Schema.DateFromSelf,
  last_used_at: Schema.NullOr(Schema.DateFromSelf)
})
export type IdentityRow = typeof IdentityRow.Type

export const NewIdentity = Schema.Struct({
  id: Schema.String,
  user_id: Schema.String,
  provider: Provider,
  provider_key: Schema.String,
  email: Schema.NullOr(Schema.String),
  label: Schema.String,
  /** Signed in with it as it was linked (a sign-up or an address match), rather than linked from a session. */
  signed_in: Schema.Boolean
})

const ProviderKey = Schema.Struct({ provider: Provider, provider_key: Schema.String })
const identityColumns = "id, user_id, provider, provider_key, email, label, created_at, last_used_at"

export class OAuthRepo extends Effect.Service<OAuthRepo>()("Signalman/OAuthRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const insertState = SqlSchema.void({
      Request: NewState,
      execute: (s) => sql`
        INSERT INTO oauth_states (state_hash, provider, code_verifier, invitation_token, redirect_after, link_user_id,
                                  expires_at)
        VALUES (${s.state_hash}, ${s.provider}, ${s.code_verifier}, ${s.invitation_token}, ${s.redirect_after},
                ${s.link_user_id}, now() + make_interval(mins => ${s.expiry_minutes}))
      `
    })

    // Deleted whatever its provider or age: a state shown to the wrong callback, or too late, is spent too.
    const consumeState = SqlSchema.findOne({
      Request: Schema.Uint8ArrayFromSelf,
      Result: StateRow,
      execute: (stateHash) => sql`
        DELETE FROM oauth_states WHERE state_hash = ${stateHash}
        RETURNING provider, expires_at > now() AS live, code_verifier, invitation_token, redirect_after, link_user_id
      `
    })

    const identityByKey = SqlSchema.findOne({
      Request: ProviderKey,
      Result: IdentityRow,
      execute: (k) => sql`
        SELECT ${sql.literal(identityColumns)} FROM oauth_identities
        WHERE provider = ${k.provider} AND provider_key = ${k.provider_key}
      `
    })

    const insertIdentity = SqlSchema.void({
      Request: NewIdentity,
      execute: (i) => sql`
        INSERT INTO oauth_identities (id, user_id, provider, provider_key, email, label, last_used_at)
        VALUES (${i.id}, ${i.user_id}, ${i.provider}, ${i.provider_key}, ${i.email}, ${i.label},
                CASE WHEN ${i.signed_in} THEN now() END)
      `
    })

    const touchIdentity = SqlSchema.void({
      Request: Schema.Struct({ id: Schema.String, email: Schema.NullOr(Schema.String), label: Schema.String }),
      execute: (i) => sql`
        UPDATE oauth_identities SET last_used_at = now(), email = COALESCE(${i.email}, email), label = ${i.label}
        WHERE id = ${i.id}
      `
    })

    const identitiesOf = SqlSchema.findAll({
      Request: Schema.String,
      Result: IdentityRow,
      execute: (userId) => sql`
        SELECT ${sql.literal(identityColumns)} FROM oauth_identities WHERE user_id = ${userId}
        ORDER BY created_at, id
      `
    })

    const deleteIdentity = SqlSchema.findAll({
      Request: Schema.Struct({ user_id: Schema.String, id: Schema.String }),
      Result: IdentityRow,
      execute: (k) => sql`
        DELETE FROM oauth_identities WHERE user_id = ${k.user_id} AND id = ${k.id}
        RETURNING ${sql.literal(identityColumns)}
      `
    })

    const lockUser = SqlSchema.void({
      Request: Schema.String,
      execute: (userId) => sql`SELECT id FROM users WHERE id = ${userId} FOR UPDATE`
    })

    const lock = SqlSchema.void({
      Request: Schema.String,
      execute: (name) => sql`SELECT pg_advisory_xact_lock(hashtext(${name}))`
    })

    return {
      transaction: Transaction.make(sql),
      /**
       * Holds a named lock to the end of the transaction: phase C takes `oauth:<provider>:<key>` and
       * `sign_up:<address>`, so two callbacks for one new person wait for each other instead of both opening it.
       */
      lock: (name: string) => Effect.orDie(lock(name)),
      insertState: (state: typeof NewState.Type) => Effect.orDie(insertState(state)),
      /** Deletes the state a hash names and answers what it carried, in one statement; undefined when unknown. */
      consumeState: (stateHash: Uint8Array) => Effect.map(Effect.orDie(consumeState(stateHash)), Option.getOrUndefined),
      identityByKey: (provider: Provider, providerKey: string) =>
        Effect.map(Effect.orDie(identityByKey({ provider, provider_key: providerKey })), Option.getOrUndefined),
      /** Links an identity; `UniqueViolation` when another request linked the same one first. */
      insertIdentity: (identity: typeof NewIdentity.Type) => refusable(insertIdentity(identity)),
      /** Records a sign-in with the identity, refreshing what the provider now says about it. */
      touchIdentity: (id: string, email: string | null, label: string) =>
        Effect.orDie(touchIdentity({ id, email, label })),
      /** The person's identities, oldest first. */
      identitiesOf: (userId: string) => Effect.orDie(identitiesOf(userId)),
      /** Removes one identity of the person; the row removed, if it was theirs. */
      deleteIdentity: (userId: string, id: string) =>
        Effect.map(Effect.orDie(deleteIdentity({ user_id: userId, id })), (rows) => rows[0]),
      /** Holds the person's row to the end of the transaction: removals of their methods serialise on it. */
      lockUser: (userId: string) => Effect.orDie(lockUser(userId))
    }
  })
}) {}
