/**
 * The passkeys' SQL: stored credentials and the ceremonies in flight (migration 0025). A ceremony is deleted in the
 * statement that reads it, so it is finished at most once whatever races it.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { SessionId, UserId } from "@signalman/core/Identity"
import { CeremonyId, PasskeyId } from "@signalman/core/Passkey"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Transaction from "../database/Transaction.js"
import { refusable } from "../database/UniqueViolation.js"

/** A stored passkey. `counter` is a bigint column read as a number: a signature counter is 32 bits. */
export const PasskeyRow = Schema.Struct({
  id: PasskeyId,
  user_id: UserId,
  credential_id: Schema.String,
  public_key: Schema.Uint8ArrayFromSelf,
  counter: Schema.NumberFromString,
  transports: Schema.Array(Schema.String),
  name: Schema.String,
  rp_id: Schema.String,
  created_at: Schema.DateFromSelf,
  last_used_at: Schema.NullOr(Schema.DateFromSelf)
})
export type PasskeyRow = typeof PasskeyRow.Type

const columns = `id, user_id, credential_id, public_key, counter::text AS counter, transports, name, rp_id, created_at,
  last_used_at`

export const NewPasskey = Schema.Struct({
  id: Schema.String,
  user_id: Schema.String,
  credential_id: Schema.String,
  public_key: Schema.Uint8ArrayFromSelf,
  counter: Schema.Number,
  transports: Schema.Array(Schema.String),
  name: Schema.String,
  rp_id: Schema.String,
  device_type: Schema.Literal("singleDevice", "multiDevice"),
  backed_up: Schema.Boolean
})

/** A ceremony as it was started; `live` is false once it has expired (it is deleted all the same). */
export const CeremonyRow = Schema.Struct({
  id: CeremonyId,
  kind: Schema.Literal("login", "register"),
  challenge: Schema.String,
  session_id: Schema.NullOr(SessionId),
  user_id: Schema.NullOr(UserId),
  name: Schema.NullOr(Schema.String),
  invitation_token: Schema.NullOr(Schema.String),
  redirect_after: Schema.NullOr(Schema.String),
  live: Schema.Boolean
})
export type CeremonyRow = typeof CeremonyRow.Type

export const NewCeremony = Schema.Struct({
  id: Schema.String,
  kind: Schema.Literal("login", "register"),
  challenge: Schema.String,
  session_id: Schema.NullOr(Schema.String),
  user_id: Schema.NullOr(Schema.String),
  name: Schema.NullOr(Schema.String),
  invitation_token: Schema.NullOr(Schema.String),
  redirect_after: Schema.NullOr(Schema.String),
  minutes: Schema.Number
})

const Count = Schema.Struct({ n: Schema.Number })

export class PasskeysRepo extends Effect.Service<PasskeysRepo>()("Signalman/PasskeysRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const insertCeremony = SqlSchema.void({
      Request: NewCeremony,
      execute: (c) => sql`
        INSERT INTO passkey_ceremonies (id, kind, challenge, session_id, user_id, name, invitation_token,
                                        redirect_after, expires_at)
        VALUES (${c.id}, ${c.kind}, ${c.challenge}, ${c.session_id}, ${c.user_id}, ${c.name}, ${c.invitation_token},
                ${c.redirect_after}, now() + make_interval(mins => ${c.minutes}))
      `
    })

    // A registration is taken only by the session that started it: another session's try leaves it in place.
    const takeCeremony = SqlSchema.findOne({
      Request: Schema.Struct({
        id: Schema.String,
        kind: Schema.Literal("login", "register"),
        session_id: Schema.NullOr(Schema.String)
      }),
      Result: CeremonyRow,
      execute: (r) => sql`
        DELETE FROM passkey_ceremonies
        WHERE id = ${r.id} AND kind = ${r.kind}
          AND ${r.session_id === null ? sql`session_id IS NULL` : sql`session_id = ${r.session_id}`}
        RETURNING id, kind, challenge, session_id, user_id, name, invitation_token, redirect_after,
                  expires_at > now() AS live
      `
    })

    const byCredentialId = SqlSchema.findOne({
      Request: Schema.String,
      Result: PasskeyRow,
      execute: (credentialId) => sql`SELECT ${sql.literal(columns)} FROM passkeys WHERE credential_id = ${credentialId}`
    })

    const ofUser = SqlSchema.findAll({
      Request: Schema.String,
      Result: PasskeyRow,
      execute: (userId) =>
        sql`SELECT ${sql.literal(columns)} FROM passkeys WHERE user_id = ${userId} ORDER BY created_at, id`
    })

    const lockUser = SqlSchema.void({
      Request: Schema.String,
      execute: (userId) => sql`SELECT pg_advisory_xact_lock(hashtext(${`passkeys:${userId}`}))`
    })

    const countOf = SqlSchema.single({
      Request: Schema.String,
      Result: Count,
      execute: (userId) => sql`SELECT count(*)::int AS n FROM passkeys WHERE user_id = ${userId}`
    })

    const insert = SqlSchema.single({
      Request: NewPasskey,
      Result: PasskeyRow,
      execute: (p) => sql`
        INSERT INTO passkeys (id, user_id, credential_id, public_key, counter, transports, name, rp_id, device_type,
                              backed_up)
        VALUES (${p.id}, ${p.user_id}, ${p.credential_id}, ${Buffer.from(p.public_key)}, ${p.counter},
                ${[...p.transports]}::text[], ${p.name}, ${p.rp_id}, ${p.device_type}, ${p.backed_up})
        RETURNING ${sql.literal(columns)}
      `
    })

    const recordUse = SqlSchema.void({
      Request: Schema.Struct({ id: Schema.String, counter: Schema.Number }),
      // Never back: two sign-ins at once each computed their own maximum, and the lower must not win.
      execute: (r) =>
        sql`UPDATE passkeys SET counter = GREATEST(counter, ${r.counter}), last_used_at = now() WHERE id = ${r.id}`
    })

    const remove = SqlSchema.findOne({
      Request: Schema.Struct({ user_id: Schema.String, id: Schema.String }),
      Result: PasskeyRow,
      execute: (r) =>
        sql`DELETE FROM passkeys WHERE id = ${r.id} AND user_id = ${r.user_id} RETURNING ${sql.literal(columns)}`
    })

    const retiredCount = SqlSchema.single({
      Request: Schema.String,
      Result: Count,
      execute: (rpId) => sql`SELECT count(*)::int AS n FROM passkeys WHERE rp_id <> ${rpId}`
    })

    return {
      transaction: Transaction.make(sql),
      insertCeremony: (ceremony: typeof NewCeremony.Type) => Effect.orDie(insertCeremony(ceremony)),
      /** Deletes and answers the ceremony, if it exists for that kind (and, for a registration, that session). */
      takeCeremony: (id: string, kind: "login" | "register", sessionId: string | null) =>
        Effect.map(Effect.orDie(takeCeremony({ id, kind, session_id: sessionId })), Option.getOrUndefined),
      byCredentialId: (credentialId: string) =>
        Effect.map(Effect.orDie(byCredentialId(credentialId)), Option.getOrUndefined),
      ofUser: (userId: string) => Effect.orDie(ofUser(userId)),
      /** Holds the person's passkey lock to the end of the transaction: adds serialise on it. */
      lockUser: (userId: string) => Effect.orDie(lockUser(userId)),
      countOf: (userId: string) => Effect.map(Effect.orDie(countOf(userId)), (row) => row.n),
      /** Stores a passkey; a credential already stored (by anyone) is a `UniqueViolation`. */
      insert: (passkey: typeof NewPasskey.Type) => refusable(insert(passkey)),
      recordUse: (id: string, counter: number) => Effect.orDie(recordUse({ id, counter })),
      /** Deletes one passkey of the person; the row, or undefined when they hold no such passkey. */
      remove: (userId: string, id: string) =>
        Effect.map(Effect.orDie(remove({ user_id: userId, id })), Option.getOrUndefined),
      /** How many stored passkeys were made for another relying-party id than `rpId`. */
      retiredCount: (rpId: string) => Effect.map(Effect.orDie(retiredCount(rpId)), (row) => row.n)
    }
  })
}) {}
