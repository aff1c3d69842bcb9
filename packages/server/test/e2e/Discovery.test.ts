/**
 * Discovery over HTTP: the RFC 9727 catalog read as a linkset and every link in it followed, the RFC 8288 `Link`
 * headers of the pages read with the tests' parser, and the documentation negotiated between HTML and Markdown with
 * its `Vary`, ETags, 304s and token hint; paths that try to leave the docs folder are refused.
 */
import * as fs from "node:fs"
import * as Http from "node:http"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { assert, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { type LinkContextJson, LinksetDocument } from "../../src/discovery/Linkset.js"
import * as Fixture from "../support/Fixture.js"
import * as HttpSupport from "../support/Http.js"
import * as LinkHeader from "../support/LinkHeader.js"
import * as TestDatabase from "../support/TestDatabase.js"

const MARKDOWN = "text/markdown; charset=utf-8"
const HTML = "text/html; charset=utf-8"

/** The repository's docs folder, read here on its own to say what the server must serve. */
const docsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../../docs")
const docFiles = fs.readdirSync(docsDir).filter((file) => /^[a-z0-9-]+\.md$/.test(file))
const billingSource = fs.readFileSync(path.join(docsDir, "billing.md"), "utf8")

/** The targets of one relation of a catalog context, each with its href and type (none when it has none). */
const Targets = Schema.Array(Schema.Struct({ href: Schema.String, type: Schema.String }))
const targetsOf = (context: LinkContextJson, relation: string) =>
  Schema.decodeUnknownSync(Targets)(context[relation] ?? [])

/** The request headers an answer says it varies on, lower case. */
const variesOn = (reply: HttpSupport.Reply) =>
  (reply.headers.get("vary") ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== "")

const mediaType = (reply: HttpSupport.Reply) => reply.headers.get("content-type")?.split(";")[0]?.trim()

/** The `Link` header of an answer, parsed and resolved against the URL asked. */
const linksOf = (reply: HttpSupport.Reply, url: string) => {
  const value = reply.headers.get("link")
  assert.isNotNull(value, `no Link header on ${url}`)
  return LinkHeader.parse(value ?? "", url)
}

/** The three links every discovery page carries, checked against the server's own origin. */
const expectPageLinks = (reply: HttpSupport.Reply, url: string, origin: string) => {
  const links = linksOf(reply, url)
  expect(LinkHeader.only(links, "api-catalog").href).toBe(`${origin}/.well-known/api-catalog`)
  const desc = LinkHeader.only(links, "service-desc")
  expect(desc.href).toBe(`${origin}/api/openapi.json`)
  expect(desc.params["type"]).toBe("application/openapi+json")
  const doc = LinkHeader.only(links, "service-doc")
  expect(doc.href).toBe(`${origin}/docs`)
  expect(doc.params["type"]).toBe("text/html")
}

/** A GET with the path sent exactly as written (fetch would resolve `..` and re-encode before sending). */
const rawGet = (baseUrl: string, rawPath: string, accept: string) =>
  Effect.async<{ readonly status: number; readonly contentType: string | undefined; readonly body: string }>(
    (resume) => {
      const url = new URL(baseUrl)
      const request = Http.request(
        { host: url.hostname, port: url.port, path: rawPath, headers: { accept } },
        (response) => {
          let body = ""
          response.setEncoding("utf8")
          response.on("data", (chunk: string) => {
            body += chunk
          })
          response.on("end", () =>
            resume(
              Effect.succeed({ status: response.statusCode ?? 0, contentType: response.headers["content-type"], body })
            )
          )
        }
      )
      request.on("error", (error) => resume(Effect.die(error)))
      request.end()
    }
  )

Fixture.describe(
  `discovery (${TestDatabase.kind} database)`,
  // Links are built on the public origin; 127.0.0.1 (its port settled at boot) so the test can follow them.
  { env: { AUTH__PUBLIC_BASE_URL: "http://127.0.0.1:0" } },
  (it) => {
    it.effect("GET /.well-known/api-catalog is an RFC 9727 linkset: the REST API and the MCP server, absolute", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Fixture.server
        const reply = yield* HttpSupport.request(`${baseUrl}/.well-known/api-catalog`)
        expect(reply.status).toBe(200)
        expect(reply.headers.get("content-type")).toBe(
          'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"'
        )
        const { linkset } = HttpSupport.decode(reply, LinksetDocument)
        expect(linkset.map((context) => context.anchor)).toEqual([`${baseUrl}/api/v1`, `${baseUrl}/mcp`])
        const [rest, mcp] = linkset
        assert.isDefined(rest)
        assert.isDefined(mcp)
        expect(Object.keys(rest).sort()).toEqual(["anchor", "service-desc", "service-doc", "status"])
        expect(mcp["service-desc"]).toEqual([
          {
            href: `${baseUrl}/.well-known/mcp/server-card.json`,
            type: "application/json",
            title: "Signalman MCP server card"
          }
        ])
        // Every target of every context is an absolute URL on the service's origin, with its type.
        for (const context of linkset) {
          for (const relation of Object.keys(context).filter((key) => key !== "anchor")) {
            for (const target of targetsOf(context, relation)) expect(new URL(target.href).origin).toBe(baseUrl)
          }
        }
      })
    )

    it.effect("every link of the REST API's entry resolves to 200 in the type the catalog names", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Fixture.server
        const { linkset } = HttpSupport.decode(
          yield* HttpSupport.request(`${baseUrl}/.well-known/api-catalog`),
          LinksetDocument
        )
        const [rest] = linkset
        assert.isDefined(rest)
        const targets = ["service-desc", "service-doc", "status"].flatMap((relation) => targetsOf(rest, relation))
        expect(targets).toHaveLength(4)
        const seen: Array<string> = []
        for (const target of targets) {
          const reply = yield* HttpSupport.request(target.href, { headers: { accept: target.type } })
          expect(reply.status, target.href).toBe(200)
          seen.push(`${target.type} -> ${mediaType(reply)}`)
          if (target.type === "application/openapi+json") {
            // The document is JSON (served as application/json, which every OpenAPI tool reads), OpenAPI 3.1.
            expect(reply.json).toMatchObject({ openapi: "3.1.0" })
          }
        }
        expect(seen).toEqual([
          "application/openapi+json -> application/json",
          "text/html -> text/html",
          "text/markdown -> text/markdown",
          "application/json -> application/json"
        ])
      })
    )

    it.effect("every link of the MCP server's entry resolves: its server card and its documentation page", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Fixture.server
        const { linkset } = HttpSupport.decode(
          yield* HttpSupport.request(`${baseUrl}/.well-known/api-catalog`),
          LinksetDocument
        )
        const mcp = linkset[1]
        assert.isDefined(mcp)
        const targets = ["service-desc", "service-doc"].flatMap((relation) => targetsOf(mcp, relation))
        expect(targets.map((target) => new URL(target.href).pathname)).toEqual([
          "/.well-known/mcp/server-card.json",
          "/docs/mcp"
        ])
        for (const target of targets) {
          const reply = yield* HttpSupport.request(target.href, { headers: { accept: target.type } })
          expect(reply.status, target.href).toBe(200)
          expect(mediaType(reply), target.href).toBe(target.type)
        }
      })
    )

    it.effect("HEAD /.well-known/api-catalog answers the Link rel=api-catalog and the type, with no body", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Fixture.server
        const url = `${baseUrl}/.well-known/api-catalog`
        const head = yield* HttpSupport.request(url, { method: "HEAD" })
        expect(head.status).toBe(200)
        expect(head.text).toBe("")
        expect(mediaType(head)).toBe("application/linkset+json")
        expect(LinkHeader.only(linksOf(head, url), "api-catalog").href).toBe(url)
        const get = yield* HttpSupport.request(url)
        expect(LinkHeader.only(linksOf(get, url), "api-catalog").href).toBe(url)
      })
    )

    it.effect("/, /login, /docs and a docs page carry the Link header, whose catalog link resolves", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Fixture.server
        const alice = yield* Fixture.person({ label: "discovery" })
        // `/` answers a signed-out visitor with the way to sign in, and a signed-in one with the dashboard.
        const signedOut = yield* HttpSupport.request(`${baseUrl}/`)
        expect(signedOut.status).toBe(303)
        expectPageLinks(signedOut, `${baseUrl}/`, baseUrl)
        expect(variesOn(signedOut)).toContain("accept")
        const dashboard = yield* alice.browser.request("/")
        expect(dashboard.status).toBe(200)
        expectPageLinks(dashboard, `${baseUrl}/`, baseUrl)
        expect(variesOn(dashboard)).toEqual(expect.arrayContaining(["accept-encoding", "accept"]))
        for (const page of ["/login", "/docs", "/docs/billing"]) {
          const reply = yield* HttpSupport.request(`${baseUrl}${page}`)
          expect(reply.status, page).toBe(200)
          expectPageLinks(reply, `${baseUrl}${page}`, baseUrl)
        }
        const catalog = LinkHeader.only(linksOf(signedOut, `${baseUrl}/`), "api-catalog")
        const followed = yield* HttpSupport.request(catalog.href)
        expect(followed.status).toBe(200)
        HttpSupport.decode(followed, LinksetDocument)
        // Other pages do not claim to be discovery pages.
        expect((yield* HttpSupport.request(`${baseUrl}/api/openapi.json`)).headers.get("link")).toBeNull()
      })
    )

    it.effect("/docs is the API reference as HTML, and the index of the API and every page as Markdown", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Fixture.server
        const browser = yield* HttpSupport.request(`${baseUrl}/docs`, {
          headers: { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" }
        })
        expect(browser.status).toBe(200)
        expect(browser.headers.get("content-type")).toBe(HTML)
        expect(browser.text).toContain('id="api-reference"')
        expect(browser.headers.get("x-markdown-tokens")).toBeNull()

        const agent = yield* HttpSupport.request(`${baseUrl}/docs`, { headers: { accept: "text/markdown" } })
        expect(agent.status).toBe(200)
        expect(agent.headers.get("content-type")).toBe(MARKDOWN)
        expect(agent.text).toContain(`${baseUrl}/api/openapi.json`)
        for (const file of docFiles) {
          const source = fs.readFileSync(path.join(docsDir, file), "utf8")
          const title = /^# +(.+?)(?: +#+)? *$/m.exec(source)?.[1]?.trim() ?? file
          expect(agent.text, file).toContain(`(${baseUrl}/docs/${file.slice(0, -3)})`)
          expect(agent.text, file).toContain(`[${title.replace(/[[\]\\]/g, (c) => `\\${c}`)}]`)
        }
        expect(Number(agent.headers.get("x-markdown-tokens"))).toBeGreaterThan(0)

        for (const reply of [browser, agent]) {
          expect(variesOn(reply)).toContain("accept")
          expect(reply.headers.get("etag")).toMatch(/^"[^"]+"$/)
        }
        expect(agent.headers.get("etag")).not.toBe(browser.headers.get("etag"))
      })
    )

    it.effect("a docs page negotiates by Accept with q-values: the file's Markdown or its HTML rendering", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Fixture.server
        const url = `${baseUrl}/docs/billing`
        const cases: ReadonlyArray<readonly [string | undefined, string]> = [
          [undefined, HTML],
          ["*/*", HTML],
          ["text/html", HTML],
          ["text/markdown;q=0.5, text/html", HTML],
          ["text/markdown", MARKDOWN],
          ["text/html;q=0.8, text/markdown", MARKDOWN],
          ["text/*;q=0.1, text/markdown;q=0.9", MARKDOWN],
          ["text/html;q=0, */*", MARKDOWN]
        ]
        for (const [accept, type] of cases) {
          const reply = yield* HttpSupport.request(url, accept === undefined ? {} : { headers: { accept } })
          expect(reply.status, accept).toBe(200)
          expect(reply.headers.get("content-type"), accept).toBe(type)
          expect(variesOn(reply), accept).toContain("accept")
        }

        const markdown = yield* HttpSupport.request(url, { headers: { accept: "text/markdown" } })
        expect(markdown.text).toBe(billingSource)
        const tokens = markdown.headers.get("x-markdown-tokens")
        expect(tokens).toMatch(/^[1-9]\d*$/)
        // The hint is of the size of the page: between a token per six characters and one per two.
        expect(Number(tokens)).toBeGreaterThan(billingSource.length / 6)
        expect(Number(tokens)).toBeLessThan(billingSource.length / 2)

        const html = yield* HttpSupport.request(url, { headers: { accept: "text/html" } })
        expect(html.text).toContain("<title>Billing · Signalman documentation</title>")
        expect(html.text).toContain('<a href="/docs/billing" aria-current="page">Billing</a>')
        expect(html.headers.get("content-security-policy")).toContain("default-src 'self'")
        // Links to other pages point at their /docs URLs; none is left pointing at a .md file.
        expect(billingSource).toContain("](configuration.md")
        expect(html.text).toMatch(/<a href="\/docs\/configuration(#[a-z0-9-]+)?">/)
        expect(html.text).not.toMatch(/href="(?:\.\/)?[a-z0-9-]+\.md/)

        expect(markdown.headers.get("etag")).not.toBe(html.headers.get("etag"))
      })
    )

    it.effect("If-None-Match with a representation's ETag is 304 with that ETag and Vary, and no body", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Fixture.server
        for (const [url, accept] of [
          [`${baseUrl}/docs/billing`, "text/markdown"],
          [`${baseUrl}/docs/billing`, "text/html"],
          [`${baseUrl}/docs`, "text/markdown"],
          [`${baseUrl}/docs`, "text/html"],
          [`${baseUrl}/`, "text/markdown"]
        ] as const) {
          const first = yield* HttpSupport.request(url, { headers: { accept } })
          expect(first.status, `${url} ${accept}`).toBe(200)
          const etag = first.headers.get("etag")
          assert.isNotNull(etag)
          const again = yield* HttpSupport.request(url, { headers: { accept, "if-none-match": etag ?? "" } })
          expect(again.status, `${url} ${accept}`).toBe(304)
          expect(again.text).toBe("")
          expect(again.headers.get("etag")).toBe(etag)
          expect(variesOn(again)).toContain("accept")
          // The other representation's ETag does not validate this one.
          const other = accept === "text/markdown" ? "text/html" : "text/markdown"
          const crossed = yield* HttpSupport.request(url, { headers: { accept: other, "if-none-match": etag ?? "" } })
          expect(crossed.status, `${url} ${other}`).toBe(url.endsWith("/") ? 303 : 200)
        }
      })
    )

    it.effect("/ answers Accept: text/markdown with a description of Signalman and its links", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Fixture.server
        const reply = yield* HttpSupport.request(`${baseUrl}/`, { headers: { accept: "text/markdown, */*;q=0.1" } })
        expect(reply.status).toBe(200)
        expect(reply.headers.get("content-type")).toBe(MARKDOWN)
        expect(reply.text).toMatch(/^# Signalman\n/)
        expect(reply.text).toContain(`${baseUrl}/docs`)
        expect(reply.text).toContain(`${baseUrl}/.well-known/api-catalog`)
        expect(reply.text).toContain(`${baseUrl}/mcp`)
        expect(variesOn(reply)).toContain("accept")
        expect(reply.headers.get("x-markdown-tokens")).toMatch(/^[1-9]\d*$/)
        expectPageLinks(reply, `${baseUrl}/`, baseUrl)
        // A browser's Accept still gets the way to sign in.
        const browser = yield* HttpSupport.request(`${baseUrl}/`, { headers: { accept: "text/html,*/*;q=0.8" } })
        expect(browser.status).toBe(303)
        expect(browser.headers.get("location")).toBe("/login")
      })
    )

    it.effect("/docs/<name>.md is the page's Markdown whatever the request accepts", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Fixture.server
        const reply = yield* HttpSupport.request(`${baseUrl}/docs/billing.md`, { headers: { accept: "text/html" } })
        expect(reply.status).toBe(200)
        expect(reply.headers.get("content-type")).toBe(MARKDOWN)
        expect(reply.text).toBe(billingSource)
        expect(variesOn(reply)).not.toContain("accept")
      })
    )

    it.effect("paths that leave the docs folder, or name no page, are 404 and serve nothing else", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* Fixture.server
        const attempts = [
          "/docs/..%2Fpackage.json",
          "/docs/..%2f..%2fpackage.json",
          "/docs/%2e%2e%2fREADME.md",
          "/docs/%2e%2e",
          "/docs/..",
          "/docs/../README.md",
          "/docs/.%2e/README.md",
          "/docs/Billing",
          "/docs/billing%2F",
          "/docs/billing%00",
          "/docs/.billing",
          "/docs/no-such-page",
          "/docs/billing/extra"
        ]
        const readme = fs.readFileSync(path.resolve(docsDir, "../README.md"), "utf8")
        for (const attempt of attempts) {
          for (const accept of ["text/html", "text/markdown"]) {
            const reply = yield* rawGet(baseUrl, attempt, accept)
            expect(reply.status, `${attempt} (${accept})`).toBe(404)
            expect(reply.body).not.toContain('"name": "@signalman')
            expect(reply.body).not.toContain(readme.slice(0, 200))
            if (reply.contentType?.startsWith("application/json")) {
              expect(HttpSupport.envelope(HttpSupport.body(reply.status, reply.body)).code).toBe("NOT_FOUND")
            } else {
              expect(accept, attempt).toBe("text/html")
              expect(reply.contentType).toBe(HTML)
              expect(reply.body).toContain("<h1>No such page</h1>")
            }
          }
        }
      })
    )
  }
)
