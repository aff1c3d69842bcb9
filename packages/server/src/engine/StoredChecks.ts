/**
 * A monitor's stored check made ready to run here (the `local` region): the sealed check opened, its `{{key}}`
 * references filled from the org's variables (read when the run is prepared, so a rotated value takes effect on
 * the next run without touching the monitor), and the address rules applied to the filled check. What cannot run
 * is answered with the text of an `error` result (not downtime), so the timeline shows why nothing was measured: a
 * reference to a deleted variable, an internal address a variable filled in (`blocked:`).
 *
 * The scheduler prepares each claimed run and hands the ready checks to the checks package's `Runner`; the agents'
 * leases prepare each job alike; check-now prepares one and probes it at once in `local` (`CheckNow`), outside the
 * runner: it is not throttled per host (it has its own budget), and hands it to an agent in each remote region.
 */
import * as TargetAddress from "@signalman/checks/TargetAddress"
import { CheckSpec } from "@signalman/core/CheckSpec"
import type { OrgId } from "@signalman/core/Identity"
import * as VariableRefs from "@signalman/core/Variables"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { AppConfig } from "../config/Config.js"
import { Sealer } from "../crypto/Sealer.js"
import { Variables } from "../variables/Variables.js"

/** What a run needs of the stored target. */
export interface Stored {
  readonly id: string
  readonly orgId: OrgId
  readonly checkSpec: unknown
  readonly credentials: string | null
}

const decodeCheck = Schema.decodeUnknownEither(CheckSpec)

export class StoredChecks extends Effect.Service<StoredChecks>()("Signalman/StoredChecks", {
  effect: Effect.gen(function* () {
    const sealer = yield* Sealer
    const variables = yield* Variables
    const allowPrivate = (yield* AppConfig)["checker.allow_private_targets"]

    /**
     * The check ready to probe, or the error text of the result that stands in for the run. A stored check that
     * does not decode, or a sealed one that does not open, is a defect.
     */
    const prepare = (stored: Stored): Effect.Effect<Either.Either<CheckSpec, string>> =>
      Effect.gen(function* () {
        const raw: unknown =
          stored.credentials === null ? stored.checkSpec : JSON.parse(yield* sealer.open(stored.credentials))
        const decoded = decodeCheck(raw)
        if (Either.isLeft(decoded)) return yield* Effect.dieMessage(`target ${stored.id}: stored check unreadable`)
        const spec = decoded.right
        const keys = VariableRefs.keys(spec)
        if (keys.length === 0) return Either.right(spec)
        const rows = yield* variables.forKeys(stored.orgId, keys)
        const values = new Map<string, string>()
        for (const row of rows) values.set(row.key, yield* variables.open(row))
        const missing = keys.find((key) => !values.has(key))
        if (missing !== undefined) {
          return Either.left(`unresolved variable: {{${missing}}} does not name a variable of this org`)
        }
        const filled = VariableRefs.substitute(spec, values)
        const refused = TargetAddress.refusal(filled, allowPrivate)
        if (refused !== undefined) {
          return Either.left(
            refused.code === "TARGET_ADDRESS_BLOCKED"
              ? `blocked: ${refused.message}`
              : `${refused.field}: ${refused.message}`
          )
        }
        return Either.right(filled)
      }).pipe(Effect.orDie)

    return { prepare }
  }),
  dependencies: [Sealer.Default]
}) {}
