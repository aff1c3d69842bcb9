/**
 * The operations probes' SQL: one round trip that proves the database answers. Unlike other repositories its failure
 * stays typed, because readiness reports an unreachable database rather than failing the request.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

export class OperationsRepo extends Effect.Service<OperationsRepo>()("Signalman/OperationsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const ping = SqlSchema.void({ Request: Schema.Void, execute: () => sql`SELECT 1` })
    return {
      /** Succeeds when the database answered a query. */
      ping: ping(undefined)
    }
  })
}) {}
