/**
 * `GET /status-pages/<id>`: one status page's editor. Its settings (name, slug, published, language), its
 * components, branding and logo, access and custom domain, each a form of its own sending what it shows to the API
 * (`PATCH /api/v1/status-pages/{id}` and the component and logo endpoints), and the page's deletion. Someone who is
 * not an owner reads the same page; the API refuses their changes, and the page says so first.
 */
import * as PublicLocale from "@signalman/core/PublicLocale"
import type * as StatusPage from "@signalman/core/StatusPage"
import type { ViewerPage } from "../../statuspages/ViewerRecords.js"
import type * as Layout from "../Layout.js"
import { type Html, html } from "../Template.js"
import * as AccessEditor from "./AccessEditor.js"
import * as BrandingEditor from "./BrandingEditor.js"
import * as ComponentsEditor from "./ComponentsEditor.js"
import { type ComponentView, type Monitor, publicPath } from "./Describe.js"
import * as PageHead from "./PageHead.js"

export interface EditorInput {
  readonly page: StatusPage.StatusPage
  readonly components: ReadonlyArray<ComponentView>
  readonly addable: ReadonlyArray<Monitor>
  readonly anyMonitor: boolean
  readonly password: StatusPage.PasswordRecord
  readonly viewers: ViewerPage
  readonly owner: boolean
  readonly orgName: string
  readonly plan: {
    readonly customDomain: boolean
    readonly whiteLabel: boolean
    readonly privatePages: boolean
    readonly maxLogoBytes: number
  }
}

const localeNames: Readonly<Record<PublicLocale.PublicLocale, string>> = {
  en: "English",
  de: "Deutsch",
  fr: "Français",
  es: "Español",
  pt: "Português",
  it: "Italiano",
  nl: "Nederlands"
}

const settings = (page: StatusPage.StatusPage): Html => html`<section aria-labelledby="h-settings">
<h2 id="h-settings">Settings</h2>
<form data-api="/api/v1/status-pages/${page.id}" data-method="PATCH" data-reload method="post" action="/dashboard/js-required">
<div class="field"><label for="sp-name">Name</label>
<input id="sp-name" name="name" type="text" required maxlength="100" value="${page.name}"></div>
<div class="field"><label for="sp-slug">Slug</label>
<input id="sp-slug" name="slug" type="text" required maxlength="63" value="${page.slug}" aria-describedby="sp-slug-hint">
<p class="hint" id="sp-slug-hint">The page's address is ${publicPath(page.slug)}; a new slug moves it (the old
address stops working).</p></div>
<div class="field"><label class="inline"><input name="published" type="checkbox" data-type="boolean"${
  page.published ? html` checked` : ""
}> Published</label>
<p class="hint">A draft page is seen only here.</p></div>
<div class="field"><label for="sp-locale">Language of the page's own text</label>
<select id="sp-locale" name="public_locale">
${PublicLocale.locales.map(
  (l) => html`<option value="${l}"${page.public_locale === l ? html` selected` : ""}>${localeNames[l]}</option>`
)}
</select></div>
<p data-form-status role="status"></p>
<button type="submit" class="primary">Save settings</button>
</form>
</section>`

const domain = (page: StatusPage.StatusPage, allowed: boolean): Html => html`<section aria-labelledby="h-domain">
<h2 id="h-domain">Custom domain</h2>
<form data-api="/api/v1/status-pages/${page.id}" data-method="PATCH" data-reload method="post" action="/dashboard/js-required">
<div class="field"><label for="sp-domain">Domain</label>
<input id="sp-domain" name="custom_domain" type="text" maxlength="253" value="${page.custom_domain ?? ""}"
  placeholder="status.example.com" data-empty="null" autocomplete="off" aria-describedby="sp-domain-hint">
<p class="hint" id="sp-domain-hint">${
  allowed || page.custom_domain !== null
    ? "A host name such as status.example.com, pointed at Signalman with a CNAME record. Empty removes it."
    : "Custom domains are not part of your plan."
}</p></div>
<p data-form-status role="status"></p>
<button type="submit">Save domain</button>
</form>
</section>`

const danger = (page: StatusPage.StatusPage): Html => html`<section aria-labelledby="h-delete">
<h2 id="h-delete">Delete</h2>
<p>Deleting the page removes its components, logo, viewers and subscribers. Its address stops working at once.</p>
<button type="button" class="danger js-only" data-action="/api/v1/status-pages/${page.id}" data-method="DELETE"
  data-confirm="Delete ${page.name} for good?" data-redirect="/status-pages">Delete ${page.name}</button>
</section>`

export const render = (input: EditorInput): Layout.Content => {
  const { page } = input
  return {
    title: `${page.name} · Status pages`,
    body: html`${PageHead.render(page, "editor", page.name)}
${input.owner ? "" : html`<p class="note">Only owners of ${input.orgName} can change status pages: you can read this one.</p>`}
<div class="sp-editor">
${settings(page)}
${ComponentsEditor.render({
  pageId: page.id,
  components: input.components,
  addable: input.addable,
  anyMonitor: input.anyMonitor
})}
${BrandingEditor.render({
  page,
  components: input.components,
  whiteLabel: input.plan.whiteLabel,
  maxLogoBytes: input.plan.maxLogoBytes
})}
${AccessEditor.render({ page, password: input.password, viewers: input.viewers, privatePages: input.plan.privatePages })}
${domain(page, input.plan.customDomain)}
${danger(page)}
</div>`
  }
}
