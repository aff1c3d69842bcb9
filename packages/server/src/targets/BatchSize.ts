/**
 * How many items one request may carry (targets of a bulk create, copies of a duplicate, ids of a bulk action): more
 * is 400 `BULK_TOO_LARGE`, naming the field, the limit and the count.
 */
import * as ApiError from "@signalman/core/ApiError"
import * as Effect from "effect/Effect"

/** Refuses `count` items of `field` beyond `max`. */
export const atMost = (field: string, count: number, max: number): Effect.Effect<void, ApiError.ApiError> =>
  count <= max
    ? Effect.void
    : Effect.fail(
        ApiError.make("BULK_TOO_LARGE", `At most ${max} ${field} in one request; this one has ${count}`, {
          field,
          details: { max, count }
        })
      )
