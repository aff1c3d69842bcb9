/**
 * One-off checks in an agent's region (decisions.md, "On-call", last bullet): `POST /targets/test` with a `region`,
 * and check-now in each remote region of a monitor. The request writes a run into `one_off_runs` and waits for its
 * answer there, because the agent's stream may be held by another API process: that process claims the run for an
 * agent of the region and pushes it on the stream (`agents/OneOffDispatch`), and takes the agent's answer
 * (`agents/OneOffAnswers`, which stores check-now's result in the same transaction). This process hears of both at
 * once when they happen here (`Wakeups`) and polls otherwise.
 *
 * The wait is bounded: the check's own timeout plus `agents.one_off_grace_ms` (`Budget`). Past it the request closes
 * its run, so no answer is taken after it, and answers 503 `NOT_READY`: the region could not answer in time, which
 * is the service's condition and not the caller's mistake, and may pass. A run is deleted once its request is done
 * with it, however that ends (answered, timed out, the client gone).
 *
 * The check travels ready to run (variables filled), so it is sealed in the row with the server's key and opened
 * only to be sent to the agent; it is never logged.
 */
import * as ApiError from "@signalman/core/ApiError"
import { CheckResult } from "@signalman/core/CheckResult"
import { type CheckKind, CheckSpec } from "@signalman/core/CheckSpec"
import type { OrgId } from "@signalman/core/Identity"
import * as Region from "@signalman/core/Region"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { AppConfig } from "../config/Config.js"
import { Sealer } from "../crypto/Sealer.js"
import { uuidv7 } from "../infra/Ids.js"
import * as Budget from "./Budget.js"
import { OneOffsRepo, type Standing } from "./Repo.js"
import { Wakeups } from "./Wakeups.js"

/** A one-off run asked for. */
export interface Ask {
  readonly orgId: OrgId
  /** Who asked (the user's id). */
  readonly requestedBy: string
  /** A region other than `local`, where {@link refusal} found nothing against it. */
  readonly region: string
  /** Ready to run: the org's variables filled, the address rules applied. */
  readonly spec: CheckSpec
  /** Check-now: the monitor whose result the answer is stored as. A test's answer is not stored. */
  readonly targetId: string | null
  /** Where the region came from in the request (`region`, `regions`), named by the errors. */
  readonly field: string
}

/**
 * Why a one-off check of `kind` cannot run in `region` now, if it cannot: an unknown or disabled region, or a remote
 * one with no agent connected (as the operator's `connected` reads it), is 422 `REGION_INVALID`; a flow where no
 * connected agent of the region has a browser (in `local`: this process has none, `localFlows`) is 422
 * `NO_FLOW_CAPABLE_AGENT`. A flow needs a connected agent with a browser, not only the region's computed capability:
 * an agent that is not connected could not take the run.
 */
export const refusal = (
  region: string,
  standing: Standing | undefined,
  kind: CheckKind,
  localFlows: boolean,
  field: string
): Option.Option<ApiError.ErrorOf<422>> => {
  if (standing === undefined) return Option.some(ApiError.make("REGION_INVALID", `No region ${region}`, { field }))
  if (!standing.enabled) {
    return Option.some(ApiError.make("REGION_INVALID", `Region ${region} is disabled`, { field }))
  }
  const noBrowser = (message: string) =>
    Option.some(ApiError.make("NO_FLOW_CAPABLE_AGENT", message, { field, details: { regions: [region] } }))
  if (region === Region.LOCAL) {
    return kind === "flow" && !localFlows
      ? noBrowser("The service has no browser to run a flow in region local")
      : Option.none()
  }
  if (!standing.connected) {
    return Option.some(
      ApiError.make("REGION_INVALID", `Region ${region} has no agent connected to run a check now`, { field })
    )
  }
  if (kind === "flow" && !standing.flow_connected) {
    return noBrowser(`No agent connected in region ${region} has a browser to run a flow`)
  }
  return Option.none()
}

const encodeCheck = Schema.encodeSync(CheckSpec)
const decodeResult = Schema.decodeUnknown(CheckResult)

export class OneOffs extends Effect.Service<OneOffs>()("Signalman/OneOffs", {
  effect: Effect.gen(function* () {
    const repo = yield* OneOffsRepo
    const sealer = yield* Sealer
    const wakeups = yield* Wakeups
    const config = yield* AppConfig
    const graceMs = config["agents.one_off_grace_ms"]
    const pollMs = config["agents.one_off_poll_ms"]

    /** Where these regions stand, by id (unknown ones are absent). */
    const standings = (regions: ReadonlyArray<string>) =>
      Effect.map(repo.standing([...new Set(regions)]), (rows) => new Map(rows.map((row) => [row.id, row])))

    const timedOut = (ask: Ask, waitedMs: number) =>
      ApiError.make(
        "NOT_READY",
        `No agent of region ${ask.region} answered within ${Math.round(waitedMs / 1000)} s (the check's timeout ` +
          "and a margin); try again",
        { field: ask.field, details: { region: ask.region, waited_ms: waitedMs } }
      )

    const gone = ApiError.make("NOT_FOUND", "The monitor was deleted while it was checked")

    // Reads the run until it is answered or its deadline passes; at the deadline the run is closed, unless an
    // answer came first (then it is read).
    const answerOf = (
      ask: Ask,
      id: string,
      started: number,
      deadline: number,
      next: (ms: number) => Effect.Effect<void>
    ) =>
      Effect.gen(function* () {
        for (;;) {
          const row = yield* repo.answer(id)
          if (row === undefined) return yield* Effect.fail(gone)
          if (row.answered) {
            if (row.result === null) return yield* Effect.fail(timedOut(ask, Date.now() - started))
            return yield* Effect.orDie(decodeResult(row.result))
          }
          const left = deadline - Date.now()
          if (left <= 0) {
            if (yield* repo.close(id)) return yield* Effect.fail(timedOut(ask, Date.now() - started))
            continue
          }
          yield* next(Math.min(pollMs, left))
        }
      })

    /** Runs the check once on an agent of the region and answers its result, with the region's name. */
    const run = (ask: Ask): Effect.Effect<CheckResult, ApiError.ErrorOf<404> | ApiError.ErrorOf<503>> =>
      Effect.scoped(
        Effect.gen(function* () {
          const id = uuidv7()
          const started = Date.now()
          const times = Budget.times(ask.spec, graceMs, started)
          const watch = yield* wakeups.watch(id)
          yield* Effect.addFinalizer(() =>
            repo
              .remove(id)
              .pipe(Effect.catchAllCause((cause) => Effect.logWarning("A one-off run could not be removed", cause)))
          )
          yield* repo.insert({
            id,
            region: ask.region,
            kind: ask.spec.type,
            org_id: ask.orgId,
            target_id: ask.targetId,
            requested_by: ask.requestedBy,
            check_sealed: sealer.seal(JSON.stringify(encodeCheck(ask.spec))),
            start_by: new Date(times.startBy).toISOString(),
            deadline: new Date(times.deadline).toISOString()
          })
          yield* wakeups.runAsked
          return yield* answerOf(ask, id, started, times.deadline, watch.next)
        })
      )

    return { standings, run }
  }),
  dependencies: [OneOffsRepo.Default, Sealer.Default, Wakeups.Default]
}) {}
