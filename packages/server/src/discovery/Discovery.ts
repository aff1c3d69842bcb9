/**
 * Discovery: how people and programs find the service's API and documentation (docs/discovery.md).
 *
 * - `GET /.well-known/api-catalog`: the RFC 9727 catalog (`Linkset.ts`), with `Link: <catalog>; rel="api-catalog"`
 *   on GET and HEAD.
 * - `GET /docs`: the API reference (HTML) or, for `Accept: text/markdown`, the Markdown index of the API and every
 *   documentation page; `GET /docs/<name>`: a page of `docs/` as HTML or Markdown the same way, and
 *   `GET /docs/<name>.md` its Markdown whatever the request accepts (the URL a relative link of the Markdown names).
 * - `/` answers `Accept: text/markdown` with a short description of Signalman; `/`, `/login`, `/docs` and the
 *   pages carry the RFC 8288 `Link` header to the catalog, the OpenAPI document and the API reference.
 *
 * Every negotiated answer says `Vary: Accept` and has a strong ETag of its own bytes (so the Markdown and the HTML
 * of one URL never share one), answers `If-None-Match` with 304, and a Markdown answer says how many tokens it is
 * about (`x-markdown-tokens`, `MarkdownTokens.ts`). Everything is built once: the pages when the server starts, the
 * HTML of a page on its first request, the API reference (6 MB of inline script) on its first request.
 */
import type * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as ApiError from "@signalman/core/ApiError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppConfig, publicBaseUrl } from "../config/Config.js"
import { Assets } from "../dashboard/Assets.js"
import { CSP } from "../dashboard/Layout.js"
import * as DocsPage from "../http/DocsPage.js"
import * as ErrorResponse from "../http/ErrorResponse.js"
import type { Route } from "../http/RouteTable.js"
import * as PublicBytes from "../publicpages/PublicBytes.js"
import { Encoded } from "../publicpages/PublicBytes.js"
import { hostOf, PublicSnapshot } from "../publicpages/PublicSnapshot.js"
import * as DocsFolder from "./DocsFolder.js"
import * as DocsHtml from "./DocsHtml.js"
import * as Linkset from "./Linkset.js"
import * as MarkdownTokens from "./MarkdownTokens.js"
import * as Negotiation from "./Negotiation.js"
import * as Overviews from "./Overviews.js"

const PAGE_PATH = `${Linkset.DOCS_PATH}/:page`

export const routes: ReadonlyArray<Route> = [
  { method: "GET", path: Linkset.CATALOG_PATH, body: "none" },
  { method: "GET", path: Linkset.DOCS_PATH, body: "none" },
  { method: "GET", path: PAGE_PATH, body: "none" }
]

const MARKDOWN_TYPE = "text/markdown; charset=utf-8"
const HTML_TYPE = "text/html; charset=utf-8"
// The documents change only with a release; five minutes of caching, then a revalidation that the ETag makes cheap.
const CACHE_CONTROL = "public, max-age=300"

/** A Markdown answer: its size hint and the headers of every answer of its URL. */
const markdown = (text: string, headers: Readonly<Record<string, string>>): Encoded =>
  Encoded.text(MARKDOWN_TYPE, text, { ...headers, "x-markdown-tokens": String(MarkdownTokens.estimate(text)) })

/** An HTML answer of the documentation: the dashboard's policy (no inline script or style, never framed). */
const html = (text: string, headers: Readonly<Record<string, string>>): Encoded =>
  Encoded.text(HTML_TYPE, text, { ...headers, "content-security-policy": CSP, "x-content-type-options": "nosniff" })

const send = (encoded: Encoded, request: HttpServerRequest.HttpServerRequest) =>
  PublicBytes.toResponse(PublicBytes.answer(encoded, PublicBytes.conditionsOf(request.headers), CACHE_CONTROL))

/** A page's two representations; the HTML is rendered on the page's first request for it. */
interface Page {
  readonly markdown: Encoded
  /** The Markdown at `<name>.md`: not negotiated (the URL names the representation), so no `Vary: Accept`. */
  readonly source: Encoded
  readonly html: Effect.Effect<Encoded>
}

/** What discovery serves, built once per process. */
export interface Served {
  readonly origins: Linkset.Origins
  /** The `Link` header of the pages (`Linkset.pageLinks`). */
  readonly link: string
  readonly catalog: Encoded
  readonly home: Encoded
  readonly index: Encoded
  readonly reference: Effect.Effect<Encoded>
  readonly pages: ReadonlyMap<string, Page>
  readonly notFound: string
}

export class Discovery extends Context.Tag("Signalman/Discovery")<Discovery, Served>() {}

/** Reads the docs folder; a folder that is missing or unreadable serves no pages, and says so in the log. */
const readPages = Effect.gen(function* () {
  const dir = yield* DocsFolder.locate
  if (dir === undefined) {
    yield* Effect.logWarning("No docs folder found beside the server package: /docs/<page> answers 404")
    return []
  }
  return yield* DocsFolder.read(dir).pipe(
    Effect.catchAll((error) =>
      Effect.as(Effect.logWarning("The docs folder cannot be read: /docs/<page> answers 404", error.cause), [])
    )
  )
})

const make = (api: HttpApi.HttpApi.Any) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const assets = yield* Assets
    const pages = yield* readPages
    const origins = Linkset.origins({
      service: yield* publicBaseUrl,
      marketingOrigin: config["discovery.marketing_origin"],
      mcpEnabled: config["mcp.enabled"],
      mcpOrigin: config["mcp.origin"],
      mcpDoc: pages.some((page) => page.name === "mcp")
    })
    const link = Linkset.formatLinkHeader(Linkset.pageLinks(origins))
    const negotiated = { link, vary: "Accept" }
    const names = new Set(pages.map((page) => page.name))
    const frame = { stylePath: assets.stylePath }
    const byName = new Map<string, Page>()
    for (const page of pages) {
      byName.set(page.name, {
        markdown: markdown(page.markdown, negotiated),
        source: markdown(page.markdown, { link }),
        html: yield* Effect.cached(
          Effect.sync(() =>
            html(
              DocsHtml.document(frame, pages, page.title, DocsHtml.render(page.markdown, names), page.name),
              negotiated
            )
          )
        )
      })
    }
    const catalog = Encoded.text(
      Linkset.CATALOG_CONTENT_TYPE,
      JSON.stringify(Linkset.toDocument(Linkset.catalog(origins))),
      { link: Linkset.formatLinkHeader([{ href: Linkset.catalogUrl(origins), rel: "api-catalog" }]) }
    )
    const reference = yield* Effect.cached(
      Effect.map(DocsPage.scalarHtml(api), (text) => Encoded.text(HTML_TYPE, text, negotiated))
    )
    return Discovery.of({
      origins,
      link,
      catalog,
      home: markdown(Overviews.home(origins), negotiated),
      index: markdown(Overviews.docsIndex(origins, pages), negotiated),
      reference,
      pages: byName,
      notFound: DocsHtml.document(frame, pages, "No such page", DocsHtml.notFoundBody, undefined)
    })
  })

/** What a `/docs/<segment>` request names: a page, and whether the URL itself asks for Markdown (`<name>.md`). */
export const pageRequest = (segment: string): { readonly name: string; readonly markdownOnly: boolean } | undefined => {
  const markdownOnly = segment.endsWith(".md")
  const name = markdownOnly ? segment.slice(0, -".md".length) : segment
  return DocsFolder.isPlainName(name) ? { name, markdownOnly } : undefined
}

const accept = (request: HttpServerRequest.HttpServerRequest) => request.headers["accept"]

/** A name that is no page: the HTML page saying so for a browser, the API's 404 envelope for anything else. */
const missing = (served: Served, request: HttpServerRequest.HttpServerRequest, markdownOnly: boolean) => {
  const headers = { link: served.link, vary: "Accept" }
  if (!markdownOnly && !Negotiation.wantsMarkdown(accept(request))) {
    return Effect.succeed(
      HttpServerResponse.text(served.notFound, {
        status: 404,
        contentType: HTML_TYPE,
        headers: { ...headers, "cache-control": "no-store", "content-security-policy": CSP }
      })
    )
  }
  return Effect.map(
    ErrorResponse.render(ApiError.make("NOT_FOUND", "No such documentation page")),
    HttpServerResponse.setHeaders(headers)
  )
}

const documents = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const served = yield* Discovery

    yield* router.get(
      Linkset.CATALOG_PATH,
      Effect.map(HttpServerRequest.HttpServerRequest, (request) => send(served.catalog, request))
    )

    yield* router.get(
      Linkset.DOCS_PATH,
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (Negotiation.wantsMarkdown(accept(request))) return send(served.index, request)
        return send(yield* served.reference, request)
      })
    )

    yield* router.get(
      PAGE_PATH,
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const { page: segment } = yield* HttpRouter.params
        const wanted = pageRequest(segment ?? "")
        const page = wanted === undefined ? undefined : served.pages.get(wanted.name)
        if (wanted === undefined || page === undefined)
          return yield* missing(served, request, wanted?.markdownOnly ?? false)
        if (wanted.markdownOnly) return send(page.source, request)
        if (Negotiation.wantsMarkdown(accept(request))) return send(page.markdown, request)
        return send(yield* page.html, request)
      })
    )
  })
)

const pathnameOf = (url: string): string => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

/** `Vary` with `Accept` added to what the answer already varies on. */
const varyOnAccept = (response: HttpServerResponse.HttpServerResponse) => {
  const vary = response.headers["vary"]
  return HttpServerResponse.setHeader(
    response,
    "vary",
    vary === undefined || vary === "" ? "Accept" : `${vary}, Accept`
  )
}

/**
 * The home page and `/login`, which other features serve: the `Link` header on their answers, and on `/` the
 * Markdown description for a request that prefers it. `/` on a status page's custom domain is that page's, and
 * left alone.
 */
const pagesOfOthers = HttpApiBuilder.middleware(
  Effect.map(Effect.all([Discovery, PublicSnapshot]), ([served, snapshots]) => {
    const withLink = HttpServerResponse.setHeader("link", served.link)
    return (app: HttpApp.Default): HttpApp.Default<never, HttpServerRequest.HttpServerRequest> =>
      Effect.withFiberRuntime((fiber) => {
        const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
        if (request.method !== "GET" && request.method !== "HEAD") return app
        const pathname = pathnameOf(request.url)
        if (pathname === "/login") return Effect.map(app, withLink)
        if (pathname !== "/") return app
        return Effect.flatMap(snapshots.byHost(hostOf(request.headers["host"])), (statusPage) => {
          if (statusPage !== undefined) return app
          if (Negotiation.wantsMarkdown(accept(request))) return Effect.succeed(send(served.home, request))
          return Effect.map(app, (response) => varyOnAccept(withLink(response)))
        })
      })
  })
)

/** The catalog, the documentation's routes and the headers of the home page and `/login`. */
export const layer = (api: HttpApi.HttpApi.Any) =>
  Layer.merge(documents, pagesOfOthers).pipe(Layer.provide(Layer.effect(Discovery, make(api))))
