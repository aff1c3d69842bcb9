/**
 * A write a unique index refused (SQLSTATE 23505): the caller's to answer (a slug taken, a managed key held), where
 * every other database failure is a defect. Two writes racing past a service's own check meet here.
 */
import { SqlError } from "@effect/sql/SqlError"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"

/** A unique index refused a write: `constraint` names it (empty when the driver did not say). */
export class UniqueViolation extends Data.TaggedError("UniqueViolation")<{ readonly constraint: string }> {}

/** The constraint a unique violation broke, if the error is one (node-postgres names it `constraint`). */
const constraintOf = (error: SqlError): string | undefined => {
  const cause: unknown = error.cause
  if (typeof cause !== "object" || cause === null || !("code" in cause) || cause.code !== "23505") return undefined
  if ("constraint" in cause && typeof cause.constraint === "string") return cause.constraint
  return "constraint_name" in cause && typeof cause.constraint_name === "string" ? cause.constraint_name : ""
}

/** A write that a unique index may refuse: that refusal becomes `UniqueViolation`, anything else a defect. */
export const refusable = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, UniqueViolation, R> =>
  Effect.catchAll(self, (error) => {
    const constraint = error instanceof SqlError ? constraintOf(error) : undefined
    return constraint === undefined ? Effect.die(error) : Effect.fail(new UniqueViolation({ constraint }))
  })

/** Whether the violation is of a `managed_by` index (migration 0022: `<table>_managed_by`). */
export const isManagedBy = (violation: UniqueViolation): boolean => violation.constraint.endsWith("_managed_by")
