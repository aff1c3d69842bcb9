/**
 * `Linkset`: the RFC 9727 catalog per configuration, and the RFC 8288 `Link` header the pages carry (read back with
 * the tests' own parser, `support/LinkHeader.ts`, which is checked here too).
 */
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import * as Linkset from "../src/discovery/Linkset.js"
import * as LinkHeader from "./support/LinkHeader.js"

const origins = (options: Partial<Parameters<typeof Linkset.origins>[0]> = {}) =>
  Linkset.origins({
    service: "https://signalman.example/",
    marketingOrigin: undefined,
    mcpEnabled: true,
    mcpOrigin: undefined,
    mcpDoc: true,
    ...options
  })

/** The catalog as a client reads it: the JSON document decoded as a linkset. */
const document = (o: Linkset.Origins) =>
  Schema.decodeUnknownSync(Linkset.LinksetDocument)(JSON.parse(JSON.stringify(Linkset.toDocument(Linkset.catalog(o)))))

describe("the api-catalog linkset", () => {
  it("lists the REST API with its description, documentation and status, absolute on the service's origin", () => {
    const [rest] = document(origins()).linkset
    expect(rest).toEqual({
      anchor: "https://signalman.example/api/v1",
      "service-desc": [
        {
          href: "https://signalman.example/api/openapi.json",
          type: "application/openapi+json",
          title: "Signalman REST API"
        }
      ],
      "service-doc": [
        { href: "https://signalman.example/docs", type: "text/html", title: "API reference" },
        { href: "https://signalman.example/docs", type: "text/markdown", title: "Documentation index" }
      ],
      status: [{ href: "https://signalman.example/healthz", type: "application/json" }]
    })
  })

  it("lists the MCP server on its own origin, its server card there and its docs page on the service", () => {
    const linkset = document(origins({ mcpOrigin: "https://mcp.example" })).linkset
    expect(linkset).toHaveLength(2)
    expect(linkset[1]).toEqual({
      anchor: "https://mcp.example/mcp",
      "service-desc": [
        {
          href: "https://mcp.example/.well-known/mcp/server-card.json",
          type: "application/json",
          title: "Signalman MCP server card"
        }
      ],
      "service-doc": [{ href: "https://signalman.example/docs/mcp", type: "text/html", title: "The MCP server" }]
    })
  })

  it("leaves out the MCP server when mcp.enabled is false, and its docs link when there is no mcp.md", () => {
    expect(
      document(origins({ mcpEnabled: false, mcpOrigin: "https://mcp.example" })).linkset.map((c) => c.anchor)
    ).toEqual(["https://signalman.example/api/v1"])
    const [, mcp] = document(origins({ mcpDoc: false })).linkset
    expect(mcp?.anchor).toBe("https://signalman.example/mcp")
    expect(mcp?.["service-doc"]).toBeUndefined()
  })

  it("a marketing origin moves the catalog's canonical URL, not the links inside it", () => {
    const o = origins({ marketingOrigin: "https://www.example/" })
    expect(Linkset.catalogUrl(o)).toBe("https://www.example/.well-known/api-catalog")
    expect(Linkset.catalogUrl(origins())).toBe("https://signalman.example/.well-known/api-catalog")
    expect(document(o)).toEqual(document(origins()))
  })
})

describe("the Link header", () => {
  it("names the catalog, the OpenAPI document and the API reference, each with its type", () => {
    const value = Linkset.formatLinkHeader(Linkset.pageLinks(origins({ marketingOrigin: "https://www.example" })))
    expect(value).toBe(
      '<https://www.example/.well-known/api-catalog>; rel="api-catalog", ' +
        '<https://signalman.example/api/openapi.json>; rel="service-desc"; type="application/openapi+json", ' +
        '<https://signalman.example/docs>; rel="service-doc"; type="text/html"'
    )
    const links = LinkHeader.parse(value)
    expect(LinkHeader.only(links, "api-catalog").href).toBe("https://www.example/.well-known/api-catalog")
    expect(LinkHeader.only(links, "service-desc").params["type"]).toBe("application/openapi+json")
    expect(LinkHeader.only(links, "service-doc").href).toBe("https://signalman.example/docs")
  })

  it("quotes parameter values and keeps > out of the target", () => {
    const value = Linkset.formatLinkHeader([{ href: "https://x.example/a>b", rel: "x", type: 'a"b\\c' }])
    expect(value).toBe('<https://x.example/a%3Eb>; rel="x"; type="a\\"b\\\\c"')
    expect(LinkHeader.parse(value)).toEqual([
      { href: "https://x.example/a%3Eb", rels: ["x"], params: { rel: "x", type: 'a"b\\c' } }
    ])
  })
})

describe("the tests' RFC 8288 reader", () => {
  it("reads several links, token and quoted values, commas inside quotes, relative targets and rel lists", () => {
    const links = LinkHeader.parse(
      '</a>; REL="next prev"; title="x, y; z" ,<https://o.example/b>;rel=up;anchor="#c";rel=ignored',
      "https://base.example/dir/page"
    )
    expect(links).toEqual([
      { href: "https://base.example/a", rels: ["next", "prev"], params: { rel: "next prev", title: "x, y; z" } },
      { href: "https://o.example/b", rels: ["up"], params: { rel: "up", anchor: "#c" } }
    ])
  })

  it("throws on what breaks the grammar", () => {
    expect(() => LinkHeader.parse("https://no.brackets; rel=x")).toThrow(/expected </)
    expect(() => LinkHeader.parse('<a>; rel="open')).toThrow(/unterminated/)
    expect(() => LinkHeader.parse("<a> rel=x")).toThrow(/expected ; or ,/)
    expect(() => LinkHeader.only(LinkHeader.parse("<a>; rel=x, <b>; rel=x"), "x")).toThrow(/found 2/)
  })
})
