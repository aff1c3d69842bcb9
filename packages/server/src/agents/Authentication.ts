/**
 * The agent surface's guard (`/api/agent/v1/*`): the bearer `sm_agent_` token names the `CurrentAgent`, or the
 * request is 401 `UNAUTHENTICATED` saying why (`AgentTokens`). API tokens and sessions mean nothing here, as an agent
 * token means nothing on `/api/v1`.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { AgentAuthentication } from "@signalman/core/api/Agent"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AgentTokens } from "./Tokens.js"

export const layer = Layer.effect(
  AgentAuthentication,
  Effect.map(AgentTokens, (tokens) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      tokens.authenticate(request.headers["authorization"])
    )
  )
)
