/**
 * The head of a status page's own screens (its editor, its subscribers): the page's name as the one `h1`, where the
 * public can see it, and the links between the screens, the current one marked.
 */
import type * as StatusPage from "@signalman/core/StatusPage"
import { type Html, html } from "../Template.js"
import { publicPath } from "./Describe.js"

export type Screen = "editor" | "subscribers"

const screens: ReadonlyArray<{ readonly key: Screen; readonly label: string; readonly path: string }> = [
  { key: "editor", label: "Settings and components", path: "" },
  { key: "subscribers", label: "Subscribers", path: "/subscribers" }
]

export const render = (
  page: StatusPage.StatusPage,
  current: Screen,
  heading: string
): Html => html`<p class="sp-crumbs"><a href="/status-pages">Status pages</a></p>
<div class="page-head"><h1>${heading}</h1>
${
  page.published
    ? html`<a class="button" href="${publicPath(page.slug)}">View public page<span class="visually-hidden"> of ${page.name}</span></a>`
    : html`<span class="state state-paused">Draft: not public yet</span>`
}</div>
<nav class="sp-tabs" aria-label="${page.name}">
<ul>
${screens.map(
  (s) =>
    html`<li><a href="/status-pages/${page.id}${s.path}"${s.key === current ? html` aria-current="page"` : ""}>${s.label}</a></li>`
)}
</ul>
</nav>`
