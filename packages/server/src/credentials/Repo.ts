/**
 * Credential events' SQL: writing a change, a person's changes newest first, and what the mail needs to know of
 * the person (their address, and whether their account is inside its deletion grace window).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { CredentialChangeKind, CredentialMethod, CredentialOrigin } from "@signalman/core/CredentialEvent"
import { UserId } from "@signalman/core/Identity"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/** A change as stored, without its device hashes (nothing shown reads them). */
export const CredentialEventRow = Schema.Struct({
  id: Schema.UUID,
  user_id: UserId,
  change: CredentialChangeKind,
  method: CredentialMethod,
  origin: CredentialOrigin,
  label: Schema.String,
  created_at: Schema.DateFromSelf
})
export type CredentialEventRow = typeof CredentialEventRow.Type

const NewEvent = Schema.Struct({
  ...CredentialEventRow.fields,
  user_id: Schema.String,
  ip_hash: Schema.NullOr(Schema.String),
  user_agent_hash: Schema.NullOr(Schema.String)
})

/** Whom the account mail goes to, and whether it goes at all. */
const Recipient = Schema.Struct({
  email: Schema.String,
  deleted_at: Schema.NullOr(Schema.DateFromSelf)
})
export type Recipient = typeof Recipient.Type

export class CredentialEventsRepo extends Effect.Service<CredentialEventsRepo>()("Signalman/CredentialEventsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const insert = SqlSchema.void({
      Request: NewEvent,
      execute: (e) => sql`
        INSERT INTO credential_events (id, user_id, change, method, origin, label, ip_hash, user_agent_hash, created_at)
        VALUES (${e.id}, ${e.user_id}, ${e.change}, ${e.method}, ${e.origin}, ${e.label}, ${e.ip_hash},
                ${e.user_agent_hash}, ${e.created_at})
      `
    })

    const ofUser = SqlSchema.findAll({
      Request: Schema.String,
      Result: CredentialEventRow,
      execute: (userId) => sql`
        SELECT id, user_id, change, method, origin, label, created_at
        FROM credential_events WHERE user_id = ${userId}
        ORDER BY created_at DESC, id DESC
      `
    })

    // A deletion is set on the user and their account together and cleared together on restore; either marks the
    // grace window.
    const recipient = SqlSchema.findOne({
      Request: Schema.String,
      Result: Recipient,
      execute: (userId) => sql`
        SELECT u.email, COALESCE(u.deleted_at, a.deleted_at) AS deleted_at
        FROM users u JOIN accounts a ON a.id = u.account_id
        WHERE u.id = ${userId}
      `
    })

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      insert: (event: typeof NewEvent.Type) => Effect.orDie(insert(event)),
      ofUser: (userId: string) => Effect.orDie(ofUser(userId)),
      recipient: (userId: string) => Effect.map(Effect.orDie(recipient(userId)), Option.getOrUndefined)
    }
  })
}) {}
