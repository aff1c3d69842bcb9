/**
 * The Markdown that stands for pages with no Markdown source of their own: the home page `/` (what Signalman is and
 * where to go) and `/docs` (whose HTML is the interactive API reference; its Markdown is the index of the API and of
 * every documentation page, generated from the pages present). Links are absolute, on the service's origin, so the
 * text keeps working wherever an agent pastes it.
 */
import type { DocPage } from "./DocsFolder.js"
import { CATALOG_PATH, DOCS_PATH, MCP_PATH, OPENAPI_PATH, type Origins, REST_BASE_PATH } from "./Linkset.js"

/** A link label: square brackets, which would end it, escaped. */
const label = (text: string) => text.replace(/[[\]\\]/g, (c) => `\\${c}`)

const pageList = (origins: Origins, pages: ReadonlyArray<DocPage>) =>
  pages.length === 0
    ? "No documentation pages are installed with this server."
    : pages.map((page) => `- [${label(page.title)}](${origins.service}${DOCS_PATH}/${page.name})`).join("\n")

const mcpLine = (origins: Origins) =>
  origins.mcp === undefined
    ? []
    : [
        `- MCP server (Streamable HTTP, API token as bearer): ${origins.mcp}${MCP_PATH}`,
        ...(origins.mcpDoc ? [`- MCP server documentation: ${origins.service}${DOCS_PATH}/mcp`] : [])
      ]

/** `/docs` as Markdown: the API in a paragraph, its machine-readable descriptions, then every page with its title. */
export const docsIndex = (origins: Origins, pages: ReadonlyArray<DocPage>): string =>
  [
    "# Signalman documentation",
    "",
    "Signalman is an uptime-monitoring service: it checks websites, APIs, ports, DNS records, certificates and",
    "scheduled jobs, opens incidents when they fail, notifies people, and publishes status pages. Everything the",
    `dashboard does is in its REST API under ${origins.service}${REST_BASE_PATH}, authenticated by an API token`,
    "(`Authorization: Bearer sm_...`) with scopes, or by a browser session.",
    "",
    "## The API",
    "",
    `- OpenAPI 3.1 description: ${origins.service}${OPENAPI_PATH}`,
    `- Interactive API reference (HTML): ${origins.service}${DOCS_PATH}`,
    `- API catalog (RFC 9727 linkset): ${origins.marketing}${CATALOG_PATH}`,
    ...mcpLine(origins),
    "",
    "## Pages",
    "",
    "Each page answers `Accept: text/markdown` with its Markdown source, and HTML otherwise.",
    "",
    pageList(origins, pages),
    ""
  ].join("\n")

/** `/` as Markdown: what Signalman is, in a few lines, and where to read on. */
export const home = (origins: Origins): string =>
  [
    "# Signalman",
    "",
    "Uptime monitoring with incidents, notifications and public status pages. Signalman runs HTTP, TCP, ping, DNS,",
    "TLS-certificate, domain-expiry and browser-flow checks from one or more regions, watches heartbeats of",
    "scheduled jobs, opens and resolves incidents, notifies by email and other channels, and serves status pages.",
    "",
    `- Sign in: ${origins.service}/login`,
    `- Documentation (Markdown index with every page): ${origins.service}${DOCS_PATH}`,
    `- REST API: ${origins.service}${REST_BASE_PATH} (OpenAPI: ${origins.service}${OPENAPI_PATH})`,
    `- API catalog: ${origins.marketing}${CATALOG_PATH}`,
    ...(origins.mcp === undefined ? [] : [`- MCP server for AI assistants: ${origins.mcp}${MCP_PATH}`]),
    ""
  ].join("\n")
