/**
 * Handing one-off runs (`one_off_runs`, written by the requests waiting on them, in any API process) to the agents
 * whose streams this process holds. A pass claims the waiting runs of the regions of those streams, oldest first,
 * each for one agent (`FOR UPDATE SKIP LOCKED`, so two processes or two passes never hand one run out twice), opens
 * each run's sealed check and pushes the checks on the agent's stream in one `one_off` message. The agent a region's
 * runs go to turns over from pass to pass, so a region's agents share them; a flow goes only to an agent that
 * reported a browser. A run that could not be sent (the stream closed, or is draining, or its agent does not read
 * its answers) is released for the next pass or another process.
 *
 * Passes run when a request of this process asks for a run (`Wakeups`) and every `agents.one_off_poll_ms`, for the
 * runs asked of other processes; a process with no open stream reads nothing.
 */
import { OneOffJob, type ServerMessage } from "@signalman/core/api/Agent"
import { CheckSpec } from "@signalman/core/CheckSpec"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { Sealer } from "../crypto/Sealer.js"
import { type Assignment, type Claimed, OneOffsRepo } from "../oneoffs/Repo.js"

/** The most runs one pass claims; more wait for the next pass, which follows at once. */
export const MAX_PER_PASS = 100

/** An open stream, as a pass sees it. */
export interface Outlet {
  readonly agentId: string
  readonly region: string
  /** The agent reported a browser: it can take flows. */
  readonly browser: boolean
  /** Sends a message on the stream; false when it cannot take one now (closed, draining, not reading). */
  readonly send: (message: ServerMessage) => Effect.Effect<boolean>
}

/** For each region of the outlets, the agent its runs go to on pass `turn`, and the one for its flows. */
export const assignments = (outlets: ReadonlyArray<Outlet>, turn: number): ReadonlyArray<Assignment> => {
  const byRegion = new Map<string, Array<Outlet>>()
  for (const outlet of outlets) {
    const list = byRegion.get(outlet.region) ?? []
    if (!list.some((o) => o.agentId === outlet.agentId)) list.push(outlet)
    byRegion.set(outlet.region, list)
  }
  return [...byRegion].map(([region, list]) => {
    const flows = list.filter((o) => o.browser)
    return {
      region,
      agent_id: list[turn % list.length]!.agentId,
      flow_agent_id: flows.length === 0 ? null : flows[turn % flows.length]!.agentId
    }
  })
}

const decodeCheck = Schema.decodeUnknownEither(CheckSpec)

export class OneOffDispatch extends Effect.Service<OneOffDispatch>()("Signalman/AgentOneOffDispatch", {
  effect: Effect.gen(function* () {
    const repo = yield* OneOffsRepo
    const sealer = yield* Sealer
    let turn = 0

    // The job for a claimed run, or none when its sealed check cannot be read back (a defect: the server sealed it
    // moments ago); such a run is closed, so its request stops waiting now.
    const jobOf = (run: Claimed) =>
      Effect.gen(function* () {
        const opened = yield* Effect.either(sealer.open(run.check_sealed))
        const check = Either.flatMap(opened, (text) => {
          try {
            return Either.mapLeft(decodeCheck(JSON.parse(text)), () => "the check does not decode")
          } catch {
            return Either.left("the check is not JSON")
          }
        })
        if (Either.isLeft(check)) {
          yield* Effect.logError("A one-off run's check could not be read back; the run is closed").pipe(
            Effect.annotateLogs({ run_id: run.id })
          )
          yield* repo.close(run.id)
          return undefined
        }
        return new OneOffJob({
          id: run.id,
          org_id: run.org_id,
          deadline_ms: run.start_by.getTime(),
          check: check.right
        })
      })

    /** One pass over this process's open streams; answers how many runs it claimed. */
    const pass = (outlets: ReadonlyArray<Outlet>): Effect.Effect<number> =>
      Effect.gen(function* () {
        if (outlets.length === 0) return 0
        turn = (turn + 1) % 1_000_000
        const claimed = yield* repo.claim(assignments(outlets, turn), MAX_PER_PASS)
        const byAgent = new Map<string, Array<Claimed>>()
        for (const run of claimed) byAgent.set(run.agent_id, [...(byAgent.get(run.agent_id) ?? []), run])
        for (const [agentId, runs] of byAgent) {
          const jobs: Array<OneOffJob> = []
          for (const run of runs) {
            const job = yield* jobOf(run)
            if (job !== undefined) jobs.push(job)
          }
          if (jobs.length === 0) continue
          let sent = false
          for (const outlet of outlets) {
            if (outlet.agentId !== agentId) continue
            sent = yield* outlet.send({ _tag: "one_off", jobs })
            if (sent) break
          }
          if (!sent) yield* repo.release(jobs.map((job) => job.id))
        }
        return claimed.length
      }).pipe(
        Effect.catchAllCause((cause) =>
          Effect.as(Effect.logWarning("Handing one-off runs to agents failed", Cause.squash(cause)), 0)
        )
      )

    /** Passes until one claims less than a full pass. */
    const drain = (outlets: () => ReadonlyArray<Outlet>): Effect.Effect<void> =>
      Effect.suspend(() => Effect.flatMap(pass(outlets()), (n) => (n >= MAX_PER_PASS ? drain(outlets) : Effect.void)))

    return { pass, drain }
  }),
  dependencies: [OneOffsRepo.Default, Sealer.Default]
}) {}
