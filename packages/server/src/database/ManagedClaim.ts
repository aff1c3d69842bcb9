/**
 * A write that claims a (project, key) for a resource (`Signalman-Managed-By`): refused with 409
 * `MANAGED_KEY_TAKEN` naming the holder when another resource of the kind in the org holds it, checked just before
 * the write (in its transaction, where it has one). A write racing past the check meets the kind's unique index
 * (`<table>_managed_by`) instead and gets the same 409, without the holder.
 */
import type * as ApiError from "@signalman/core/ApiError"
import * as ManagedBy from "@signalman/core/ManagedBy"
import * as Effect from "effect/Effect"
import { isManagedBy, UniqueViolation } from "./UniqueViolation.js"

/**
 * Runs `write`, which stamps `claim` when there is one. `holder` finds the resource holding the claim other than
 * the one written (its id), if any; `kind` names the resource in the refusal. A violation of another unique index
 * is passed on for the caller to answer.
 */
export const claiming = <A, E, R>(
  kind: string,
  claim: ManagedBy.ManagedBy | undefined,
  holder: (claim: ManagedBy.ManagedBy) => Effect.Effect<string | undefined>,
  write: Effect.Effect<A, E, R>
): Effect.Effect<A, E | ApiError.Conflict, R> => {
  if (claim === undefined) return write
  return Effect.gen(function* () {
    const held = yield* holder(claim)
    if (held !== undefined) return yield* Effect.fail(ManagedBy.taken(kind, claim, { holder: held }))
    return yield* write
  }).pipe(
    Effect.catchIf(
      (error): error is E & UniqueViolation => error instanceof UniqueViolation && isManagedBy(error),
      () => Effect.fail(ManagedBy.taken(kind, claim))
    )
  )
}
