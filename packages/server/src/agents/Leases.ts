/**
 * Handing a region's due checks to its agents, through the scheduler's own claim (`engine/ClaimsRepo`): the rows of
 * the agent's region due within `agents.lookahead_ms`, oldest first, that no live lease holds, taken with
 * `FOR UPDATE SKIP LOCKED`, so any number of agents (and API processes serving them) share a region with no slot
 * handed out twice. The lease is the agent's, not its connection's (`agent:<id>`), so a job leased before a
 * reconnect is still the agent's to deliver, and it ends `agents.lease_secs` past the job's due time: a job not
 * started by then may go to a sibling (the job's `deadline_ms` says so to the agent).
 *
 * Each claimed row is made ready here as for the local region (`StoredChecks.prepare`: the sealed check opened, the
 * org's variables filled, the address rules applied), so an agent never sees a stored check or a variable it could
 * not use; a run that cannot be made ready is handed out with its `error` instead, and the agent reports that error
 * at the due time, as the local scheduler does.
 */

import type { AuthenticatedAgent } from "@signalman/core/api/Agent"
import { Job } from "@signalman/core/api/Agent"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { AppConfig } from "../config/Config.js"
import { type Claimed, EngineClaimsRepo } from "../engine/ClaimsRepo.js"
import * as Slots from "../engine/Slots.js"
import { StoredChecks } from "../engine/StoredChecks.js"
import { Agents } from "./Agents.js"

/** The lease holder's name for an agent: the same over reconnects, so only the agent's own release applies. */
export const leaseToken = (agentId: string): string => `agent:${agentId}`

export class Leases extends Effect.Service<Leases>()("Signalman/AgentLeases", {
  effect: Effect.gen(function* () {
    const claims = yield* EngineClaimsRepo
    const checks = yield* StoredChecks
    const { figures } = yield* Agents
    // Preparing a run may read its org's variables (one query): more at once than the pool has would only queue.
    const preparing = (yield* AppConfig)["database.max_connections"]

    // A row whose stored check cannot be read is a defect: logged, and its slot moved on without a run, as the
    // local scheduler does, so one broken monitor does not hold the region's queue.
    const prepare = (agent: AuthenticatedAgent, claimed: Claimed) =>
      checks
        .prepare({
          id: claimed.target_id,
          orgId: claimed.org_id,
          checkSpec: claimed.check_spec,
          credentials: claimed.credentials
        })
        .pipe(
          Effect.map(
            (ready): Option.Option<Job> =>
              Option.some(
                new Job({
                  target_id: claimed.target_id,
                  org_id: claimed.org_id,
                  due: claimed.due_text,
                  due_ms: claimed.due.getTime(),
                  deadline_ms: claimed.leased_until.getTime(),
                  interval_secs: claimed.interval_secs,
                  check: Either.getOrNull(ready),
                  error: Either.isLeft(ready) ? ready.left : null
                })
              )
          ),
          Effect.catchAllCause((cause) =>
            Effect.logError("An agent's job could not be prepared; its slot moves on", Cause.squash(cause)).pipe(
              Effect.annotateLogs({ target_id: claimed.target_id, agent_id: agent.id }),
              Effect.zipRight(
                claims.release(
                  [
                    {
                      target_id: claimed.target_id,
                      region: claimed.region,
                      due: claimed.due_text,
                      next: new Date(
                        Slots.nextRunMs(claimed.due.getTime(), claimed.interval_secs, Date.now())
                      ).toISOString(),
                      interval_secs: claimed.interval_secs,
                      status: null
                    }
                  ],
                  leaseToken(agent.id)
                )
              ),
              Effect.as(Option.none<Job>())
            )
          )
        )

    /** Leases up to `room` due jobs of the agent's region to it, each ready to run. */
    const lease = (agent: AuthenticatedAgent, room: number): Effect.Effect<ReadonlyArray<Job>> =>
      Effect.gen(function* () {
        if (room <= 0) return []
        const claimed = yield* claims.claim({
          region: agent.region,
          // An agent without a browser never takes a flow: a sibling with one does (docs/agent-protocol.md).
          without_flows: !agent.flows,
          lookahead_secs: figures.lookaheadMs / 1000,
          limit: room,
          lease_secs: figures.leaseSecs,
          token: leaseToken(agent.id)
        })
        const jobs = yield* Effect.forEach(claimed, (row) => prepare(agent, row), { concurrency: preparing })
        return jobs.flatMap(Option.toArray)
      })

    return { lease }
  }),
  dependencies: [EngineClaimsRepo.Default, Agents.Default]
}) {}
