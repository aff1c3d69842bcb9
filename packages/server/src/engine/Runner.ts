/**
 * Running one stored monitor here (the `local` region): open the sealed check, resolve its `{{key}}` references
 * from the org's variables at probe time (so a rotated value takes effect without touching the monitor), apply the
 * address rules to the filled check, and probe. What cannot run is answered as a result with status `error` (not
 * downtime), so the timeline shows why nothing was measured: a reference to a deleted variable, an internal address
 * a variable filled in (`blocked:`), a flow with no browser here. Both the scheduler and check-now run through it.
 */
import * as TargetAddress from "@signalman/checks/TargetAddress"
import { CheckResult } from "@signalman/core/CheckResult"
import { CheckSpec } from "@signalman/core/CheckSpec"
import type { OrgId } from "@signalman/core/Identity"
import * as VariableRefs from "@signalman/core/Variables"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { AppConfig } from "../Config.js"
import { Sealer } from "../crypto/Sealer.js"
import { LOCAL_REGION, Probes } from "../probes/Probes.js"
import { Variables } from "../variables/Variables.js"

/** What a run needs of the stored target. */
export interface Stored {
  readonly id: string
  readonly orgId: OrgId
  readonly checkSpec: unknown
  readonly credentials: string | null
}

const decodeCheck = Schema.decodeUnknownEither(CheckSpec)

const failed = (error: string) =>
  Effect.map(
    DateTime.now,
    (checked_at) =>
      new CheckResult({
        status: "error",
        duration_ms: 0,
        error,
        details: null,
        phases: null,
        checked_at,
        region: LOCAL_REGION
      })
  )

export class Runner extends Effect.Service<Runner>()("Signalman/Runner", {
  effect: Effect.gen(function* () {
    const sealer = yield* Sealer
    const variables = yield* Variables
    const probes = yield* Probes
    const allowPrivate = (yield* AppConfig)["checker.allow_private_targets"]

    /** The check ready to probe, or the error result that stands in for the run. */
    const prepare = (stored: Stored): Effect.Effect<Either.Either<CheckSpec, CheckResult>> =>
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
          return Either.left(yield* failed(`unresolved variable: {{${missing}}} does not name a variable of this org`))
        }
        const filled = VariableRefs.substitute(spec, values)
        const refused = TargetAddress.refusal(filled, allowPrivate)
        if (refused !== undefined) {
          return Either.left(
            yield* failed(
              refused.code === "TARGET_ADDRESS_BLOCKED"
                ? `blocked: ${refused.message}`
                : `${refused.field}: ${refused.message}`
            )
          )
        }
        return Either.right(filled)
      }).pipe(Effect.orDie)

    /** Probes a prepared check; a kind with no probe here becomes an error result. */
    const probe = (spec: CheckSpec): Effect.Effect<CheckResult> =>
      probes.runOnce(spec).pipe(Effect.catchTag("Unprobeable", (e) => failed(e.message)))

    return {
      prepare,
      probe,
      /** Prepares and probes. */
      run: (stored: Stored) => Effect.flatMap(prepare(stored), Either.match({ onLeft: Effect.succeed, onRight: probe }))
    }
  }),
  dependencies: [Sealer.Default]
}) {}
