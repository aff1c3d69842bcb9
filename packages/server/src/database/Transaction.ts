/**
 * A transaction around repository calls, for a service whose rule sits between two statements (a quota compared
 * under the account's lock). The repository's statements already make the database failing a defect; what the
 * transaction can still fail with of its own (begin, commit) becomes one too. The caller's own failures pass through
 * and roll the transaction back.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"

/** `sql.withTransaction` with the database failing as a defect. */
export const make =
  (sql: SqlClient.SqlClient) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.catchAll(sql.withTransaction(self), (error) =>
      error instanceof SqlError ? Effect.die(error) : Effect.fail(error)
    )
