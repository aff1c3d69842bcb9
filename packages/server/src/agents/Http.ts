/**
 * The agent surface's HTTP half (`/api/agent/v1/hello`, `/api/agent/v1/results`); the stream is `Stream.ts`. Served
 * by the processes that serve the API (roles `api` and `all`).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { CurrentAgent } from "@signalman/core/api/Agent"
import { SignalmanApi } from "@signalman/core/api/Api"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Agents } from "./Agents.js"
import * as Authentication from "./Authentication.js"
import { Ingest } from "./Ingest.js"
import { AgentTokens } from "./Tokens.js"

export const layer = HttpApiBuilder.group(SignalmanApi, "agent", (handlers) =>
  Effect.gen(function* () {
    const agents = yield* Agents
    const ingest = yield* Ingest
    return handlers
      .handle("hello", ({ payload }) => Effect.flatMap(CurrentAgent, (agent) => agents.hello(agent, payload)))
      .handle("results", ({ payload }) =>
        Effect.flatMap(CurrentAgent, (agent) =>
          Effect.map(ingest.ingest(agent, payload.results), (acknowledged) => ({ acknowledged }))
        )
      )
  })
).pipe(Layer.provide([Agents.Default, Ingest.Default, Authentication.layer]), Layer.provide(AgentTokens.Default))
