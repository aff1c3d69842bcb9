/**
 * A documentation page as HTML: its Markdown rendered with `marked`, inside the dashboard's stylesheet and frame
 * (a skip link, a top bar, a navigation listing every page with the current one marked, the page in `main`).
 *
 * The Markdown is the project's own, but it is rendered as if it were not: raw HTML in it is shown as text, links
 * to other pages (`billing.md`, `./billing.md#plans`) become their `/docs/billing` URLs, a relative link to anything
 * else in the repository (`../packages/cli/README.md`, which this server does not serve) is shown as its text rather
 * than as a link that would 404, and `javascript:` or `data:` links are never links. Headings get GitHub's anchors
 * (`## Behind a reverse proxy` is `#behind-a-reverse-proxy`), so `page.md#anchor` links land where they did on GitHub.
 */
import { Marked, Renderer } from "marked"
import { escapeHtml } from "../http/Html.js"
import { DOCS_PATH } from "./Linkset.js"

/** What the navigation lists of a page. */
export interface Entry {
  readonly name: string
  readonly title: string
}

const SCHEME = /^([a-z][a-z0-9+.-]*):/i
const UNSAFE_SCHEMES = new Set(["javascript", "data", "vbscript"])
const DOC_LINK = /^(?:\.\/)?([a-z0-9][a-z0-9-]*)\.md$/

/**
 * Where a link of a page goes in HTML: a served page's file (`billing.md#plans`) its URL (`/docs/billing#plans`), an
 * absolute URL, a site path or an anchor as written; undefined for a link that must not be one (a relative path to
 * a file the server does not serve, an unsafe scheme).
 */
export const rewriteHref = (href: string, pages: ReadonlySet<string>): string | undefined => {
  const trimmed = href.trim()
  const scheme = SCHEME.exec(trimmed)
  if (scheme !== null) return UNSAFE_SCHEMES.has((scheme[1] ?? "").toLowerCase()) ? undefined : trimmed
  if (trimmed.startsWith("#") || trimmed.startsWith("/")) return trimmed
  const hash = trimmed.indexOf("#")
  const file = hash === -1 ? trimmed : trimmed.slice(0, hash)
  const fragment = hash === -1 ? "" : trimmed.slice(hash)
  const name = DOC_LINK.exec(file)?.[1]
  return name !== undefined && pages.has(name) ? `${DOCS_PATH}/${name}${fragment}` : undefined
}

/** GitHub's heading anchor: lower case, punctuation dropped (hyphens and underscores kept), each space a hyphen. */
export const anchorOf = (text: string): string =>
  text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-")

/** A page's Markdown as HTML, its links rewritten for the `pages` served beside it. */
export const render = (markdown: string, pages: ReadonlySet<string>): string => {
  // Repeated headings get `-1`, `-2`, ... as on GitHub; the count is per page, hence a renderer per render.
  const seen = new Map<string, number>()
  const marked = new Marked({
    gfm: true,
    renderer: {
      heading({ tokens, depth }) {
        const base = anchorOf(this.parser.parseInline(tokens, this.parser.textRenderer))
        const count = seen.get(base) ?? 0
        seen.set(base, count + 1)
        const id = count === 0 ? base : `${base}-${count}`
        return `<h${depth} id="${escapeHtml(id)}">${this.parser.parseInline(tokens)}</h${depth}>\n`
      },
      link({ href, title, tokens }) {
        const text = this.parser.parseInline(tokens)
        const target = rewriteHref(href, pages)
        if (target === undefined) return text
        const titled = title === null || title === undefined || title === "" ? "" : ` title="${escapeHtml(title)}"`
        return `<a href="${escapeHtml(target)}"${titled}>${text}</a>`
      },
      // The page's policy loads no image from elsewhere, and the docs folder's own files are not served: an image
      // is shown as its description, linked when it is on the web.
      image({ href, text }) {
        return /^https?:\/\//i.test(href) ? `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>` : escapeHtml(text)
      },
      html({ text }) {
        return escapeHtml(text)
      },
      // Wide tables scroll inside the page instead of widening it.
      table(token) {
        return `<div class="table-wrap">${Renderer.prototype.table.call(this, token)}</div>\n`
      }
    }
  })
  return marked.parse(markdown, { async: false })
}

/** The stylesheet (the dashboard's, by its hashed URL) the frame links. */
export interface Frame {
  readonly stylePath: string
}

const nav = (entries: ReadonlyArray<Entry>, current: string | undefined) =>
  `<nav class="sidenav" aria-label="Documentation">
<p class="section" id="nav-docs">Documentation</p>
<ul aria-labelledby="nav-docs">
<li><a href="${DOCS_PATH}">API reference</a></li>
${entries
  .map(
    (entry) =>
      `<li><a href="${DOCS_PATH}/${escapeHtml(entry.name)}"${entry.name === current ? ` aria-current="page"` : ""}>${escapeHtml(entry.title)}</a></li>`
  )
  .join("\n")}
</ul>
</nav>`

/**
 * A whole page: `body` is HTML this module rendered; `current` the page's name (marked in the navigation and offered
 * as Markdown by a `rel="alternate"` link), undefined for the not-found page.
 */
export const document = (
  frame: Frame,
  entries: ReadonlyArray<Entry>,
  title: string,
  body: string,
  current: string | undefined
): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(title)} · Signalman documentation</title>
<link rel="stylesheet" href="${escapeHtml(frame.stylePath)}">
${current === undefined ? "" : `<link rel="alternate" type="text/markdown" href="${DOCS_PATH}/${escapeHtml(current)}.md">\n`}</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<div class="frame">
<header class="topbar">
  <a class="brand" href="/">Signalman</a>
  <a href="${DOCS_PATH}">API reference</a>
</header>
${nav(entries, current)}
<main id="main" tabindex="-1">
${body}
</main>
</div>
</body>
</html>`

/** The body of the page a name that is no page gets. */
export const notFoundBody = `<h1>No such page</h1>
<p>There is no documentation page at this address. The navigation lists every page; the
<a href="${DOCS_PATH}">API reference</a> describes every endpoint.</p>`
