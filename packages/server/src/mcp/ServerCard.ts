/**
 * The MCP server card (SEP-1649, `/.well-known/mcp/server-card.json`): what a client can learn before connecting:
 * who the server is, where its Streamable HTTP endpoint is, the protocol version, that it takes a bearer token, and
 * its tools (every tool; a token sees those its scopes allow, each tool's `_meta` names the scope).
 *
 * The card is served on the MCP host (`mcp.origin`, else the service's own origin). When `mcp.origin` names another
 * origin, this service's own card path redirects there (308), so the marketing host's link leads to it.
 */
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js"
import * as Protocol from "./Protocol.js"
import * as Tools from "./Tools.js"

export const PATH = "/.well-known/mcp/server-card.json"

/** Where MCP clients post, relative to the MCP host. */
export const ENDPOINT = "/mcp"

/** The documentation page of the MCP server. */
export const DOCS_PATH = "/docs/mcp"

/** The card of the MCP server; its documentation is served on the service's own origin `service`, as `/docs` is. */
export const card = (service: string, tools: ReadonlyArray<Tools.Scoped>) => ({
  version: "1.0",
  protocolVersion: LATEST_PROTOCOL_VERSION,
  serverInfo: Protocol.serverInfo,
  description: "Monitors, their results, uptime and latency, incidents and status pages of a Signalman org",
  documentationUrl: `${service}${DOCS_PATH}`,
  transport: { type: "streamable-http", endpoint: ENDPOINT },
  capabilities: { tools: { listChanged: false } },
  authentication: { required: true, schemes: ["bearer"] },
  instructions: Protocol.instructions,
  tools: tools.map(Tools.descriptor)
})

/**
 * Whether a request for the card, which reached this service at `host`, is answered here (undefined) or redirected
 * to the MCP host's card (its URL). Compared by host, as the request does not say its scheme behind a proxy.
 */
export const redirectFor = (host: string | undefined, mcpOrigin: string | undefined): string | undefined => {
  if (mcpOrigin === undefined) return undefined
  const target = new URL(mcpOrigin)
  return host !== undefined && host.toLowerCase() === target.host.toLowerCase() ? undefined : `${target.origin}${PATH}`
}
