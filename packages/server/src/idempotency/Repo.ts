/**
 * Idempotency keys' SQL: the answer recorded under (org, user, operation, key), read back while it is younger than
 * 24 hours, and written once (a key taken by a committed request inserts nothing).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/** Whose key it is, for which operation. */
export const Key = Schema.Struct({
  org_id: Schema.String,
  user_id: Schema.String,
  operation: Schema.String,
  key: Schema.String
})
export type Key = typeof Key.Type

/** The first answer to a key: the request's fingerprint, the response body as JSON and its `Location`. */
export const StoredAnswer = Schema.Struct({
  fingerprint: Schema.String,
  response: Schema.Unknown,
  location: Schema.NullOr(Schema.String)
})

const Taken = Schema.Struct({ key: Schema.String })

export class IdempotencyRepo extends Effect.Service<IdempotencyRepo>()("Signalman/IdempotencyRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const answer = SqlSchema.findOne({
      Request: Key,
      Result: StoredAnswer,
      execute: (k) => sql`
        SELECT fingerprint, response, location FROM idempotency_keys
        WHERE org_id = ${k.org_id} AND user_id = ${k.user_id} AND operation = ${k.operation}
          AND key = ${k.key} AND created_at > now() - interval '24 hours'
      `
    })

    const dropExpired = SqlSchema.void({
      Request: Key,
      execute: (k) => sql`
        DELETE FROM idempotency_keys
        WHERE org_id = ${k.org_id} AND user_id = ${k.user_id} AND operation = ${k.operation}
          AND key = ${k.key} AND created_at <= now() - interval '24 hours'
      `
    })

    const insert = SqlSchema.findAll({
      Request: Schema.Struct({
        ...Key.fields,
        fingerprint: Schema.String,
        response: Schema.parseJson(Schema.Unknown),
        location: Schema.NullOr(Schema.String)
      }),
      Result: Taken,
      execute: (row) => sql`
        INSERT INTO idempotency_keys (org_id, user_id, operation, key, fingerprint, status, response, location)
        VALUES (${row.org_id}, ${row.user_id}, ${row.operation}, ${row.key}, ${row.fingerprint}, 201,
          ${row.response}::jsonb, ${row.location})
        ON CONFLICT DO NOTHING
        RETURNING key
      `
    })

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      /** The live answer to the key, if one was recorded in the last 24 hours. */
      answer: (key: Key) => Effect.map(Effect.orDie(answer(key)), Option.getOrUndefined),
      /** Forgets the key's answer if it is older than 24 hours: the key then means a new request. */
      dropExpired: (key: Key) => Effect.orDie(dropExpired(key)),
      /** Records the answer (status 201); false when the key is taken. */
      insert: (
        key: Key,
        answer: { readonly fingerprint: string; readonly response: unknown; readonly location: string | null }
      ) => Effect.map(Effect.orDie(insert({ ...key, ...answer })), (rows) => rows.length > 0)
    }
  })
}) {}
