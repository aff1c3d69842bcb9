/**
 * An agent's hello: what it reports of itself (version, browser, concurrency) is stored for the operator's view
 * and for the region's browser capability, and the answer names the agent, its region and the figures the server
 * wants it to work by: the lease it gets on a job (`agents.lease_secs` past the job's due time), how often it should
 * pull when it has room (`agents.poll_interval_ms`) and how far ahead of their due time jobs are handed out
 * (`agents.lookahead_ms`). The same figures drive the leases the stream hands out (`Leases`).
 */
import type * as ApiError from "@signalman/core/ApiError"
import { type AuthenticatedAgent, type Hello, Welcome } from "@signalman/core/api/Agent"
import * as Effect from "effect/Effect"
import { AppConfig } from "../config/Config.js"
import { AgentsRepo } from "./Repo.js"
import { refusals } from "./Tokens.js"

/** This server's version, as agents are told (kept equal to the package's by test/AgentRules.test.ts). */
export const SERVER_VERSION = "0.1.0"

/** The figures an agent works by, from the settings. */
export interface Figures {
  readonly leaseSecs: number
  readonly pollMs: number
  readonly lookaheadMs: number
}

export class Agents extends Effect.Service<Agents>()("Signalman/Agents", {
  effect: Effect.gen(function* () {
    const repo = yield* AgentsRepo
    const config = yield* AppConfig
    const figures: Figures = {
      leaseSecs: config["agents.lease_secs"],
      pollMs: config["agents.poll_interval_ms"],
      lookaheadMs: config["agents.lookahead_ms"]
    }

    /** Stores what the agent reports and answers with its welcome; revoked meanwhile is 401 as at the door. */
    const hello = (agent: AuthenticatedAgent, reported: Hello): Effect.Effect<Welcome, ApiError.ErrorOf<401>> =>
      Effect.gen(function* () {
        const stored = yield* repo.report({
          id: agent.id,
          version: reported.version,
          browser: reported.browser,
          concurrency: reported.concurrency
        })
        if (!stored) return yield* Effect.fail(refusals.revoked())
        return new Welcome({
          agent_id: agent.id,
          name: agent.name,
          region: agent.region,
          server_version: SERVER_VERSION,
          lease_secs: figures.leaseSecs,
          poll_ms: figures.pollMs,
          lookahead_ms: figures.lookaheadMs
        })
      })

    return { figures, hello }
  }),
  dependencies: [AgentsRepo.Default]
}) {}
