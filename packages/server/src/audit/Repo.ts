/**
 * The audit log's SQL: one append-only insert into `audit_events`.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** One entry as stored: who acted, on what, the request, and what is particular to the event. */
export const AuditEvent = Schema.Struct({
  id: Schema.String,
  account_id: Schema.NullOr(Schema.String),
  org_id: Schema.NullOr(Schema.String),
  user_id: Schema.NullOr(Schema.String),
  event: Schema.String,
  details: Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  ip_hash: Schema.NullOr(Schema.String),
  request_id: Schema.NullOr(Schema.String)
})

export class AuditRepo extends Effect.Service<AuditRepo>()("Signalman/AuditRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const insert = SqlSchema.void({
      Request: AuditEvent,
      execute: (row) => sql`
        INSERT INTO audit_events (id, account_id, org_id, user_id, event, details, ip_hash, request_id)
        VALUES (${row.id}, ${row.account_id}, ${row.org_id}, ${row.user_id}, ${row.event}, ${row.details}::jsonb,
                ${row.ip_hash}, ${row.request_id})
      `
    })

    // The database failing is a defect at this boundary.
    return { insert: (event: typeof AuditEvent.Type) => Effect.orDie(insert(event)) }
  })
}) {}
