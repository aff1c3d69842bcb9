/**
 * The documentation pages: which files and path segments are pages, how their Markdown becomes HTML (links between
 * pages rewritten, anchors, raw HTML shown as text), and the `x-markdown-tokens` estimate.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { pageRequest } from "../src/discovery/Discovery.js"
import * as DocsFolder from "../src/discovery/DocsFolder.js"
import * as DocsHtml from "../src/discovery/DocsHtml.js"
import * as MarkdownTokens from "../src/discovery/MarkdownTokens.js"

const pages = new Set(["billing", "configuration", "agent-protocol"])

describe("which names are pages", () => {
  it("only plain lowercase .md files are served, whatever else the folder holds", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sm-docs-"))
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "sm-outside-"))
    fs.writeFileSync(path.join(outside, "secret.md"), "# Secret\n")
    fs.writeFileSync(path.join(dir, "billing.md"), "Intro first.\n\n# Billing ##\n\n## Plans\n")
    fs.writeFileSync(path.join(dir, "no-title.md"), "just text\n")
    for (const name of [".hidden.md", "Upper.md", "notes.txt", "with space.md", "x.md.bak"]) {
      fs.writeFileSync(path.join(dir, name), "# Not served\n")
    }
    fs.mkdirSync(path.join(dir, "folder.md"))
    fs.symlinkSync(path.join(outside, "secret.md"), path.join(dir, "linked.md"))
    const read = Effect.runSync(DocsFolder.read(dir))
    expect(read.map((page) => [page.name, page.title])).toEqual([
      ["billing", "Billing"],
      ["no-title", "no-title"]
    ])
    expect(Effect.runSync(Effect.either(DocsFolder.read(path.join(dir, "missing"))))._tag).toBe("Left")
  })

  it("the folder is looked for beside the package, then at the repository's root", () => {
    expect(DocsFolder.candidates("/srv/app/packages/server")).toEqual([
      "/srv/app/packages/server/docs",
      "/srv/app/docs"
    ])
  })

  it("a request segment names a page only when plain; <name>.md asks for the Markdown", () => {
    expect(pageRequest("billing")).toEqual({ name: "billing", markdownOnly: false })
    expect(pageRequest("billing.md")).toEqual({ name: "billing", markdownOnly: true })
    for (const segment of ["..", "../billing", "..%2Fbilling", "billing/..", ".hidden", "Billing", "", ".md", "a b"]) {
      expect(pageRequest(segment), segment).toBeUndefined()
    }
  })
})

describe("links in the HTML", () => {
  it("a link to a served page becomes its /docs URL, with its anchor", () => {
    expect(DocsHtml.rewriteHref("billing.md", pages)).toBe("/docs/billing")
    expect(DocsHtml.rewriteHref("./billing.md", pages)).toBe("/docs/billing")
    expect(DocsHtml.rewriteHref("agent-protocol.md#decisions", pages)).toBe("/docs/agent-protocol#decisions")
  })

  it("anchors, site paths and web URLs are kept; unsafe schemes and unserved files are no links", () => {
    expect(DocsHtml.rewriteHref("#flow-results", pages)).toBe("#flow-results")
    expect(DocsHtml.rewriteHref("/api/openapi.json", pages)).toBe("/api/openapi.json")
    expect(DocsHtml.rewriteHref("https://simplewebauthn.dev", pages)).toBe("https://simplewebauthn.dev")
    expect(DocsHtml.rewriteHref("mailto:ops@example.com", pages)).toBe("mailto:ops@example.com")
    expect(DocsHtml.rewriteHref("JavaScript:alert(1)", pages)).toBeUndefined()
    expect(DocsHtml.rewriteHref("data:text/html,x", pages)).toBeUndefined()
    expect(DocsHtml.rewriteHref("../packages/cli/README.md", pages)).toBeUndefined()
    expect(DocsHtml.rewriteHref("missing.md", pages)).toBeUndefined()
    expect(DocsHtml.rewriteHref("../docs/billing.md", pages)).toBeUndefined()
  })

  it("headings get GitHub's anchors, repeated ones numbered", () => {
    expect(DocsHtml.anchorOf("Behind a reverse proxy or load balancer")).toBe("behind-a-reverse-proxy-or-load-balancer")
    expect(DocsHtml.anchorOf("`check-now` & one-off checks (v2)")).toBe("check-now--one-off-checks-v2")
    const html = DocsHtml.render("## Decisions\n\ntext\n\n## Decisions\n", pages)
    expect(html).toContain('<h2 id="decisions">Decisions</h2>')
    expect(html).toContain('<h2 id="decisions-1">Decisions</h2>')
  })

  it("renders links rewritten, raw HTML as text, tables in a scrolling wrapper", () => {
    const html = DocsHtml.render(
      [
        "See [billing](billing.md#plans), [the CLI](../packages/cli/README.md) and [x](javascript:alert(1)).",
        "",
        '<script>alert("x")</script>',
        "",
        "| a | b |",
        "|---|---|",
        "| 1 | 2 |"
      ].join("\n"),
      pages
    )
    expect(html).toContain('<a href="/docs/billing#plans">billing</a>')
    expect(html).toContain(", the CLI and x.")
    expect(html).not.toContain("<script>")
    expect(html).toContain("&lt;script&gt;")
    expect(html).toMatch(/<div class="table-wrap"><table>/)
  })

  it("the page frame escapes titles and marks the current page", () => {
    const page = DocsHtml.document(
      { stylePath: "/assets/dashboard.abc.css" },
      [
        { name: "billing", title: "Billing <plans>" },
        { name: "flows", title: "Flows" }
      ],
      "Billing <plans>",
      "<h1>Billing</h1>",
      "billing"
    )
    expect(page).toContain("<title>Billing &lt;plans&gt; · Signalman documentation</title>")
    expect(page).toContain('<a href="/docs/billing" aria-current="page">Billing &lt;plans&gt;</a>')
    expect(page).toContain('<a href="/docs/flows">Flows</a>')
    expect(page).toContain('<link rel="alternate" type="text/markdown" href="/docs/billing.md">')
    expect(page).toContain('<main id="main" tabindex="-1">')
  })
})

describe("the x-markdown-tokens estimate", () => {
  it("counts a token per four letters or digits of a word and one per symbol; whitespace is free", () => {
    expect(MarkdownTokens.estimate("")).toBe(0)
    expect(MarkdownTokens.estimate("   \n\t ")).toBe(0)
    expect(MarkdownTokens.estimate("word")).toBe(1)
    expect(MarkdownTokens.estimate("words")).toBe(2)
    expect(MarkdownTokens.estimate("# Title")).toBe(3)
    expect(MarkdownTokens.estimate("[billing](billing.md)")).toBe(2 + 2 + 1 + 1 + 4)
    expect(MarkdownTokens.estimate("état 2026")).toBe(2)
  })

  it("grows with the text, roughly a token per three to five characters of prose", () => {
    const prose = "Signalman checks websites and opens incidents when they fail, then notifies people. ".repeat(20)
    const tokens = MarkdownTokens.estimate(prose)
    expect(tokens).toBeGreaterThan(prose.length / 5)
    expect(tokens).toBeLessThan(prose.length / 3)
  })
})
