/**
 * Who an `sm_agent_` token names. Agents are stored by the token's prefix and its argon2id hash (`operator/`), and
 * argon2 is slow on purpose, too slow for every delivery of results: a token once verified is remembered in memory
 * (under its SHA-256, never the token itself), trusted as it is for `agents.recheck_ms`, and then looked up again by
 * the agent's id alone (one indexed read, which also stamps `last_seen_at`), so a revoked agent is refused within
 * that time without hashing again. Opening a stream always reads the agent's standing (`authenticateNow`): a stream
 * lives long, and one opened by a revoked agent would only be closed again a recheck later. Every refusal is 401 `UNAUTHENTICATED` with a message that says which it is
 * (missing, not an agent token, unknown, revoked, agent gone): the agent prints it and exits.
 */
import * as Argon2 from "@node-rs/argon2"
import * as ApiError from "@signalman/core/ApiError"
import type { AuthenticatedAgent } from "@signalman/core/api/Agent"
import * as Effect from "effect/Effect"
import { AppConfig } from "../config/Config.js"
import { sha256Key } from "../infra/Secrets.js"
import { TtlCache } from "../infra/TtlCache.js"
import { AGENT_PREFIX, storedPrefix } from "../operator/Operator.js"
import { AgentsRepo, type Standing } from "./Repo.js"

/** An agent's token as minted: the prefix and 256 random bits, base64url. */
const TOKEN = new RegExp(`^${AGENT_PREFIX}[A-Za-z0-9_-]{43}$`)

/** How long a verified token is known (its recheck skips argon2) before it is hashed again. */
const KNOWN_MS = 10 * 60_000

// A new error per refusal: a failure's value is the request's own (its trace is stamped on it).
const refused = (message: string) => () => ApiError.make("UNAUTHENTICATED", message)

/**
 * The texts of the refusals an agent may meet while connected: the same words whether it learns of them from a
 * 401 or from its stream's 4401 close (`Stream`), so its one line does not depend on which came first. Each fits a
 * close frame's reason (at most 123 bytes).
 */
export const refusalTexts = {
  revoked: "This agent token was revoked by the operator; mint a new one",
  gone: "This agent no longer exists: its region was deleted; mint a token for an agent of another region"
} as const

/** The refusals, one per reason, so the agent's one line says what to do. */
export const refusals = {
  missing: refused(`No agent token: send Authorization: Bearer ${AGENT_PREFIX}...`),
  malformed: refused(
    `This is not an agent token: agent tokens start ${AGENT_PREFIX} (minted by POST /operator/agents)`
  ),
  unknown: refused(
    "Unknown agent token: this service never minted it, or its agent was removed with its region; mint a new one"
  ),
  revoked: refused(refusalTexts.revoked),
  gone: refused(refusalTexts.gone)
} as const

/** The bearer token of an `Authorization` header, if it has one. */
export const bearer = (header: string | undefined): string | undefined => /^Bearer\s+(\S+)\s*$/i.exec(header ?? "")?.[1]

const toAgent = (row: Standing): AuthenticatedAgent => ({
  id: row.id,
  name: row.name,
  region: row.region_id,
  flows: row.flows
})

export class AgentTokens extends Effect.Service<AgentTokens>()("Signalman/AgentTokens", {
  effect: Effect.gen(function* () {
    const repo = yield* AgentsRepo
    const recheckMs = (yield* AppConfig)["agents.recheck_ms"]
    // Both keyed by the token's SHA-256: trusted as is, and known to be this agent's (so no argon2 on recheck).
    const fresh = new TtlCache<AuthenticatedAgent>(recheckMs, 10_000)
    const known = new TtlCache<string>(KNOWN_MS, 10_000)

    /** The agent's standing now, as a refusal when it may not act. */
    const standing = (id: string) =>
      Effect.flatMap(repo.standing(id), (row) =>
        row === undefined
          ? Effect.fail(refusals.gone())
          : row.revoked
            ? Effect.fail(refusals.revoked())
            : Effect.succeed(toAgent(row))
      )

    // The slow path: the rows under the token's prefix, each hash tried (normally there is one row).
    const verify = (token: string) =>
      Effect.gen(function* () {
        for (const candidate of yield* repo.candidates(storedPrefix(token))) {
          const matches = yield* Effect.promise(() => Argon2.verify(candidate.hash, token).catch(() => false))
          if (!matches) continue
          if (candidate.revoked) return yield* Effect.fail(refusals.revoked())
          return candidate.id
        }
        return yield* Effect.fail(refusals.unknown())
      })

    // The agent the header's token names; `trustFresh` takes a standing read within agents.recheck_ms as still true.
    const lookup = (
      header: string | undefined,
      trustFresh: boolean
    ): Effect.Effect<AuthenticatedAgent, ApiError.ErrorOf<401>> =>
      Effect.gen(function* () {
        const token = bearer(header)
        if (token === undefined) return yield* Effect.fail(refusals.missing())
        if (!TOKEN.test(token)) return yield* Effect.fail(refusals.malformed())
        const key = sha256Key(token)
        const cached = trustFresh ? fresh.get(key) : undefined
        if (cached !== undefined) return cached
        const id = known.get(key) ?? (yield* verify(token))
        const agent = yield* standing(id).pipe(Effect.tapError(() => Effect.sync(() => known.invalidate(key))))
        known.set(key, id, [key])
        fresh.set(key, agent, [])
        return agent
      })

    return {
      /** The agent the `Authorization` header's token names, or the 401 that says why not. */
      authenticate: (header: string | undefined) => lookup(header, true),
      /** The same, with the agent's standing read now whatever was read lately. */
      authenticateNow: (header: string | undefined) => lookup(header, false)
    }
  }),
  dependencies: [AgentsRepo.Default]
}) {}
