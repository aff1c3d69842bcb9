/**
 * Check-now (`POST /targets/{id}/check-now`, decisions.md "On-call", last bullet): the stored monitor runs once in
 * every region of it that can run it now, each result is stored once with its region, and the answer is the result
 * of the monitor's first region (the order of its `regions`).
 *
 * - `local` runs here, as it always did; a remote region runs on one of its connected agents (`OneOffs`), whose
 *   answer is stored where it is taken (`agents/OneOffAnswers`), in the same transaction that records it.
 * - The check is prepared once (`StoredChecks.prepare`: sealed credentials opened, variables filled, address rules
 *   applied). One that cannot be made ready stores its `error` result in each region without running anywhere, as
 *   the scheduler would.
 * - The first region must be able to run it: unknown or disabled, or remote with no agent connected, is 422
 *   `REGION_INVALID`, a flow with no browser there 422 `NO_FLOW_CAPABLE_AGENT` (both on `regions`); nothing runs
 *   then. Any other region that cannot run it now is left out, as its scheduled runs wait too.
 * - The request waits for every region it ran in, each at most its check's timeout plus `agents.one_off_grace_ms`;
 *   the first region's agent not answering by then is 503 `NOT_READY`, while what the other regions answered stays
 *   stored. Another region not answering is logged.
 *
 * Results are stored as `check_now` with weight 0: an extra check stands for no stretch of the timeline.
 */
import type * as ApiError from "@signalman/core/ApiError"
import { CheckResult } from "@signalman/core/CheckResult"
import type { CheckSpec } from "@signalman/core/CheckSpec"
import * as Region from "@signalman/core/Region"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { OneOffs, refusal } from "../oneoffs/OneOffs.js"
import * as Probes from "../probes/Probes.js"
import type { TargetRow } from "../targets/Repo.js"
import { isBlocked } from "./ResultObservers.js"
import { type Pending, ResultStore } from "./ResultStore.js"
import { StoredChecks } from "./StoredChecks.js"

/** What one region's run came to: its result, or why there is none. */
type Ran = Either.Either<CheckResult, ApiError.ErrorOf<404> | ApiError.ErrorOf<503>>

/** An error result of a region that ran nothing (its check could not be made ready): `error` says why. */
const unready = (region: string, error: string): Effect.Effect<CheckResult> =>
  Effect.map(
    DateTime.now,
    (checked_at) =>
      new CheckResult({ status: "error", duration_ms: 0, error, details: null, phases: null, checked_at, region })
  )

export class CheckNow extends Effect.Service<CheckNow>()("Signalman/CheckNow", {
  effect: Effect.gen(function* () {
    const storedChecks = yield* StoredChecks
    const store = yield* ResultStore
    const probes = yield* Probes.Probes
    const oneOffs = yield* OneOffs

    const stored = (row: TargetRow, result: CheckResult): Pending => ({
      targetId: row.id,
      orgId: row.org_id,
      kind: row.kind,
      result,
      source: "check_now",
      blocked: isBlocked(result),
      weightSecs: 0
    })

    /** Runs the monitor now in its regions; answers its first region's result. `requestedBy` is the user asking. */
    const run = (row: TargetRow, requestedBy: string) =>
      Effect.gen(function* () {
        const regions = row.regions.length === 0 ? [Region.LOCAL] : [...new Set(row.regions)]
        const first = regions[0] ?? Region.LOCAL
        const standings = yield* oneOffs.standings(regions)
        const localFlows = row.kind === "flow" && regions.includes(Region.LOCAL) && (yield* probes.flowCapable)
        const refusalIn = (region: string) => refusal(region, standings.get(region), row.kind, localFlows, "regions")
        const refused = refusalIn(first)
        if (Option.isSome(refused)) return yield* Effect.fail(refused.value)
        const runnable = regions.filter((region) => Option.isNone(refusalIn(region)))

        const ready = yield* storedChecks.prepare({
          id: row.id,
          orgId: row.org_id,
          checkSpec: row.check_spec,
          credentials: row.credentials
        })

        // Results made here (local, or a check that could not be made ready) are stored together below; a remote
        // region's result is stored when its agent's answer is taken.
        const here: Array<CheckResult> = []
        const inRegion = (spec: CheckSpec, region: string): Effect.Effect<Ran> =>
          region === Region.LOCAL
            ? Effect.map(
                probes.runOnce(spec).pipe(Effect.catchTag("Unprobeable", (e) => Probes.failed(e.message))),
                (result) => {
                  here.push(result)
                  return Either.right(result)
                }
              )
            : Effect.either(
                oneOffs.run({
                  orgId: row.org_id,
                  requestedBy,
                  region,
                  spec,
                  targetId: row.id,
                  field: "regions"
                })
              )
        const ran = yield* Effect.forEach(
          runnable,
          (region): Effect.Effect<Ran> =>
            Either.match(ready, {
              onLeft: (error) =>
                Effect.map(unready(region, error), (result) => {
                  here.push(result)
                  return Either.right(result)
                }),
              onRight: (spec) => inRegion(spec, region)
            }),
          { concurrency: "unbounded" }
        )
        yield* store.write(here.map((result) => stored(row, result)))

        for (const [i, outcome] of ran.entries()) {
          if (i === 0 || Either.isRight(outcome)) continue
          yield* Effect.logWarning("Check-now: a region did not answer").pipe(
            Effect.annotateLogs({ target_id: row.id, region: runnable[i], error: outcome.left.message })
          )
        }
        const answer = ran[0]
        if (answer === undefined) return yield* Effect.dieMessage("check-now ran in no region")
        return yield* answer
      })

    return { run }
  }),
  dependencies: [OneOffs.Default]
}) {}
