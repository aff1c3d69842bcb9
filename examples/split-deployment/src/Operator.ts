/**
 * Registering the probe agents the way an operator does (docs/agents.md): through the operator surface
 * (`/operator/*`, bearer `operator.admin_token`) of the running service, reached through the balancer. The region
 * is created when missing; each agent keeps the token minted for it at an earlier start (kept in `secrets.json`)
 * while the service still knows the agent, and gets a new one otherwise (an agent whose token was lost is
 * deleted first, so the fleet holds no orphan).
 */
import { Agent, CreatedAgent, OperatorRegion } from "@signalman/core/api/Operator"
import * as Schema from "effect/Schema"
import { AGENTS, REGION } from "./Layout.js"
import type { AgentToken } from "./Secrets.js"

const Regions = Schema.Struct({ data: Schema.Array(OperatorRegion) })
const Agents = Schema.Struct({ data: Schema.Array(Agent) })

const call = async <A, I>(
  base: string,
  adminToken: string,
  method: "GET" | "POST" | "DELETE",
  path: string,
  expect: number,
  schema: Schema.Schema<A, I> | undefined,
  json?: unknown
): Promise<A | undefined> => {
  const response = await fetch(`${base}/operator${path}`, {
    method,
    headers: {
      authorization: `Bearer ${adminToken}`,
      ...(json === undefined ? {} : { "content-type": "application/json" })
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    signal: AbortSignal.timeout(15_000)
  })
  const text = await response.text()
  if (response.status !== expect) {
    throw new Error(`${method} /operator${path} answered ${response.status}, expected ${expect}: ${text.slice(0, 500)}`)
  }
  return schema === undefined ? undefined : Schema.decodeUnknownSync(Schema.parseJson(schema))(text)
}

/** The region and one agent token per agent of `AGENTS`, reusing `known` tokens the service still accepts. */
export const register = async (
  base: string,
  adminToken: string,
  known: ReadonlyArray<AgentToken>
): Promise<ReadonlyArray<AgentToken>> => {
  const regions = await call(base, adminToken, "GET", "/regions", 200, Regions)
  if (!regions?.data.some((region) => region.id === REGION.id)) {
    await call(base, adminToken, "POST", "/regions", 201, OperatorRegion, { id: REGION.id, name: REGION.name })
  }
  const agents = (await call(base, adminToken, "GET", "/agents", 200, Agents))?.data ?? []
  const tokens: Array<AgentToken> = []
  for (const name of AGENTS) {
    const kept = known.find((k) => k.name === name && agents.some((a) => a.id === k.id && a.region_id === REGION.id))
    if (kept !== undefined) {
      tokens.push(kept)
      continue
    }
    for (const orphan of agents.filter((a) => a.name === name && a.region_id === REGION.id)) {
      await call(base, adminToken, "DELETE", `/agents/${orphan.id}`, 204, undefined)
    }
    const created = await call(base, adminToken, "POST", "/agents", 201, CreatedAgent, { region_id: REGION.id, name })
    if (created === undefined) throw new Error("POST /operator/agents answered no agent")
    tokens.push({ id: created.id, name, token: created.token })
  }
  return tokens
}
