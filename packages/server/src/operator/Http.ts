/**
 * The operator surface's handlers (`/operator/*`): regions, agents and account plans, each a call to `Operator`.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { SignalmanApi } from "@signalman/core/api/Api"
import { CreatedAgent } from "@signalman/core/api/Operator"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Plans } from "../limits/Plans.js"
import * as Authentication from "./Authentication.js"
import { Operator } from "./Operator.js"

export const layer = HttpApiBuilder.group(SignalmanApi, "operator", (handlers) =>
  Effect.map(Operator, (operator) =>
    handlers
      .handle("listRegions", () => Effect.map(operator.regions, (data) => ({ data })))
      .handle("createRegion", ({ payload }) => operator.createRegion(payload))
      .handle("updateRegion", ({ path, payload }) => operator.updateRegion(path.id, payload))
      .handle("deleteRegion", ({ path }) => operator.deleteRegion(path.id))
      .handle("listAgents", () => Effect.map(operator.agents, (data) => ({ data })))
      .handle("createAgent", ({ payload }) =>
        Effect.map(operator.createAgent(payload), ({ agent, token }) => new CreatedAgent({ ...agent, token }))
      )
      .handle("deleteAgent", ({ path }) => operator.revokeAgent(path.id))
      .handle("findAccounts", ({ urlParams }) =>
        Effect.map(operator.findAccounts(urlParams.email), (data) => ({ data }))
      )
      .handle("setPlan", ({ path, payload }) => operator.setPlan(path.id, payload.plan_id))
      .handle("setOverrides", ({ path, payload }) => operator.setOverrides(path.id, payload))
  )
).pipe(
  Layer.provide([Operator.Default, Authentication.layer]),
  // The plans' cache the rest of the process reads, so a plan set here takes effect at once.
  Layer.provide(Plans.Default)
)
