/**
 * One MCP exchange, stateless: a fresh SDK `Server` and Streamable HTTP transport per request (no session ids),
 * answering JSON rather than an event stream, as the SDK's stateless example does. The SDK speaks the protocol
 * (initialize, ping, tools/list, tools/call, notifications, JSON-RPC errors); the tools and the caller are ours.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError
} from "@modelcontextprotocol/sdk/types.js"
import type { CallerShape } from "@signalman/core/api/Authentication"
import type * as Effect from "effect/Effect"
import { version } from "../config/Version.js"
import type * as Tool from "./Tool.js"
import * as Tools from "./Tools.js"

/** How the server names itself in `initialize` and on its server card. */
export const serverInfo = { name: "signalman", title: "Signalman", version } as const

/** What the model is told about the server at `initialize`. */
export const instructions =
  "Signalman monitors websites and services. Use list_monitors to find a monitor's id, then read its status, " +
  "results, uptime and latency; list_open_incidents and get_incident for what is wrong now. Write tools appear " +
  "only when the API token's scopes allow them. Errors carry the API's error code (error.code) and the field."

export interface Exchange {
  readonly tools: ReadonlyArray<Tools.Scoped>
  readonly caller: CallerShape
  /** Runs a tool's effect in the request's context. */
  readonly run: (effect: Effect.Effect<Tool.Outcome, never, Tools.Services>) => Promise<Tool.Outcome>
  /** `server.max_body_bytes`: the transport reads the body itself. */
  readonly maxBodyBytes: number
}

const result = (outcome: Tool.Outcome): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(outcome.structured) }],
  structuredContent: outcome.structured,
  isError: outcome.isError
})

/** The answer to one HTTP request of the transport. */
export const answer = async (request: Request, exchange: Exchange): Promise<Response> => {
  const server = new Server(serverInfo, { capabilities: { tools: { listChanged: false } }, instructions })
  const visible = Tools.visibleTo(exchange.tools, exchange.caller)
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: visible.map(Tools.descriptor) }))
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    // Every tool is callable by name, so a write the token may not make is refused with the API's error rather
    // than reported as unknown; only a name that is no tool at all is a protocol error.
    const tool = exchange.tools.find((t) => t.name === params.name)
    if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}`)
    return result(await exchange.run(Tools.call(tool, exchange.caller, params.arguments)))
  })
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: exchange.maxBodyBytes
  })
  await server.connect(transport)
  try {
    return await transport.handleRequest(request)
  } finally {
    await server.close()
  }
}
