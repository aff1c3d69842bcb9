/**
 * The service's API catalog (RFC 9727) as a JSON linkset (RFC 9264), and the RFC 8288 `Link` header that points
 * pages at it. Both are built from the origins the service is reached at, so every href is absolute and a copy of
 * the catalog served from another host (the marketing site) still points at the service.
 */
import * as Schema from "effect/Schema"

/** The well-known path of the catalog (RFC 9727). */
export const CATALOG_PATH = "/.well-known/api-catalog"
/** The profile RFC 9727 gives its linksets, carried as a parameter of the media type. */
export const CATALOG_PROFILE = "https://www.rfc-editor.org/info/rfc9727"
export const CATALOG_CONTENT_TYPE = `application/linkset+json; profile="${CATALOG_PROFILE}"`

export const OPENAPI_PATH = "/api/openapi.json"
export const OPENAPI_TYPE = "application/openapi+json"
export const DOCS_PATH = "/docs"
export const REST_BASE_PATH = "/api/v1"
export const STATUS_PATH = "/healthz"
export const MCP_PATH = "/mcp"
export const MCP_SERVER_CARD_PATH = "/.well-known/mcp/server-card.json"

/** A link target of a linkset (RFC 9264): the href and the target attributes Signalman uses. */
export const LinkTarget = Schema.Struct({
  href: Schema.String,
  type: Schema.optional(Schema.String),
  title: Schema.optional(Schema.String)
})
export type LinkTarget = typeof LinkTarget.Type

/** One context of the linkset: its anchor and its targets per relation type, in order. */
export interface LinkContext {
  readonly anchor: string
  readonly relations: ReadonlyArray<readonly [relation: string, targets: ReadonlyArray<LinkTarget>]>
}

/**
 * A context as JSON has it (RFC 9264): `anchor` beside one member per relation type. Its relation
 * members and `anchor` share one object, so the schema reads every member as either; `LinksetDocument` readers
 * check `anchor` themselves.
 */
export const LinkContextJson = Schema.Record({
  key: Schema.String,
  value: Schema.Union(Schema.String, Schema.Array(LinkTarget))
})
export type LinkContextJson = typeof LinkContextJson.Type

/** The JSON linkset document (`application/linkset+json`). */
export const LinksetDocument = Schema.Struct({ linkset: Schema.Array(LinkContextJson) })
export type LinksetDocument = typeof LinksetDocument.Type

/** The document of a catalog's contexts. */
export const toDocument = (contexts: ReadonlyArray<LinkContext>): LinksetDocument => ({
  linkset: contexts.map((context) => ({ anchor: context.anchor, ...Object.fromEntries(context.relations) }))
})

/** Where each part of the service is reached, origins without a trailing slash. */
export interface Origins {
  /** The service's own public origin (`auth.public_base_url`, else the bound address). */
  readonly service: string
  /** `discovery.marketing_origin`: the host that publishes the catalog; the service's own when unset. */
  readonly marketing: string
  /** `mcp.origin` (else the service's) when `mcp.enabled`; undefined when the MCP server is off. */
  readonly mcp: string | undefined
  /** Whether the docs folder holds the MCP server's page (`mcp.md`), linked as its service-doc. */
  readonly mcpDoc: boolean
}

const trimmed = (origin: string) => origin.replace(/\/+$/, "")

/** The origins from the settings and the service's own origin. */
export const origins = (options: {
  readonly service: string
  readonly marketingOrigin: string | undefined
  readonly mcpEnabled: boolean
  readonly mcpOrigin: string | undefined
  readonly mcpDoc: boolean
}): Origins => {
  const service = trimmed(options.service)
  return {
    service,
    marketing: options.marketingOrigin === undefined ? service : trimmed(options.marketingOrigin),
    mcp: options.mcpEnabled ? (options.mcpOrigin === undefined ? service : trimmed(options.mcpOrigin)) : undefined,
    mcpDoc: options.mcpDoc
  }
}

/** The catalog's canonical URL: on the marketing host, where RFC 9727 has publishers put it. */
export const catalogUrl = (origins: Origins): string => `${origins.marketing}${CATALOG_PATH}`

/**
 * The catalog: the REST API (its OpenAPI document, its documentation in both representations, its liveness) and,
 * when enabled, the MCP server (its server card, and its documentation page when the docs folder has one).
 */
export const catalog = (origins: Origins): ReadonlyArray<LinkContext> => {
  const { service } = origins
  const rest: LinkContext = {
    anchor: `${service}${REST_BASE_PATH}`,
    relations: [
      ["service-desc", [{ href: `${service}${OPENAPI_PATH}`, type: OPENAPI_TYPE, title: "Signalman REST API" }]],
      [
        "service-doc",
        [
          { href: `${service}${DOCS_PATH}`, type: "text/html", title: "API reference" },
          { href: `${service}${DOCS_PATH}`, type: "text/markdown", title: "Documentation index" }
        ]
      ],
      ["status", [{ href: `${service}${STATUS_PATH}`, type: "application/json" }]]
    ]
  }
  if (origins.mcp === undefined) return [rest]
  const card: LinkTarget = {
    href: `${origins.mcp}${MCP_SERVER_CARD_PATH}`,
    type: "application/json",
    title: "Signalman MCP server card"
  }
  const doc: LinkTarget = { href: `${service}${DOCS_PATH}/mcp`, type: "text/html", title: "The MCP server" }
  const mcp: LinkContext = {
    anchor: `${origins.mcp}${MCP_PATH}`,
    relations: origins.mcpDoc
      ? [
          ["service-desc", [card]],
          ["service-doc", [doc]]
        ]
      : [["service-desc", [card]]]
  }
  return [rest, mcp]
}

/** A link of an RFC 8288 `Link` header: the target and its parameters (`rel` first). */
export interface HeaderLink {
  readonly href: string
  readonly rel: string
  readonly type?: string
}

// RFC 8288: the target is a URI-Reference inside `<>`; parameter values are quoted strings, in which a
// `"` or `\` is escaped. Hrefs here are URLs the service built, so `>` cannot occur; it is percent-encoded anyway.
const quoted = (value: string) => `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`

/** The value of a `Link` header listing `links`. */
export const formatLinkHeader = (links: ReadonlyArray<HeaderLink>): string =>
  links
    .map(
      (link) =>
        `<${link.href.replace(/>/g, "%3E")}>; rel=${quoted(link.rel)}${link.type === undefined ? "" : `; type=${quoted(link.type)}`}`
    )
    .join(", ")

/** The links the home page, `/login` and the documentation carry: the catalog, the API's description and docs. */
export const pageLinks = (origins: Origins): ReadonlyArray<HeaderLink> => [
  { href: catalogUrl(origins), rel: "api-catalog" },
  { href: `${origins.service}${OPENAPI_PATH}`, rel: "service-desc", type: OPENAPI_TYPE },
  { href: `${origins.service}${DOCS_PATH}`, rel: "service-doc", type: "text/html" }
]
