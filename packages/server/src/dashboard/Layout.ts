/**
 * The frame every dashboard page sits in: a skip link, the top bar (org switcher, who is signed in, sign out), the
 * navigation with the current page marked, a live region for messages, and the page. Pages are never cached, never
 * framed, and run no inline script or style (the content security policy says so), so an injected tag could do
 * nothing even if escaping failed.
 */
import * as zlib from "node:zlib"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { chooseCoding } from "../publicpages/PublicBytes.js"
import * as Navigation from "./Navigation.js"
import { type Html, html } from "./Template.js"
import type { Viewer } from "./Viewer.js"

export const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

/** The asset URLs of this process (see Assets.ts). */
export interface Frame {
  readonly scriptPath: string
  readonly stylePath: string
}

/** What a page gives the frame. */
export interface Content {
  readonly title: string
  /** The navigation entry to mark as the current page (a page handler's own, unless the content names one). */
  readonly current?: Navigation.Key | undefined
  readonly body: Html
  readonly status?: number
}

const nav = (current: string | undefined): Html => {
  return html`<nav class="sidenav" aria-label="Main">
${Navigation.sections.map(
  (section) => html`<p class="section" id="nav-${section}">${Navigation.sectionTitles[section]}</p>
<ul aria-labelledby="nav-${section}">
${Navigation.entries
  .filter((e) => e.section === section)
  .map((e) => html`<li><a href="${e.href}"${e.key === current ? html` aria-current="page"` : ""}>${e.label}</a></li>`)}
</ul>`
)}
</nav>`
}

const orgSwitcher = (viewer: Viewer): Html => {
  if (viewer.memberships.length < 2) {
    return html`<span class="muted">${viewer.org?.name ?? "No organization"}</span>`
  }
  return html`<form class="org-switch" data-api="/dashboard/active-org" data-method="POST" data-reload
  method="post" action="/dashboard/js-required">
  <label class="visually-hidden" for="org-switch">Organization</label>
  <select id="org-switch" name="slug">
    ${viewer.memberships.map(
      (m) => html`<option value="${m.slug}"${m.id === viewer.org?.id ? html` selected` : ""}>${m.name}</option>`
    )}
  </select>
  <button type="submit">Switch</button>
</form>`
}

/** A whole page for a signed-in viewer, compressed when the request's `Accept-Encoding` allows. */
export const page = (
  frame: Frame,
  viewer: Viewer,
  content: Content,
  acceptEncoding?: string
): HttpServerResponse.HttpServerResponse =>
  document(
    frame,
    content.title,
    html`<div class="frame">
<header class="topbar">
  <a class="brand" href="/">Signalman</a>
  ${orgSwitcher(viewer)}
  <span>${viewer.user.email}</span>
  <button type="button" class="js-only" data-action="/auth/logout" data-method="POST" data-redirect="/login">Sign out</button>
</header>
${nav(content.current)}
<main id="main" tabindex="-1">
<div id="flash" class="flash" role="status" aria-live="polite" hidden></div>
${content.body}
</main>
</div>`,
    viewer.org?.slug,
    content.status ?? 200,
    acceptEncoding
  )

/** The HTML document around a body: the head with this process's assets and the org the page was rendered for. */
export const document = (
  frame: Frame,
  title: string,
  body: Html,
  orgSlug: string | undefined,
  status = 200,
  acceptEncoding?: string
): HttpServerResponse.HttpServerResponse =>
  encoded(
    html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
${orgSlug === undefined ? "" : html`<meta name="signalman-org" content="${orgSlug}">`}
<title>${title} · Signalman</title>
<link rel="stylesheet" href="${frame.stylePath}">
<script src="${frame.scriptPath}" defer></script>
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
${body}
</body>
</html>`.text,
    status,
    acceptEncoding
  )

// Below this a page goes as it is: compressing would cost more than the bytes it saves.
const COMPRESS_FROM_BYTES = 1024

const headers = {
  "cache-control": "no-store",
  "content-security-policy": CSP,
  "referrer-policy": "same-origin",
  "x-content-type-options": "nosniff",
  vary: "accept-encoding"
}

/**
 * A page's bytes in the coding the client prefers (brotli, gzip, or none; the public pages' rule): the overview of
 * 200 monitors is about 780 KB of HTML and some 45 KB compressed, made per request since every page is a person's.
 */
const encoded = (text: string, status: number, acceptEncoding: string | undefined) => {
  const coding = text.length < COMPRESS_FROM_BYTES ? "identity" : chooseCoding(acceptEncoding)
  if (coding === "identity") {
    return HttpServerResponse.text(text, { status, contentType: "text/html; charset=utf-8", headers })
  }
  const bytes =
    coding === "br"
      ? zlib.brotliCompressSync(text, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } })
      : zlib.gzipSync(text, { level: 6 })
  return HttpServerResponse.uint8Array(bytes, {
    status,
    contentType: "text/html; charset=utf-8",
    headers: { ...headers, "content-encoding": coding }
  })
}
