/**
 * `GET /status-pages`: the org's status pages (name, address, whether published or held by the plan, custom domain,
 * who may open it) and, for an owner, the form that creates one through `POST /api/v1/status-pages`.
 */
import type * as StatusPage from "@signalman/core/StatusPage"
import type * as Layout from "../Layout.js"
import { type Html, html } from "../Template.js"
import { accessLabel, publicPath } from "./Describe.js"

export interface ListInput {
  readonly orgName: string
  readonly pages: ReadonlyArray<StatusPage.StatusPage>
  readonly owner: boolean
  /** The account's `max_status_pages`. */
  readonly maxPages: number
  /** The pages the plan holds (not served publicly until the plan covers them or the owner keeps them). */
  readonly held: ReadonlySet<string>
}

const state = (page: StatusPage.StatusPage, held: boolean): Html =>
  held
    ? html`<span class="state state-paused">Held</span>`
    : page.published
      ? html`<span class="state state-up">Published</span>`
      : html`<span class="state state-paused">Draft</span>`

const row = (page: StatusPage.StatusPage, held: boolean): Html => html`<tr>
<th scope="row"><a href="/status-pages/${page.id}">${page.name}</a></th>
<td>${state(page, held)}</td>
<td>${
  held
    ? html`<span class="muted">${publicPath(page.slug)} (held: over the plan's status page limit; <a href="/settings/billing">billing</a>)</span>`
    : page.published
      ? html`<a href="${publicPath(page.slug)}">${publicPath(page.slug)}</a>`
      : html`<span class="muted">${publicPath(page.slug)} (not published)</span>`
}</td>
<td>${page.custom_domain ?? html`<span class="muted">None</span>`}</td>
<td>${accessLabel(page.access)}</td>
</tr>`

const createForm = html`<section aria-labelledby="h-create">
<h2 id="h-create">Create a status page</h2>
<form class="sp-create" data-api="/api/v1/status-pages" data-method="POST" data-redirect="/status-pages/{id}"
  method="post" action="/dashboard/js-required">
<div class="field"><label for="sp-new-name">Name</label>
<input id="sp-new-name" name="name" type="text" required maxlength="100" autocomplete="off"></div>
<div class="field"><label for="sp-new-slug">Slug</label>
<input id="sp-new-slug" name="slug" type="text" required maxlength="63" autocomplete="off" aria-describedby="sp-new-slug-hint">
<p class="hint" id="sp-new-slug-hint">Lower-case letters, digits and hyphens. The page's address is /p/ followed by
the slug; slugs are unique across Signalman.</p></div>
<div class="field"><label class="inline"><input name="published" type="checkbox" data-type="boolean"> Publish now</label>
<p class="hint">A draft page is seen only here until you publish it.</p></div>
<p data-form-status role="status"></p>
<button type="submit" class="primary">Create page</button>
</form>
</section>`

export const render = (input: ListInput): Layout.Content => ({
  title: "Status pages",
  body: html`<div class="page-head"><h1>Status pages</h1></div>
<p class="muted">Your plan allows ${input.maxPages} status ${input.maxPages === 1 ? "page" : "pages"} across the account.</p>
${
  input.pages.length === 0
    ? html`<p>No status pages yet.</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Status pages">
<table>
<caption class="visually-hidden">Status pages of ${input.orgName}</caption>
<thead><tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">Public link</th>
<th scope="col">Custom domain</th><th scope="col">Access</th></tr></thead>
<tbody>
${input.pages.map((page) => row(page, input.held.has(page.id)))}
</tbody></table></div>`
}
${input.owner ? createForm : html`<p class="note">Only owners of ${input.orgName} can create or change status pages.</p>`}`
})
