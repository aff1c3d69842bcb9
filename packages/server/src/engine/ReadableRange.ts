/**
 * The range a reading of a monitor's history covers: `to` defaults to now, `from` to a day before `to`, and `from` is
 * held within the plan's `retention_days` (the readable history); `rawFrom` is where raw results begin (`raw_days`).
 * The API's reads and the dashboard's pages cut their ranges here, so both show the same history.
 */
import * as ApiError from "@signalman/core/ApiError"
import * as Either from "effect/Either"

const DAY = 86_400_000

/** The plan's figures a range is held within. */
export interface Keeping {
  readonly retention_days: number
  readonly raw_days: number
}

/** The range as read. */
export interface Readable {
  readonly from: Date
  readonly to: Date
  readonly rawFrom: Date
}

/** The range asked for, held within what the plan keeps at `now`; `from` not before `to`, or a refusal naming it. */
export const clamp = (
  keeping: Keeping,
  now: number,
  asked: { readonly from?: Date | undefined; readonly to?: Date | undefined }
): Either.Either<Readable, ApiError.ApiError> => {
  const to = asked.to ?? new Date(now)
  const wanted = asked.from ?? new Date(to.getTime() - DAY)
  if (wanted.getTime() >= to.getTime()) {
    return Either.left(ApiError.make("VALIDATION_FAILED", "from must be before to", { field: "from" }))
  }
  const from = new Date(Math.max(wanted.getTime(), now - keeping.retention_days * DAY))
  return Either.right({
    from,
    to: new Date(Math.max(to.getTime(), from.getTime())),
    rawFrom: new Date(now - keeping.raw_days * DAY)
  })
}
