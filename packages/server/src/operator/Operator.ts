/**
 * What operators do: curate probe regions, mint and revoke agents' `sm_agent_` tokens, and move accounts between
 * plans or raise their limits. A plan change takes effect in this process at once (its cached plan is dropped) and
 * in others within `plan_cache_ttl_secs`, as the spec allows.
 */
import * as Argon2 from "@node-rs/argon2"
import * as ApiError from "@signalman/core/ApiError"
import type { CreateAgent, CreateRegion, UpdateRegion } from "@signalman/core/api/Operator"
import type { AccountId } from "@signalman/core/Identity"
import type * as Plan from "@signalman/core/Plan"
import * as Region from "@signalman/core/Region"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { uuidv7 } from "../infra/Ids.js"
import { randomSecret } from "../infra/Secrets.js"
import { Plans } from "../limits/Plans.js"
import { OperatorRepo } from "./Repo.js"

/** The prefix of a probe agent's token; what follows is 256 random bits. */
export const AGENT_PREFIX = "sm_agent_"

/** How much of an agent's token is stored in the clear to find its row (the prefix and 8 characters). */
const STORED_PREFIX_LENGTH = 17

/** The part of an agent's token stored in the clear, which finds its row; the rest is checked against the hash. */
export const storedPrefix = (token: string): string => token.slice(0, STORED_PREFIX_LENGTH)

export class Operator extends Effect.Service<Operator>()("Signalman/Operator", {
  effect: Effect.gen(function* () {
    const repo = yield* OperatorRepo
    const plans = yield* Plans

    const region = (id: string) =>
      Effect.flatMap(repo.regions(id), (rows) =>
        rows[0] === undefined ? Effect.fail(ApiError.make("NOT_FOUND", `No region ${id}`)) : Effect.succeed(rows[0])
      )

    const account = (id: AccountId) =>
      Effect.flatMap(repo.accounts({ _tag: "Id", id }), (rows) =>
        rows[0] === undefined ? Effect.fail(ApiError.make("NOT_FOUND", "No such account")) : Effect.succeed(rows[0])
      )

    return {
      regions: repo.regions(),
      createRegion: (payload: typeof CreateRegion.Type) =>
        Effect.gen(function* () {
          const inserted = yield* repo.insertRegion({
            id: payload.id,
            name: payload.name,
            city: payload.city ?? null,
            country_code: payload.country_code ?? null,
            continent: payload.continent ?? null,
            latitude: payload.latitude ?? null,
            longitude: payload.longitude ?? null,
            enabled: payload.enabled ?? true
          })
          if (!inserted) {
            return yield* Effect.fail(ApiError.make("SLUG_TAKEN", `A region ${payload.id} exists`, { field: "id" }))
          }
          return yield* region(payload.id)
        }),
      updateRegion: (id: string, payload: typeof UpdateRegion.Type) =>
        Effect.gen(function* () {
          const { agents: _agents, flow_capable: _computed, ...current } = yield* region(id)
          yield* repo.updateRegion({ ...current, ...payload })
          return yield* region(id)
        }),
      deleteRegion: (id: string) =>
        Effect.gen(function* () {
          const current = yield* region(id)
          const refusal = Region.deletionRefusal(current)
          if (Option.isSome(refusal)) return yield* Effect.fail(refusal.value)
          yield* repo.deleteRegion(current.id)
        }),
      agents: repo.liveAgents,
      createAgent: (payload: typeof CreateAgent.Type) =>
        Effect.gen(function* () {
          yield* region(payload.region_id).pipe(
            Effect.mapError(() =>
              ApiError.make("REGION_INVALID", `No region ${payload.region_id}`, { field: "region_id" })
            )
          )
          const refusal = Region.agentRefusal(payload.region_id)
          if (Option.isSome(refusal)) return yield* Effect.fail(refusal.value)
          const token = `${AGENT_PREFIX}${randomSecret(32)}`
          const hash = yield* Effect.promise(() => Argon2.hash(token))
          const agent = yield* repo.insertAgent({
            id: uuidv7(),
            region_id: payload.region_id,
            name: payload.name,
            prefix: storedPrefix(token),
            hash
          })
          return { agent, token }
        }),
      revokeAgent: (id: string) =>
        Effect.flatMap(repo.revokeAgent(id), (revoked) =>
          revoked ? Effect.void : Effect.fail(ApiError.make("NOT_FOUND", "No such agent"))
        ),
      findAccounts: (email: string) => repo.accounts({ _tag: "Email", email: email.trim().toLowerCase() }),
      setPlan: (id: AccountId, planId: Plan.PlanId) =>
        Effect.gen(function* () {
          yield* account(id)
          yield* repo.setPlan(id, planId)
          yield* plans.invalidate(id)
          return yield* account(id)
        }),
      setOverrides: (id: AccountId, overrides: Plan.Overrides) =>
        Effect.gen(function* () {
          yield* account(id)
          yield* repo.setOverrides(id, overrides)
          yield* plans.invalidate(id)
          return yield* account(id)
        })
    }
  }),
  dependencies: [OperatorRepo.Default]
}) {}
