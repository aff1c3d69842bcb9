/**
 * The MCP server's tools, each with the scope its REST endpoint declares in the contract (`RequiredScope`), read
 * once at startup: a tool has no rule of its own about who may call it. A caller sees the tools its token's scopes
 * allow (a session holds every scope), so a read-only token is shown no write tool.
 */
import type * as ApiError from "@signalman/core/ApiError"
import { SignalmanApi } from "@signalman/core/api/Api"
import type { CallerShape } from "@signalman/core/api/Authentication"
import type * as Scope from "@signalman/core/Scope"
import type * as Effect from "effect/Effect"
import { hasScope, insufficientScope } from "../auth/Policy.js"
import * as RouteRequirements from "../auth/RouteRequirements.js"
import * as IncidentTools from "./IncidentTools.js"
import * as MonitorTools from "./MonitorTools.js"
import * as StatusPageTools from "./StatusPageTools.js"
import * as Tool from "./Tool.js"

/** Every tool, reads first, in the order `tools/list` shows them. */
const all = [
  MonitorTools.listMonitors,
  MonitorTools.monitorStatus,
  MonitorTools.monitorResults,
  MonitorTools.monitorUptime,
  MonitorTools.monitorLatency,
  IncidentTools.openIncidents,
  IncidentTools.incident,
  StatusPageTools.statusPages,
  MonitorTools.pauseMonitor,
  MonitorTools.resumeMonitor,
  MonitorTools.runCheckNow,
  IncidentTools.acknowledgeIncident,
  IncidentTools.postIncidentUpdate
]

/** What the tools together ask of the request's context. */
export type Services = Effect.Effect.Context<ReturnType<(typeof all)[number]["call"]>>

/** A tool with the scope a caller needs to see and call it. */
export interface Scoped extends Tool.Tool<Services> {
  readonly scope: Scope.Scope
}

/** The tools with their scopes; a tool whose endpoint declares no scope is a mistake, found at startup. */
export const catalogue = (): ReadonlyArray<Scoped> => {
  const requirements = RouteRequirements.fromApi(SignalmanApi)
  return all.map((tool): Scoped => {
    const requirement = requirements.of(tool.endpoint.method, tool.endpoint.path)
    if (requirement?._tag !== "Scope") {
      throw new Error(`${tool.name}: ${tool.endpoint.method} ${tool.endpoint.path} declares no scope`)
    }
    return { ...tool, scope: requirement.scope }
  })
}

/** The tools a caller may see and call. */
export const visibleTo = (tools: ReadonlyArray<Scoped>, caller: CallerShape): ReadonlyArray<Scoped> =>
  tools.filter((tool) => hasScope(caller.credential, tool.scope))

/** Why a caller may not call a tool, as the REST endpoint would refuse it; undefined when it may. */
export const refusalFor = (tool: Scoped, caller: CallerShape): ApiError.ApiError | undefined =>
  hasScope(caller.credential, tool.scope) ? undefined : insufficientScope(tool.scope)

/** Calls a tool for a caller, refused before anything runs when its scopes do not allow it. */
export const call = (
  tool: Scoped,
  caller: CallerShape,
  args: unknown
): Effect.Effect<Tool.Outcome, never, Services> => {
  const refused = refusalFor(tool, caller)
  return refused === undefined ? tool.call(args) : Tool.refusal(refused)
}

/** A tool as `tools/list` and the server card describe it. */
export const descriptor = (tool: Scoped) => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: tool.inputSchema,
  annotations: {
    title: tool.title,
    readOnlyHint: !tool.writes,
    destructiveHint: false,
    openWorldHint: false
  },
  _meta: { "signalman/scope": tool.scope }
})
